// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Built with -pg: tens of millions of calls to small functions, so that
 * libsprofil's mcount takes a large share of the samples (run-cli: the
 * report leaves that share out of the program's functions and states
 * it once as the profiler's overhead).
 */
#include "cli_burn.h"

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
	caller(20000000);
	return cli_burn_ms(100) == 42;
}
