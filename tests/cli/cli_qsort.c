// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Time in libc's internal functions: qsort() sorts in msort_with_tmp,
 * which has no dynamic symbol (run-cli: with symbol sizes honoured its
 * time is libc.so.6+0x... without libc's debug file, msort_with_tmp with
 * it; never the exported symbol before it).
 */
#include <stdlib.h>
#include "cli_burn.h"

/* Sorting goes on for this much CPU time, whatever the machine's speed. */
#define RUN_MS	500

static int v[1 << 20];

static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	long end = cli_cpu_ms() + RUN_MS;
	int i;

	srand(1);
	do {
		for (i = 0; i < 1 << 20; i++)
			v[i] = rand();
		qsort(v, 1 << 20, sizeof(v[0]), cmp);
	} while (cli_cpu_ms() < end);
	return v[0] == 42;
}
