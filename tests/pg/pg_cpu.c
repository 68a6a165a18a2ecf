// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Not built with -pg: what pg-exec execs.  It spends a second of CPU, long
 * enough for a profiling timer left armed by exec to fire many times,
 * then says so and exits 0.
 */
#include <stdio.h>
#include "pg_burn.h"

volatile uint64_t sink;

int main(void)
{
	sink = burn(1.0);
	printf("pg-cpu done\n");
	return 0;
}
