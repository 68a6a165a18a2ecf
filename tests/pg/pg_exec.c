// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A -pg program that profiles itself for a while, then execs argv[1]
 * (the test gives it a CPU-bound program).  The profiling timer survives
 * exec but the SIGPROF handler does not: under glibc's runtime the new
 * program dies of "Profiling timer expired", and the profile of this
 * image is never written because atexit handlers do not run on exec.
 */
#include <stdio.h>
#include <unistd.h>
#include "pg_burn.h"

volatile uint64_t sink;

static PG_FUNC void pre_exec_work(void)
{
	sink += burn(0.01);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s PROGRAM [ARG...]\n", argv[0]);
		return 2;
	}
	for (int i = 0; i < 20; i++)
		pre_exec_work();
	execv(argv[1], argv + 1);
	perror("execv");
	return 127;
}
