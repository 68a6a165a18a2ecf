// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A region set replaced 2,000 times, as a dlopen()/dlclose() loop makes
 * the -pg runtime do (one new set per load and per unload), while a
 * thread keeps running: it must stay cheap (the bpf backend used to load
 * and verify a new BPF program each time, 143 s for 2,000 cycles, and
 * looked hung) and lose no sample at the switches.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include "lib_test.h"

#define CYCLES		2000
/* Each replacement may cost this much wall time on average, at most. */
#define BOUND_MS	10.0
/*
 * Under qemu TCG (SPROFIL_TEST_TCG, tests/kmod/run-in-vm): fewer, and
 * thirty times the bound, still far below a program load there (seconds).
 * bpf on 6.1 took 71 to 134 ms per replacement over four matrix runs
 * (kmod 16 ms), with nothing else running on the host: 100 ms flaked.
 */
#define TCG_CYCLES	200
#define TCG_BOUND_MS	300.0
/* Buckets of each of the four big regions (32-bit). */
#define BIG		65536

static atomic_bool spinning;

static void *spinner(void *arg)
{
	(void)arg;
	while (atomic_load(&spinning))
		wl_work_a(10000);
	return NULL;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/*
 * Like a -pg program's set: wl_work_a's region, four big ones elsewhere
 * in the text, and every other cycle one more, as a module comes and
 * goes.
 */
static void replace_the_set_2000_times_in_bounded_time(void **state)
{
	const unsigned int flags = PROF_UINT;
	struct prof p[6];
	struct wl_func f = wl_func_extent(wl_calibrate);
	struct sprofil_info i;
	pthread_t t;
	uint64_t sa;
	double t0, took;
	int tcg = getenv("SPROFIL_TEST_TCG") != NULL;
	int cycles = tcg ? TCG_CYCLES : CYCLES, k, n;
	double bound = tcg ? TCG_BOUND_MS : BOUND_MS;

	(void)state;
	p[0] = lt_func_region(wl_work_a, flags);
	for (k = 1; k < 6; k++) {
		p[k].pr_base = calloc(BIG, sizeof(uint32_t));
		assert_non_null(p[k].pr_base);
		p[k].pr_size = BIG * sizeof(uint32_t);
		/* Far above the text: no sample lands there. */
		p[k].pr_off = f.start + ((uintptr_t)k << 32);
		p[k].pr_scale = 0x10000;
	}
	atomic_store(&spinning, true);
	assert_int_equal(pthread_create(&t, NULL, spinner, NULL), 0);
	t0 = now();
	for (n = 0; n < cycles; n++)
		assert_int_equal(sprofil(p, 5 + (n & 1), NULL, flags), 0);
	took = now() - t0;
	/* The last set counts like any other. */
	wl_spin_cpu(wl_work_b, 1000, lt_seconds_for(100));
	atomic_store(&spinning, false);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(sprofil(NULL, 0, NULL, 0), 0);
	i = lt_info();
	sa = wl_sum(p[0].pr_base, flags, 0, lt_nbuckets(&p[0], flags));
	lt_print_info("after the last set", &i);
	print_message("#   %d replacements in %.2f s (%.2f ms each, bound %.0f), wl_work_a %llu samples in all\n",
		      cycles, took, took * 1e3 / cycles, bound,
		      (unsigned long long)sa);
	assert_true(took * 1e3 / cycles <= bound);
	/* The spinner ran in wl_work_a under every set. */
	assert_true(sa > 0);
	assert_int_equal(i.saturated, 0);
	for (k = 0; k < 6; k++)
		free(p[k].pr_base);
}

static int stop_profiling(void **state)
{
	(void)state;
	return sprofil(NULL, 0, NULL, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(replace_the_set_2000_times_in_bounded_time,
					  stop_profiling),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
