# The gcc -pg runtime of libsprofil: small -pg programs and one cmocka
# driver (test_pg) that runs them and reads their profiles with GNU gprof.
# check-pg runs it on the host with SPROFIL_BACKEND=signal; the programs
# and the driver are also copied into the VM payload as pg-* and run there
# with SPROFIL_BACKEND=kmod (the VM has no compiler).

PG_DIR := $(BUILD)/tests/pg
# Linked statically with libsprofil.a (-static, -static-pie), run by
# pg-test_pg_static on each backend (docs/backends.md, "Static programs").
PG_STATIC_NAMES := pg-shape-static pg-shape-static-pie pg-threads-static \
	pg-tburn-static pg-fork-static pg-exec-static pg-sigdump-static
PG_STATIC_DRIVER := $(PG_DIR)/pg-test_pg_static
PG_STATIC_ALL := $(PG_STATIC_NAMES) pg-test_pg_static
# A sanitizer's runtime cannot be linked statically: the sanitized builds
# (tests/stress/run-sanitized: -fsanitize in CC) leave them out.
ifneq ($(findstring -fsanitize,$(CC) $(CFLAGS)),)
PG_STATIC_ALL :=
endif
# Every program the driver runs; they sit next to it, here and in the VM.
PG_PROGS := $(addprefix $(PG_DIR)/,pg-shape pg-shape-fentry pg-shape-glibc \
	pg-threads pg-threads-glibc pg-fork pg-exec pg-exec-glibc pg-cpu \
	pg-sigdump pg-smonitor pg-modmain pg-modmain-glibc pg-dlmod libpgmod.so \
	pg-manyarcs pg-manyarcs-glibc pg-sigfork libpgearly.so pg-dlloop \
	pg-arclib libpgarcs.so pg-callers pg-callers-mod pg-callers-fp pg-test_pg_callers \
	$(PG_STATIC_ALL)) \
	$(BUILD)/gprof/gmon-dump $(BUILD)/gprof/gprof
PG_DRIVER := $(PG_DIR)/test_pg
PG_HDRS := tests/pg/pg_burn.h tests/pg/pg_manyarcs.h
# A sibling call (jmp) leaves the caller's caller as the call's from-pc,
# so gprof would credit the call to it: no exact arcs without this.
PG_CFLAGS := $(CPPFLAGS) $(CFLAGS) -pg -fno-optimize-sibling-calls
# $ORIGIN finds libsprofil.so.0 both here and in the VM payload.
PG_SPROFIL := -L$(LIB_DIR) -lsprofil -Wl,-rpath,'$$ORIGIN:$$ORIGIN/../../lib'

# libsprofil's runtime: gcrt1.o's __monstartup and every mcount call
# resolve to libsprofil, which comes before libc on the link line.
$(PG_DIR)/pg-%: tests/pg/pg_%.c $(PG_HDRS) $(LIB_DIR)/libsprofil.so
	@mkdir -p $(PG_DIR)
	$(CC) $(PG_CFLAGS) -o $@ $< $(PG_SPROFIL) -pthread

$(PG_DIR)/pg-shape-fentry: tests/pg/pg_shape.c $(PG_HDRS) $(LIB_DIR)/libsprofil.so
	@mkdir -p $(PG_DIR)
	$(CC) $(PG_CFLAGS) -mfentry -o $@ $< $(PG_SPROFIL)

# libsprofil.a's runtime in a program without a dynamic loader.
PG_STATIC_LIBS := -L$(LIB_DIR) -lsprofil $(LIB_LDLIBS)

$(PG_DIR)/pg-%-static: tests/pg/pg_%.c $(PG_HDRS) $(LIB_DIR)/libsprofil.a
	@mkdir -p $(PG_DIR)
	$(CC) $(PG_CFLAGS) -static -o $@ $< $(PG_STATIC_LIBS)

$(PG_DIR)/pg-shape-static-pie: tests/pg/pg_shape.c $(PG_HDRS) $(LIB_DIR)/libsprofil.a
	@mkdir -p $(PG_DIR)
	$(CC) $(PG_CFLAGS) -fPIE -static-pie -o $@ $< $(PG_STATIC_LIBS)

