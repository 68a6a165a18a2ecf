# The unwind table builder (unwind/, docs/callers.md "Unwind tables"):
# libdw's CFI compiled into include/sprofil/unwind_table.h's table.  Its
# own objects and tool, linked with libdw: never into libsprofil.so or
# libsprofil.a, which every profiled process loads.
#
# sprofil-unwind [-d] [-o TABLE | -O DIR] MODULE... builds and measures
# tables; installed in libexec/sprofil/, where `sprofil record` starts it
# as the table server of a run on the signal backend (-S NAME -O DIR).

UNWIND_DIR := $(BUILD)/unwind
UNWIND_OBJ := $(UNWIND_DIR)/unwind_build.o
UNWIND_SERVE_OBJ := $(UNWIND_DIR)/unwind_serve.o $(UNWIND_DIR)/run_server.o
UNWIND_TOOL := $(BUILD)/libexec/sprofil-unwind
UNWIND_LDLIBS := -ldw -lelf

.PHONY: unwind
unwind: $(UNWIND_TOOL)

$(UNWIND_OBJ): unwind/unwind_build.c unwind/unwind_build.h \
		include/sprofil/unwind_table.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(UNWIND_DIR)/unwind_serve.o: unwind/unwind_serve.c unwind/unwind_serve.h \
		unwind/unwind_build.h include/sprofil/unwind_table.h \
		cli/run_server.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Icli $(CFLAGS) -c -o $@ $<

# The loop of a record run's server, shared with sprofil-probe's.
$(UNWIND_DIR)/run_server.o: cli/run_server.c cli/run_server.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(UNWIND_TOOL): unwind/sprofil_unwind.c unwind/unwind_serve.h $(UNWIND_OBJ) \
		$(UNWIND_SERVE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(UNWIND_OBJ) \
		$(UNWIND_SERVE_OBJ) $(UNWIND_LDLIBS)

# The oracle test (tests/unit/test_unwind_oracle.c, in check-unit): its
# workload without frame pointers and with every call a frame of its own.
UNWIND_WORK_CFLAGS := -fomit-frame-pointer -fno-optimize-sibling-calls

$(BUILD)/tests/unit/unwind_work.o: tests/unit/unwind_work.c \
		tests/unit/unwind_work.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(UNWIND_WORK_CFLAGS) -c -o $@ $<

$(BUILD)/tests/unit/test_unwind_oracle: tests/unit/test_unwind_oracle.c \
		tests/unit/unwind_work.h $(BUILD)/tests/unit/unwind_work.o \
		$(UNWIND_OBJ) include/sprofil/unwind_table.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(BUILD)/tests/unit/unwind_work.o \
		$(UNWIND_OBJ) -lcmocka $(UNWIND_LDLIBS)
