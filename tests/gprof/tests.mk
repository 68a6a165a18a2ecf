# The analyzer (build/gprof/gprof) against GNU gprof 2.40, the oracle.
#
# check-gprof builds the corpus of -pg programs (glibc's own runtime, not
# libsprofil), then runs these TAP scripts, each writing
# $(BUILD)/results/gprof-*.tap through scripts/run-tap:
#   run-oracle    the same (program, gmon files, options) through both,
#                 stdout compared byte for byte; hand-made GNU files too
#   run-multimod  sprofil's multi-module extension (GNU cannot read it)
#   run-trust     reports a user can trust: separate debug files
#                 (--debug-file-directory), st_size gaps, the profiler's
#                 own time as overhead, another kernel's [vdso]
#   run-export    --export=callgrind|dot|json against the text reports
#   run-exports   the exports people look at: folded stacks, flame and
#                 icicle graphs (SVG), dot's thresholds, clusters and
#                 --render, JSON's build-ids and lines; bad input; a
#                 real `sprofil record`; also under ASan+UBSan
#                 (check-gprof-exports-asan)
#   run-pprof     --export=pprof read back by `go tool pprof` (the
#                 oracle): -top against the flat profile, -traces
#                 against the callers tree, build-ids, empty profiles
#   run-cglines   --export=callgrind's source lines and call sites read
#                 back by callgrind_annotate, against -l's flat profile
#   run-sparse    sparse histograms: a recording reads as its dense
#                 revision-1 self, at a fraction of its size
#   run-merge     -s, sprofil report -s and --export=pprof over ten
#                 recorded runs: the sum is the parts; other builds and
#                 periods refused; these three also under ASan+UBSan
#                 (check-gprof-pprof-asan, -cglines-asan, -merge-asan)
#   run-callers   caller samples: the measured call graph (exact numbers
#                 on hand-made profiles), --estimated-times against GNU,
#                 no -pg, exports, -s, corrupt tag-4 records; also under
#                 ASan+UBSan (check-gprof-callers-asan)
#   run-roundtrip random caller tables, hostile chains among them,
#                 through libsprofil's writer, the analyzer's reader
#                 and -s: every context back exactly, every sample of a
#                 chain the format cannot hold counted as dropped
#   run-badinput  broken input: exit 1, one line naming the file; once
#                 with ours and once with its ASan+UBSan build
#   run-model     profiles of different programs held at once in one
#                 process (two_profiles.c), each reported as alone; also
#                 built with ASan+UBSan and LeakSanitizer; and --combined
#                 (several programs, two builds of one name), also with
#                 the analyzer's ASan build
#   run-diff      sprofil diff (docs/diff.md): simulated Poisson profiles
#                 with known slowdowns, false-alarm rates of same-build
#                 pairs (simulated and recorded), clones, renames, trees,
#                 exports and bad input
#   run-diffviews sprofil diff's --lines, measured inclusive times and
#                 arcs: recorded builds with a slowdown through one
#                 caller, a rename, profiles without caller chains
#   run-fuzz      the libFuzzer targets of the gmon reader and of the ELF,
#                 DWARF and multi-module readers: the earlier findings
#                 (fuzz-regress*/), then GPT_FUZZ_TIME seconds in all;
#                 `make fuzz-long FUZZ_SECONDS=N` runs them N seconds,
#                 keeping the corpora in $(GPT_DIR)/fuzz-corpus
# Work files go to $(GPT_DIR)/work-*.XXXXXX, kept only after a failure.
# `make check-gprof GPROF=/usr/bin/gprof` runs it all against GNU itself,
# which checks the harness (what only ours does is skipped then).

GPT_DIR := $(BUILD)/tests/gprof
GPT_SRC := tests/gprof
# The analyzer under test; the scripts take it from the environment.
GPROF ?= $(abspath $(BUILD)/gprof/gprof)
GPT_FUZZ_TIME ?= 80

# -O1 -g PIE is the default build; the variants are named by suffix.
GPT_PGFLAGS := -pg -O1 -g
GPT_CORPUS := $(addprefix $(GPT_DIR)/,recur recur-nopie recur-fentry \
	recur-O2 many sig clones cxx fwd back nodebug mm-main libmm.so \
	callers callers-static)

