// SPDX-License-Identifier: GPL-2.0
/*
 * In-VM tests of sprofil.ko against the four bugs of glibc's userspace
 * sprofil() (research/libc_kernel_anchors.md section 1.3), each written so
 * that glibc fails it and the module must pass:
 *  1. a sample that changes region is filed with the overflow bin's
 *     mapping: 66% of samples misfiled when two functions alternate;
 *  2. a sample below the lowest region, with no overflow bin, sends the
 *     binary search below index 0: SIGSEGV in the signal handler;
 *  3. stopping does not reset the region count: the next start/stop
 *     double-frees, so sprofil works once per process;
 *  4. tvp reports 10 ms while sampling runs every tick (4 ms at HZ=250).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <sprofil/mapping.h>
#include "kmod_test.h"

#define PAGE		4096

/* In libkt_spin.so, mapped far above the test program's text. */
uint64_t kt_lib_work(uint64_t n);

/* Iterations of a kt_work_* function taking about 5 ms of CPU. */
static uint64_t chunk;

/*
 * Runs @f, or @f and @g in turn, @n iterations at a time, until @seconds
 * of CPU have passed: bounded by CPU time, because the VM's speed varies
 * with the load other VMs put on the host.
 */
static double spin_n(double seconds, uint64_t n, uint64_t (*f)(uint64_t),
		     uint64_t (*g)(uint64_t))
{
	double t0 = wl_cpu_seconds(), t;

	do {
		f(n);
		if (g)
			g(n);
		t = wl_cpu_seconds() - t0;
	} while (t < seconds);
	return t;
}

static int group_setup(void **state)
{
	(void)state;
	chunk = wl_calibrate(0.005);
	return 0;
}

/*
 * Bug 1.  Two regions exactly over wl_work_a and wl_work_b, with room
 * around each function so a misfiled sample would land in the buffer
 * where it can be seen; the two alternate every ~0.1 ms of CPU, so
 * consecutive samples keep changing region (glibc's slow path, taken on
 * every change, is the one that misfiles).
 */
static void test_bug1_alternating_regions_no_sample_misfiled(void **state)
{
	struct wl_func fa = wl_func_extent(wl_work_a);
	struct wl_func fb = wl_func_extent(wl_work_b);
	uint32_t *ba = wl_map(4 * PAGE, PROT_READ | PROT_WRITE), *bb = wl_map(4 * PAGE, PROT_READ | PROT_WRITE);
	struct sprofil_region r[2];
	size_t af, al, bf, bl, na, nb;
	uint64_t period = 1000000, in_a, in_b, all_a, all_b;
	struct sprofil_status st;
	int fd = kt_open();
	double t;

	(void)state;
	assert_non_null(ba);
	assert_non_null(bb);
	/*
	 * Each region covers its function plus 64 bytes of margin on the
	 * side away from the other one, where no code runs while profiling
	 * (the end of wl_func_extent() below, wl_work_c() above): the
	 * regions do not overlap, and a sample filed with the wrong mapping
	 * would show up in a margin or as a miss.  Status and stop are
	 * issued from here, not through kt_status() and kt_stop(), whose
	 * code lies in the margin below.
	 */
	if (fa.start < fb.start) {
		r[0] = kt_region(ba, (fa.size + 3) / 4 * 4 + 64,
				 fa.start - 64, 0x10000);
		r[1] = kt_region(bb, (fb.size + 3) / 4 * 4 + 64, fb.start,
				 0x10000);
		assert_true(fa.start + fa.size <= fb.start);
	} else {
		r[0] = kt_region(ba, (fa.size + 3) / 4 * 4 + 64, fa.start,
				 0x10000);
		r[1] = kt_region(bb, (fb.size + 3) / 4 * 4 + 64,
				 fb.start - 64, 0x10000);
		assert_true(fb.start + fb.size <= fa.start);
	}
	kt_bucket_range(&r[0], SPROFIL_UINT, fa.start, fa.size, &af, &al);
	kt_bucket_range(&r[1], SPROFIL_UINT, fb.start, fb.size, &bf, &bl);
	na = r[0].size / 4;
	nb = r[1].size / 4;
	assert_int_equal(kt_start(fd, r, 2, SPROFIL_UINT, &period), 0);
	/* Chunks of ~0.1 ms: about ten changes of region per sample. */
	t = spin_n(1.0, chunk / 50 + 1, wl_work_a, wl_work_b);
	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	assert_int_equal(ioctl(fd, SPROFIL_IOC_STATUS, &st), 0);
	assert_int_equal(ioctl(fd, SPROFIL_IOC_STOP), 0);

	in_a = wl_sum(ba, SPROFIL_UINT, af, al);
	in_b = wl_sum(bb, SPROFIL_UINT, bf, bl);
	all_a = wl_sum(ba, SPROFIL_UINT, 0, na);
	all_b = wl_sum(bb, SPROFIL_UINT, 0, nb);
	print_message("# %.2f s CPU: %llu samples, %llu misses; region A %llu (%llu in wl_work_a), region B %llu (%llu in wl_work_b)\n",
		      t, (unsigned long long)st.samples,
		      (unsigned long long)st.misses,
		      (unsigned long long)all_a, (unsigned long long)in_a,
		      (unsigned long long)all_b, (unsigned long long)in_b);
	/* Every sample of each region lies in its own function's buckets. */
	assert_int_equal(all_a, in_a);
	assert_int_equal(all_b, in_b);
	/* Every sample is somewhere: in a region or counted as a miss. */
	assert_int_equal(all_a + all_b + st.misses, st.samples);
	assert_int_equal(st.saturated, 0);
	/*
	 * Equal CPU in each by construction; glibc left only a third of
	 * each function's samples in place.
	 */
	assert_true(in_a + in_b >= 100);
	assert_true(in_a * 100 >= (in_a + in_b) * 35);
	assert_true(in_b * 100 >= (in_a + in_b) * 35);
	close(fd);
	munmap(ba, 4 * PAGE);
	munmap(bb, 4 * PAGE);
}

