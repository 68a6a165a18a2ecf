# libsprofil.so and libsprofil.a: every libsprofil/*.c, one object set
# built position-independent for both.

LIB_DIR := $(BUILD)/lib
LIB_SRCS := $(wildcard libsprofil/*.c)
LIB_ASMS := $(wildcard libsprofil/*.S)
# mcount.S and mcount.c share a stem: assembler objects get "-asm".
LIB_OBJS := $(LIB_SRCS:libsprofil/%.c=$(BUILD)/libsprofil/%.o) \
	$(LIB_ASMS:libsprofil/%.S=$(BUILD)/libsprofil/%-asm.o)
LIB_HDRS := $(wildcard libsprofil/*.h) include/sprofil.h \
	include/uapi/linux/sprofil.h include/sprofil/mapping.h

.PHONY: lib
lib: $(LIB_DIR)/libsprofil.so $(LIB_DIR)/libsprofil.a

$(BUILD)/libsprofil/%.o: libsprofil/%.c $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Ilibsprofil $(CFLAGS) -fPIC -c -o $@ $<

$(BUILD)/libsprofil/%-asm.o: libsprofil/%.S
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -c -o $@ $<

# sp_mcount() runs with only the integer argument registers saved, like
# glibc's __mcount_internal: no vector registers, no memset/memcpy calls
# made up by the optimizer, no stack protector, and never -pg itself.
$(BUILD)/libsprofil/mcount.o: CFLAGS += -mgeneral-regs-only \
	-fno-tree-loop-distribute-patterns -fno-omit-frame-pointer \
	-fno-stack-protector -fno-instrument-functions

$(LIB_DIR)/libsprofil.so: $(LIB_OBJS) libsprofil/libsprofil.map
	@mkdir -p $(LIB_DIR)
	$(CC) -shared -Wl,-soname,libsprofil.so.0 \
		-Wl,--version-script=libsprofil/libsprofil.map \
		-o $@ $(LIB_OBJS) -ldl -pthread
	ln -sf libsprofil.so $(LIB_DIR)/libsprofil.so.0

$(LIB_DIR)/libsprofil.a: $(LIB_OBJS)
	@mkdir -p $(LIB_DIR)
	rm -f $@
	$(AR) rcs $@ $(LIB_OBJS)
