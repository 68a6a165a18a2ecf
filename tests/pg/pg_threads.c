// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Four threads call tick() 1,000,000 times each, all at once: gprof must
 * report exactly 4000000 calls.  glibc's mcount drops an arc whenever
 * another thread is inside it, so its count comes out short.
 */
#include <pthread.h>
#include <stdio.h>
#include "pg_burn.h"

#define NTHREADS	4
#define NCALLS		1000000

static pthread_barrier_t start;
/* Per thread: the threads share no data (ThreadSanitizer runs this). */
static _Thread_local volatile uint64_t sink;

static PG_FUNC void tick(void)
{
	sink++;
}

static PG_FUNC void *worker(void *arg)
{
	(void)arg;
	/* All threads enter mcount together, which is what loses arcs. */
	pthread_barrier_wait(&start);
	for (int i = 0; i < NCALLS; i++)
		tick();
	return NULL;
}

int main(void)
{
	pthread_t t[NTHREADS];

	pthread_barrier_init(&start, NULL, NTHREADS);
	for (int i = 0; i < NTHREADS; i++)
		if (pthread_create(&t[i], NULL, worker, NULL)) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	return 0;
}
