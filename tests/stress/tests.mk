# Library stress (tests/stress): test_stress runs its scenarios in its
# own process (thread storms, profil from several threads, the
# application's own SIGPROF); test_stress_pg drives the -pg programs
# st-* (fork tree, exec chain, SIGDUMP storm, dlopen loop) and reads
# their files with gmon-dump.  check-stress runs both on the host with
# SPROFIL_BACKEND=signal and, as root, bpf; the VM runs them with kmod
# (tests/kmod/tests.mk copies them into the payload as stress-*/st-*).

ST_DIR := $(BUILD)/tests/stress
ST_PROGS := $(addprefix $(ST_DIR)/,st-forktree st-execchain st-sigdump \
	st-dlloop libst_dl.so)
ST_DRIVERS := $(ST_DIR)/test_stress $(ST_DIR)/test_stress_pg
ST_HDRS := tests/stress/st_pg.h tests/pg/pg_burn.h
# -rdynamic: the programs find their own functions' sizes (st_pg.h).
ST_PG_CFLAGS := $(PG_CFLAGS) -Itests/pg -rdynamic

$(ST_DIR)/test_stress: tests/stress/test_stress.c $(LT_COMMON)
	@mkdir -p $(ST_DIR)
	$(CC) $(CPPFLAGS) -Itests/common -Itests/lib $(CFLAGS) -rdynamic \
		-o $@ $< $(LT_COMMON_SRC) -L$(LIB_DIR) -L$(LT_DIR) -lsprofil \
		-llt_spin -Wl,-rpath,'$$ORIGIN:$$ORIGIN/../../lib:$$ORIGIN/../lib' \
		-lcmocka -ldl -lm -pthread

$(ST_DIR)/test_stress_pg: tests/stress/test_stress_pg.c tests/common/workload.c \
		tests/common/workload.h
	@mkdir -p $(ST_DIR)
	$(CC) $(CPPFLAGS) -Itests/common $(CFLAGS) -o $@ $< \
		tests/common/workload.c -lcmocka -ldl

$(ST_DIR)/st-%: tests/stress/st_%.c $(ST_HDRS) $(LIB_DIR)/libsprofil.so
	@mkdir -p $(ST_DIR)
	$(CC) $(ST_PG_CFLAGS) -o $@ $< $(PG_SPROFIL) -ldl -pthread

$(ST_DIR)/libst_dl.so: tests/stress/st_dllib.c $(ST_HDRS)
	@mkdir -p $(ST_DIR)
	$(CC) $(PG_CFLAGS) -Itests/pg -fPIC -shared -o $@ $<

.PHONY: stress-tests check-stress
stress-tests: $(ST_PROGS) $(ST_DRIVERS) $(BUILD)/gprof/gmon-dump \
	$(LT_DIR)/liblt_spin.so

# bpf needs root (CAP_BPF + CAP_PERFMON): elsewhere its TAP says why.
# STRESS_BACKENDS=signal make check-stress runs one.
STRESS_BACKENDS ?= signal bpf

check-stress: stress-tests
	@mkdir -p $(BUILD)/results
	@cd $(ST_DIR) || exit 1; status=0; \
	for backend in $(STRESS_BACKENDS); do \
		SPROFIL_BACKEND=$$backend $(abspath scripts/run-tap) \
			$(abspath $(BUILD)/results)/stress-$$backend.tap \
			$(notdir $(ST_DRIVERS)) || status=1; \
	done; exit $$status