$(GPT_DIR)/%: $(GPT_SRC)/corpus/%.c
	@mkdir -p $(GPT_DIR)
	$(CC) $(GPT_PGFLAGS) -o $@ $<

# recur runs for a CPU time (cli_burn.h's clock), not a count.
$(GPT_DIR)/recur: tests/cli/cli_burn.h

$(GPT_DIR)/recur-nopie: $(GPT_SRC)/corpus/recur.c tests/cli/cli_burn.h
	@mkdir -p $(GPT_DIR)
	$(CC) $(GPT_PGFLAGS) -fno-pie -no-pie -o $@ $<

$(GPT_DIR)/recur-fentry: $(GPT_SRC)/corpus/recur.c tests/cli/cli_burn.h
	@mkdir -p $(GPT_DIR)
	$(CC) $(GPT_PGFLAGS) -mfentry -o $@ $<

$(GPT_DIR)/recur-O2: $(GPT_SRC)/corpus/recur.c tests/cli/cli_burn.h
	@mkdir -p $(GPT_DIR)
	$(CC) -pg -O2 -g -o $@ $<

# GCC's local clones (.part, .isra, .constprop, .cold) need -O2.
$(GPT_DIR)/clones: $(GPT_SRC)/corpus/clones.c
	@mkdir -p $(GPT_DIR)
	$(CC) -pg -O2 -g -o $@ $<

# glibc's start code inside the executable (run-callers: chains cut
# beyond main).
$(GPT_DIR)/callers-static: $(GPT_SRC)/corpus/callers.c
	@mkdir -p $(GPT_DIR)
	$(CC) $(GPT_PGFLAGS) -static -o $@ $<

$(GPT_DIR)/cxx: $(GPT_SRC)/corpus/cxx.cc
	@mkdir -p $(GPT_DIR)
	$(CXX) $(GPT_PGFLAGS) -o $@ $<

# -c only finds what lies where the source puts it: keep source order.
$(GPT_DIR)/fwd $(GPT_DIR)/back: $(GPT_DIR)/%: $(GPT_SRC)/corpus/%.c
	@mkdir -p $(GPT_DIR)
	$(CC) $(GPT_PGFLAGS) -fno-toplevel-reorder -o $@ $<

# Code without -g, linked with a CU of data only, with -g.
$(GPT_DIR)/nodebug: $(GPT_SRC)/corpus/nodebug.c $(GPT_SRC)/corpus/nodebug_data.c
	@mkdir -p $(GPT_DIR)
	$(CC) -pg -O1 -c -o $@.o $<
	$(CC) -g -c -o $@-data.o $(GPT_SRC)/corpus/nodebug_data.c
	$(CC) -pg -o $@ $@.o $@-data.o

# The multi-module files name these two; they are never run.
$(GPT_DIR)/libmm.so: $(GPT_SRC)/corpus/mm_lib.c
	@mkdir -p $(GPT_DIR)
	$(CC) -O1 -g -fPIC -shared -o $@ $<

$(GPT_DIR)/mm-main: $(GPT_SRC)/corpus/mm_main.c $(GPT_DIR)/libmm.so
	$(CC) -O1 -g -o $@ $< -L$(GPT_DIR) -lmm -Wl,-rpath,'$$ORIGIN'

# Recorded by `sprofil record` (run-pprof, run-merge): frame records in
# every function, no sibling calls, no shrink-wrapping, so the chains are
# exact; -DVARIANT=2 is another build of it (another build-id).
GPT_FP_FLAGS := -O1 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls \
	-fno-shrink-wrap
GPT_RECORDED := $(GPT_DIR)/pp-chains $(GPT_DIR)/pp-chains-v2 \
	$(GPT_DIR)/pp-chains-pg

$(GPT_DIR)/pp-chains: $(GPT_SRC)/corpus/pp_chains.c tests/cli/cli_burn.h
	@mkdir -p $(GPT_DIR)
	$(CC) $(GPT_FP_FLAGS) -o $@ $<

