# Benchmarks (DESIGN.md section 6): not part of `make check`.
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
	BENCH_PERIODS_US,$(if $($(v)),$(v)=$($(v))))

.PHONY: bench-payload bench-lib
bench-payload: $(BENCH_DIR)/bench_sampling $(BENCH_DIR)/sprofil.ko \
	$(BENCH_DIR)/run $(BENCH_DIR)/bench_lib $(BENCH_DIR)/libsprofil.so.0

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
