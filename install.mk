# make install / make uninstall, laid out as a distribution would:
#
#   $(BINDIR)          sprofil, sprofil-gprof
#   $(LIBEXECDIR)/sprofil/sprofil-probe
#   $(LIBEXECDIR)/sprofil/sprofil-outside
#   $(LIBEXECDIR)/sprofil/sprofil-unwind
#   $(LIBDIR)          libsprofil.so.VERSION, .so.0 (the soname), .so, .a,
#                      pkgconfig/sprofil.pc
#   $(INCLUDEDIR)      sprofil.h, linux/sprofil.h, sprofil/*.h
#   $(MANDIR)          man1, man3, man4, man5
#   $(DKMSDIR)/sprofil-VERSION   the module's source and dkms.conf
#   $(DOCDIR)          LICENSE and the COPYING texts
#
# Every path takes DESTDIR in front.  uninstall removes the files of
# INST_FILES below and the directories only sprofil uses, nothing else:
# the one list is what both targets walk.
#
# The sprofil command finds its library, probe and analyzer relative to
# its own path (cli/locate.c): ../lib/<multiarch>/, ../lib/,
# ../libexec/sprofil/ and its own directory.  So LIBDIR and LIBEXECDIR
# are best left to their defaults; install warns otherwise.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
# Debian's multiarch directory (lib/x86_64-linux-gnu) where there is one.
MULTIARCH := $(shell dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || \
	$(CC) -print-multiarch 2>/dev/null)
LIBDIR ?= $(PREFIX)/lib$(if $(MULTIARCH),/$(MULTIARCH))
LIBEXECDIR ?= $(PREFIX)/libexec
INCLUDEDIR ?= $(PREFIX)/include
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
DOCDIR ?= $(DATADIR)/doc/sprofil
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
# dkms looks in /usr/src only, whatever the prefix.
DKMSDIR ?= /usr/src
DKMS_SRC := $(DKMSDIR)/sprofil-$(SPROFIL_VERSION)

INSTALL ?= install

LIB_REAL := libsprofil.so.$(SPROFIL_VERSION)

