// SPDX-License-Identifier: GPL-2.0
/*
 * Accuracy of sprofil.ko against the real kernel: samples split among
 * functions in proportion to the CPU time spent in them, and the number
 * of samples times the reported period equals the CPU time profiled.
 *
 * Everything is measured in CPU time of the process (getrusage), never in
 * wall time: the VM runs under TCG next to other VMs on a small host.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sprofil/mapping.h>
#include "kmod_test.h"

/* Debian's 6.1 kernel is built with CONFIG_HZ=250: one tick is 4 ms. */
#define TICK_NS		4000000ULL
/* Bound on one profiled run, should sampling deliver far too little. */
#define MAX_CPU_SECONDS	15.0

static int fd = -1;
static uint64_t iters_per_sec;	/* kt_work_* iterations per CPU second */

/* A zeroed bucket array covering function @f at scale 0x10000. */
struct fbuf {
	struct wl_func f;
	void *buf;
	size_t bytes;
	struct sprofil_region r;
};

static void fbuf_init(struct fbuf *b, void *fn, unsigned int flags)
{
	size_t esz = 1u << spm_bucket_shift(flags);

	b->f = wl_func_extent(fn);
	/* One bucket per esz bytes of text: round the size up to buckets. */
	b->bytes = (b->f.size + esz - 1) / esz * esz;
	b->buf = calloc(1, b->bytes);
	assert_non_null(b->buf);
	b->r = kt_region(b->buf, b->bytes, b->f.start, SPM_SCALE_ONE);
}

static uint64_t fbuf_sum(const struct fbuf *b, unsigned int flags)
{
	return wl_sum(b->buf, flags, 0, b->bytes >> spm_bucket_shift(flags));
}

/*
 * Ratio of CPU time seen through the samples to the user CPU time the
 * kernel accounted over the same interval.  User time, not user + system:
 * the counters exclude the kernel, so a tick spent in a syscall is no
 * sample.
 */
static double sample_time_ratio(const struct sprofil_status *st,
				uint64_t period_ns, double user)
{
	return st->samples * (period_ns / 1e9) / user;
}

/*
 * Under TCG the host may stop a vCPU for milliseconds while guest time
 * runs on: the thread is charged that time, but its timer fires once,
 * late.  The module credits every period of CPU time the late timer
 * skipped, so samples * period must equal the user CPU time whatever the
 * host load: CPU time is the oracle.
 */
static void check_cpu_time(const char *what, double ratio)
{
	if (fabs(ratio - 1) > 0.05)
		print_message("# %s: samples*period/user=%.4f, want 1 +- 0.05\n",
			      what, ratio);
	assert_true(fabs(ratio - 1) <= 0.05);
}

static int group_setup(void **state)
{
	(void)state;
	fd = kt_open();
	iters_per_sec = wl_calibrate(1.0);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	kt_stop(fd);
	return 0;
}

/* A failed assertion leaves profiling on; the next test must not see it. */
static int test_teardown(void **state)
{
	(void)state;
	kt_stop(fd);
	return 0;
}

/* Deterministic chunk sizes between a quarter and 1.75 times the mean. */
static uint64_t next_chunk(uint64_t *seed, uint64_t mean)
{
	*seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return mean / 4 + (*seed >> 33) % (mean * 3 / 2 + 1);
}

/*
 * wl_work_a gets three times wl_work_b's iterations; both run the same
 * loop, so three quarters of the CPU time is in wl_work_a.  The work is
 * cut into chunks of varying size in alternating order, so that neither
 * a phase effect nor the order of the calls can produce the split.
 */
static void test_split_3_to_1_at_1ms(void **state)
{
	const unsigned int flags = SPROFIL_UINT;
	uint64_t period = 1000000, n_b, c, seed = 1, sa, sb;
	struct sprofil_region r[2];
	struct sprofil_status st;
	struct fbuf a, b;
	double u0, u1, share, ratio;
	int i;

	(void)state;
	fbuf_init(&a, wl_work_a, flags);
	fbuf_init(&b, wl_work_b, flags);
	r[0] = a.r;
	r[1] = b.r;
	/* Chunks average 15 ms in wl_work_b, 45 ms in wl_work_a. */
	n_b = iters_per_sec * 15 / 1000;

	assert_int_equal(kt_start(fd, r, 2, flags, &period), 0);
	assert_int_equal(period, 1000000);
	u0 = kt_user_seconds();
	/*
	 * Until 2400 samples (2.4 s of CPU on a quiet host): how much work
	 * a CPU second does varies under TCG, so the run is sized by its
	 * samples, with a cap on CPU time in case sampling is broken.
	 */
	for (i = 0;; i++) {
		c = next_chunk(&seed, n_b);
		if (i & 1) {
			wl_work_b(c);
			wl_work_a(3 * c);
		} else {
			wl_work_a(3 * c);
			wl_work_b(c);
		}
		assert_int_equal(kt_status(fd, &st), 0);
		if ((i & 1) && (st.samples >= 2400 ||
				kt_user_seconds() - u0 > MAX_CPU_SECONDS))
			break;
	}
	u1 = kt_user_seconds();
	assert_int_equal(kt_stop(fd), 0);
	assert_int_equal(kt_status(fd, &st), 0);

	sa = fbuf_sum(&a, flags);
	sb = fbuf_sum(&b, flags);
	share = (double)sa / (sa + sb);
	ratio = sample_time_ratio(&st, period, u1 - u0);
	print_message("# 3:1 split in %d chunks: a=%llu b=%llu share(a)=%.2f%% (want 75 +- 4)\n",
		      i, (unsigned long long)sa, (unsigned long long)sb,
		      100 * share);
	print_message("# samples=%llu misses=%llu saturated=%llu period=%llu ns user=%.3f s samples*period/user=%.4f\n",
		      (unsigned long long)st.samples,
		      (unsigned long long)st.misses,
		      (unsigned long long)st.saturated,
		      (unsigned long long)period, u1 - u0, ratio);

	/* 2400 nominal; a floor well below it, should sampling break. */
	assert_true(sa + sb >= 500);
	assert_true(fabs(share - 0.75) <= 0.04);
	check_cpu_time("3:1 split", ratio);
	/* Each sample is counted once: in a bucket or as a miss. */
	assert_int_equal(st.saturated, 0);
	assert_int_equal(st.samples, sa + sb + st.misses);
	free(a.buf);
	free(b.buf);
}

