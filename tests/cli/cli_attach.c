// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The target of `record -p`: its main thread burns CPU in attach_work
 * and a second thread in attach_thread_work (half as much), in slices
 * of CPU time, until the file STOP exists (at most a minute of CPU),
 * then it says "attach: done" and exits with status 3, so that a test
 * sees it finish as it would unprofiled.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include "cli_burn.h"

static const char *stop;
/* The work's result goes somewhere: the compiler keeps the work. */
static volatile unsigned long sink;

static int stopped(void)
{
	return !access(stop, F_OK) || cli_cpu_ms() >= 60000;
}

__attribute__((noinline)) unsigned long attach_work(void)
{
	return cli_burn_ms(20);
}

__attribute__((noinline)) unsigned long attach_thread_work(void)
{
	return cli_burn_ms(10);
}

static void *thread_main(void *arg)
{
	unsigned long r = 0;

	while (!stopped()) {
		r += attach_thread_work();
		usleep(10000);
	}
	*(unsigned long *)arg = r;
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long r = 0, t = 0;
	pthread_t thread;

	if (argc != 2) {
		fprintf(stderr, "usage: cli-attach STOP\n");
		return 2;
	}
	stop = argv[1];
	if (pthread_create(&thread, NULL, thread_main, &t))
		return 2;
	while (!stopped())
		r += attach_work();
	pthread_join(thread, NULL);
	sink = r + t;
	printf("attach: done\n");
	return 3;
}