/*
 * Bug 2.  The only region lies above all the code that runs, and there is
 * no overflow bin: every sample falls below the lowest region.  The
 * process must survive and every sample must be a counted miss.
 */
static void check_all_samples_below(void *region_fn, uint64_t (*hot)(uint64_t),
				    const char *what)
{
	struct wl_func above = wl_func_extent(region_fn);
	struct wl_func h = wl_func_extent(hot);
	uint32_t *buf = wl_map(PAGE, PROT_READ | PROT_WRITE);
	uint64_t period = 1000000;
	struct sprofil_region r;
	struct sprofil_status st;
	int fd = kt_open();
	double t;

	assert_non_null(buf);
	assert_true(above.start >= h.start + h.size);
	r = kt_region(buf, (above.size + 3) / 4 * 4, above.start, 0x10000);
	assert_true(r.size <= PAGE);
	assert_int_equal(kt_start(fd, &r, 1, SPROFIL_UINT, &period), 0);
	t = spin_n(0.5, chunk, hot, NULL);
	assert_int_equal(kt_status(fd, &st), 0);
	assert_int_equal(kt_stop(fd), 0);
	print_message("# region over %s at %#lx, hot code at %#lx: %.2f s CPU, %llu samples, %llu misses, buffer %llu\n",
		      what, (unsigned long)above.start, (unsigned long)h.start,
		      t, (unsigned long long)st.samples,
		      (unsigned long long)st.misses,
		      (unsigned long long)wl_sum(buf, SPROFIL_UINT, 0,
						 r.size / 4));
	assert_true(st.samples >= 20);
	assert_int_equal(st.misses, st.samples);
	assert_int_equal(wl_sum(buf, SPROFIL_UINT, 0, r.size / 4), 0);
	close(fd);
	munmap(buf, PAGE);
}

static void test_bug2_region_in_shared_library_above_hot_code(void **state)
{
	(void)state;
	check_all_samples_below(kt_lib_work, wl_work_a, "kt_lib_work");
}

static void test_bug2_region_above_hot_code_in_program(void **state)
{
	(void)state;
	check_all_samples_below(wl_work_d, wl_work_a, "wl_work_d");
}

/*
 * Bug 3.  Five start/stop rounds in one process, each with another region
 * set, bucket width and period, each into fresh buffers: every round
 * counts into its own buffers only, and stops cleanly.
 */