$(GPT_DIR)/pp-chains-v2: $(GPT_SRC)/corpus/pp_chains.c tests/cli/cli_burn.h
	@mkdir -p $(GPT_DIR)
	$(CC) $(GPT_FP_FLAGS) -DVARIANT=2 -o $@ $<

# With -pg too: call counts (libsprofil's mcount under sprofil record).
$(GPT_DIR)/pp-chains-pg: $(GPT_SRC)/corpus/pp_chains.c tests/cli/cli_burn.h
	@mkdir -p $(GPT_DIR)
	$(CC) $(GPT_FP_FLAGS) -pg -o $@ $<

$(GPT_DIR)/mkgmon: $(GPT_SRC)/mkgmon.c include/sprofil/gmon_format.h \
		include/sprofil/gmon_codec.h
	@mkdir -p $(GPT_DIR)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $<

# The caller table's round trip (run-roundtrip): the library's own
# collector and writer, from libsprofil.a, and the tests' file reader.
GPT_RT_SRCS := $(GPT_SRC)/callers_roundtrip.c tests/common/callers_file.c \
	tests/common/callers_tree.c
$(GPT_DIR)/callers_roundtrip: $(GPT_RT_SRCS) tests/common/callers_file.h \
		tests/common/callers_tree.h include/sprofil/callers.h \
		include/sprofil/gmon_codec.h $(LIB_DIR)/libsprofil.a
	@mkdir -p $(GPT_DIR)
	$(CC) $(CPPFLAGS) -Ilibsprofil -Itests/common $(CFLAGS) -o $@ \
		$(GPT_RT_SRCS) $(LIB_DIR)/libsprofil.a $(LIB_LDLIBS)

# Corrupt copies of the corpus ELF files (needs sizeof(struct sym)).
$(GPT_DIR)/mkbadelf: $(GPT_SRC)/mkbadelf.c $(GPROF_HDRS)
	@mkdir -p $(GPT_DIR)
	$(CC) $(CPPFLAGS) -Igprof $(CFLAGS) -o $@ $<

# The analyzer again, under AddressSanitizer and UBSan, for the bad input.
GPROF_ASAN_DIR := $(BUILD)/gprof-asan
GPROF_ASAN_FLAGS := -O1 -g -fno-omit-frame-pointer \
	-fsanitize=address,undefined -fno-sanitize-recover=undefined
GPROF_ASAN_OBJS := $(GPROF_SRCS:gprof/%.c=$(GPROF_ASAN_DIR)/%.o) \
	$(GPROF_ASAN_DIR)/pprof.pb-c.o

$(GPROF_ASAN_DIR)/%.o: gprof/%.c $(GPROF_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CPPFLAGS_PB) -Igprof -I/usr/include/libiberty $(CFLAGS) \
		$(GPROF_ASAN_FLAGS) -c -o $@ $<

$(GPROF_ASAN_DIR)/pprof.pb-c.o: $(GPROF_PB_C)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CPPFLAGS_PB) $(CFLAGS) $(GPROF_ASAN_FLAGS) -c -o $@ $<

$(GPROF_ASAN_DIR)/export/export_pprof.o: $(GPROF_PB_H)

$(GPROF_ASAN_DIR)/gprof: $(GPROF_ASAN_OBJS)
	$(CC) $(CFLAGS) $(GPROF_ASAN_FLAGS) -o $@ $(GPROF_ASAN_OBJS) $(GPROF_LIBS)

# Several profiles held at once (run-model): the analyzer's objects but
# main.c's, plain and with ASan+UBSan.
$(GPT_DIR)/two_profiles: $(GPT_SRC)/two_profiles.c \
		$(filter-out %/main.o,$(GPROF_OBJS)) $(GPROF_HDRS)
	@mkdir -p $(GPT_DIR)
	$(CC) $(CPPFLAGS) -Igprof $(CFLAGS) -o $@ $< \
		$(filter-out %/main.o,$(GPROF_OBJS)) $(GPROF_LIBS)

