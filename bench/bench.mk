# Benchmarks (docs/contract.md, "Benchmarks"): not part of `make check`.
#
#   make bench    builds sprofil.ko and bench_sampling, boots them in the
#                 test VM (scripts/vm/run) and prints what the VM printed.
# Knobs passed to the guest: BENCH_SECONDS (CPU seconds of the loop per
# thread and run), BENCH_ROUNDS, BENCH_THREADS and BENCH_PERIODS_US (comma
# lists), e.g. make bench BENCH_ROUNDS=3.

BENCH_DIR := $(BUILD)/bench-payload
BENCH_VM := $(BUILD)/bench-vm
BENCH_TIMEOUT ?= 1200
BENCH_VARS := $(foreach v,BENCH_SECONDS BENCH_ROUNDS BENCH_THREADS \
	BENCH_PERIODS_US BENCH_PARTS,$(if $($(v)),$(v)=$($(v))))

.PHONY: bench-payload bench-lib
bench-payload: $(BENCH_DIR)/bench_sampling $(BENCH_DIR)/sprofil.ko \
	$(BENCH_DIR)/run $(BENCH_DIR)/bench_lib $(BENCH_DIR)/libsprofil.so.0 \
	$(BENCH_DIR)/sprofil/bpf-loader.so $(BENCH_DIR)/bench_true \
	$(BENCH_DIR)/sprofil-probe

# The start-up part (bench/run-in-vm): a process with the collector
# preloaded, on each backend, and the record run's bpf program server.
$(BENCH_DIR)/bench_true: bench/bench_true.c
	@mkdir -p $(BENCH_DIR)
	$(CC) $(CFLAGS) -o $@ $<

$(BENCH_DIR)/sprofil-probe: $(BUILD)/libexec/sprofil-probe
	@mkdir -p $(BENCH_DIR)
	cp $< $@

$(BENCH_DIR)/sprofil/bpf-loader.so: $(LIB_LOADER)
	@mkdir -p $(dir $@)
	cp $< $@

# libsprofil vs glibc's profil(); $ORIGIN finds libsprofil.so.0 next to
# it in the VM payload and in $(BUILD)/lib on the host.
$(BENCH_DIR)/bench_lib: bench/bench_lib.c $(LIB_DIR)/libsprofil.so
	@mkdir -p $(BENCH_DIR)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< -L$(LIB_DIR) -lsprofil \
		-Wl,-rpath,'$$ORIGIN:$$ORIGIN/../lib' -ldl -pthread

$(BENCH_DIR)/libsprofil.so.0: $(LIB_DIR)/libsprofil.so
	@mkdir -p $(BENCH_DIR)
	cp $< $@

# On the host (no module): the signal backend against glibc's profil().
bench-lib: $(BENCH_DIR)/bench_lib
	$(BENCH_DIR)/bench_lib -b signal

# On the host, as root: the bpf backend (and its per-CPU variant) against
# the signal backend, 250 Hz to 10 kHz, same run.
.PHONY: bench-bpf
bench-bpf: $(BENCH_DIR)/bench_lib $(BENCH_DIR)/libsprofil.so.0
	$(BENCH_DIR)/bench_lib -s 0.5 -r 5 -b bpf,bpf-percpu,signal \
		-z 250,1000,4000,10000

$(BENCH_DIR)/bench_sampling: bench/bench_sampling.c \
		include/uapi/linux/sprofil.h include/sprofil/mapping.h
	@mkdir -p $(BENCH_DIR)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< -pthread

$(BENCH_DIR)/sprofil.ko: $(BUILD)/kmod/sprofil.ko
	@mkdir -p $(BENCH_DIR)
	cp $< $@

$(BENCH_DIR)/run: bench/run-in-vm
	@mkdir -p $(BENCH_DIR)
	cp $< $@
	chmod +x $@

# scripts/vm/run fails the run if the payload exits non-zero or the
# kernel log has a splat; the results are printed either way.
bench: bench-payload
	@rc=0; SPROFIL_VM_APPEND="$(strip $(SPROFIL_VM_APPEND) $(BENCH_VARS))" \
		scripts/vm/run $(BENCH_DIR) $(BENCH_VM) $(BENCH_TIMEOUT) || rc=$$?; \
	echo "==== $(BENCH_VM)/results.txt ===="; \
	cat $(BENCH_VM)/results.txt; \
	exit $$rc

