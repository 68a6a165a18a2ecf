// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The rate asked with SPROFIL_HZ is the rate sampled, or the period
 * reported is the one really used: samples per CPU second must match the
 * period tvp and sprofil_info() give, and a 60/30/10 split at 4 kHz must
 * come out within 2 points, which a tick-rate clock crediting its missed
 * periods to one PC cannot do (54.8/31.1/14.1 before the signal backend
 * had perf counters).
 *
 * Under qemu TCG (SPROFIL_TEST_TCG, set by tests/kmod/run-in-vm) only the
 * periods are checked: its timing is no measure of accuracy.
 *
 * The signal backend with SPROFIL_SIGNAL_TIMER=itimer (the path taken
 * where perf_event_paranoid forbids self-monitoring) is checked in a
 * child process, since the clock is chosen once per process: there the
 * period must be the tick, not the 250 us asked.
 *
 * libsprofil reads SPROFIL_HZ when it loads, so the program runs itself
 * again with SPROFIL_HZ set if it was not.
 */
#include <errno.h>
#include <math.h>
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

#define ASKED_HZ	"4000"
#define ASKED_NS	250000u

static uint64_t iters_per_sec;

static int under_tcg(void)
{
	return getenv("SPROFIL_TEST_TCG") != NULL;
}

static uint64_t region_sum(const struct prof *p, unsigned int flags)
{
	return wl_sum(p->pr_base, flags, 0, lt_nbuckets(p, flags));
}

/* Whether this kernel lets an unprivileged process sample itself. */
static int perf_self_monitoring(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int level = 3;

	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = 3;
		fclose(f);
	}
	return level <= 2;
}

/*
 * The period the backend in use should give for ASKED_HZ, or 0 for the
 * signal backend's CPU-time timers, which expire on the kernel tick
 * (CONFIG_HZ, which userland cannot read).
 */
static uint64_t expected_period(const char *backend)
{
	const char *clock = getenv("SPROFIL_SIGNAL_TIMER");

	if (strcmp(backend, "signal") ||
	    (perf_self_monitoring() && !(clock && !strcmp(clock, "itimer"))))
		return ASKED_NS;
	return 0;
}

/*
 * 60/30/10 in CPU time, in interleaved rounds, at ASKED_HZ; returns the
 * period in use.  Checks samples per CPU second and, if @tol > 0, the
 * shares.
 */
