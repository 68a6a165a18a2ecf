# make install as a distribution runs it, into throwaway directories
# outside the tree, results in $(BUILD)/results/install.tap:
#   run-install  the installed library, headers, pkg-config file, tools
#                and man pages used from DESTDIR only, then uninstalled;
#   run-dkms     the installed DKMS tree built by dkms for Debian's
#                kernel (IT_KVER, default KVER) in a DKMS state of its
#                own; built, not loaded.

.PHONY: check-install
check-install: lib gprof cli
	@mkdir -p $(BUILD)/results
	@IT_ROOT=$(abspath .) IT_BUILD=$(abspath $(BUILD)) IT_KVER=$(KVER) \
		$(abspath scripts/run-tap) \
		$(abspath $(BUILD)/results/install.tap) \
		$(abspath tests/install/run-install) \
		$(abspath tests/install/run-dkms)