# mcount cost per call, libsprofil's runtime against glibc's, 1 and 4
# threads in one run (bench/bench_mcount.c), on the host with the signal
# backend.  Knobs: BENCH_ROUNDS (median of; default 5), BENCH_CALLS (calls
# per thread and run; default 20000000), BENCH_MCOUNT_BEFORE (an older
# libsprofil.so, run as one more variant for before/after).  The -pg builds keep sibling
# calls out for the same reason as tests/pg.
MCOUNT_DIR := $(BUILD)/bench-mcount
MCOUNT_PG := $(CPPFLAGS) $(CFLAGS) -pg -fno-optimize-sibling-calls
MCOUNT_BINS := $(addprefix $(MCOUNT_DIR)/,bench_mcount bench_mcount-glibc \
	bench_mcount-sprofil)

.PHONY: bench-mcount
$(MCOUNT_DIR)/bench_mcount: bench/bench_mcount.c
	@mkdir -p $(MCOUNT_DIR)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< -pthread

$(MCOUNT_DIR)/bench_mcount-glibc: bench/bench_mcount.c
	@mkdir -p $(MCOUNT_DIR)
	$(CC) $(MCOUNT_PG) -o $@ $< -pthread

$(MCOUNT_DIR)/bench_mcount-sprofil: bench/bench_mcount.c $(LIB_DIR)/libsprofil.so
	@mkdir -p $(MCOUNT_DIR)
	$(CC) $(MCOUNT_PG) -o $@ $< -L$(LIB_DIR) -lsprofil \
		-Wl,-rpath,'$$ORIGIN/../lib' -pthread

bench-mcount: $(MCOUNT_BINS)
	SPROFIL_BACKEND=signal \
		$(if $(BENCH_ROUNDS),BENCH_ROUNDS=$(BENCH_ROUNDS)) \
		$(if $(BENCH_CALLS),BENCH_CALLS=$(BENCH_CALLS)) \
		$(if $(BENCH_MCOUNT_BEFORE),BENCH_MCOUNT_BEFORE=$(BENCH_MCOUNT_BEFORE)) \
		$(MCOUNT_DIR)/bench_mcount

# The analyzer: build/gprof/gprof against GNU gprof, time and peak RSS on
# synthetic programs of 20000 and 200000 functions, with and without DWARF,
# same run (bench/gprof/run, results in bench/RESULTS.md).  The programs
# are cached under $(BUILD)/bench-gprof.  Knobs: BENCH_ROUNDS (best of;
# default 3), BENCH_GPROF_SKIP_SLOW=1 skips GNU's 4-minute stripped case.
.PHONY: bench-gprof
bench-gprof: $(GPROF_DIR)/gprof $(GPROF_DIR)/gmon-dump
	$(if $(BENCH_ROUNDS),BENCH_GPROF_ROUNDS=$(BENCH_ROUNDS)) \
		$(if $(BENCH_GPROF_SKIP_SLOW),BENCH_GPROF_SKIP_SLOW=$(BENCH_GPROF_SKIP_SLOW)) \
		bench/gprof/run

# sprofil diff of two profiles with 200000 functions each: time and peak
# RSS (bench/gprof/diff; BENCH_ROUNDS, BENCH_DIFF_FUNCS); the program is
# cached under $(BUILD)/bench-diff.
.PHONY: bench-diff
bench-diff: $(GPROF_DIR)/gprof $(BUILD)/tests/gprof/mkgmon
	GPROF=$(abspath $(GPROF_DIR)/gprof) \
		MKGMON=$(abspath $(BUILD)/tests/gprof/mkgmon) \
		BENCH_DIFF_DIR=$(abspath $(BUILD)/bench-diff) \
		$(if $(BENCH_ROUNDS),BENCH_ROUNDS=$(BENCH_ROUNDS)) \
		$(if $(BENCH_DIFF_FUNCS),BENCH_DIFF_FUNCS=$(BENCH_DIFF_FUNCS)) \
		bench/gprof/diff

# The signal backend's walk and filing of a caller chain, per sample, at
# depths 4, 16 and 64 (docs/callers.md), on the host.
.PHONY: bench-callers-walk
$(BENCH_DIR)/bench_callers_walk: bench/bench_callers_walk.c \
		include/sprofil/callers.h include/sprofil/mapping.h
	@mkdir -p $(BENCH_DIR)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fno-omit-frame-pointer -o $@ $< -pthread

bench-callers-walk: $(BENCH_DIR)/bench_callers_walk
	$(BENCH_DIR)/bench_callers_walk

