# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the run-* scripts of tests/install (POSIX sh, sourced): TAP
# output, a work directory outside the tree, and what a user does with
# an installed sprofil, whether `make install` or the Debian packages
# put it there.
#
# Environment: IT_ROOT, the top of the tree; IT_BUILD, its build
# directory (make's BUILD), absolute.

set -u
LC_ALL=C
export LC_ALL
IT_ROOT=${IT_ROOT:?IT_ROOT: the top of the tree}
IT_BUILD=${IT_BUILD:?IT_BUILD: the build directory}
VERSION=$(cat "$IT_ROOT/VERSION")

tap_n=0
tap_failed=0
# Which end of a failure's file is shown: head, or tail for build logs.
TAP_SHOW=${TAP_SHOW:-head}
ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }
# not_ok DESC [FILE]: 30 lines of FILE follow as TAP comments.
not_ok() {
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - $1"
	if [ $# -gt 1 ] && [ -s "$2" ]; then
		$TAP_SHOW -n 30 "$2" | sed 's/^/# /'
	fi
}
# check 'SHELL TEST' DESCRIPTION [FILE shown on failure]
check() {
	if eval "$1"; then
		ok "$2"
	else
		not_ok "$2" "${3:-}"
	fi
}
# The plan, and the exit status.
tap_end() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}

# work_dir NAME: W, a directory made outside the tree (TMPDIR), so that
# any use of the tree shows in a trace; removed at exit unless a test
# failed.
work_dir() {
	W=$(mktemp -d "${TMPDIR:-/tmp}/sprofil-$1.XXXXXX") || exit 2
	trap 'if [ "$tap_failed" -eq 0 ]; then rm -rf "$W"; else echo "# files kept in $W"; fi' EXIT
	# record's unwind table cache: the run's own, not ~/.cache.
	XDG_CACHE_HOME=$W/cache
	export XDG_CACHE_HOME
}

# inst_build NAME CC-ARGS...: tests/install/inst_prog.c built as NAME.
inst_build() {
	_name=$1
	shift
	if cc -O1 -Wall -Werror -o "$_name" "$IT_ROOT/tests/install/inst_prog.c" \
			"$@" >"$_name.cc" 2>&1; then
		ok "cc $_name through pkg-config"
	else
		not_ok "cc $_name through pkg-config: $*" "$_name.cc"
	fi
}

# inst_run NAME: run in its own directory, its gmon.out read by the
# installed analyzer.
inst_run() {
	_p=$1
	mkdir -p "out-$_p"
	(cd "out-$_p" && LD_LIBRARY_PATH=$LIB "../$_p" >run.txt 2>&1)
	_st=$?
	check '[ $_st = 0 ] && grep -q "^backend signal, [1-9]" "out-$_p/run.txt"' \
		"$_p runs and samples (sprofil_info)" "out-$_p/run.txt"
	"$T/usr/bin/sprofil-gprof" -b -p "$_p" "out-$_p/gmon.out" \
		>"out-$_p/report.txt" 2>&1
	check 'grep -q " burn$" "out-$_p/report.txt"' \
		"$_p: the installed sprofil-gprof reads its gmon.out (burn)" \
		"out-$_p/report.txt"
}

# use_installed: with sprofil installed under $T (prefix /usr, library
# in $LIB), in the current directory: programs built through pkg-config
# only (dynamic, libsprofil.a, -pg) run and write profiles the installed
# sprofil-gprof reads; the installed `sprofil record` and `report` on a
# program that knows nothing of sprofil, traced to show that no path
# inside the tree is opened or run.  The signal backend samples without
# privilege, on any host.
use_installed() {
	SPROFIL_BACKEND=signal
	export SPROFIL_BACKEND
	PKG_CONFIG_SYSROOT_DIR=$T
	PKG_CONFIG_PATH=$LIB/pkgconfig
	# Nothing but $T: no .pc from the system's default directories is
	# needed for sprofil's own flags (libbpf's comes from there for
	# --static, as a distribution's would).
	export PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_PATH
	check '[ "$(pkg-config --modversion sprofil)" = "$VERSION" ]' \
		"pkg-config --modversion sprofil is $VERSION"
	CFL=$(pkg-config --cflags sprofil)
	LIBS=$(pkg-config --libs sprofil)
	# libsprofil.a by name, its dependencies from Libs.private and
	# Requires.private.
	SLIBS=$(pkg-config --static --libs sprofil |
		sed 's/-lsprofil\( \|$\)/-l:libsprofil.a /')
	inst_build dyn $CFL $LIBS
	inst_build static $CFL $SLIBS
	inst_build pg -pg -DINST_PG $CFL $LIBS
	check '! readelf -dW static | grep -q "NEEDED.*libsprofil"' \
		"static: libsprofil.a linked in, no libsprofil.so needed"
	inst_run dyn
	inst_run static
	inst_run pg
	check 'grep -q " 1 .* burn$" out-pg/report.txt' \
		"pg: burn counted once by the installed -pg runtime" out-pg/report.txt

	# sprofil record and report, on a program that knows nothing of
	# sprofil.
	cc -O1 -o plain "$IT_ROOT/tests/install/inst_prog.c" -DINST_PLAIN \
		$CFL 2>plain.cc
	if command -v strace >/dev/null 2>&1; then
		TRACE="strace -f -qq -o trace.txt -e trace=%file,execve"
	else
		TRACE=
	fi
	$TRACE "$T/usr/bin/sprofil" record -o plain.gmon -- ./plain \
		>record.txt 2>&1
	_st=$?
	check '[ $_st = 0 ] && [ -s plain.gmon ]' \
		"installed sprofil record -- prog writes its profile" record.txt
	if [ -n "$TRACE" ]; then
		grep -F "$IT_ROOT" trace.txt >tree.txt
		check '[ -s trace.txt ] && [ ! -s tree.txt ]' \
			"sprofil record used no path inside the source tree (strace)" \
			tree.txt
		check 'grep -q "execve(\"$T/usr/[^\"]*libexec/sprofil/sprofil-probe\"" trace.txt &&
		       grep -q "open.*\"$LIB/libsprofil.so.$VERSION\"" trace.txt' \
			"record ran the installed probe, preloaded the installed library" \
			trace.txt
	else
		ok "# SKIP no strace"
		ok "# SKIP no strace"
	fi
	$TRACE "$T/usr/bin/sprofil" report -b -p plain.gmon >report.txt 2>&1
	check 'grep -q " burn$" report.txt' \
		"installed sprofil report reads it with the installed analyzer" \
		report.txt
	if [ -n "$TRACE" ]; then
		grep -F "$IT_ROOT" trace.txt >tree.txt
		check '[ ! -s tree.txt ] &&
		       grep -q "execve(\"$T/usr/bin/sprofil-gprof\"" trace.txt' \
			"report ran the installed sprofil-gprof, nothing from the tree" \
			trace.txt
	fi
}
