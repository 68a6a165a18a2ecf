// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The program of run-diffviews' builds: leaf() burns CPU time, reached
 * through two callers, via_a() and via_b(), with 30 % each of a CPU
 * time given in ms (argv[1], 300 by default); own() burns the other
 * 40 % itself.  Built three times: the base; -DSLOW_B, where via_b()
 * asks leaf() for twice its time (a slowdown in one function through a
 * particular caller: the arc via_b -> leaf, via_b's inclusive time,
 * leaf's self time and leaf's burning line grow, via_a's do not); and
 * VARIANT 2, where own() was renamed own_v2() (its function, lines and
 * arc from main new, the old ones vanished).  own() does its work in a
 * clone of itself, own.part.0 as GCC's partial inlining names one: the
 * diff folds the two into one row, whose inclusive time counts each
 * chain through both once.
 */
#include <stdlib.h>

#include "../cli/cli_burn.h"

#ifndef SLOW_B
#define SLOW_B 1
#endif

static long total_ms = 300;

__attribute__((noinline)) void leaf(long ms)
{
	cli_burn_ms(ms);
}

__attribute__((noinline)) void via_a(void)
{
	leaf(total_ms * 30 / 100);
}

__attribute__((noinline)) void via_b(void)
{
	leaf(total_ms * 30 * SLOW_B / 100);
}

#if VARIANT == 2
#define own own_v2
#define OWN_PART "own_v2.part.0"
#else
#define OWN_PART "own.part.0"
#endif
__attribute__((noinline)) void own_part(void) __asm__(OWN_PART);

__attribute__((noinline)) void own_part(void)
{
	cli_burn_ms(total_ms * 40 / 100);
}

__attribute__((noinline)) void own(void)
{
	own_part();
	/* After the call: not a tail call, own stays on the chain. */
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	if (argc > 1)
		total_ms = atol(argv[1]);
	via_a();
	via_b();
	own();
	return 0;
}
