# libsprofil.so and libsprofil.a: every libsprofil/*/*.c, one object set
# built position-independent for both, but for the bpf backend's loader
# (backends/backend_bpf_loader.c): libsprofil.so opens it as the plugin
# $(LIB_DIR)/sprofil/bpf-loader.so only when it loads the program itself,
# so that libbpf, libelf and libz are not mapped into every profiled
# process (docs/backends.md); libsprofil.a has it linked in.  Programs
# linking libsprofil.a also need $(LIB_LDLIBS) (libbpf, libelf, zlib).

LIB_DIR := $(BUILD)/lib
# The soname's number: raised only when the ABI breaks (additions get a
# new node in libsprofil.map instead).
LIB_SOMAJOR := 0
# The folders, by concern (docs/backends.md, "The library's layout"):
# each source includes the others' headers as "folder/name.h", from -I
# libsprofil.
LIB_PARTS := common backends pg interpose api
LIB_SRCS := $(filter-out libsprofil/backends/backend_bpf_loader.c,\
	$(wildcard $(LIB_PARTS:%=libsprofil/%/*.c)))
LIB_ASMS := $(wildcard $(LIB_PARTS:%=libsprofil/%/*.S))
# mcount.S and mcount.c share a stem: assembler objects get "-asm".
LIB_OBJS := $(LIB_SRCS:libsprofil/%.c=$(BUILD)/libsprofil/%.o) \
	$(LIB_ASMS:libsprofil/%.S=$(BUILD)/libsprofil/%-asm.o)
LIB_HDRS := $(wildcard $(LIB_PARTS:%=libsprofil/%/*.h)) include/sprofil.h \
	include/uapi/linux/sprofil.h include/sprofil/mapping.h \
	include/sprofil/callers.h include/sprofil/gmon_format.h \
	include/sprofil/gmon_codec.h include/sprofil/unwind_table.h \
	include/sprofil/events.h
# libbpf for the bpf backend, libelf and zlib for libbpf.
LIB_LDLIBS := -lbpf -lelf -lz -ldl -pthread
LIB_SO_LDLIBS := -ldl -pthread
LIB_LOADER := $(LIB_DIR)/sprofil/bpf-loader.so
# libsprofil.a's: the loader, and the code that calls it directly.
LIB_STATIC_OBJS := $(filter-out \
	$(BUILD)/libsprofil/backends/backend_bpf_program.o, $(LIB_OBJS)) \
	$(BUILD)/libsprofil/static/backend_bpf_program.o \
	$(BUILD)/libsprofil/backends/backend_bpf_loader.o

# The bpf backend's program (libsprofil/backends/bpf/), compiled for BPF
# and embedded in the library as a skeleton header (build/bpf/, generated).
# It uses only UAPI types (docs/backends.md says why no vmlinux.h); the
# multiarch directory gives <asm/...>, since -target bpf has none.  The
# object's BTF line info names its sources, and the library embeds it:
# relative to the tree, so that no installed file names the build's
# directory (tests/install/run-deb).
BPF_DIR := $(BUILD)/bpf
BPF_CLANG ?= clang
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -Wall -Werror \
	-ffile-prefix-map=$(CURDIR)=. \
	-Iinclude/uapi -Iinclude -Ilibsprofil/backends/bpf/include \
	-Ilibsprofil/backends/bpf \
	-idirafter /usr/include/$(shell $(CC) -print-multiarch) \
	-idirafter /usr/include
BPF_HDRS := $(wildcard libsprofil/backends/bpf/*.h \
		libsprofil/backends/bpf/include/*.h) \
	include/sprofil/mapping.h include/sprofil/callers.h \
	include/sprofil/unwind_table.h \
	include/uapi/linux/sprofil.h

$(BPF_DIR)/sprofil.bpf.o: libsprofil/backends/bpf/sprofil.bpf.c $(BPF_HDRS)
	@mkdir -p $(BPF_DIR)
	$(BPF_CLANG) $(BPF_CFLAGS) -c -o $@ $<

$(BPF_DIR)/sprofil.skel.h: $(BPF_DIR)/sprofil.bpf.o
	bpftool gen skeleton $< name sprofil_bpf > $@.tmp
	mv $@.tmp $@

# The objects that include the skeleton.
SB_OBJS := $(addprefix $(BUILD)/libsprofil/backends/,backend_bpf.o backend_bpf_events.o \
	backend_bpf_fold.o backend_bpf_program.o backend_bpf_counters.o \
	backend_bpf_loader.o backend_bpf_probe.o backend_bpf_unwind.o) \
	$(BUILD)/libsprofil/static/backend_bpf_program.o
$(SB_OBJS): $(BPF_DIR)/sprofil.skel.h
$(SB_OBJS): CPPFLAGS += -I$(BPF_DIR) -Ilibsprofil/backends/bpf

.PHONY: lib
lib: $(LIB_DIR)/libsprofil.so $(LIB_DIR)/libsprofil.a $(LIB_LOADER)

$(BUILD)/libsprofil/static/backend_bpf_program.o: \
		libsprofil/backends/backend_bpf_program.c $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Ilibsprofil $(CFLAGS) -fPIC -DSB_LOADER_LINKED \
		-c -o $@ $<

# The plugin's one function is its interface: nothing else exported.
$(LIB_LOADER): $(BUILD)/libsprofil/backends/backend_bpf_loader.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -shared -Wl,--exclude-libs,ALL -o $@ $< \
		-lbpf -lelf -lz

$(BUILD)/libsprofil/%.o: libsprofil/%.c $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Ilibsprofil $(CFLAGS) -fPIC -c -o $@ $<

$(BUILD)/libsprofil/%-asm.o: libsprofil/%.S
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -c -o $@ $<

# sp_mcount() runs with only the integer argument registers saved, like
# glibc's __mcount_internal: no vector registers, no memset/memcpy calls
# made up by the optimizer, no stack protector, and never -pg itself.
$(BUILD)/libsprofil/pg/mcount.o: CFLAGS += -mgeneral-regs-only \
	-fno-tree-loop-distribute-patterns -fno-omit-frame-pointer \
	-fno-stack-protector -fno-instrument-functions

$(LIB_DIR)/libsprofil.so: $(LIB_OBJS) libsprofil/libsprofil.map
	@mkdir -p $(LIB_DIR)
	$(CC) $(LDFLAGS) -shared -Wl,-soname,libsprofil.so.$(LIB_SOMAJOR) \
		-Wl,--version-script=libsprofil/libsprofil.map \
		-o $@ $(LIB_OBJS) $(LIB_SO_LDLIBS)
	ln -sf libsprofil.so $(LIB_DIR)/libsprofil.so.$(LIB_SOMAJOR)

$(LIB_DIR)/libsprofil.a: $(LIB_STATIC_OBJS)
	@mkdir -p $(LIB_DIR)
	rm -f $@
	$(AR) rcs $@ $(LIB_STATIC_OBJS)