$(GPT_DIR)/two_profiles-asan: $(GPT_SRC)/two_profiles.c \
		$(filter-out %/main.o,$(GPROF_ASAN_OBJS)) $(GPROF_HDRS)
	@mkdir -p $(GPT_DIR)
	$(CC) $(CPPFLAGS) -Igprof $(CFLAGS) $(GPROF_ASAN_FLAGS) -o $@ $< \
		$(filter-out %/main.o,$(GPROF_ASAN_OBJS)) $(GPROF_LIBS)

GPT_MODEL := $(GPT_DIR)/two_profiles $(GPT_DIR)/two_profiles-asan

# run-diff's builds of one program (diff_prog.c): the base, the next
# commit (clones, a rename) and the base with hot 25 % slower.
GPT_DIFF := $(GPT_DIR)/diff-prog $(GPT_DIR)/diff-prog-v2 \
	$(GPT_DIR)/diff-prog-slow
$(GPT_DIR)/diff-prog: $(GPT_SRC)/diff_prog.c tests/cli/cli_burn.h
	@mkdir -p $(GPT_DIR)
	$(CC) $(GPT_FP_FLAGS) -o $@ $<
$(GPT_DIR)/diff-prog-v2: $(GPT_SRC)/diff_prog.c tests/cli/cli_burn.h
	@mkdir -p $(GPT_DIR)
	$(CC) $(GPT_FP_FLAGS) -DVARIANT=2 -o $@ $<
$(GPT_DIR)/diff-prog-slow: $(GPT_SRC)/diff_prog.c tests/cli/cli_burn.h
	@mkdir -p $(GPT_DIR)
	$(CC) $(GPT_FP_FLAGS) -DSLOW=25 -o $@ $<

# run-diffviews' builds (diff_arcs.c): the base, leaf twice as slow
# when called by via_b, and own renamed own_v2.  Functions start on a
# cache line: via_b's code differs between the builds, and own.part.0
# after it moved by a byte, which moved its loop's alignment and, on
# some CPUs, its samples from one line to the other (a line "changed"
# whose code did not).
GPT_DIFFVIEWS := $(GPT_DIR)/diff-arcs $(GPT_DIR)/diff-arcs-slow \
	$(GPT_DIR)/diff-arcs-v2
GPT_DIFFVIEWS_FLAGS := $(GPT_FP_FLAGS) -falign-functions=64
$(GPT_DIR)/diff-arcs: $(GPT_SRC)/diff_arcs.c tests/cli/cli_burn.h
	@mkdir -p $(GPT_DIR)
	$(CC) $(GPT_DIFFVIEWS_FLAGS) -o $@ $<
$(GPT_DIR)/diff-arcs-slow: $(GPT_SRC)/diff_arcs.c tests/cli/cli_burn.h
	@mkdir -p $(GPT_DIR)
	$(CC) $(GPT_DIFFVIEWS_FLAGS) -DSLOW_B=2 -o $@ $<
$(GPT_DIR)/diff-arcs-v2: $(GPT_SRC)/diff_arcs.c tests/cli/cli_burn.h
	@mkdir -p $(GPT_DIR)
	$(CC) $(GPT_DIFFVIEWS_FLAGS) -DVARIANT=2 -o $@ $<

# libFuzzer target: the analyzer's objects again with clang (main.c's
# main renamed, libFuzzer has its own), plus fuzz_gmon.c.
GPT_FUZZ_DIR := $(GPT_DIR)/fuzz-obj
GPT_FUZZ_FLAGS := -O1 -g -fno-omit-frame-pointer \
	-fsanitize=fuzzer-no-link,address,undefined
GPT_FUZZ_OBJS := $(GPROF_SRCS:gprof/%.c=$(GPT_FUZZ_DIR)/%.o) \
	$(GPT_FUZZ_DIR)/pprof.pb-c.o

$(GPT_FUZZ_DIR)/pprof.pb-c.o: $(GPROF_PB_C)
	@mkdir -p $(dir $@)
	clang $(CPPFLAGS) $(CPPFLAGS_PB) $(GPT_FUZZ_FLAGS) -c -o $@ $<

