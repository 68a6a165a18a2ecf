// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A thread created in a fork child is sampled like any other, on the
 * stack it gets there: glibc hands the child the stacks of the threads
 * the fork left behind, which still hold those threads' frames (and,
 * under AddressSanitizer, the shadow that marked them).  libsprofil's
 * start routine for the new thread (threads.c) runs first on that
 * stack, under ASan before ASan's own has cleared its shadow.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <sprofil.h>
#include "lib_test.h"

/* Frames of the parked thread: enough to cover the top of its stack. */
#define PARK_DEPTH	64

static int park_pipe[2];
static atomic_bool parked;
static uint64_t chunk;

/*
 * Many small frames, each with a local array between redzones (under
 * ASan), down to a read() that waits for the parent's word.
 */
static __attribute__((noinline)) int park(int depth)
{
	volatile char pad[8] = { (char)depth };
	char c;

	if (depth < PARK_DEPTH)
		return park(depth + 1) + pad[0];
	atomic_store(&parked, true);
	return (int)read(park_pipe[0], &c, 1) + pad[0];
}

static void *parked_thread(void *unused)
{
	(void)unused;
	park(0);
	return NULL;
}

static void *working_thread(void *seconds)
{
	wl_spin_cpu(wl_work_b, chunk, *(double *)seconds);
	return NULL;
}

/* The child: a new thread, on a stack the fork left behind, works. */
static int child(struct prof *p)
{
	size_t n = lt_nbuckets(p, PROF_UINT);
	uint64_t before = wl_sum(p->pr_base, PROF_UINT, 0, n), after;
	double seconds = lt_seconds_for(100);
	pthread_t t;

	if (pthread_create(&t, NULL, working_thread, &seconds) ||
	    pthread_join(t, NULL))
		return 2;
	if (sprofil_flush())
		return 3;
	after = wl_sum(p->pr_base, PROF_UINT, 0, n);
	print_message("# child: wl_work_b %llu -> %llu in its thread\n",
		      (unsigned long long)before, (unsigned long long)after);
	return after - before >= 50 ? 0 : 1;
}

static void fork_child_threads_are_sampled(void **state)
{
	struct prof p = lt_func_region(wl_work_b, PROF_UINT);
	pthread_t t;
	int status;
	pid_t pid;

	(void)state;
	/*
	 * gcc 12's ThreadSanitizer aborts a fork child that joins a thread
	 * on a stack the fork left behind, which is what this test does
	 * ("dup thread with used id", without libsprofil too: docs/stress.md).
	 */
	if (getenv("SPROFIL_TEST_TSAN")) {
		print_message("# skipped under TSan: its runtime aborts such a child\n");
		skip();
	}
	chunk = wl_calibrate(0.001);
	assert_int_equal(pipe(park_pipe), 0);
	assert_int_equal(sprofil(&p, 1, NULL, PROF_UINT), 0);
	assert_int_equal(pthread_create(&t, NULL, parked_thread, NULL), 0);
	while (!atomic_load(&parked))
		usleep(1000);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		_exit(child(&p));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(write(park_pipe[1], "", 1), 1);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(sprofil(NULL, 0, NULL, 0), 0);
	print_message("# child status %#x\n", status);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	close(park_pipe[0]);
	close(park_pipe[1]);
	free(p.pr_base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fork_child_threads_are_sampled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
