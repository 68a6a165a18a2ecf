# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the run-* scripts of tests/gprof (POSIX sh, sourced).
#
# Environment (tests.mk sets it): GPROF, the analyzer under test;
# GPT_BIN, where the corpus and mkgmon were built; GPT_SRC, this
# directory; GPT_ROOT, the top of the tree.  GNU_GPROF is the oracle.

set -u
LC_ALL=C
export LC_ALL
GNU_GPROF=${GNU_GPROF:-/usr/bin/gprof}
GPT_ROOT=${GPT_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
GPT_BIN=${GPT_BIN:-$GPT_ROOT/build/tests/gprof}
GPT_SRC=${GPT_SRC:-$GPT_ROOT/tests/gprof}
GPROF=${GPROF:-$GPT_ROOT/build/gprof/gprof}
MKGMON=$GPT_BIN/mkgmon

tap_n=0
tap_failed=0

ok() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $*"
}

# not_ok DESC [FILE]: FILE's first 30 lines follow as TAP comments.
not_ok() {
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - $1"
	if [ $# -gt 1 ] && [ -s "$2" ]; then
		head -n 30 "$2" | sed 's/^/# /'
	fi
}

# check COND DESC [FILE]: ok when the command COND (a string) succeeds.
check() {
	if eval "$1"; then
		ok "$2"
	else
		not_ok "$2" "${3:-}"
	fi
}

diag() {
	echo "$*" | sed 's/^/# /'
}

tap_done() {
	# Under a sanitizer build, any report of any run fails the suite.
	if [ -n "${W:-}" ] && [ -s "$W/sanitizer-reports" ]; then
		not_ok "no sanitizer report in any run ($(grep -c '^# run' "$W/sanitizer-reports") runs reported)" \
			"$W/sanitizer-reports"
	elif [ "${GPT_TAG:-}" = asan ]; then
		ok "no sanitizer report in any run"
	fi
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}

# A work directory of its own for each run (several runs of the suite may
# share the build tree), removed when every test passed, kept otherwise
# for a look.
work_dir() {
	mkdir -p "$GPT_BIN"
	W=$(mktemp -d "$GPT_BIN/work-$1.XXXXXX") || exit 2
	T=$W/tmp
	mkdir -p "$T"
	trap 'work_done' EXIT
}

work_done() {
	if [ "$tap_failed" -eq 0 ]; then
		rm -rf "$W"
	else
		echo "# files kept in $W"
	fi
}

# Fails the whole script early when the analyzer is not there.
need_gprof() {
	if [ ! -x "$GPROF" ]; then
		echo "1..1"
		echo "not ok 1 - $GPROF is not built"
		exit 1
	fi
}

# Runs $1 (GNU or ours) with the rest as arguments in directory $DIR,
# into $T/$2.out, $T/$2.err, $T/$2.rc.  A time limit (RUN_TIMEOUT
# seconds, 60 by default) keeps a hanging analyzer from stalling the
# suite; a timeout shows as status 124 or 137.
run_one() {
	_prog=$1 _tag=$2
	shift 2
	(cd "$DIR" && exec timeout -k 2 "${RUN_TIMEOUT:-60}" "$_prog" "$@") \
		>"$T/$_tag.out" 2>"$T/$_tag.err" </dev/null
	echo $? >"$T/$_tag.rc"
	if grep -q 'Sanitizer\|runtime error' "$T/$_tag.err"; then
		{ echo "# run $_prog $*:"
		  grep -m 5 -A 8 'ERROR\|runtime error' "$T/$_tag.err"
		} >>"$W/sanitizer-reports"
	fi
}

# Address of symbol $2 in executable $1, as 0x... (empty if none).
sym_addr() {
	nm "$1" | awk -v s="$2" '$3 == s { print "0x" $1; exit }'
}

# Lines in file $1, a last one without its newline included (GNU ends
# some messages without one).
nlines() {
	awk 'END { print NR }' "$1"
}

# True when the analyzer under test is GNU gprof itself (harness check):
# the tests of what only ours does are skipped then.
is_gnu() {
	[ "$(readlink -f "$GPROF")" = "$(readlink -f "$GNU_GPROF")" ]
}

skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # SKIP $*"
}

# Describes a status: "exit N" or "signal N".
status_text() {
	if [ "$1" -gt 128 ]; then
		echo "signal $(($1 - 128))"
	else
		echo "exit $1"
	fi
}
