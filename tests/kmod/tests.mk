# In-VM tests of sprofil.ko: everything the VM needs goes to $(KT_DIR),
# which scripts/vm/run packs into the initramfs as /payload.

KT_DIR := $(BUILD)/vm-payload
KT_TESTS := $(patsubst tests/kmod/%.c,$(KT_DIR)/%,$(wildcard tests/kmod/test_*.c))
KT_HELPERS := $(patsubst tests/kmod/%.c,$(KT_DIR)/%,$(wildcard tests/kmod/helper_*.c))
KT_LIBS := -L$(KT_DIR) -lkt_spin -Wl,-rpath,'$$ORIGIN' -lcmocka -ldl -lm -pthread
KT_SRC := tests/kmod/kmod_test.c tests/common/workload.c tests/kmod/kt_callers.c
KT_COMMON := $(KT_SRC) tests/kmod/kmod_test.h tests/common/workload.h \
	$(KT_DIR)/libkt_spin.so include/uapi/linux/sprofil.h \
	include/sprofil/mapping.h tests/kmod/kt_callers.h \
	include/sprofil/callers.h

# The caller-sampling tests walk their own frames as the module does.
$(KT_DIR)/test_callers $(KT_DIR)/test_callers_hostile $(KT_DIR)/helper_callers_cost \
	$(KT_DIR)/test_outside: CFLAGS += -fno-omit-frame-pointer

# libsprofil's suite runs in the VM too, on the kmod and bpf backends,
# and so does the bpf backend's own test (as bpf-test_bpf).
KT_LIB_COPIES := $(patsubst $(LT_DIR)/%,$(KT_DIR)/lib-%,$(LT_TESTS) $(LT_HELPERS))
# So does the -pg runtime's (tests/pg): its programs keep their pg-* names.
KT_PG_COPIES := $(patsubst $(PG_DIR)/%,$(KT_DIR)/%,$(PG_PROGS)) \
	$(KT_DIR)/gmon-dump \
	$(KT_DIR)/pg-test_pg

.PHONY: vm-payload
vm-payload: $(KT_TESTS) $(KT_HELPERS) $(KT_DIR)/sprofil.ko $(KT_DIR)/run \
	$(KT_LIB_COPIES) $(KT_PG_COPIES) $(KT_DIR)/libsprofil.so.0 \
	$(KT_DIR)/sprofil/bpf-loader.so $(KT_DIR)/sprofil-probe \
	$(KT_DIR)/liblt_spin.so $(KT_DIR)/gprof $(KT_DIR)/bpf-test_bpf \
	$(KT_DIR)/sprofil-unwind

# The unwind table builder (libdw's, with its libraries: build-initramfs
# copies what ldd names), run by lib-test_unwind in the guest.
$(KT_DIR)/sprofil-unwind: $(UNWIND_TOOL)
	@mkdir -p $(KT_DIR)
	cp $< $@

$(KT_DIR)/bpf-test_bpf: $(BT_DIR)/test_bpf
	@mkdir -p $(KT_DIR)
	cp $< $@

# GNU gprof reads back the profiles test_monitor writes.
$(KT_DIR)/gprof: $(shell command -v gprof)
	@mkdir -p $(KT_DIR)
	cp -L $< $@

$(KT_DIR)/lib-%: $(LT_DIR)/%
	@mkdir -p $(KT_DIR)
	cp $< $@

$(KT_DIR)/pg-test_pg: $(PG_DRIVER)
	@mkdir -p $(KT_DIR)
	cp $< $@

$(KT_DIR)/pg-%: $(PG_DIR)/pg-%
	@mkdir -p $(KT_DIR)
	cp $< $@

# The -pg libraries (beside their programs) and the profile reader.
$(KT_DIR)/libpg%.so: $(PG_DIR)/libpg%.so
	@mkdir -p $(KT_DIR)
	cp $< $@

$(KT_DIR)/gmon-dump: $(BUILD)/gprof/gmon-dump
	@mkdir -p $(KT_DIR)
	cp $< $@

$(KT_DIR)/libsprofil.so.0: $(LIB_DIR)/libsprofil.so
	@mkdir -p $(KT_DIR)
	cp $< $@

# The bpf program server the lib suite on bpf shares (run-in-vm).
$(KT_DIR)/sprofil-probe: $(BUILD)/libexec/sprofil-probe
	@mkdir -p $(KT_DIR)
	cp $< $@

# libsprofil.so opens its bpf loader from beside itself.
$(KT_DIR)/sprofil/bpf-loader.so: $(LIB_LOADER)
	@mkdir -p $(dir $@)
	cp $< $@

$(KT_DIR)/liblt_spin.so: $(LT_DIR)/liblt_spin.so
	@mkdir -p $(KT_DIR)
	cp $< $@

$(KT_DIR)/libkt_spin.so: tests/kmod/libkt_spin.c
	@mkdir -p $(KT_DIR)
	$(CC) $(CPPFLAGS) $(CFLAGS) -shared -fPIC -o $@ $<

# The module's walk against the header's in userland, on code without
# frame pointers; the tables are the payload builder's.
$(KT_DIR)/test_unwind_oracle: tests/kmod/test_unwind_oracle.c $(KT_COMMON) \
		tests/common/unwind_tables.c tests/common/unwind_tables.h \
		include/sprofil/unwind_table.h
	$(CC) $(CPPFLAGS) -Itests/common $(CFLAGS) -fomit-frame-pointer \
		-fno-optimize-sibling-calls -rdynamic -o $@ $< $(KT_SRC) \
		tests/common/unwind_tables.c $(KT_LIBS)

