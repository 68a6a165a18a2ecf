# sprofil top-level build.  Everything built goes under $(BUILD); the source
# tree stays clean.  `make check` ends with "N passed, N failed".

BUILD ?= build
# The kernel the VM boots and the module is built for (scripts/default-kernel).
KVER ?= $(shell scripts/default-kernel)
KDIR ?= /lib/modules/$(KVER)/build

# The one version number of the project (the library, the tools, the
# module, sprofil.pc, the DKMS tree); not VERSION, which kbuild uses for
# the kernel's own.
SPROFIL_VERSION := $(shell cat VERSION)

CC ?= cc
CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE
CPPFLAGS += -Iinclude/uapi -Iinclude
# Every build of the tools (plain, ASan, fuzz) says the same version.
CPPFLAGS += -DSPROFIL_VERSION='"$(SPROFIL_VERSION)"'
# LDFLAGS (none by default) goes to the links of what is installed, so
# that a distribution's hardening flags (-z relro -z now) reach them.

# Jobs for make check's build steps (`all`, the sanitizer builds, the
# analyzer's test builds), one per CPU: each runs alone, before the
# tests that need it, so no test ever shares the CPU with a compiler.
BUILD_JOBS ?= $(shell nproc 2>/dev/null || echo 1)

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/unit/%)

.PHONY: all deps kmod lib unit cli check check-mcount check-install check-unit check-vm check-style demo bench clean
.PHONY: check-vm-matrix debug-kernel
.DEFAULT_GOAL := all

all: kmod lib lib-tests bpf-tests unit unwind cli vm-payload

deps:
	@scripts/install-deps

# ---- kernel module (kbuild, out of tree; objects are copied to $(BUILD)) ----
kmod: $(BUILD)/kmod/sprofil.ko

