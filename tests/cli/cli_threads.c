// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Per-thread profiles (run-cli): four threads named share1 to share4
 * burn 1, 2, 3 and 4 units of CPU time in thread_work(), the main
 * thread one unit in main_work().  Each prints its id, name and the CPU
 * time it took (the main thread's since main(), after the collector's
 * start-up), which the test compares with the report's.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli_burn.h"

static long unit_ms = 150;

__attribute__((noinline)) unsigned long thread_work(long ms)
{
	return cli_burn_ms(ms);
}

__attribute__((noinline)) unsigned long main_work(long ms)
{
	return cli_burn_ms(ms);
}

static double thread_cpu(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void *run(void *arg)
{
	long k = (long)arg;
	char name[16];

	snprintf(name, sizeof(name), "share%ld", k);
	pthread_setname_np(pthread_self(), name);
	thread_work(k * unit_ms);
	printf("%ld %s %.4f\n", (long)syscall(SYS_gettid), name, thread_cpu());
	return NULL;
}

int main(int argc, char **argv)
{
	double start = thread_cpu();
	pthread_t t[4];
	long k;

	if (argc > 1)
		unit_ms = atol(argv[1]);
	for (k = 0; k < 4; k++)
		if (pthread_create(&t[k], NULL, run, (void *)(k + 1)))
			return 1;
	main_work(unit_ms);
	for (k = 0; k < 4; k++)
		pthread_join(t[k], NULL);
	printf("%ld main %.4f\n", (long)getpid(), thread_cpu() - start);
	return 0;
}
