// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Many calls through the PLT (strtol in libc, lazily bound): where
 * LD_PROFILE woke ld.so's profiler, each would go through it and ld.so
 * would take a large share of the samples.
 */
#include <stdlib.h>
#include <time.h>

int main(void)
{
	struct timespec t0, t;
	unsigned long sum = 0;
	long i;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		for (i = 0; i < 100000; i++)
			sum += strtol("12345", NULL, 10);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while (t.tv_sec - t0.tv_sec < 1);
	return sum == 42;
}