/*
 * Profiles ~@seconds of CPU in wl_work_a with the given flags and
 * requested period; returns the period the module reported and checks
 * that samples * period matches the user CPU time within 5%, which is
 * what proves the reported period is the one really used.
 */
static uint64_t run_period(const char *what, unsigned int flags,
			   uint64_t request, double seconds)
{
	uint64_t period = request;
	struct sprofil_status st;
	struct fbuf a;
	double u0, u1, c0, c1, ratio;

	fbuf_init(&a, wl_work_a, flags);
	assert_int_equal(kt_start(fd, &a.r, 1, flags, &period), 0);
	u0 = kt_user_seconds();
	c0 = wl_cpu_seconds();
	/* Sized by samples, as in the split test: @seconds on a quiet host. */
	do {
		wl_work_a(iters_per_sec / 50);
		assert_int_equal(kt_status(fd, &st), 0);
	} while (st.samples * (period / 1e9) < seconds &&
		 kt_user_seconds() - u0 < MAX_CPU_SECONDS);
	c1 = wl_cpu_seconds();
	u1 = kt_user_seconds();
	assert_int_equal(kt_status(fd, &st), 0);
	assert_int_equal(kt_stop(fd), 0);

	ratio = sample_time_ratio(&st, period, u1 - u0);
	print_message("# %s: requested %llu ns, got %llu ns (status %llu); samples=%llu in-function=%llu user=%.3f s (+sys %.3f s) samples*period/user=%.4f\n",
		      what, (unsigned long long)request,
		      (unsigned long long)period,
		      (unsigned long long)st.period_ns,
		      (unsigned long long)st.samples,
		      (unsigned long long)fbuf_sum(&a, flags), u1 - u0,
		      (c1 - c0) - (u1 - u0), ratio);
	/* The status reports the period of the session, as START did. */
	assert_int_equal(st.period_ns, period);
	assert_true(st.state & SPROFIL_STATE_ENABLED);
	assert_true(st.samples >= 100);
	/* Only the period START reported makes this hold. */
	check_cpu_time(what, ratio);
	free(a.buf);
	return period;
}

static void test_default_period_is_one_tick(void **state)
{
	uint64_t p;

	(void)state;
	/* 2 s at 4 ms: 500 samples, so one sample more or less is 0.2%. */
	p = run_period("default", SPROFIL_USHORT, 0, 2.0);
	assert_int_equal(p, TICK_NS);
}

static void test_fast_default_is_quarter_tick(void **state)
{
	uint64_t p;

	(void)state;
	p = run_period("SPROFIL_FAST default", SPROFIL_USHORT | SPROFIL_FAST,
		       0, 1.0);
	assert_int_equal(p, TICK_NS / SPROFIL_FAST_DIVISOR);
}

static void test_explicit_250us_period_is_used(void **state)
{
	uint64_t p;

	(void)state;
	p = run_period("explicit 250 us", SPROFIL_UINT, 250000, 1.0);
	assert_int_equal(p, 250000);
}

/* 10 us would be 100 kHz of interrupts per thread: the floor is 100 us. */
static void test_10us_request_raised_to_100us(void **state)
{
	uint64_t p;

	(void)state;
	p = run_period("10 us request", SPROFIL_UINT, 10000, 0.5);
	assert_int_equal(p, SPROFIL_MIN_PERIOD_NS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_split_3_to_1_at_1ms,
					  test_teardown),
		cmocka_unit_test_teardown(test_default_period_is_one_tick,
					  test_teardown),
		cmocka_unit_test_teardown(test_fast_default_is_quarter_tick,
					  test_teardown),
		cmocka_unit_test_teardown(test_explicit_250us_period_is_used,
					  test_teardown),
		cmocka_unit_test_teardown(test_10us_request_raised_to_100us,
					  test_teardown),
	};

	return cmocka_run_group_tests_name("accuracy", tests, group_setup,
					   group_teardown);
}
