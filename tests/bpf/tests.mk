# The bpf backend on the host (root): libsprofil's behavioural suite
# (tests/lib) with SPROFIL_BACKEND=bpf, test_bpf (the bucket table
# through the BPF program, privilege and map failures) and
# test_bpf_callers (caller sampling), test_bpf_unwind (the program's walk
# with unwind tables), one TAP file.
# test_bpf also goes into the VM payload (tests/kmod/tests.mk).

BT_DIR := $(BUILD)/tests/bpf
BT_LIBS := -L$(LIB_DIR) -lsprofil -lbpf -lelf -lz \
	-Wl,-rpath,'$$ORIGIN:$$ORIGIN/../lib:$$ORIGIN/../../lib' -lcmocka -ldl -lm -pthread

$(BT_DIR)/test_bpf: tests/bpf/test_bpf.c tests/bpf/bucket_table.h \
		tests/common/workload.c tests/common/workload.h \
		$(BPF_DIR)/sprofil.skel.h $(LIB_DIR)/libsprofil.so \
		$(LT_DIR)/liblt_spin.so
	@mkdir -p $(BT_DIR)
	$(CC) $(CPPFLAGS) -Itests/common -Ilibsprofil/backends/bpf -I$(BPF_DIR) \
		$(CFLAGS) -rdynamic -o $@ $< tests/common/workload.c \
		-L$(LT_DIR) -llt_spin $(BT_LIBS)

.PHONY: bpf-tests check-bpf
bpf-tests: $(BT_DIR)/test_bpf $(BT_DIR)/test_bpf_callers \
	$(BT_DIR)/test_bpf_unwind lib-tests

check-bpf: bpf-tests
	@mkdir -p $(BUILD)/results
	@cd $(LT_DIR) && SPROFIL_BACKEND=bpf \
		$(abspath scripts/run-tap) $(abspath $(BUILD)/results/bpf.tap) \
		$(abspath $(BT_DIR)/test_bpf) \
		$(abspath $(BT_DIR)/test_bpf_callers) \
		$(abspath $(BT_DIR)/test_bpf_unwind) $(notdir $(LT_TESTS))

# Caller sampling on bpf (docs/callers.md): frame pointers, set up on entry
# (no shrink-wrapping), and no sibling
# calls, so that every function of its workloads keeps its frame.
$(BT_DIR)/test_bpf_callers: tests/bpf/test_bpf_callers.c \
		libsprofil/backends/callers_merge.c \
		libsprofil/backends/callers_merge.h \
		include/sprofil/callers.h \
		tests/common/workload.c tests/common/workload.h \
		$(BPF_DIR)/sprofil.skel.h $(LIB_DIR)/libsprofil.so \
		$(LT_DIR)/liblt_spin.so
	@mkdir -p $(BT_DIR)
	$(CC) $(CPPFLAGS) -Itests/common -Ilibsprofil -Ilibsprofil/backends/bpf \
		-I$(BPF_DIR) $(CFLAGS) -fno-omit-frame-pointer -fno-shrink-wrap \
		-fno-optimize-sibling-calls -rdynamic -o $@ $< \
		libsprofil/backends/callers_merge.c tests/common/workload.c \
		-L$(LT_DIR) -llt_spin $(BT_LIBS)

# The program's unwind walk against the header's in userland, on
# test_unwind_oracle's workload (built without frame pointers); the table
# builder runs from the test, by its absolute path.
$(BT_DIR)/test_bpf_unwind: tests/bpf/test_bpf_unwind.c \
		tests/common/unwind_tables.c tests/common/unwind_tables.h \
		tests/unit/unwind_work.h $(BUILD)/tests/unit/unwind_work.o \
		include/sprofil/unwind_table.h $(BPF_DIR)/sprofil.skel.h \
		$(UNWIND_TOOL)
	@mkdir -p $(BT_DIR)
	$(CC) $(CPPFLAGS) -Itests/common -Itests/unit -Ilibsprofil \
		-Ilibsprofil/backends/bpf -I$(BPF_DIR) $(CFLAGS) \
		-DUNWIND_TOOL='"$(abspath $(UNWIND_TOOL))"' -o $@ $< \
		tests/common/unwind_tables.c $(BUILD)/tests/unit/unwind_work.o \
		-lbpf -lelf -lz -lcmocka
