// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A known call structure, built with frame pointers and without -pg:
 * main -> outer_a -> inner (2 parts), main -> outer_b -> inner (1 part),
 * and main -> solo (1 part).  `sprofil record` must give inner the two
 * callers in about that ratio from the chains alone.  With an argument
 * "sigdump" it sends itself SIGUSR1 halfway; with "int" or "term",
 * SIGINT or SIGTERM (left to their default action) after outer_a.
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "cli_burn.h"

#define PART_MS 400

__attribute__((noinline)) unsigned long inner(long ms)
{
	return cli_burn_ms(ms);
}

__attribute__((noinline)) unsigned long outer_a(void)
{
	return inner(2 * PART_MS) + 1;
}

__attribute__((noinline)) unsigned long outer_b(void)
{
	return inner(PART_MS) + 1;
}

__attribute__((noinline)) unsigned long solo(void)
{
	return cli_burn_ms(PART_MS) + 1;
}

int main(int argc, char **argv)
{
	unsigned long r = outer_a();

	if (argc > 1 && !strcmp(argv[1], "sigdump")) {
		kill(getpid(), SIGUSR1);
		sleep(1);	/* the dump thread writes meanwhile */
	}
	if (argc > 1 && (!strcmp(argv[1], "int") || !strcmp(argv[1], "term"))) {
		kill(getpid(), argv[1][0] == 'i' ? SIGINT : SIGTERM);
		sleep(10);	/* the profile is written, then SIGINT kills */
		return 3;
	}
	r += outer_b() + solo();
	return r == 42;		/* 0, but the work cannot be dropped */
}
