/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Shared by the -pg programs of tests/pg.  burn() is always inlined, so
 * the CPU it spends is sampled in the function that calls it and that
 * function's call count is not disturbed by a helper's.
 */
#ifndef SPROFIL_PG_BURN_H
#define SPROFIL_PG_BURN_H

#include <stdint.h>
#include <time.h>

/*
 * noipa implies noinline, noclone (no f.constprop.0 or f.isra.0 in the
 * reports) and no_icf: without it gcc folds look-alike work functions
 * into one symbol, and gprof credits one's calls to the other.
 */
#define PG_FUNC __attribute__((noipa))

static inline double pg_cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline double pg_thread_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Spends @seconds of this thread's CPU in the calling function. */
static inline __attribute__((always_inline)) uint64_t burn(double seconds)
{
	double end = pg_thread_seconds() + seconds;
	uint64_t x = 1;

	do {
		for (int i = 0; i < 10000; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			__asm__ volatile("" : "+r"(x));
		}
	} while (pg_thread_seconds() < end);
	return x;
}

#endif /* SPROFIL_PG_BURN_H */
