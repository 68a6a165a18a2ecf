# make install as a distribution runs it, into throwaway directories
# outside the tree, results in $(BUILD)/results/install.tap:
#   run-install  the installed library, headers, pkg-config file, tools
#                and man pages used from DESTDIR only, then uninstalled;
#   run-dkms     the installed DKMS tree built by dkms for Debian's
#                kernel (IT_KVER, default KVER) in a DKMS state of its
#                own; built, not loaded here: the module is kept for
#                check-dkms-vm;
#   run-deb      `make deb` (lintian included), the packages unpacked
#                into a throwaway root and used from there only.

.PHONY: check-install
check-install: lib gprof cli
	@mkdir -p $(BUILD)/results
	@IT_ROOT=$(abspath .) IT_BUILD=$(abspath $(BUILD)) IT_KVER=$(KVER) \
		$(abspath scripts/run-tap) \
		$(abspath $(BUILD)/results/install.tap) \
		$(abspath tests/install/run-install) \
		$(abspath tests/install/run-dkms) \
		$(abspath tests/install/run-deb)

# The module dkms built in check-install (run-dkms keeps it), loaded in
# one VM boot of Debian's kernel (KVER): insmod, the module's error tests
# (test_errors), a program linked with libsprofil.a profiled on the kmod
# backend, rmmod.  Results in $(BUILD)/results/dkms-vm.tap; about a
# minute.  make kmod's build of the same sources tells a stale module.
DV_PROG := $(BUILD)/tests/install/inst_prog
# Fewer loops than on the host: TCG runs it several times slower.
$(DV_PROG): tests/install/inst_prog.c $(LIB_DIR)/libsprofil.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -DINST_LOOPS=100000000UL -o $@ $< \
		$(LIB_DIR)/libsprofil.a $(LIB_LDLIBS)

.PHONY: check-dkms-vm
check-dkms-vm: kmod gprof $(DV_PROG) $(KT_DIR)/test_errors $(KT_DIR)/libkt_spin.so
	@mkdir -p $(BUILD)/results
	@IT_ROOT=$(abspath .) IT_BUILD=$(abspath $(BUILD)) IT_KVER=$(KVER) \
		IT_PROG=$(abspath $(DV_PROG)) $(abspath scripts/run-tap) \
		$(abspath $(BUILD)/results/dkms-vm.tap) \
		$(abspath tests/install/run-dkms-vm)
