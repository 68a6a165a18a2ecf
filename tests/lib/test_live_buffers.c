// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A program written for glibc's profil() reads its buckets while it runs,
 * without calling anything of ours first.  Every backend must then show
 * the samples taken, at most sprofil_info()'s stale_us late: the bpf
 * backend, which counts in a BPF map, used to show 0 until a flush.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "lib_test.h"

/* stale_us lives in the tail padding: the struct keeps its ABI. */
_Static_assert(sizeof(struct sprofil_info) == 56,
	       "struct sprofil_info changed size");

static uint64_t sum(const struct prof *p)
{
	return wl_sum(p->pr_base, PROF_UINT, 0, lt_nbuckets(p, PROF_UINT));
}

static void sleep_us(uint64_t us)
{
	struct timespec t = { .tv_sec = us / 1000000,
			      .tv_nsec = (us % 1000000) * 1000 };

	while (nanosleep(&t, &t) && errno == EINTR)
		;
}

static void buckets_fill_without_a_flush(void **state)
{
	struct prof p = lt_func_region(wl_work_a, PROF_UINT);
	struct sprofil_info i;
	uint64_t live, flushed, wait_us;
	double cpu;
	int round;

	(void)state;
	assert_int_equal(sprofil(&p, 1, NULL, PROF_UINT), 0);
	/* Read before any sample: nothing to fold yet. */
	i = lt_info();
	print_message("# backend %s: buffers at most %u us stale\n",
		      i.backend, i.stale_us);
	assert_true(i.stale_us != SPROFIL_STALE_ON_DEMAND);
	assert_true(i.stale_us <= 1000000);
	/* Three times the bound, and scheduling slack on a busy machine. */
	wait_us = 3 * (uint64_t)i.stale_us + 20000;
	for (round = 0; round < 3; round++) {
		cpu = wl_spin_cpu(wl_work_a, 100000, lt_seconds_for(100) / 3);
		sleep_us(wait_us);
		live = sum(&p);
		print_message("#   after %.3f s of CPU: %llu samples in the buckets, read directly\n",
			      cpu, (unsigned long long)live);
		assert_true(live > 0);
	}
	assert_int_equal(sprofil_flush(), 0);
	flushed = sum(&p);
	print_message("#   %llu after sprofil_flush()\n",
		      (unsigned long long)flushed);
	/* Nothing ran while we slept: the fold had everything already. */
	assert_true(live * 100 >= flushed * 95);
	assert_int_equal(sprofil(NULL, 0, NULL, 0), 0);
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
		cmocka_unit_test_teardown(buckets_fill_without_a_flush,
					  stop_profiling),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