$(KT_DIR)/test_%: tests/kmod/test_%.c $(KT_COMMON)
	$(CC) $(CPPFLAGS) -Itests/common $(CFLAGS) -rdynamic -o $@ $< $(KT_SRC) $(KT_LIBS)

$(KT_DIR)/helper_%: tests/kmod/helper_%.c $(KT_COMMON)
	$(CC) $(CPPFLAGS) -Itests/common $(CFLAGS) -rdynamic -o $@ $< $(KT_SRC) $(KT_LIBS)

# test_outside profiles a statically linked program from outside.
vm-payload: $(KT_DIR)/static_spin

$(KT_DIR)/static_spin: tests/kmod/static_spin.c
	@mkdir -p $(KT_DIR)
	$(CC) $(CPPFLAGS) $(CFLAGS) -static -o $@ $<

# `sprofil record` on the module (record-in-vm): the command with its
# library, helpers and analyzer in the layout it finds them by
# (cli/locate.c), and three programs of the cli suite: a static one and
# one to attach to, sampled from outside, and one that faults on fresh
# pages (page faults counted by the module).
KT_REC := $(KT_DIR)/rec
KT_REC_FILES := $(KT_REC)/bin/sprofil $(KT_REC)/lib/libsprofil.so.0 \
	$(KT_REC)/libexec/sprofil-probe $(KT_REC)/libexec/sprofil-outside \
	$(KT_REC)/libexec/sprofil-unwind $(KT_REC)/gprof/gprof $(KT_REC)/cli-static $(KT_REC)/cli-attach \
	$(KT_REC)/cli-faults $(KT_REC)/cli-unwind $(KT_REC)/cli-unwind-static \
	$(KT_DIR)/record-in-vm

vm-payload: $(KT_REC_FILES)

# (cli/cli.mk and tests/cli/tests.mk come later: their paths, as such.)
$(KT_REC)/bin/sprofil: $(BUILD)/bin/sprofil
$(KT_REC)/lib/libsprofil.so.0: $(LIB_DIR)/libsprofil.so
$(KT_REC)/libexec/sprofil-probe: $(BUILD)/libexec/sprofil-probe
$(KT_REC)/libexec/sprofil-outside: $(BUILD)/libexec/sprofil-outside
$(KT_REC)/libexec/sprofil-unwind: $(UNWIND_TOOL)
$(KT_REC)/gprof/gprof: $(GPROF_DIR)/gprof
$(KT_REC)/cli-static: $(BUILD)/tests/cli/cli-static
$(KT_REC)/cli-attach: $(BUILD)/tests/cli/cli-attach
$(KT_REC)/cli-faults: $(BUILD)/tests/cli/cli-faults
$(KT_REC)/cli-unwind: $(BUILD)/tests/cli/cli-unwind
$(KT_REC)/cli-unwind-static: $(BUILD)/tests/cli/cli-unwind-static
$(KT_DIR)/record-in-vm: tests/kmod/record-in-vm
$(KT_REC_FILES):
	@mkdir -p $(dir $@)
	cp $< $@

$(KT_DIR)/sprofil.ko: $(BUILD)/kmod/sprofil.ko
	@mkdir -p $(KT_DIR)
	cp $< $@

$(KT_DIR)/run: tests/kmod/run-in-vm
	@mkdir -p $(KT_DIR)
	cp $< $@

# The module under attack (issue 10, item 4): attack_*.c programs with the
# shared at_*.c helpers; fuse.ko of the kernel they run on goes beside
# them (as fuse-<release>.ko) where Debian builds FUSE as a module.
AT_SRC := tests/kmod/at_lib.c tests/kmod/at_fuse.c
AT_PROGS := $(patsubst tests/kmod/%.c,$(KT_DIR)/%,$(wildcard tests/kmod/attack_*.c))
AT_FUSE_DIR := /lib/modules/$(KVER)/kernel/fs/fuse
AT_FUSE_KO := $(firstword $(wildcard $(AT_FUSE_DIR)/fuse.ko \
	$(AT_FUSE_DIR)/fuse.ko.xz $(AT_FUSE_DIR)/fuse.ko.zst))

vm-payload: $(AT_PROGS) $(if $(AT_FUSE_KO),$(KT_DIR)/fuse-$(KVER).ko)

$(KT_DIR)/attack_%: tests/kmod/attack_%.c $(AT_SRC) tests/kmod/at.h $(KT_COMMON)
	$(CC) $(CPPFLAGS) -Itests/common $(CFLAGS) -rdynamic -o $@ $< $(AT_SRC) $(KT_SRC) $(KT_LIBS)

# busybox insmod takes plain .ko files only.
$(KT_DIR)/fuse-$(KVER).ko: $(AT_FUSE_KO)
	@mkdir -p $(KT_DIR)
	case $< in \
	*.xz) xz -dc $< >$@ ;; \
	*.zst) zstd -dcq $< >$@ ;; \
	*) cp $< $@ ;; \
	esac

# The library stress suite (tests/stress) in the VM, with kmod: its
# drivers as stress-*, its -pg programs and library under their names.
KT_STRESS_COPIES := $(KT_DIR)/stress-test_stress $(KT_DIR)/stress-test_stress_pg \
	$(patsubst $(ST_DIR)/%,$(KT_DIR)/%,$(ST_PROGS))

vm-payload: $(KT_STRESS_COPIES)

$(KT_DIR)/stress-%: $(ST_DIR)/%
	@mkdir -p $(KT_DIR)
	cp $< $@

$(KT_DIR)/st-%: $(ST_DIR)/st-%
	@mkdir -p $(KT_DIR)
	cp $< $@

$(KT_DIR)/libst_dl.so: $(ST_DIR)/libst_dl.so
	@mkdir -p $(KT_DIR)
	cp $< $@
