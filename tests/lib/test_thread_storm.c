// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Thousands of threads of about 1 ms of CPU each, as a pool that spawns
 * a thread per task makes: the samples at the task must match the CPU
 * time the tasks measured themselves (-10 %, +15 %), and samples x period
 * the process's CPU time (CLOCK_PROCESS_CPUTIME_ID, exact) less what the
 * threads' set-up and exit cost the kernel.  A thread shorter than a period used to
 * take its unfinished period with it when it exited: 1,500 threads got
 * 10 samples on bpf and 70 on signal where ~1,300 were due.  Now the
 * unsampled part goes to a process-wide carry that files a sample at the
 * thread's start routine for each period it completes (docs/backends.md).
 *
 * The carry takes the thread's CPU time, user and system alike (its split
 * is known only to the tick), so the threads here do user work only, in
 * one call: a workload calling the kernel often would be over-credited
 * by its system share.  getrusage()'s user time is no oracle for threads
 * this short: the kernel splits a thread's exact run time into user and
 * system by the ticks it saw, and a 1 ms thread sees a quarter of one.
 * On some hosts it gave a quarter of this pure user work to the system
 * (samples over user time 1.29-1.41 while the samples matched the CPU
 * time); the ratio to user time is printed, not judged.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <cmocka.h>
#include "lib_test.h"

#define NTHREADS	1500
#define AT_ONCE		2
#define THREAD_CPU	0.001

/* Iterations of wl_work_a for THREAD_CPU of CPU: no clock calls inside. */
static uint64_t iters;
/* CPU time the tasks took, in ns, each measured by its own thread. */
static _Atomic uint64_t task_ns;

static double user_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
}

/* Global: lt_func_region() finds it in the dynamic symbols. */
void *storm_task(void *arg);
void *storm_task(void *arg)
{
	double t0 = wl_thread_seconds();

	(void)arg;
	wl_work_a(iters);
	atomic_fetch_add(&task_ns,
			 (uint64_t)((wl_thread_seconds() - t0) * 1e9));
	return NULL;
}

static void short_threads_are_sampled_in_full(void **state)
{
	const unsigned int flags = PROF_UINT;
	struct prof p = lt_func_region(storm_task, flags);
	struct sprofil_info i;
	pthread_t t[AT_ONCE];
	uint64_t period, in_task;
	double u0, c0, user, cpu, sampled, at_task;
	int k, j;

	(void)state;
	iters = wl_calibrate(THREAD_CPU);
	assert_int_equal(sprofil(&p, 1, NULL, flags), 0);
	period = lt_info().period_ns;
	u0 = user_seconds();
	c0 = wl_cpu_seconds();
	for (k = 0; k < NTHREADS; k += AT_ONCE) {
		for (j = 0; j < AT_ONCE; j++)
			assert_int_equal(pthread_create(&t[j], NULL,
							storm_task, NULL), 0);
		for (j = 0; j < AT_ONCE; j++)
			assert_int_equal(pthread_join(t[j], NULL), 0);
	}
	user = user_seconds() - u0;
	cpu = wl_cpu_seconds() - c0;
	assert_int_equal(sprofil(NULL, 0, NULL, 0), 0);
	i = lt_info();
	in_task = wl_sum(p.pr_base, flags, 0, lt_nbuckets(&p, flags));
	sampled = i.samples * (period / 1e9);
	at_task = in_task * (period / 1e9);
	lt_print_info("thread storm", &i);
	print_message("#   %d threads: sampled %.3f s (%llu samples, %llu at their start routine) for %.3f s of CPU (user %.3f s, tasks %.3f s): ratio %.3f (to user %.3f), at the task %.3f\n",
		      NTHREADS, sampled, (unsigned long long)i.samples,
		      (unsigned long long)in_task, cpu, user, task_ns / 1e9,
		      sampled / cpu, sampled / user,
		      at_task / (task_ns / 1e9));
	/*
	 * Under qemu TCG (SPROFIL_TEST_TCG, tests/kmod/run-in-vm) the guest's
	 * user/system split is no oracle: see wl_tcg_short_threads_accounted().
	 */
	if (getenv("SPROFIL_TEST_SANITIZED"))
		/* A sanitizer build checks memory and threads, not accuracy. */
		print_message("#   accuracy not judged in a sanitizer build\n");
	else if (getenv("SPROFIL_TEST_TCG"))
		assert_true(wl_tcg_short_threads_accounted(sampled /
							   (task_ns / 1e9)));
	else {
		/*
		 * The tasks' work is sampled in full (1.00-1.04 on bpf,
		 * 1.01-1.10 on signal: a thread's exit through the library
		 * after its task, longer on a busy host, is in its carry);
		 * nothing is counted twice; and all but the threads' set-up
		 * and exit in the kernel, which no backend can see (0.93-
		 * 0.96 on bpf, 0.94-1.03 on signal), is in the profile.
		 */
		assert_true(at_task >= 0.90 * (task_ns / 1e9) &&
			    at_task <= 1.15 * (task_ns / 1e9));
		assert_true(sampled <= 1.10 * cpu);
		assert_true(sampled >= 0.85 * cpu);
	}
	free(p.pr_base);
}

static int stop_profiling(void **state)
{
	(void)state;
	return sprofil(NULL, 0, NULL, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(short_threads_are_sampled_in_full,
					  stop_profiling),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