static void test_bug3_five_start_stop_rounds_each_count(void **state)
{
	uint64_t (*const fn[4])(uint64_t) = {
		wl_work_a, wl_work_b, wl_work_c, wl_work_d,
	};
	/* Which functions each round profiles (bit i: fn[i]). */
	const unsigned int sets[5] = { 0x1, 0x6, 0xf, 0x8, 0x5 };
	const unsigned int flags[5] = {
		SPROFIL_UINT, 0, SPROFIL_UINT | SPROFIL_FAST, 0, SPROFIL_UINT,
	};
	const uint64_t periods[5] = { 1000000, 2000000, 0, 500000, 0 };
	uint16_t *prev = NULL;
	uint64_t prev_sum = 0;
	unsigned int prev_flags = 0;
	size_t prev_bytes = 0;
	long pinned0 = kt_module_param("pinned_pages");
	int fd = kt_open();

	(void)state;
	for (int round = 0; round < 5; round++) {
		struct sprofil_region r[4];
		uint64_t counts[4] = { 0 }, period = periods[round];
		struct sprofil_status st;
		unsigned int n = 0, f = flags[round];
		uint16_t *buf = wl_map(4 * PAGE, PROT_READ | PROT_WRITE);
		double t;

		assert_non_null(buf);
		for (int i = 0; i < 4; i++) {
			struct wl_func k = wl_func_extent(fn[i]);

			if (sets[round] & (1u << i))
				r[n++] = kt_region(buf + i * PAGE / 2, PAGE,
						   k.start, 0x10000);
		}
		assert_int_equal(kt_start(fd, r, n, f, &period), 0);
		t = wl_cpu_seconds();
		do {
			for (int i = 0; i < 4; i++)
				if (sets[round] & (1u << i))
					fn[i](chunk / 4 + 1);
		} while (wl_cpu_seconds() - t < 0.2);
		t = wl_cpu_seconds() - t;
		assert_int_equal(kt_status(fd, &st), 0);
		assert_int_equal(kt_stop(fd), 0);
		for (int i = 0; i < 4; i++)
			if (sets[round] & (1u << i))
				counts[i] = wl_sum(buf + i * PAGE / 2, f, 0,
						   PAGE >> spm_bucket_shift(f));
		print_message("# round %d: %u regions, flags %#x, period %llu ns, %.2f s CPU, %llu samples; counts a %llu b %llu c %llu d %llu\n",
			      round + 1, n, f, (unsigned long long)period, t,
			      (unsigned long long)st.samples,
			      (unsigned long long)counts[0],
			      (unsigned long long)counts[1],
			      (unsigned long long)counts[2],
			      (unsigned long long)counts[3]);
		assert_true(st.state & SPROFIL_STATE_ENABLED);
		assert_int_equal(st.nregions, n);
		assert_true(st.samples >= 20);
		for (int i = 0; i < 4; i++)
			if (sets[round] & (1u << i))
				assert_true(counts[i] > 0);
		/* The previous round's buffers were left alone. */
		if (prev) {
			assert_int_equal(wl_sum(prev, prev_flags, 0,
						prev_bytes >>
						spm_bucket_shift(prev_flags)),
					 prev_sum);
			munmap(prev, 4 * PAGE);
		}
		prev = buf;
		prev_flags = f;
		prev_bytes = 4 * PAGE;
		prev_sum = wl_sum(buf, f, 0, prev_bytes >> spm_bucket_shift(f));
		/* The stop unpinned this round's buffers. */
		assert_int_equal(kt_module_param("pinned_pages"), pinned0);
	}
	munmap(prev, 4 * PAGE);
	close(fd);
}

/*
 * Bug 4.  The period returned is the one sampling runs at: samples x
 * period matches the user CPU time within 5% (glibc's 10 ms for a 4 ms
 * tick gives 2.5x).  CPU time is the oracle whatever the host load: when
 * the host stops a vCPU while guest time runs on, the timer fires late,
 * and the module credits every period of CPU time it skipped.
 */
