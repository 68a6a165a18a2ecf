// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sprofil-outside PID OUTPUT [PGFILE]: samples process PID from outside
 * (libsprofil/api/outside.c) for `sprofil record`, which runs it for a
 * statically linked program and for `record -p PID`.  Says "ready" on
 * stdout once every thread of PID is sampled, samples until its stdin
 * ends, then writes the profile OUTPUT, with the call arcs of PGFILE (a
 * GNU gmon.out the program's own -pg runtime wrote) when it is there.
 * Linked with libsprofil.a: it profiles another process, not itself.
 * Exit 0, or 1 after one line on stderr.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/outside.h"

int main(int argc, char **argv)
{
	char *end;
	long pid;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: sprofil-outside PID OUTPUT [PGFILE]\n");
		return 1;
	}
	pid = strtol(argv[1], &end, 10);
	if (*end || pid <= 0) {
		fprintf(stderr, "sprofil-outside: %s: not a process id\n",
			argv[1]);
		return 1;
	}
	/* ^C is record's to handle: it ends us through our stdin. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	return sp_outside_record((pid_t)pid, argv[2], 0, 1,
				 argc == 4 ? argv[3] : NULL);
}
