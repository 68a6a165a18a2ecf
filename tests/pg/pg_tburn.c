// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Three threads, each spending PG_TBURN_SECONDS of its own CPU in its own
 * function while main waits: every thread must be sampled, whatever the
 * backend (a thread the runtime did not see start has no sampling timer
 * on the signal backend and no perf event on bpf).  Prints each thread's
 * CPU seconds as "<function> <seconds>".
 */
#include <pthread.h>
#include <stdio.h>
#include "pg_burn.h"

#define PG_TBURN_SECONDS	0.3

static volatile uint64_t sink[3];
static double spent[3];

static PG_FUNC void thread_a(void)
{
	sink[0] = burn(PG_TBURN_SECONDS);
}

static PG_FUNC void thread_b(void)
{
	sink[1] = burn(PG_TBURN_SECONDS);
}

static PG_FUNC void thread_c(void)
{
	sink[2] = burn(PG_TBURN_SECONDS);
}

static void (*const work[3])(void) = { thread_a, thread_b, thread_c };

static void *start(void *arg)
{
	long i = (long)arg;

	work[i]();
	spent[i] = pg_thread_seconds();
	return NULL;
}

int main(void)
{
	static const char *const name[3] = { "thread_a", "thread_b", "thread_c" };
	pthread_t t[3];

	for (long i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, start, (void *)i)) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < 3; i++) {
		pthread_join(t[i], NULL);
		printf("%s %.3f\n", name[i], spent[i]);
	}
	return 0;
}
