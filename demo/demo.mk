# `make demo`: the real flow inside the test VM, on the real module:
# `sprofil record --backend kmod` runs demo/hotspots (an ordinary program:
# no profiling code, no -pg, frame pointers), then `sprofil report` prints
# its flat profile and measured call graph.  The payload mirrors the build
# tree's layout (bin/, lib/, libexec/, gprof/), which is where the command
# looks for its library, probe and analyzer.
DEMO_DIR := $(BUILD)/demo-payload
DEMO_FILES := $(DEMO_DIR)/hotspots $(DEMO_DIR)/sprofil.ko $(DEMO_DIR)/run \
	$(DEMO_DIR)/bin/sprofil $(DEMO_DIR)/lib/libsprofil.so.0 \
	$(DEMO_DIR)/lib/sprofil/bpf-loader.so \
	$(DEMO_DIR)/libexec/sprofil-probe $(DEMO_DIR)/gprof/gprof

$(DEMO_DIR)/hotspots: demo/hotspots.c
	@mkdir -p $(DEMO_DIR)
	$(CC) -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
		-o $@ $<

$(DEMO_DIR)/sprofil.ko: $(BUILD)/kmod/sprofil.ko
$(DEMO_DIR)/run: demo/run-in-vm
$(DEMO_DIR)/bin/sprofil: $(CLI_BIN)
$(DEMO_DIR)/lib/libsprofil.so.0: $(LIB_DIR)/libsprofil.so
$(DEMO_DIR)/lib/sprofil/bpf-loader.so: $(LIB_LOADER)
$(DEMO_DIR)/libexec/sprofil-probe: $(CLI_PROBE)
$(DEMO_DIR)/gprof/gprof: $(GPROF_DIR)/gprof
$(filter-out $(DEMO_DIR)/hotspots,$(DEMO_FILES)):
	@mkdir -p $(dir $@)
	cp -L $< $@

.PHONY: demo-payload
demo-payload: $(DEMO_FILES)