$(GPT_FUZZ_DIR)/export/export_pprof.o: $(GPROF_PB_H)

$(GPT_FUZZ_DIR)/%.o: gprof/%.c $(GPROF_HDRS)
	@mkdir -p $(dir $@)
	clang $(CPPFLAGS) $(CPPFLAGS_PB) -Igprof -I/usr/include/libiberty -std=gnu11 \
		-D_GNU_SOURCE -Dmain=gprof_main $(GPT_FUZZ_FLAGS) -c -o $@ $<

# fuzz_gmon: the profile reader; fuzz_elf: the ELF and DWARF readers
# and the multi-module reader (run-fuzz runs both).
$(GPT_DIR)/fuzz_gmon $(GPT_DIR)/fuzz_elf: $(GPT_DIR)/fuzz_%: \
		$(GPT_SRC)/fuzz_%.c $(GPT_FUZZ_OBJS) $(GPROF_HDRS) \
		include/sprofil/gmon_codec.h
	clang $(CPPFLAGS) -Igprof -std=gnu11 -D_GNU_SOURCE \
		-DFUZZ_EXE='"$(abspath $(GPT_DIR)/recur)"' \
		-O1 -g -fsanitize=fuzzer,address,undefined -o $@ \
		$(GPT_SRC)/fuzz_$*.c $(GPT_FUZZ_OBJS) $(GPROF_LIBS)

.PHONY: gprof-tests check-gprof check-gprof-oracle check-gprof-multimod \
	check-gprof-trust check-gprof-trust-asan \
	check-gprof-export check-gprof-badinput check-gprof-asan \
	check-gprof-exports check-gprof-exports-asan \
	check-gprof-pprof check-gprof-cglines check-gprof-merge \
	check-gprof-sparse $(GPT_EXPORTS_ASAN) \
	check-gprof-callers check-gprof-callers-asan check-gprof-roundtrip \
	check-gprof-oracle-asan check-gprof-multimod-asan check-gprof-fuzz \
	check-gprof-model check-gprof-model-asan check-gprof-diff \
	check-gprof-diff-asan check-gprof-diffviews check-gprof-diffviews-asan
gprof-tests: $(GPT_CORPUS) $(GPT_DIR)/mkgmon $(GPT_DIR)/mkbadelf

GPT_ENV = GPROF=$(GPROF) GPT_BIN=$(abspath $(GPT_DIR)) \
	GPT_SRC=$(abspath $(GPT_SRC)) GPT_ROOT=$(abspath .) \
	SPROFIL=$(abspath $(CLI_BIN))

# $(call GPT_CHECK,NAME,PREREQS,ENV): builds PREREQS, then runs
# run-NAME into gprof-NAME.tap; a part that does not build gets a
# failing .tap instead of none, so tap-summary counts it.
define GPT_CHECK
	@mkdir -p $(BUILD)/results
	@if $(MAKE) --no-print-directory $(2) >$(BUILD)/results/gprof-$(1).log 2>&1; \
	then $(GPT_ENV) $(3) scripts/run-tap $(BUILD)/results/gprof-$(1).tap \
		$(abspath $(GPT_SRC))/run-$(firstword $(subst -, ,$(1))); \
	else tail -n 20 $(BUILD)/results/gprof-$(1).log; \
		printf '1..1\nnot ok 1 - gprof-$(1): could not build %s\n' \
		'$(2)' >$(BUILD)/results/gprof-$(1).tap; false; fi
endef

check-gprof-oracle:
	$(call GPT_CHECK,oracle,gprof-tests)

check-gprof-multimod:
	$(call GPT_CHECK,multimod,gprof-tests)

check-gprof-trust:
	$(call GPT_CHECK,trust,gprof-tests)

check-gprof-export:
	$(call GPT_CHECK,export,gprof-tests)

# --export=pprof read back by `go tool pprof`, on -pg profiles and on
# profiles `sprofil record` writes (so it needs the command built).
check-gprof-pprof:
	$(call GPT_CHECK,pprof,gprof-tests cli $(GPT_RECORDED))

