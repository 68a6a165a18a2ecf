// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sprofil record | report | diff: profile any program, then read the
 * profile, or compare two builds' profiles.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sprofil.h"

void cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("sprofil: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void usage(FILE *f)
{
	fputs("usage: sprofil record [options] [--] PROGRAM [ARGS...]\n"
	      "       sprofil record -p PID [options] [-- COMMAND [ARGS...]]\n"
	      "       sprofil report [gprof options] [PROFILE...]\n"
	      "       sprofil diff [--fail-above=PCT] [options] BASE NEW\n"
	      "record options:\n"
	      "  -p PID              sample running process PID from outside (bpf)\n"
	      "  -o FILE|DIR/        where the profiles go (default " CLI_DEFAULT_OUTPUT ")\n"
	      "  -F HZ               sampling rate\n"
	      "  --backend NAME      auto, kmod, bpf or signal\n"
	      "  --modules LIST      modules sampled: ALL (default) or a:b:...\n"
	      "  --sigdump SIG       dump the profile so far on signal SIG\n"
	      "  --no-callers        no call chains\n"
	      "sprofil " SPROFIL_VERSION "; see sprofil(1).\n", f);
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "record"))
		return cli_record(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "report"))
		return cli_report(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "diff"))
		return cli_diff(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "--version")) {
		puts("sprofil " SPROFIL_VERSION);
		return 0;
	}
	if (argc >= 2 && (!strcmp(argv[1], "--help") ||
			  !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc >= 2)
		cli_error("unknown command `%s'", argv[1]);
	usage(stderr);
	return 2;
}