static void check_period(uint64_t asked, unsigned int flags, double seconds)
{
	struct wl_func fa = wl_func_extent(wl_work_a);
	uint32_t *buf = wl_map(PAGE, PROT_READ | PROT_WRITE);
	struct sprofil_region r;
	struct sprofil_status st0, st1;
	uint64_t period = asked, samples;
	int fd = kt_open();
	double t, u, by_cpu, tol;

	assert_non_null(buf);
	r = kt_region(buf, (fa.size + 3) / 4 * 4, fa.start, 0x10000);
	assert_int_equal(kt_start(fd, &r, 1, flags, &period), 0);
	assert_int_equal(kt_status(fd, &st0), 0);
	u = kt_user_seconds();
	t = wl_cpu_seconds();
	do {
		wl_work_a(chunk);
	} while (wl_cpu_seconds() - t < seconds);
	t = wl_cpu_seconds() - t;
	u = kt_user_seconds() - u;
	assert_int_equal(kt_status(fd, &st1), 0);
	assert_int_equal(kt_stop(fd), 0);
	samples = st1.samples - st0.samples;
	by_cpu = samples * (period / 1e9) / u;
	print_message("# asked %llu ns, flags %#x: got %llu ns (status %llu); %.2f s CPU (%.2f s user), %llu samples; samples x period / user CPU = %.3f\n",
		      (unsigned long long)asked, flags,
		      (unsigned long long)period,
		      (unsigned long long)st1.period_ns, t, u,
		      (unsigned long long)samples, by_cpu);
	if (asked)
		assert_int_equal(period, asked);
	assert_int_equal(st1.period_ns, period);
	assert_true(samples >= 100);
	/*
	 * Within 5 %; under qemu TCG (SPROFIL_TEST_TCG), no accuracy
	 * oracle, 15 % (0.892 seen at 1 ms on 6.1-rt with three guests on
	 * two host CPUs): glibc's wrong tick was off by the tick's ratio to
	 * the period asked, 4 times here.
	 */
	tol = getenv("SPROFIL_TEST_TCG") ? 0.15 : 0.05;
	assert_true(by_cpu >= 1 - tol && by_cpu <= 1 + tol);
	/* Never more samples than CPU time allows (one period of slack). */
	assert_true(samples * (period / 1e9) <= t * 1.05 + period / 1e9);
	close(fd);
	munmap(buf, PAGE);
}

static void test_bug4_default_period_is_real(void **state)
{
	(void)state;
	check_period(0, SPROFIL_UINT, 4.0);
}

static void test_bug4_1ms_period_is_real(void **state)
{
	(void)state;
	check_period(1000000, SPROFIL_UINT, 1.0);
}

/* glibc ignores PROF_FAST; here it is a quarter of the default. */
static void test_bug4_fast_period_is_real_and_a_quarter(void **state)
{
	uint64_t dflt = 0, fast = 0;
	struct sprofil_region r = kt_region(NULL, 0, 0, 0);	/* ignored */
	int fd = kt_open();

	(void)state;
	assert_int_equal(kt_start(fd, &r, 1, SPROFIL_UINT, &dflt), 0);
	assert_int_equal(kt_start(fd, &r, 1, SPROFIL_UINT | SPROFIL_FAST,
				  &fast), 0);
	assert_int_equal(kt_stop(fd), 0);
	print_message("# default period %llu ns, PROF_FAST %llu ns\n",
		      (unsigned long long)dflt, (unsigned long long)fast);
	assert_int_equal(fast, dflt / SPROFIL_FAST_DIVISOR);
	close(fd);
	check_period(0, SPROFIL_UINT | SPROFIL_FAST, 1.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bug1_alternating_regions_no_sample_misfiled),
		cmocka_unit_test(test_bug2_region_in_shared_library_above_hot_code),
		cmocka_unit_test(test_bug2_region_above_hot_code_in_program),
		cmocka_unit_test(test_bug3_five_start_stop_rounds_each_count),
		cmocka_unit_test(test_bug4_default_period_is_real),
		cmocka_unit_test(test_bug4_1ms_period_is_real),
		cmocka_unit_test(test_bug4_fast_period_is_real_and_a_quarter),
	};

	return cmocka_run_group_tests_name("sprofil glibc bugs", tests,
					   group_setup, NULL);
}
