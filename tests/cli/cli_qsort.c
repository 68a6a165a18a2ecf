// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Time in libc's internal functions: qsort() sorts in msort_with_tmp,
 * which has no dynamic symbol (run-cli: with symbol sizes honoured its
 * time is libc.so.6+0x... without libc's debug file, msort_with_tmp with
 * it; never the exported symbol before it).
 */
#include <stdlib.h>

static int v[1 << 20];

static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	int r, i;

	srand(1);
	for (r = 0; r < 6; r++) {
		for (i = 0; i < 1 << 20; i++)
			v[i] = rand();
		qsort(v, 1 << 20, sizeof(v[0]), cmp);
	}
	return v[0] == 42;
}