static uint64_t run_split(double tol)
{
	static uint64_t (*const fn[3])(uint64_t) = {
		wl_work_a, wl_work_b, wl_work_c,
	};
	static const double share[3] = { 60, 30, 10 };
	const unsigned int flags = PROF_UINT;
	struct prof p[3];
	struct timeval tv = { 0, 0 };
	struct sprofil_info i;
	uint64_t s[3], total = 0, period, chunk;
	double t[3] = { 0, 0, 0 }, cpu = 0, c0, rate;
	int k, round;

	for (k = 0; k < 3; k++)
		p[k] = lt_func_region(fn[k], flags);
	assert_int_equal(sprofil(p, 3, &tv, flags), 0);
	i = lt_info();
	period = i.period_ns;
	/* tvp and sprofil_info() agree, to the microsecond. */
	assert_int_equal(tv.tv_sec * 1000000 + tv.tv_usec, period / 1000);
	/* 0.5 ms per call: the clock reads between calls are kernel time. */
	chunk = iters_per_sec / 2000 + 1;
	c0 = wl_cpu_seconds();
	for (round = 0; round < 20; round++)
		for (k = 0; k < 3; k++)
			t[k] += wl_spin_cpu(fn[k], chunk,
					    share[k] / 100 * 2.0 / 20);
	c0 = wl_cpu_seconds() - c0;
	assert_int_equal(sprofil(NULL, 0, NULL, 0), 0);
	i = lt_info();
	lt_print_info("60/30/10", &i);
	for (k = 0; k < 3; k++) {
		s[k] = region_sum(&p[k], flags);
		total += s[k];
		cpu += t[k];
	}
	rate = i.samples / c0;
	print_message("#   %.0f samples per CPU second at a period of %llu ns (%.0f expected)\n",
		      rate, (unsigned long long)period, 1e9 / period);
	/* The period reported is the period sampled. */
	if (!under_tcg())
		assert_true(fabs(rate * period / 1e9 - 1) <= 0.10);
	for (k = 0; tol > 0 && k < 3; k++) {
		double pct = 100.0 * s[k] / total, c = 100 * t[k] / cpu;

		print_message("#   wl_work_%c: %llu samples = %.2f%% (nominal %.0f%%, CPU %.2f%%)\n",
			      'a' + k, (unsigned long long)s[k], pct,
			      share[k], c);
		if (under_tcg())
			continue;
		assert_true(fabs(pct - c) <= tol);
		assert_true(fabs(pct - share[k]) <= tol);
	}
	for (k = 0; k < 3; k++)
		free(p[k].pr_base);
	return period;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Bursts of 5.5 ticks of CPU in one function: at a true 4 kHz each gets
 * its CPU time's worth of samples to a sample or two, while a tick-rate
 * clock that credits the periods it missed files them a tick's worth
 * (16 at 250 Hz) at a time, missing by up to half a tick.  The median
 * miss must be under a quarter of a tick's worth.
 */
static void short_bursts_get_their_share_at_4_khz(void **state)
{
	const unsigned int flags = PROF_UINT;
	struct timespec res;
	struct sprofil_info i = lt_info();
	double miss[15], tick = 0.004, t0, cpu, per_tick;
	uint64_t period = 0;
	int k;

	(void)state;
	if (expected_period(i.backend) != ASKED_NS || under_tcg())
		skip();
	if (!clock_getres(CLOCK_MONOTONIC_COARSE, &res) && !res.tv_sec)
		tick = res.tv_nsec / 1e9;
	for (k = 0; k < 15; k++) {
		struct prof p = lt_func_region(wl_work_a, flags);
		uint64_t got;

		assert_int_equal(sprofil(&p, 1, NULL, flags), 0);
		period = lt_info().period_ns;
		t0 = wl_thread_seconds();
		wl_work_a((uint64_t)(iters_per_sec * 5.5 * tick));
		cpu = wl_thread_seconds() - t0;
		assert_int_equal(sprofil(NULL, 0, NULL, 0), 0);
		got = region_sum(&p, flags);
		miss[k] = fabs(got - cpu * 1e9 / period);
		print_message("#   burst %d: %.2f ms of CPU, %llu samples, %.1f expected\n",
			      k, cpu * 1e3, (unsigned long long)got,
			      cpu * 1e9 / period);
		free(p.pr_base);
	}
	qsort(miss, 15, sizeof(miss[0]), by_value);
	per_tick = tick * 1e9 / period;
	print_message("#   median miss %.1f samples (a tick is %.0f)\n",
		      miss[7], per_tick);
	assert_true(miss[7] <= per_tick / 4);
}

static void split_60_30_10_at_4_khz_within_2_points(void **state)
{
	struct sprofil_info i = lt_info();
	uint64_t want = expected_period(i.backend), period;

	(void)state;
	period = run_split(want == ASKED_NS ? 2 : 0);
	if (want)
		assert_int_equal(period, want);
}

/* In the child: the timer clock must report the tick and sample at it. */
static int itimer_child(void)
{
	struct sprofil_info i;

	iters_per_sec = wl_calibrate(0.2);
	if (sprofil_info(&i) || strcmp(i.backend, "signal"))
		return 2;
	return run_split(0) > ASKED_NS ? 0 : 1;
}

static void signal_timer_fallback_reports_the_tick(void **state)
{
	struct sprofil_info i = lt_info();
	static const char *const env[] = { "SPROFIL_SIGNAL_TIMER=itimer", NULL };

	(void)state;
	if (strcmp(i.backend, "signal"))
		skip();
	assert_int_equal(lt_run_self("--itimer-child", env), 0);
}

static int group_setup(void **state)
{
	(void)state;
	iters_per_sec = wl_calibrate(0.5);
	return 0;
}

static int stop_profiling(void **state)
{
	(void)state;
	return sprofil(NULL, 0, NULL, 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(split_60_30_10_at_4_khz_within_2_points,
					  stop_profiling),
		cmocka_unit_test_teardown(short_bursts_get_their_share_at_4_khz,
					  stop_profiling),
		cmocka_unit_test_teardown(signal_timer_fallback_reports_the_tick,
					  stop_profiling),
	};
	const char *hz = getenv("SPROFIL_HZ");

	if (!hz || strcmp(hz, ASKED_HZ)) {
		setenv("SPROFIL_HZ", ASKED_HZ, 1);
		execv("/proc/self/exe", argv);
		perror("test_rate: cannot run itself again with SPROFIL_HZ set");
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "--itimer-child"))
		return itimer_child();
	return cmocka_run_group_tests(tests, group_setup, NULL);
}
