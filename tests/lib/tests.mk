# The behavioural suite of libsprofil, one set of binaries run on every
# backend: on the host with SPROFIL_BACKEND=signal (check-lib), inside the
# VM with SPROFIL_BACKEND=kmod (copied into the VM payload as lib-*).

LT_DIR := $(BUILD)/tests/lib
LT_TESTS := $(patsubst tests/lib/%.c,$(LT_DIR)/%,$(wildcard tests/lib/test_*.c))
LT_HELPERS := $(patsubst tests/lib/%.c,$(LT_DIR)/%,$(wildcard tests/lib/helper_*.c))
LT_COMMON_SRC := tests/lib/lib_test.c tests/common/workload.c
LT_COMMON := $(LT_COMMON_SRC) $(wildcard tests/lib/*.h) tests/common/workload.h \
	include/sprofil/gmon_codec.h include/sprofil/gmon_format.h \
	$(LIB_DIR)/libsprofil.so $(LT_DIR)/liblt_spin.so
# $ORIGIN finds the libraries both here and in the VM payload, where they
# sit next to the binaries.
LT_LIBS := -L$(LIB_DIR) -L$(LT_DIR) -lsprofil -llt_spin \
	-Wl,-rpath,'$$ORIGIN:$$ORIGIN/../../lib' -lcmocka -ldl -lm -pthread

# lt_callback.c: a library function calling back into the program, for
# caller chains across modules; with frame pointers, as test_callers.
$(LT_DIR)/liblt_spin.so: tests/kmod/libkt_spin.c tests/lib/lt_callback.c
	@mkdir -p $(LT_DIR)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -shared -fPIC \
		-o $@ $^

$(LT_DIR)/test_%: tests/lib/test_%.c $(LT_COMMON)
	$(CC) $(CPPFLAGS) -Itests/common $(CFLAGS) -rdynamic -o $@ $< $(LT_COMMON_SRC) $(LT_LIBS)

# Caller chains are walked through frame pointers: the test keeps them.
LT_CALLERS_SRC := tests/common/callers_tree.c tests/common/callers_file.c
$(LT_DIR)/test_callers: tests/lib/test_callers.c $(LT_COMMON) \
		$(LT_CALLERS_SRC) tests/common/callers_tree.h \
		tests/common/callers_file.h
	$(CC) $(CPPFLAGS) -Itests/common $(CFLAGS) -fno-omit-frame-pointer \
		-mno-omit-leaf-frame-pointer \
		-rdynamic -o $@ $< $(LT_COMMON_SRC) $(LT_CALLERS_SRC) \
		$(LT_LIBS)

$(LT_DIR)/helper_%: tests/lib/helper_%.c $(LT_COMMON)
	$(CC) $(CPPFLAGS) -Itests/common $(CFLAGS) -rdynamic -o $@ $< $(LT_COMMON_SRC) $(LT_LIBS)

.PHONY: lib-tests check-lib
lib-tests: $(LT_TESTS) $(LT_HELPERS)

check-lib: lib-tests lib
	@mkdir -p $(BUILD)/results
	@cd $(LT_DIR) && SPROFIL_BACKEND=signal \
		$(abspath scripts/run-tap) $(abspath $(BUILD)/results/lib-signal.tap) \
		$(notdir $(LT_TESTS))

# Chains without frame pointers from unwind tables (tests/lib/test_unwind.c):
# built without them, every call a frame; the table builder runs from the
# test, by its absolute path (absent in the VM payload: skipped there).
$(LT_DIR)/test_unwind: tests/lib/test_unwind.c $(LT_COMMON) \
		$(LT_CALLERS_SRC) tests/common/callers_tree.h \
		tests/common/unwind_tables.c tests/common/unwind_tables.h \
		$(UNWIND_TOOL)
	$(CC) $(CPPFLAGS) -Itests/common $(CFLAGS) $(UNWIND_WORK_CFLAGS) \
		-DUNWIND_TOOL='"$(abspath $(UNWIND_TOOL))"' \
		-rdynamic -o $@ $< $(LT_COMMON_SRC) $(LT_CALLERS_SRC) \
		tests/common/unwind_tables.c $(LT_LIBS)
