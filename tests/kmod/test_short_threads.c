// SPDX-License-Identifier: GPL-2.0
/*
 * In-VM test of sprofil.ko with short-lived threads: thousands of threads
 * of about 1 ms of CPU each, at a 10 ms period, must be accounted for.  The period a thread never completes is carried over at
 * its exit (kmod/leftover.c), so samples x period must match the user CPU
 * time getrusage() reports within 10 %.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "kmod_test.h"

#define NTHREADS	2000
#define AT_ONCE		2		/* the VM's CPUs */
#define THREAD_CPU	0.001		/* seconds of CPU per thread */
#define PERIOD_NS	10000000ULL	/* ten times that */

static uint64_t chunk;			/* wl_work_a iterations, ~50 us */

static void *short_thread(void *arg)
{
	(void)arg;
	wl_spin_cpu(wl_work_a, chunk, THREAD_CPU);
	return NULL;
}

static void test_short_threads_are_accounted(void **state)
{
	static uint32_t buf[4096];
	struct sprofil_region r[2];
	struct sprofil_status st0, st1;
	pthread_t th[AT_ONCE];
	uint64_t period = PERIOD_NS, in_a;
	double u0, u1, ratio;
	long exits0, carried0;
	int fd = kt_open(), i, j;

	(void)state;
	chunk = wl_calibrate(0.00005);
	r[0] = kt_region(buf + 1, sizeof(buf) - 4, (uintptr_t)wl_work_a &
			 ~(uintptr_t)0xfff, 0x10000);
	r[1] = kt_region(buf, 4, 0, 2);		/* overflow bin */
	assert_int_equal(kt_start(fd, r, 2, SPROFIL_UINT, &period), 0);
	assert_int_equal(kt_status(fd, &st0), 0);
	exits0 = kt_module_param("exits_seen");
	carried0 = kt_module_param("periods_carried");
	u0 = kt_user_seconds();
	for (i = 0; i < NTHREADS; i += AT_ONCE) {
		for (j = 0; j < AT_ONCE; j++)
			assert_int_equal(pthread_create(&th[j], NULL,
							short_thread, NULL), 0);
		for (j = 0; j < AT_ONCE; j++)
			pthread_join(th[j], NULL);
	}
	u1 = kt_user_seconds();
	assert_int_equal(kt_status(fd, &st1), 0);
	kt_stop(fd);
	in_a = wl_sum(buf + 1, SPROFIL_UINT, 0, sizeof(buf) / 4 - 1);
	ratio = (st1.samples - st0.samples) * (period / 1e9) / (u1 - u0);
	print_message("# %d threads of %.1f ms CPU: %.3f s user CPU, %llu samples of %.1f ms (x period = %.3f of user CPU), %llu in the region around wl_work_a, %llu in no region\n",
		      NTHREADS, THREAD_CPU * 1e3, u1 - u0,
		      (unsigned long long)(st1.samples - st0.samples),
		      period / 1e6, ratio, (unsigned long long)in_a,
		      (unsigned long long)(st1.misses - st0.misses));
	print_message("# exits of profiled threads seen %ld, periods carried %ld\n",
		      kt_module_param("exits_seen") - exits0,
		      kt_module_param("periods_carried") - carried0);
	assert_true(ratio > 0.9 && ratio < 1.1);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short_threads_are_accounted),
	};

	return cmocka_run_group_tests_name("sprofil short threads", tests,
					   NULL, NULL);
}
