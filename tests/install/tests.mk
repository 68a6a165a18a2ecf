# make install as a distribution runs it, into throwaway directories
# outside the tree, results in $(BUILD)/results/install.tap:
#   run-install  the installed library, headers, pkg-config file and
#                tools used from DESTDIR only, then uninstalled.

.PHONY: check-install
check-install: lib gprof cli
	@mkdir -p $(BUILD)/results
	@IT_ROOT=$(abspath .) IT_BUILD=$(abspath $(BUILD)) \
		$(abspath scripts/run-tap) \
		$(abspath $(BUILD)/results/install.tap) \
		$(abspath tests/install/run-install)
