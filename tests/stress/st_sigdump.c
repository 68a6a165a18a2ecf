// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * SPROFIL_SIGDUMP under fire: st-sigdump THREADS SECONDS.  THREADS
 * threads call hot() for SECONDS of wall time, each counting its calls,
 * while the driver sends the dump signal from another process as fast
 * as it can.  The program prints "ready" when the threads run and
 *
 *   calls <total hot() calls>
 *
 * when they are done, then waits for its stdin to close (the driver
 * stops signalling first) and exits, writing the final profile.  Every
 * call must be in exactly one file: the dumps plus the final one.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include "st_pg.h"

/* Per thread: the threads share no data (ThreadSanitizer runs this). */
static _Thread_local volatile uint64_t sink;
static double deadline;

PG_FUNC void hot(void)
{
	sink++;
}

static void *caller(void *arg)
{
	uint64_t *calls = arg;

	while (st_now() < deadline) {
		for (int i = 0; i < 1000; i++)
			hot();
		*calls += 1000;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int nthreads = argc > 1 ? atoi(argv[1]) : 4;
	double seconds = argc > 2 ? atof(argv[2]) : 2;
	pthread_t t[64];
	uint64_t calls[64] = { 0 }, total = 0;
	char c;

	if (nthreads < 1 || nthreads > 64)
		return 2;
	st_describe("hot", (void *)hot);
	deadline = st_now() + seconds;
	for (int i = 0; i < nthreads; i++)
		if (pthread_create(&t[i], NULL, caller, &calls[i]))
			return 2;
	dprintf(1, "ready\n");
	for (int i = 0; i < nthreads; i++) {
		pthread_join(t[i], NULL);
		total += calls[i];
	}
	dprintf(1, "calls %llu\n", (unsigned long long)total);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
