// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Time in the vDSO: clock_gettime(CLOCK_MONOTONIC) in a loop runs in
 * the kernel's vDSO, without a system call (run-cli: the report names
 * its function in [vdso], with no warning).  About 0.4 s of CPU time.
 */
#include <time.h>

int main(void)
{
	struct timespec t0, t;
	unsigned long i, sum = 0;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		for (i = 0; i < 10000; i++) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			sum += t.tv_nsec;
		}
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 +
		 (t.tv_nsec - t0.tv_nsec) / 1000000 < 400);
	return sum == 42;
}