# --export=callgrind's source lines read back by callgrind_annotate.
check-gprof-cglines:
	$(call GPT_CHECK,cglines,gprof-tests cli $(GPT_RECORDED))

# Sparse histograms: a recording against its dense revision-1 self.
check-gprof-sparse:
	$(call GPT_CHECK,sparse,gprof-tests cli $(GPT_RECORDED))

# -s (and sprofil report -s, --export=pprof) over many recorded runs.
check-gprof-merge:
	$(call GPT_CHECK,merge,gprof-tests cli $(GPT_RECORDED))

# pprof, callgrind's lines and the merge once more under ASan+UBSan and
# LSan (a report fails the checks on exit status or stderr).
GPT_EXPORTS_ASAN := check-gprof-pprof-asan check-gprof-cglines-asan \
	check-gprof-merge-asan
$(GPT_EXPORTS_ASAN): check-gprof-%-asan:
	$(call GPT_CHECK,$*-asan,gprof-tests cli $(GPT_RECORDED) \
		$(GPROF_ASAN_DIR)/gprof,$(GPT_SAN_ENV))

check-gprof-badinput:
	$(call GPT_CHECK,badinput,gprof-tests)

# The recording needs `sprofil record` (its library and probe).
GPT_EXPORTS_PREREQS = gprof-tests $(CLI_BIN) $(CLI_PROBE) lib
check-gprof-exports:
	$(call GPT_CHECK,exports,$(GPT_EXPORTS_PREREQS),\
		GPT_SPROFIL=$(abspath $(CLI_BIN)))

check-gprof-exports-asan:
	$(call GPT_CHECK,exports-asan,$(GPT_EXPORTS_PREREQS) \
		$(GPROF_ASAN_DIR)/gprof,$(GPT_SAN_ENV) \
		GPT_SPROFIL=$(abspath $(CLI_BIN)))

check-gprof-callers:
	$(call GPT_CHECK,callers,gprof-tests)

# --combined's two builds of one name are pp-chains and pp-chains-v2.
check-gprof-model:
	$(call GPT_CHECK,model,gprof-tests $(GPT_MODEL) $(GPT_RECORDED))

check-gprof-roundtrip:
	$(call GPT_CHECK,roundtrip,gprof $(GPT_DIR)/callers_roundtrip)

# sprofil diff: simulated and recorded profiles (needs the command);
# again, with fewer pairs, under ASan+UBSan and LSan.
check-gprof-diff:
	$(call GPT_CHECK,diff,gprof-tests cli $(GPT_DIFF))

check-gprof-diff-asan:
	$(call GPT_CHECK,diff-asan,gprof-tests cli $(GPT_DIFF) \
		$(GPROF_ASAN_DIR)/gprof,$(GPT_SAN_ENV))

# sprofil diff's lines, measured inclusive times and arcs (recorded);
# again under ASan+UBSan and LSan.
check-gprof-diffviews:
	$(call GPT_CHECK,diffviews,gprof-tests cli $(GPT_DIFFVIEWS))

check-gprof-diffviews-asan:
	$(call GPT_CHECK,diffviews-asan,gprof-tests cli $(GPT_DIFFVIEWS) \
		$(GPROF_ASAN_DIR)/gprof,$(GPT_SAN_ENV))

check-gprof-callers-asan:
	$(call GPT_CHECK,callers-asan,gprof-tests $(GPROF_ASAN_DIR)/gprof,\
		$(GPT_SAN_ENV))

# The bad input once more under ASan+UBSan (its own results file).
check-gprof-asan:
	$(call GPT_CHECK,badinput-asan,gprof-tests $(GPROF_ASAN_DIR)/gprof,\
		GPT_TAG=asan GPROF=$(abspath $(GPROF_ASAN_DIR)/gprof))

# The GNU comparison and the multi-module suite under ASan+UBSan with
# LeakSanitizer: a report exits 99 (ASan, LSan) or 98 (UBSan) and
# writes to stderr, which fails the comparison with GNU.
GPT_SAN_ENV = GPT_TAG=asan GPROF=$(abspath $(GPROF_ASAN_DIR)/gprof) \
	ASAN_OPTIONS=detect_leaks=1:exitcode=99 \
	UBSAN_OPTIONS=halt_on_error=1:exitcode=98:print_stacktrace=1

