# `make demo`: profile demo/hotspots inside the test VM through the real
# module, then name its hottest buckets with nm on the host.
DEMO_DIR := $(BUILD)/demo-payload

$(DEMO_DIR)/hotspots: demo/hotspots.c include/uapi/linux/sprofil.h
	@mkdir -p $(DEMO_DIR)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fno-inline -o $@ $< -ldl

$(DEMO_DIR)/sprofil.ko: $(BUILD)/kmod/sprofil.ko
	@mkdir -p $(DEMO_DIR)
	cp $< $@

$(DEMO_DIR)/run: demo/run-in-vm
	@mkdir -p $(DEMO_DIR)
	cp $< $@

.PHONY: demo-payload
demo-payload: $(DEMO_DIR)/hotspots $(DEMO_DIR)/sprofil.ko $(DEMO_DIR)/run
