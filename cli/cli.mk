# The sprofil command (cli/, docs/record.md): build/bin/sprofil, which
# finds libsprofil.so in ../lib, its backend probe in ../libexec and the
# analyzer in ../gprof beside it.  The command is linked statically, so
# that glibc's ld.so, and its LD_PROFILE profiler, never run in it; the
# probe is the one dynamic program (it must load libsprofil).

CLI_DIR := $(BUILD)/cli
# sprofil-probe's sources: probe_helper.c and the bpf program server,
# whose loop (run_server.c) the unwind table server shares.
CLI_SERVER_SRCS := cli/run_server.c
CLI_PROBE_SRCS := cli/probe_helper.c cli/bpf_share.c $(CLI_SERVER_SRCS)
# sprofil-outside's: linked with libsprofil.a, it samples other processes.
CLI_OUTSIDE_SRCS := cli/outside_helper.c
CLI_SRCS := $(filter-out $(CLI_PROBE_SRCS) $(CLI_OUTSIDE_SRCS),\
	$(wildcard cli/*.c))
CLI_OBJS := $(CLI_SRCS:cli/%.c=$(CLI_DIR)/%.o)
CLI_BIN := $(BUILD)/bin/sprofil
CLI_PROBE := $(BUILD)/libexec/sprofil-probe
CLI_OUTSIDE := $(BUILD)/libexec/sprofil-outside

.PHONY: cli
cli: $(CLI_BIN) $(CLI_PROBE) $(CLI_OUTSIDE) $(UNWIND_TOOL) lib gprof

$(CLI_DIR)/%.o: cli/%.c cli/sprofil.h include/sprofil/gmon_format.h \
		include/sprofil/gmon_codec.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DMULTIARCH='"$(shell $(CC) -print-multiarch)"' \
		$(CFLAGS) -c -o $@ $<

# --version and every --help say the project's version (SPROFIL_VERSION).
$(CLI_DIR)/main.o $(CLI_DIR)/record.o $(CLI_DIR)/report.o \
	$(CLI_DIR)/diff.o: VERSION

$(CLI_BIN): $(CLI_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -static -o $@ $(CLI_OBJS)

$(CLI_PROBE): $(CLI_PROBE_SRCS) cli/probe_helper.h cli/run_server.h \
		libsprofil/backends/bpf/sprofil_load.h \
		libsprofil/backends/bpf/sprofil_bpf.h $(BPF_DIR)/sprofil.skel.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Ilibsprofil/backends/bpf -I$(BPF_DIR) $(CFLAGS) $(LDFLAGS) \
		-o $@ $(CLI_PROBE_SRCS) -ldl -lbpf -lelf -lz

# A static program, or `record -p`, sampled from outside
# (libsprofil/api/outside.c): the library's objects linked in, so that the
# preloaded collector of every other run is not needed.
$(CLI_OUTSIDE): $(CLI_OUTSIDE_SRCS) libsprofil/api/outside.h $(LIB_DIR)/libsprofil.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Ilibsprofil $(CFLAGS) $(LDFLAGS) -o $@ \
		$(CLI_OUTSIDE_SRCS) $(LIB_DIR)/libsprofil.a $(LIB_LDLIBS)