check-gprof-oracle-asan:
	$(call GPT_CHECK,oracle-asan,gprof-tests $(GPROF_ASAN_DIR)/gprof,\
		$(GPT_SAN_ENV))

check-gprof-multimod-asan:
	$(call GPT_CHECK,multimod-asan,gprof-tests $(GPROF_ASAN_DIR)/gprof,\
		$(GPT_SAN_ENV))

check-gprof-trust-asan:
	$(call GPT_CHECK,trust-asan,gprof-tests $(GPROF_ASAN_DIR)/gprof,\
		$(GPT_SAN_ENV))

# The combined report (run-model's --combined part) under ASan and LSan.
check-gprof-model-asan:
	$(call GPT_CHECK,model-asan,gprof-tests $(GPT_MODEL) $(GPT_RECORDED) \
		$(GPROF_ASAN_DIR)/gprof,$(GPT_SAN_ENV))

GPT_FUZZERS := $(GPT_DIR)/fuzz_gmon $(GPT_DIR)/fuzz_elf

check-gprof-fuzz:
	$(call GPT_CHECK,fuzz,gprof-tests $(GPT_FUZZERS),\
		GPT_FUZZ_TIME=$(GPT_FUZZ_TIME))

# The same for as long as asked (results in gprof-fuzz-long.tap).
FUZZ_SECONDS ?= 3600
.PHONY: fuzz-long
fuzz-long:
	@mkdir -p $(GPT_DIR)/fuzz-corpus
	$(call GPT_CHECK,fuzz-long,gprof-tests $(GPT_FUZZERS),\
		GPT_FUZZ_TIME=$(FUZZ_SECONDS) \
		GPT_FUZZ_CORPUS=$(abspath $(GPT_DIR)/fuzz-corpus))

# The parts, run BUILD_JOBS at a time: each reads profiles and compares
# reports (its own work directory), none measures time, and the analyzer
# is single-threaded, so on two CPUs two parts take half the wall time.
# The fuzzers, which run for a time (GPT_FUZZ_TIME), go first.
GPT_PARTS := check-gprof-fuzz \
	check-gprof-oracle check-gprof-multimod check-gprof-trust \
	check-gprof-export check-gprof-exports check-gprof-exports-asan \
	check-gprof-pprof check-gprof-cglines check-gprof-merge \
	check-gprof-sparse check-gprof-callers check-gprof-roundtrip \
	check-gprof-model check-gprof-diff check-gprof-diffviews \
	check-gprof-callers-asan check-gprof-badinput check-gprof-asan \
	check-gprof-oracle-asan check-gprof-multimod-asan check-gprof-trust-asan \
	check-gprof-pprof-asan check-gprof-cglines-asan check-gprof-merge-asan \
	check-gprof-model-asan check-gprof-diff-asan check-gprof-diffviews-asan

# Every part runs even when an earlier one failed.  The analyzer is
# built first but no part depends on it: with GPROF=/usr/bin/gprof the
# harness is checked without it, and a part run without it says so.
# Then what the parts need is built at once, in parallel (BUILD_JOBS),
# before any part runs; one that did not build fails in its own part,
# which builds it again and says why.
check-gprof:
	-@$(MAKE) --no-print-directory gprof
	@mkdir -p $(BUILD)/results
	-@$(MAKE) --no-print-directory -k -j$(BUILD_JOBS) gprof-tests cli \
		$(GPT_RECORDED) $(GPT_EXPORTS_PREREQS) $(GPROF_ASAN_DIR)/gprof \
		$(GPT_FUZZERS) $(GPT_MODEL) $(GPT_DIFF) $(GPT_DIFFVIEWS) \
		>$(BUILD)/results/gprof-build.log 2>&1
	-@$(MAKE) --no-print-directory -k -j$(BUILD_JOBS) $(GPT_PARTS)