MAN_PAGES := $(wildcard man/*.[1-8])
# The extension of the section 3 pages: 3, or e.g. 3sprofil where
# another package owns man3/profil.3 (Debian's manpages-dev does).
MAN3EXT ?= 3
# Functions documented in another function's page: each a symbolic
# link to it (what dh_installman makes of .so links too; mandoc -T lint
# calls .so fragile).
MAN_LINKS := sprofil_info:sprofil sprofil_flush:sprofil \
	sprofil_callers:sprofil sprofil_event:sprofil monstartup:moncontrol \
	__monstartup:moncontrol _mcleanup:moncontrol \
	mcount:moncontrol _mcount:moncontrol __fentry__:moncontrol
# A page's installed name: man/x.3 -> man3/x.$(MAN3EXT), man/y.1 -> man1/y.1.
man_dest = $(MANDIR)/man$(subst .,,$(suffix $(1)))/$(basename $(notdir $(1))).$(if $(filter .3,$(suffix $(1))),$(MAN3EXT),$(subst .,,$(suffix $(1))))
# The module's source for DKMS, and the headers it includes from outside
# kmod/ (the same relative layout, so that Kbuild finds them).
DKMS_FILES := $(wildcard kmod/*.c kmod/*.h) kmod/Kbuild
DKMS_HDRS := include/uapi/linux/sprofil.h include/sprofil/mapping.h \
	include/sprofil/callers.h include/sprofil/unwind_table.h \
	include/sprofil/events.h
LICENSE_FILES := $(wildcard LICENSE COPYING*)

# Everything installed, as paths under DESTDIR (uninstall's list).
INST_FILES := $(BINDIR)/sprofil $(BINDIR)/sprofil-gprof \
	$(LIBEXECDIR)/sprofil/sprofil-probe \
	$(LIBEXECDIR)/sprofil/sprofil-outside \
	$(LIBEXECDIR)/sprofil/sprofil-unwind \
	$(LIBDIR)/$(LIB_REAL) $(LIBDIR)/libsprofil.so.$(LIB_SOMAJOR) \
	$(LIBDIR)/libsprofil.so $(LIBDIR)/libsprofil.a \
	$(LIBDIR)/sprofil/bpf-loader.so \
	$(PKGCONFIGDIR)/sprofil.pc \
	$(INCLUDEDIR)/sprofil.h $(INCLUDEDIR)/linux/sprofil.h \
	$(INCLUDEDIR)/sprofil/mapping.h $(INCLUDEDIR)/sprofil/callers.h \
	$(INCLUDEDIR)/sprofil/gmon_format.h $(INCLUDEDIR)/sprofil/gmon_codec.h \
	$(INCLUDEDIR)/sprofil/events.h \
	$(foreach m,$(MAN_PAGES),$(call man_dest,$(m))) \
	$(foreach l,$(MAN_LINKS),$(MANDIR)/man3/$(firstword $(subst :, ,$(l))).$(MAN3EXT)) \
	$(DKMS_FILES:kmod/%=$(DKMS_SRC)/%) $(DKMS_HDRS:%=$(DKMS_SRC)/%) \
	$(DKMS_SRC)/dkms.conf \
	$(LICENSE_FILES:%=$(DOCDIR)/%)
# Directories that hold only sprofil's files, deepest first.
INST_DIRS := $(LIBEXECDIR)/sprofil $(LIBDIR)/sprofil $(INCLUDEDIR)/sprofil \
	$(DKMS_SRC)/include/uapi/linux $(DKMS_SRC)/include/uapi \
	$(DKMS_SRC)/include/sprofil $(DKMS_SRC)/include $(DKMS_SRC) $(DOCDIR)

$(BUILD)/sprofil.pc: libsprofil/sprofil.pc.in VERSION
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
		-e 's|@VERSION@|$(SPROFIL_VERSION)|' $< >$@.tmp
	mv $@.tmp $@

$(BUILD)/dkms.conf: kmod/dkms.conf.in VERSION
	@mkdir -p $(dir $@)
	sed -e 's|@VERSION@|$(SPROFIL_VERSION)|' $< >$@.tmp
	mv $@.tmp $@

# sprofil.pc holds the paths, which may change from one make to the next.
.PHONY: install uninstall install-gprof FORCE-PC
$(BUILD)/sprofil.pc: FORCE-PC

install: lib gprof cli $(BUILD)/sprofil.pc $(BUILD)/dkms.conf
	@case "$(LIBDIR)" in \
	"$(BINDIR:%/bin=%)/lib"|"$(BINDIR:%/bin=%)/lib/$(MULTIARCH)") ;; \
	*) echo "warning: sprofil (the command) looks for libsprofil in" \
		"../lib or ../lib/$(MULTIARCH) beside it, not $(LIBDIR)" >&2 ;; \
	esac
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR)/sprofil \
		$(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(INCLUDEDIR)/linux $(DESTDIR)$(INCLUDEDIR)/sprofil \
		$(DESTDIR)$(DKMS_SRC)/include/uapi/linux \
		$(DESTDIR)$(DKMS_SRC)/include/sprofil
	$(INSTALL) -m 755 $(CLI_BIN) $(DESTDIR)$(BINDIR)/sprofil
	$(INSTALL) -m 755 $(GPROF_DIR)/gprof $(DESTDIR)$(BINDIR)/sprofil-gprof
	$(INSTALL) -m 755 $(CLI_PROBE) $(DESTDIR)$(LIBEXECDIR)/sprofil/sprofil-probe
	$(INSTALL) -m 755 $(CLI_OUTSIDE) $(DESTDIR)$(LIBEXECDIR)/sprofil/sprofil-outside
	$(INSTALL) -m 755 $(UNWIND_TOOL) $(DESTDIR)$(LIBEXECDIR)/sprofil/sprofil-unwind
	$(INSTALL) -m 644 $(LIB_DIR)/libsprofil.so $(DESTDIR)$(LIBDIR)/$(LIB_REAL)
	ln -sf $(LIB_REAL) $(DESTDIR)$(LIBDIR)/libsprofil.so.$(LIB_SOMAJOR)
	ln -sf libsprofil.so.$(LIB_SOMAJOR) $(DESTDIR)$(LIBDIR)/libsprofil.so
	$(INSTALL) -m 644 $(LIB_DIR)/libsprofil.a $(DESTDIR)$(LIBDIR)/libsprofil.a
	$(INSTALL) -d $(DESTDIR)$(LIBDIR)/sprofil
	$(INSTALL) -m 644 $(LIB_LOADER) $(DESTDIR)$(LIBDIR)/sprofil/bpf-loader.so
	$(INSTALL) -m 644 $(BUILD)/sprofil.pc $(DESTDIR)$(PKGCONFIGDIR)/sprofil.pc
	$(INSTALL) -m 644 include/sprofil.h $(DESTDIR)$(INCLUDEDIR)/sprofil.h
	$(INSTALL) -m 644 include/uapi/linux/sprofil.h \
		$(DESTDIR)$(INCLUDEDIR)/linux/sprofil.h
	$(INSTALL) -m 644 include/sprofil/mapping.h include/sprofil/callers.h \
		include/sprofil/gmon_format.h include/sprofil/gmon_codec.h \
		include/sprofil/events.h $(DESTDIR)$(INCLUDEDIR)/sprofil/
# The pages say the version of VERSION, filled in here, and the
# section 3 ones the section they are installed in.
	$(foreach m,$(MAN_PAGES),$(INSTALL) -d $(dir $(DESTDIR)$(call man_dest,$(m))) && \
		sed -e 's/@VERSION@/$(SPROFIL_VERSION)/g' \
		-e '/^\.TH /s/ 3 / $(MAN3EXT) /' $(m) \
		>$(DESTDIR)$(call man_dest,$(m)) && \
		chmod 644 $(DESTDIR)$(call man_dest,$(m)) && ) true
	for l in $(MAN_LINKS); do \
		ln -sf $${l#*:}.$(MAN3EXT) \
			$(DESTDIR)$(MANDIR)/man3/$${l%%:*}.$(MAN3EXT) || exit 1; \
	done
	$(INSTALL) -m 644 $(DKMS_FILES) $(DESTDIR)$(DKMS_SRC)/
	for h in $(DKMS_HDRS); do \
		$(INSTALL) -m 644 $$h $(DESTDIR)$(DKMS_SRC)/$$h || exit 1; \
	done
	$(INSTALL) -m 644 $(BUILD)/dkms.conf $(DESTDIR)$(DKMS_SRC)/dkms.conf
	$(if $(LICENSE_FILES),$(INSTALL) -d $(DESTDIR)$(DOCDIR) && \
		$(INSTALL) -m 644 $(LICENSE_FILES) $(DESTDIR)$(DOCDIR)/)

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INST_FILES))
	@# A directory that still holds files holds someone else's: kept.
	@for d in $(addprefix $(DESTDIR),$(INST_DIRS)); do \
		if [ -d "$$d" ] && ! rmdir "$$d" 2>/dev/null; then \
			echo "$$d: not empty, kept" >&2; \
		fi; \
	done

# The analyzer alone (docs/gprof.md): as sprofil-gprof, so that
# binutils' gprof keeps its name.
install-gprof: $(GPROF_DIR)/gprof
	$(INSTALL) -D -m 755 $< $(DESTDIR)$(BINDIR)/sprofil-gprof

# The Debian packages of debian/ in $(BUILD)/deb, built by
# dpkg-buildpackage in a copy of the tree (the tree itself stays clean)
# and checked by lintian: errors fail, warnings are listed.
.PHONY: deb
deb:
	@scripts/build-deb $(BUILD)/deb