# glibc's own runtime: for LD_PRELOAD=libsprofil.so and for contrast.
$(PG_DIR)/pg-%-glibc: tests/pg/pg_%.c $(PG_HDRS)
	@mkdir -p $(PG_DIR)
	$(CC) $(PG_CFLAGS) -o $@ $< -pthread

# Not profiled: what pg-exec execs.
$(PG_DIR)/pg-cpu: tests/pg/pg_cpu.c $(PG_HDRS)
	@mkdir -p $(PG_DIR)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $<

# A -pg shared library (LD_PROFILE, dlopen): pg-modmain is linked with
# it, pg-dlmod dlopen()s it; pg-modmain-glibc shows what glibc loses.
# (--no-as-needed: the reference to it is weak, for pg-dlmod.)
$(PG_DIR)/libpgmod.so: tests/pg/pg_mod.c $(PG_HDRS)
	@mkdir -p $(PG_DIR)
	$(CC) $(PG_CFLAGS) -fPIC -shared -o $@ $<

$(PG_DIR)/pg-modmain: tests/pg/pg_modmain.c $(PG_DIR)/libpgmod.so $(LIB_DIR)/libsprofil.so
	$(CC) $(PG_CFLAGS) -o $@ $< -L$(PG_DIR) -Wl,--no-as-needed -lpgmod -Wl,--as-needed $(PG_SPROFIL) -ldl

$(PG_DIR)/pg-modmain-glibc: tests/pg/pg_modmain.c $(PG_DIR)/libpgmod.so
	$(CC) $(PG_CFLAGS) -o $@ $< -L$(PG_DIR) -Wl,--no-as-needed -lpgmod -Wl,--as-needed -Wl,-rpath,'$$ORIGIN' -ldl

$(PG_DIR)/pg-dlmod: tests/pg/pg_modmain.c $(PG_HDRS) $(LIB_DIR)/libsprofil.so
	$(CC) $(PG_CFLAGS) -o $@ $< $(PG_SPROFIL) -ldl

# A -pg library linked after libsprofil, so that the loader runs its
# _init (which calls __gmon_start__) before libsprofil's constructors.
$(PG_DIR)/libpgearly.so: tests/pg/pg_early.c $(PG_HDRS)
	@mkdir -p $(PG_DIR)
	$(CC) $(PG_CFLAGS) -fPIC -shared -o $@ $<

$(PG_DIR)/pg-sigfork: tests/pg/pg_sigfork.c $(PG_HDRS) $(PG_DIR)/libpgearly.so $(LIB_DIR)/libsprofil.so
	$(CC) $(PG_CFLAGS) -o $@ $< $(PG_SPROFIL) -L$(PG_DIR) -lpgearly -pthread

# dlopen()s libpgearly.so in a loop (not linked with it).
$(PG_DIR)/pg-dlloop: tests/pg/pg_dlloop.c $(PG_HDRS) $(PG_DIR)/libpgearly.so $(LIB_DIR)/libsprofil.so
	$(CC) $(PG_CFLAGS) -o $@ $< $(PG_SPROFIL) -ldl

# pg_manyarcs.c's 204,800 arcs in a -pg shared library, and its caller.
$(PG_DIR)/libpgarcs.so: tests/pg/pg_manyarcs.c $(PG_HDRS)
	@mkdir -p $(PG_DIR)
	$(CC) $(PG_CFLAGS) -DPG_ARCS_LIB -fPIC -shared -o $@ $<

$(PG_DIR)/pg-arclib: tests/pg/pg_arclib.c $(PG_DIR)/libpgarcs.so $(LIB_DIR)/libsprofil.so
	$(CC) $(PG_CFLAGS) -o $@ $< -L$(PG_DIR) -lpgarcs $(PG_SPROFIL)