# Caller sampling on bpf (docs/callers.md): per-sample cost of chains of
# depth 4, 16 and 64 against none, bpf_get_stack() against the program's
# own walk, and perf record --call-graph fp at the same rate.  As root.
$(BENCH_DIR)/bench_callers: bench/bench_callers.c $(LIB_DIR)/libsprofil.so \
		include/sprofil/callers.h
	@mkdir -p $(BENCH_DIR)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fno-omit-frame-pointer -fno-shrink-wrap \
		-fno-optimize-sibling-calls -o $@ $< -L$(LIB_DIR) -lsprofil \
		-lbpf -Wl,-rpath,'$$ORIGIN:$$ORIGIN/../lib' -pthread

# The unwind modes walk with the tables of the benchmark and its
# libraries, built here by sprofil-unwind.
.PHONY: bench-callers
bench-callers: $(BENCH_DIR)/bench_callers $(BENCH_DIR)/libsprofil.so.0 \
		$(BENCH_DIR)/sprofil/bpf-loader.so $(BUILD)/libexec/sprofil-unwind
	rm -rf $(BENCH_DIR)/unwind && mkdir -m 700 $(BENCH_DIR)/unwind
	$(BUILD)/libexec/sprofil-unwind -O $(BENCH_DIR)/unwind \
		$(BENCH_DIR)/bench_callers $$(ldd $(BENCH_DIR)/bench_callers | \
		awk '$$2 == "=>" && $$3 ~ /^\// { print $$3 } \
		     $$1 ~ /^\/.*ld-linux/ { print $$1 }') >/dev/null
	BENCH_UNWIND_DIR=$(abspath $(BENCH_DIR)/unwind) \
		$(BENCH_DIR)/bench_callers -s 2 -r 3 -z 10000

# Process trees under `sprofil record` against `perf record -g`: a C
# build, 1000 /bin/true, python3 behind a bash shim, one long process
# (bench/record/trees; BENCH_ROUNDS, BENCH_BACKENDS, BENCH_TRUES).
.PHONY: bench-trees
bench-trees: cli lib
	SPROFIL=$(abspath $(CLI_BIN)) BENCH_SRC=$(abspath .) bench/record/trees

# The combined report of a recorded tree of 1000 processes, `sprofil
# report DIR/`: time and peak memory (bench/record/combined; BENCH_ROUNDS,
# BENCH_PROCS).
.PHONY: bench-combined
bench-combined: cli lib
	SPROFIL=$(abspath $(CLI_BIN)) \
		$(if $(BENCH_ROUNDS),BENCH_ROUNDS=$(BENCH_ROUNDS)) \
		$(if $(BENCH_PROCS),BENCH_PROCS=$(BENCH_PROCS)) \
		bench/record/combined

# `sprofil record` against `perf record` on unmodified xz and python3:
# slowdown at 1 and 4 kHz, with and without call chains, and the size of
# the files each writes (bench/record/run; BENCH_ROUNDS, BENCH_BACKEND).
.PHONY: bench-record
bench-record: cli lib
	SPROFIL=$(abspath $(CLI_BIN)) \
		$(if $(BENCH_ROUNDS),BENCH_ROUNDS=$(BENCH_ROUNDS)) \
		bench/record/run

# Call chains without frame pointers (issue 21): sprofil record with
# unwind tables on bpf and signal, and bpf with frame pointers only,
# against perf record --call-graph fp and dwarf, at 1000 Hz on cli-unwind
# and Debian's python3: CPU, wall, bytes written and chain completeness
# (bench/unwind/run; BENCH_ROUNDS, BENCH_UNWIND_ROUNDS).  As root.
.PHONY: bench-unwind
bench-unwind: cli lib $(BUILD)/tests/cli/cli-unwind
	SPROFIL=$(abspath $(CLI_BIN)) \
		CLI_UNWIND=$(abspath $(BUILD)/tests/cli/cli-unwind) \
		$(if $(BENCH_ROUNDS),BENCH_ROUNDS=$(BENCH_ROUNDS)) \
		$(if $(BENCH_UNWIND_ROUNDS),BENCH_UNWIND_ROUNDS=$(BENCH_UNWIND_ROUNDS)) \
		$(if $(BENCH_UNWIND_PROGS),BENCH_UNWIND_PROGS="$(BENCH_UNWIND_PROGS)") \
		bench/unwind/run
