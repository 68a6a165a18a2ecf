# The analyzer, build/gprof/gprof (GNU gprof's command line; see
# docs/gprof.md), and gmon-dump, the tests' raw reader of profile files.
# Every gprof/*.c but gmon_dump.c is part of the analyzer.

GPROF_DIR := $(BUILD)/gprof
GPROF_SRCS := $(filter-out gprof/gmon_dump.c,$(wildcard gprof/*.c))
GPROF_OBJS := $(GPROF_SRCS:gprof/%.c=$(GPROF_DIR)/%.o)
GPROF_LIBS := -ldw -lelf -l:libiberty.a -lm
# Every object is rebuilt when a header it may include changes.
GPROF_HDRS := $(wildcard gprof/*.h) include/sprofil/gmon_format.h \
	include/sprofil/callers.h

.PHONY: gprof
gprof: $(GPROF_DIR)/gprof $(GPROF_DIR)/gmon-dump

$(GPROF_DIR)/%.o: gprof/%.c $(GPROF_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Igprof -I/usr/include/libiberty $(CFLAGS) -c -o $@ $<

# --version says the project's version (SPROFIL_VERSION).
$(GPROF_DIR)/main.o: VERSION

$(GPROF_DIR)/gprof: $(GPROF_OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(GPROF_OBJS) $(GPROF_LIBS)

$(GPROF_DIR)/gmon-dump: gprof/gmon_dump.c include/sprofil/gmon_format.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $<
