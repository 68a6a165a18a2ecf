// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A known call structure for the exports and for merging runs, built
 * with frame pointers and without -pg, recorded with `sprofil record`:
 * main -> outer_a -> inner (2 parts), main -> outer_b -> inner (1 part),
 * main -> solo (1 part); a part is argv[1] ms of CPU time (default 50).
 * Built again with -DVARIANT=2 it is another build of the same program
 * (another build-id), which a merge must refuse.
 */
#include <stdlib.h>
#include "../../cli/cli_burn.h"

#ifndef VARIANT
#define VARIANT 1
#endif

static long part_ms = 50;

__attribute__((noinline)) unsigned long burn(long ms)
{
	return cli_burn_ms(ms);
}

__attribute__((noinline)) unsigned long inner(long ms)
{
	return burn(ms) + 1;
}

__attribute__((noinline)) unsigned long outer_a(void)
{
	return inner(2 * part_ms) + 1;
}

__attribute__((noinline)) unsigned long outer_b(void)
{
	return inner(part_ms) + 1;
}

__attribute__((noinline)) unsigned long solo(void)
{
	return burn(part_ms) + 1;
}

int main(int argc, char **argv)
{
	unsigned long r;

	if (argc > 1)
		part_ms = atol(argv[1]);
	r = outer_a() + outer_b() + solo();
	return r == 42 + VARIANT;	/* 0, but the work cannot be dropped */
}
