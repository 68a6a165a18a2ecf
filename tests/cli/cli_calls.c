// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Built with -pg: tens of millions of calls to small functions, so that
 * libsprofil's mcount takes a large share of the samples (run-cli: the
 * report leaves that share out of the program's functions and states
 * it once as the profiler's overhead).  Calls go on in rounds of a
 * million until RUN_MS of CPU time is spent, whatever the machine's
 * speed; the program prints how many it made, for the call count.
 */
#include <stdio.h>
#include "cli_burn.h"

#define RUN_MS	400
#define ROUND	1000000ul

static volatile unsigned long sink;

__attribute__((noinline)) void tiny(unsigned long i)
{
	sink += i;
}

__attribute__((noinline)) void caller(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		tiny(i);
}

int main(void)
{
	long end = cli_cpu_ms() + RUN_MS;
	unsigned long calls = 0;

	do {
		caller(ROUND);
		calls += ROUND;
	} while (cli_cpu_ms() < end);
	printf("%lu\n", calls);
	return cli_burn_ms(100) == 42;
}
