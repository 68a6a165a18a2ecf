# The sprofil command against unmodified programs (docs/record.md):
# tests/cli/run-cli, a TAP script, once per host backend: signal, and
# bpf (its tests are skipped where this user may not load BPF); and
# tests/cli/run-readme, README.md's commands and programs as written;
# tests/cli/run-tree, the combined report of recorded process trees.

CT_DIR := $(BUILD)/tests/cli
CT_PROGS := $(addprefix $(CT_DIR)/,cli-chains cli-chains-pg cli-tree \
	cli-leaf cli-plt cli-static cli-vdso cli-qsort cli-calls-pg \
	cli-threads cli-getenv cli-quick cli-attach cli-static-pg \
	cli-static-pie-pg cli-vdso-static cli-unwind cli-unwind-static cli-faults \
	cli-faults-static cli-naps)
# Frame records in every function, no sibling calls: chains are exact.
CT_CFLAGS := $(CPPFLAGS) $(CFLAGS) -fno-omit-frame-pointer \
	-fno-optimize-sibling-calls

$(CT_DIR)/cli-%: tests/cli/cli_%.c tests/cli/cli_burn.h
	@mkdir -p $(CT_DIR)
	$(CC) $(CT_CFLAGS) -o $@ $<

# A -pg program (glibc's gcrt1.o; libsprofil's mcount when preloaded).
$(CT_DIR)/cli-chains-pg: tests/cli/cli_chains.c tests/cli/cli_burn.h
	@mkdir -p $(CT_DIR)
	$(CC) $(CT_CFLAGS) -pg -o $@ $<

# Many calls: mcount's share is the profiler overhead of run-cli.
$(CT_DIR)/cli-calls-pg: tests/cli/cli_calls.c tests/cli/cli_burn.h
	@mkdir -p $(CT_DIR)
	$(CC) $(CT_CFLAGS) -pg -o $@ $<

# Without frame pointers, as GCC builds at -O2: chains need unwind tables.
$(CT_DIR)/cli-unwind: tests/cli/cli_unwind.c tests/cli/cli_burn.h
	@mkdir -p $(CT_DIR)
	$(CC) $(CPPFLAGS) $(CFLAGS) -O2 -fomit-frame-pointer -o $@ $<

# The same, static: sampled from outside, with its own unwind table.
$(CT_DIR)/cli-unwind-static: tests/cli/cli_unwind.c tests/cli/cli_burn.h
	@mkdir -p $(CT_DIR)
	$(CC) $(CPPFLAGS) $(CFLAGS) -O2 -fomit-frame-pointer -static -o $@ $<

$(CT_DIR)/cli-threads: tests/cli/cli_threads.c tests/cli/cli_burn.h
	@mkdir -p $(CT_DIR)
	$(CC) $(CT_CFLAGS) -pthread -o $@ $<

$(CT_DIR)/cli-attach: tests/cli/cli_attach.c tests/cli/cli_burn.h
	@mkdir -p $(CT_DIR)
	$(CC) $(CT_CFLAGS) -pthread -o $@ $<

# Its own getenv() must be the one every library calls: exported.
$(CT_DIR)/cli-getenv: tests/cli/cli_getenv.c tests/cli/cli_burn.h
	@mkdir -p $(CT_DIR)
	$(CC) $(CT_CFLAGS) -rdynamic -o $@ $<

$(CT_DIR)/cli-plt: tests/cli/cli_plt.c
	@mkdir -p $(CT_DIR)
	$(CC) $(CT_CFLAGS) -fno-builtin -Wl,-z,lazy -o $@ $<

$(CT_DIR)/cli-static: tests/cli/cli_static.c tests/cli/cli_burn.h
	@mkdir -p $(CT_DIR)
	$(CC) $(CT_CFLAGS) -static -o $@ $<

# Static and -pg: glibc's own runtime counts the calls, record samples.
$(CT_DIR)/cli-static-pg: tests/cli/cli_chains.c tests/cli/cli_burn.h
	@mkdir -p $(CT_DIR)
	$(CC) $(CT_CFLAGS) -pg -static -o $@ $<

# Page faults of a static program, sampled from outside (run-events).
$(CT_DIR)/cli-faults-static: tests/cli/cli_faults.c tests/cli/cli_burn.h
	@mkdir -p $(CT_DIR)
	$(CC) $(CT_CFLAGS) -static -o $@ $<

# A static program's vDSO, sampled from outside.
$(CT_DIR)/cli-vdso-static: tests/cli/cli_vdso.c
	@mkdir -p $(CT_DIR)
	$(CC) $(CT_CFLAGS) -static -o $@ $<

# The same, static-pie: glibc writes its arcs at link-time addresses.
$(CT_DIR)/cli-static-pie-pg: tests/cli/cli_chains.c tests/cli/cli_burn.h
	@mkdir -p $(CT_DIR)
	$(CC) $(CT_CFLAGS) -pg -static-pie -o $@ $<

.PHONY: cli-tests check-cli
cli-tests: cli $(CT_PROGS)

check-cli: cli-tests
	@mkdir -p $(BUILD)/results
	-@CT_BIN=$(abspath $(CT_DIR)) SPROFIL=$(abspath $(CLI_BIN)) \
		CT_ROOT=$(abspath .) CT_BACKEND=signal $(abspath scripts/run-tap) \
		$(abspath $(BUILD)/results/cli-signal.tap) \
		$(abspath tests/cli/run-cli)
	-@CT_BIN=$(abspath $(CT_DIR)) SPROFIL=$(abspath $(CLI_BIN)) \
		CT_ROOT=$(abspath .) CT_BACKEND=bpf $(abspath scripts/run-tap) \
		$(abspath $(BUILD)/results/cli-bpf.tap) \
		$(abspath tests/cli/run-cli)
	-@for b in signal bpf; do \
		CT_BIN=$(abspath $(CT_DIR)) SPROFIL=$(abspath $(CLI_BIN)) \
		CT_BACKEND=$$b $(abspath scripts/run-tap) \
		$(abspath $(BUILD)/results)/cli-events-$$b.tap \
		$(abspath tests/cli/run-events); done
	-@CT_BIN=$(abspath $(CT_DIR)) SPROFIL=$(abspath $(CLI_BIN)) \
		$(abspath scripts/run-tap) \
		$(abspath $(BUILD)/results/cli-tree.tap) \
		$(abspath tests/cli/run-tree)
	@CT_BIN=$(abspath $(CT_DIR)) CT_ROOT=$(abspath .) \
		$(abspath scripts/run-tap) \
		$(abspath $(BUILD)/results/cli-readme.tap) \
		$(abspath tests/cli/run-readme)
