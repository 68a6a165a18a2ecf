/* SPDX-License-Identifier: GPL-2.0-or-later */
/* CPU work the cli test programs spend in named functions. */
#ifndef CLI_BURN_H
#define CLI_BURN_H

#include <time.h>

/* The CPU time the process has spent, in ms. */
static inline long cli_cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/*
 * Burns about @ms of this thread's CPU time; keeps a frame record.  The
 * clock is read every 200,000 steps (a few hundred microseconds): it is
 * a system call, whose time the samples (user mode only) do not see, and
 * read every 20,000 steps it was 5 to 9 % of a thread's CPU time on a
 * loaded host, failing --threads' 5 % bound.
 */
static inline unsigned long cli_burn_ms(long ms)
{
	struct timespec t0, t;
	volatile unsigned long x = 0;
	unsigned long i;

	(void)__builtin_frame_address(0);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (i = 0; i < 200000; i++)
			x = x * 1103515245ul + 12345ul;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 +
		 (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	return x;
}

#endif
