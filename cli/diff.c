// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sprofil diff [options] BASE NEW: the analyzer's --diff mode
 * (gprof/diff/, docs/diff.md), which reads each side's profiles with the
 * program and modules they name.  It is one more mode of sprofil-gprof,
 * not a program of its own, so that the profiles are read by the very
 * code `sprofil report` runs.  Bad input exits 2, as the analyzer's
 * diff does: a CI gate tells "slower" (1) from "could not compare".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sprofil.h"

int cli_diff(int argc, char **argv)
{
	char gprof[4096];
	char **args;
	int i, n = 0;

	if (argc == 2 && !strcmp(argv[1], "--version")) {
		puts("sprofil " SPROFIL_VERSION);
		return 0;
	}
	if (cli_find_gprof(gprof, sizeof(gprof)))
		return 2;
	args = calloc(argc + 2, sizeof(*args));
	if (!args) {
		cli_error("out of memory");
		return 2;
	}
	/* It would wake ld.so's own profiler in the analyzer. */
	unsetenv("LD_PROFILE");
	args[n++] = gprof;
	args[n++] = "--diff";
	for (i = 1; i < argc; i++)
		args[n++] = argv[i];
	execv(gprof, args);
	cli_error("%s: %s", gprof, strerror(errno));
	free(args);
	return 2;
}
