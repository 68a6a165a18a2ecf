// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The program of run-diff's builds: hot, warm and work take 40, 30 and
 * 20 % of a CPU time given in ms (argv[1], 200 by default), helper the
 * rest.  Built twice: VARIANT 2 is "the next commit", where work is
 * split by GCC's cloning (work.constprop.0 and work.cold, named so by
 * hand to be sure of it) and helper was renamed helper_v2, so that the
 * diff must fold the clones into work and show helper as vanished and
 * helper_v2 as new.  -DSLOW=PCT makes hot PCT % slower.
 */
#include <stdlib.h>

#include "../cli/cli_burn.h"

#ifndef SLOW
#define SLOW 0
#endif

static long total_ms = 200;

__attribute__((noinline)) void hot(void)
{
	cli_burn_ms(total_ms * 40 * (100 + SLOW) / 10000);
}

__attribute__((noinline)) void warm(void)
{
	cli_burn_ms(total_ms * 30 / 100);
}

#if VARIANT == 2
void work(void) __asm__("work.constprop.0");
void work_cold(void) __asm__("work.cold");
__attribute__((noinline)) void work_cold(void)
{
	cli_burn_ms(total_ms * 5 / 100);
}

__attribute__((noinline)) void work(void)
{
	cli_burn_ms(total_ms * 15 / 100);
	work_cold();
}

__attribute__((noinline)) void helper_v2(void)
{
	cli_burn_ms(total_ms * 10 / 100);
}
#define helper helper_v2
#else
__attribute__((noinline)) void work(void)
{
	cli_burn_ms(total_ms * 20 / 100);
}

__attribute__((noinline)) void helper(void)
{
	cli_burn_ms(total_ms * 10 / 100);
}
#endif

int main(int argc, char **argv)
{
	if (argc > 1)
		total_ms = atol(argv[1]);
	hot();
	warm();
	work();
	helper();
	return 0;
}
