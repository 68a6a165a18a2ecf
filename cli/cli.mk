# The sprofil command (cli/, docs/record.md): build/bin/sprofil, which
# finds libsprofil.so in ../lib and the analyzer in ../gprof beside it.
# check-cli runs tests/cli/run-cli on each host backend (signal, and bpf
# where this user may load BPF), one TAP file each.

CLI_DIR := $(BUILD)/cli
CLI_SRCS := $(wildcard cli/*.c)
CLI_OBJS := $(CLI_SRCS:cli/%.c=$(CLI_DIR)/%.o)
CLI_BIN := $(BUILD)/bin/sprofil

.PHONY: cli
cli: $(CLI_BIN) lib gprof

$(CLI_DIR)/%.o: cli/%.c cli/sprofil.h include/sprofil/gmon_format.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DMULTIARCH='"$(shell $(CC) -print-multiarch)"' \
		$(CFLAGS) -c -o $@ $<

$(CLI_BIN): $(CLI_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJS) -ldl