$(BUILD)/kmod/sprofil.ko: $(wildcard kmod/*.c kmod/*.h kmod/Kbuild) VERSION \
		include/uapi/linux/sprofil.h include/sprofil/mapping.h \
		include/sprofil/callers.h include/sprofil/unwind_table.h \
		include/sprofil/events.h
	@mkdir -p $(BUILD)/kmod
	cp kmod/*.c kmod/*.h kmod/Kbuild $(BUILD)/kmod/ 2>/dev/null || true
	$(MAKE) -C $(KDIR) M=$(abspath $(BUILD)/kmod) \
		SPROFIL_INC=$(abspath include) \
		SPROFIL_VERSION=$(SPROFIL_VERSION) modules

# ---- host unit tests (cmocka) ----
unit: $(UNIT_BINS)

$(BUILD)/tests/unit/%: tests/unit/%.c $(wildcard include/*/*.h include/uapi/linux/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< -lcmocka

# The library's settings copy, compiled in: it copies this program's environment.
$(BUILD)/tests/unit/test_settings: tests/unit/test_settings.c \
		libsprofil/common/settings.c libsprofil/common/settings.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Ilibsprofil $(CFLAGS) -o $@ $< \
		libsprofil/common/settings.c -lcmocka -pthread

include libsprofil/libsprofil.mk
include unwind/unwind.mk
include tests/lib/tests.mk
include tests/bpf/tests.mk
include gprof/gprof.mk
include tests/gprof/tests.mk
include tests/pg/tests.mk
include tests/stress/tests.mk
include tests/stress/sanitize.mk
include tests/kmod/tests.mk
include bench/bench.mk
include cli/cli.mk
include demo/demo.mk
include tests/cli/tests.mk
include install.mk
include tests/install/tests.mk

check-unit: unit
	@mkdir -p $(BUILD)/results
	@scripts/run-tap $(BUILD)/results/unit.tap $(UNIT_BINS) \
		$(abspath tests/scripts/test_tap_summary) \
		$(abspath tests/scripts/test_gprof_layers) \
		$(abspath tests/scripts/test_shell_syntax)

check-mcount: lib
	@mkdir -p $(BUILD)/results
	@scripts/check-mcount $(BUILD)/results/mcount.tap \
		$(BUILD)/libsprofil/pg/mcount.o

check-vm: vm-payload
	@mkdir -p $(BUILD)/results
	@SPROFIL_VM_KERNEL=/boot/vmlinuz-$(KVER) \
		scripts/vm/run-tests $(BUILD)/vm-payload $(BUILD)/vm $(BUILD)/results/vm.tap

# The VM suite on every kernel of the matrix (docs/testing.md), or on
# VM_KERNELS="6.12 ..." only; results in $(BUILD)/results/vm-KERNEL.tap.
# The debug kernel starts first (run-matrix), then the others longest
# first: 6.1 (the whole lib suite twice), 6.1-rt, 6.12.
VM_KERNELS ?= 6.1 6.1-rt 6.12 6.1-debug
# Named in `make check`'s summary even if missing (a run that never wrote
# its results fails), and in this order.
VM_TAPS = $(VM_KERNELS:%=$(BUILD)/results/vm-%.tap)
check-vm-matrix: vm-payload
	@mkdir -p $(BUILD)/results
	-@scripts/vm/run-matrix $(BUILD) $(VM_KERNELS)

# The debug 6.1 kernel of the matrix, cached outside the tree (~45 min once).
debug-kernel:
	@scripts/vm/build-debug-kernel

check-style:
	@mkdir -p $(BUILD)/results
	@scripts/checkpatch-tap $(BUILD)/results/style.tap kmod/*.c kmod/*.h \
		include/uapi/linux/sprofil.h include/sprofil/mapping.h \
		include/sprofil/callers.h include/sprofil/unwind_table.h \
		include/sprofil/events.h

# The summary says how long it all took, deps included: the stamp is
# taken before them; and, before it, how long each target took.
CHECK_TIMES = $(BUILD)/check-times
TIMED = scripts/timed $(CHECK_TIMES)
check:
	@mkdir -p $(BUILD) && date +%s >$(BUILD)/check-start
	@scripts/install-deps
	@rm -rf $(BUILD)/results $(CHECK_TIMES)
	@$(TIMED) build $(MAKE) --no-print-directory -j$(BUILD_JOBS) all
	-@$(TIMED) check-unit $(MAKE) --no-print-directory check-unit
	-@$(TIMED) check-lib $(MAKE) --no-print-directory check-lib
	-@$(TIMED) check-bpf $(MAKE) --no-print-directory check-bpf
	-@$(TIMED) check-pg $(MAKE) --no-print-directory check-pg
	-@$(TIMED) check-stress $(MAKE) --no-print-directory check-stress
	-@$(TIMED) check-asan $(MAKE) --no-print-directory check-asan
	-@$(TIMED) check-tsan $(MAKE) --no-print-directory check-tsan
	-@$(TIMED) check-gprof $(MAKE) --no-print-directory check-gprof
	-@$(TIMED) check-cli $(MAKE) --no-print-directory check-cli
	-@$(TIMED) check-install $(MAKE) --no-print-directory check-install
	-@$(TIMED) check-dkms-vm $(MAKE) --no-print-directory check-dkms-vm
	-@$(TIMED) check-style $(MAKE) --no-print-directory check-style
	-@$(TIMED) check-mcount $(MAKE) --no-print-directory check-mcount
	-@$(TIMED) check-vm-matrix $(MAKE) --no-print-directory check-vm-matrix
	@sort -k2 -rn $(CHECK_TIMES) | awk '{ t = t sep $$1 " " $$2 " s"; sep = ", " } \
		END { print "time by target: " t }'
	@scripts/tap-summary \
		--took=$$(($$(date +%s) - $$(cat $(BUILD)/check-start))) \
		$$(for f in $(BUILD)/results/*.tap; do \
		case " $(VM_TAPS) " in *" $$f "*) ;; *) echo "$$f" ;; esac; \
		done) $(VM_TAPS)

demo: deps
	@$(MAKE) --no-print-directory kmod demo-payload
	@scripts/demo $(BUILD) /boot/vmlinuz-$(KVER)

clean:
	rm -rf $(BUILD)