# Caller chains: -rdynamic, so that the program can print its functions'
# extents; pg-callers-mod also calls the -pg library libpgmod.so.
$(PG_DIR)/pg-callers: tests/pg/pg_callers.c $(PG_HDRS) $(LIB_DIR)/libsprofil.so
	@mkdir -p $(PG_DIR)
	$(CC) $(PG_CFLAGS) -rdynamic -o $@ $< $(PG_SPROFIL) -ldl -pthread

$(PG_DIR)/pg-callers-mod: tests/pg/pg_callers.c $(PG_HDRS) $(PG_DIR)/libpgmod.so $(LIB_DIR)/libsprofil.so
	$(CC) $(PG_CFLAGS) -DPG_CALLERS_MOD -rdynamic -o $@ $< -L$(PG_DIR) -lpgmod \
		$(PG_SPROFIL) -ldl -pthread

# No -pg: frame pointers only; it profiles itself (smonitor() and a
# caller table), and the analyzer's call graph comes from its chains.
$(PG_DIR)/pg-callers-fp: tests/pg/pg_callers.c $(PG_HDRS) $(LIB_DIR)/libsprofil.so
	@mkdir -p $(PG_DIR)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fno-omit-frame-pointer -fno-shrink-wrap \
		-DPG_CALLERS_FP -rdynamic -o $@ $< $(PG_SPROFIL) -ldl -pthread

# The drivers' runner of the programs (tests/common/prog_run.c) and
# their readers of GNU gprof's reports.
PG_RUN_SRC := tests/common/prog_run.c tests/common/prog_run.h \
	tests/pg/pg_report.c tests/pg/pg_report.h

# The caller-chain driver, named pg-* so that the VM payload takes it as
# one of the programs, and runs it as it runs pg-test_pg.
PG_CALLERS_DRIVER := $(PG_DIR)/pg-test_pg_callers
$(PG_CALLERS_DRIVER): tests/pg/test_pg_callers.c tests/common/workload.c \
		tests/common/workload.h tests/common/callers_tree.c \
		tests/common/callers_tree.h tests/common/callers_file.c \
		tests/common/callers_file.h include/sprofil/gmon_codec.h \
		$(PG_RUN_SRC)
	@mkdir -p $(PG_DIR)
	$(CC) $(CPPFLAGS) -Itests/common $(CFLAGS) -o $@ $< tests/common/workload.c \
		tests/common/callers_tree.c tests/common/callers_file.c \
		tests/common/prog_run.c -lcmocka -ldl -lm

$(PG_DRIVER): tests/pg/test_pg.c tests/pg/pg_manyarcs.h tests/common/workload.c tests/common/workload.h \
		$(PG_RUN_SRC)
	@mkdir -p $(PG_DIR)
	$(CC) $(CPPFLAGS) -Itests/common $(CFLAGS) -o $@ $< tests/common/workload.c \
		tests/common/prog_run.c tests/pg/pg_report.c \
		-lcmocka -ldl

# Named pg-* so that the VM payload takes it with the programs.
$(PG_STATIC_DRIVER): tests/pg/test_pg_static.c tests/common/workload.c \
		tests/common/workload.h $(PG_RUN_SRC)
	@mkdir -p $(PG_DIR)
	$(CC) $(CPPFLAGS) -Itests/common $(CFLAGS) -o $@ $< tests/common/workload.c \
		tests/common/prog_run.c tests/pg/pg_report.c -lcmocka

.PHONY: pg-tests check-pg
pg-tests: $(PG_PROGS) $(PG_DRIVER)

check-pg: pg-tests lib
	@mkdir -p $(BUILD)/results
	@cd $(PG_DIR) && SPROFIL_BACKEND=signal \
		$(abspath scripts/run-tap) $(abspath $(BUILD)/results/pg.tap) \
		$(notdir $(PG_DRIVER) $(PG_CALLERS_DRIVER) $(PG_STATIC_DRIVER))
	@cd $(PG_DIR) && SPROFIL_BACKEND=bpf \
		$(abspath scripts/run-tap) $(abspath $(BUILD)/results/pg-bpf.tap) \
		$(notdir $(PG_STATIC_DRIVER))
