# The bpf backend on the host (root): libsprofil's behavioural suite
# (tests/lib) with SPROFIL_BACKEND=bpf, and test_bpf (the bucket table
# through the BPF program, privilege and map failures), one TAP file.
# test_bpf also goes into the VM payload (tests/kmod/tests.mk).

BT_DIR := $(BUILD)/tests/bpf
BT_LIBS := -L$(LIB_DIR) -lsprofil -lbpf -lelf -lz \
	-Wl,-rpath,'$$ORIGIN:$$ORIGIN/../lib:$$ORIGIN/../../lib' -lcmocka -ldl -lm -pthread

$(BT_DIR)/test_bpf: tests/bpf/test_bpf.c tests/bpf/bucket_table.h \
		tests/common/workload.c tests/common/workload.h \
		$(BPF_DIR)/sprofil.skel.h $(LIB_DIR)/libsprofil.so \
		$(LT_DIR)/liblt_spin.so
	@mkdir -p $(BT_DIR)
	$(CC) $(CPPFLAGS) -Itests/common -Ilibsprofil/bpf -I$(BPF_DIR) \
		$(CFLAGS) -rdynamic -o $@ $< tests/common/workload.c \
		-L$(LT_DIR) -llt_spin $(BT_LIBS)

.PHONY: bpf-tests check-bpf
bpf-tests: $(BT_DIR)/test_bpf lib-tests

check-bpf: bpf-tests
	@mkdir -p $(BUILD)/results
	@cd $(LT_DIR) && SPROFIL_BACKEND=bpf \
		$(abspath scripts/run-tap) $(abspath $(BUILD)/results/bpf.tap) \
		$(abspath $(BT_DIR)/test_bpf) $(notdir $(LT_TESTS))
