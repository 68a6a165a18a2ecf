// SPDX-License-Identifier: GPL-2.0
/*
 * Region handling of sprofil.ko against the real kernel: several regions
 * at once (one inside a shared library), bucket positions for scales
 * other than one, the overlap rule, the overflow bin, unsorted input and
 * saturating counters.  Expected bucket positions come from the shared
 * mapping (mapping.h, through kt_bucket_range()), so the module is held
 * to the same arithmetic as every other backend.
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

uint64_t kt_lib_work(uint64_t n);	/* libkt_spin.so */

#define PERIOD_NS	250000ULL	/* 4000 samples per CPU second */
/*
 * Enough samples for the shares to mean something.  Far below the
 * nominal counts: a loaded host can stop the TCG vCPUs long enough that
 * the kernel's task-clock timer delivers a third of them.
 */
#define MIN_SAMPLES	300
/* Buckets past a function's end: must stay empty (or belong to others). */
#define SLACK		32

static int fd = -1;
static uint64_t iters_per_sec;

typedef uint64_t (*work_fn)(uint64_t);

/* A zeroed bucket array for one region. */
struct rbuf {
	struct wl_func f;	/* the function the region is about */
	void *buf;
	size_t nbuckets;
	struct sprofil_region r;
};

static void rbuf_init(struct rbuf *b, struct wl_func f, unsigned int flags,
		      uintptr_t offset, uint32_t scale, size_t nbuckets)
{
	size_t esz = 1u << spm_bucket_shift(flags);

	b->f = f;
	b->nbuckets = nbuckets;
	b->buf = calloc(nbuckets, esz);
	assert_non_null(b->buf);
	b->r = kt_region(b->buf, nbuckets * esz, offset, scale);
}

/* A region at scale one starting at @fn, SLACK buckets longer than it. */
static void rbuf_func(struct rbuf *b, work_fn fn, unsigned int flags)
{
	struct wl_func f = wl_func_extent((void *)fn);
	size_t esz = 1u << spm_bucket_shift(flags);

	rbuf_init(b, f, flags, f.start, SPM_SCALE_ONE,
		  (f.size + esz - 1) / esz + SLACK);
}

static uint64_t rbuf_total(const struct rbuf *b, unsigned int flags)
{
	return wl_sum(b->buf, flags, 0, b->nbuckets);
}

/* Samples in the buckets of the region's function. */
static uint64_t rbuf_in_func(const struct rbuf *b, unsigned int flags)
{
	size_t first, last;

	kt_bucket_range(&b->r, flags, b->f.start, b->f.size, &first, &last);
	assert_true(last <= b->nbuckets);
	return wl_sum(b->buf, flags, first, last);
}

static uint64_t bucket(const void *buf, unsigned int flags, size_t i)
{
	return wl_sum(buf, flags, i, i + 1);
}

/*
 * Runs n[i] iterations of fn[i] for each i, cut into @chunks rounds so
 * that the functions interleave and none of them owns one phase of the
 * run, and sums each one's thread CPU time into cpu[i].  The samples'
 * shares are held to those CPU times, not to n[]: under qemu TCG on a
 * loaded host the same loop in the executable and in the library ran at
 * speeds a fifth apart (a 1:2:3 mix came out 13.9:38.7:47.4), and the
 * samples followed the CPU time, which is what they are to show.
 */
static void run_mix(const work_fn *fn, const uint64_t *n, int nfn, int chunks,
		    double *cpu)
{
	for (int i = 0; i < nfn; i++)
		cpu[i] = 0;
	for (int c = 0; c < chunks; c++)
		for (int i = 0; i < nfn; i++) {
			/* Rotate the order from round to round. */
			int k = (i + c) % nfn;
			uint64_t part = n[k] / chunks +
					(c == chunks - 1 ? n[k] % chunks : 0);
			double t0 = wl_thread_seconds();

			fn[k](part);
			cpu[k] += wl_thread_seconds() - t0;
		}
}

/* fn[i]'s share of the CPU time run_mix() measured. */
static double cpu_share(const double *cpu, int nfn, int i)
{
	double all = 0;

	for (int k = 0; k < nfn; k++)
		all += cpu[k];
	return all > 0 ? cpu[i] / all : 0;
}

static int group_setup(void **state)
{
	(void)state;
	fd = kt_open();
	iters_per_sec = wl_calibrate(1.0);
	return 0;
}

static int test_teardown(void **state)
{
	(void)state;
	kt_stop(fd);
	return 0;
}

static void profile(const struct sprofil_region *r, unsigned int nr,
		    unsigned int flags, uint64_t period_ns, const work_fn *fn,
		    const uint64_t *n, int nfn, struct sprofil_status *st,
		    double *cpu)
{
	uint64_t period = period_ns;

	assert_int_equal(kt_start(fd, r, nr, flags, &period), 0);
	assert_int_equal(period, period_ns);
	run_mix(fn, n, nfn, 20, cpu);
	assert_int_equal(kt_stop(fd), 0);
	assert_int_equal(kt_status(fd, st), 0);
	print_message("#   samples=%llu misses=%llu saturated=%llu\n",
		      (unsigned long long)st->samples,
		      (unsigned long long)st->misses,
		      (unsigned long long)st->saturated);
}

/*
 * wl_work_a, wl_work_b and kt_lib_work (in libkt_spin.so) run 1:2:3, each
 * with its own region.  Every region's samples must sit in its own
 * function's buckets, and the regions must share the samples 1:2:3.
 * With @bin, an overflow bin is added at index @bin_at of the array and
 * must hold exactly the misses.  @order permutes the entries.
 */
struct three {
	struct rbuf rb[3];
	uint32_t bin[1];
	uint64_t s[3], total;
	double cpu[3];
	struct sprofil_status st;
};

static const char *const three_name[3] = {
	"wl_work_a", "wl_work_b", "kt_lib_work",
};

static void run_three(struct three *t, unsigned int flags,
		      const int *order, int nentries)
{
	static const work_fn fn[3] = { wl_work_a, wl_work_b, kt_lib_work };
	struct sprofil_region r[4], entry[4];
	uint64_t n[3];
	int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < 3; i++) {
		rbuf_func(&t->rb[i], fn[i], flags);
		r[i] = t->rb[i].r;
		n[i] = iters_per_sec * (i + 1) / 5;
	}
	/* Entry 3 is the overflow bin: offset 0, scale 2, one bucket. */
	r[3] = kt_region(t->bin, sizeof(t->bin), 0, 2);
	for (i = 0; i < nentries; i++)
		entry[i] = r[order[i]];

	profile(entry, nentries, flags, PERIOD_NS, fn, n, 3, &t->st, t->cpu);
	for (i = 0; i < 3; i++) {
		t->s[i] = rbuf_total(&t->rb[i], flags);
		t->total += t->s[i];
	}
	for (i = 0; i < 3; i++)
		print_message("#   %s: %llu samples = %.2f%% (its CPU %.2f +- 5; run 1:2:3), %llu in its buckets\n",
			      three_name[i], (unsigned long long)t->s[i],
			      100.0 * t->s[i] / t->total,
			      100.0 * cpu_share(t->cpu, 3, i),
			      (unsigned long long)rbuf_in_func(&t->rb[i],
							      flags));
	if (nentries == 4)
		print_message("#   overflow bin: %llu\n",
			      (unsigned long long)bucket(t->bin, flags, 0));

	assert_true(t->total >= MIN_SAMPLES);
	for (i = 0; i < 3; i++) {
		/* Nothing in the slack past the function's end. */
		assert_int_equal(rbuf_in_func(&t->rb[i], flags), t->s[i]);
		assert_true(fabs((double)t->s[i] / t->total -
				 cpu_share(t->cpu, 3, i)) <= 0.05);
	}
	assert_int_equal(t->st.saturated, 0);
	assert_int_equal(t->st.samples, t->total + t->st.misses);
	if (nentries == 4)
		assert_int_equal(bucket(t->bin, flags, 0), t->st.misses);
}

static void free_three(struct three *t)
{
	for (int i = 0; i < 3; i++)
		free(t->rb[i].buf);
}

static void test_three_regions_one_in_dso_ushort(void **state)
{
	static const int order[] = { 0, 1, 2 };
	struct three t;

	(void)state;
	print_message("# three regions, 16-bit buckets:\n");
	run_three(&t, SPROFIL_USHORT, order, 3);
	free_three(&t);
}

static void test_three_regions_one_in_dso_uint(void **state)
{
	static const int order[] = { 0, 1, 2 };
	struct three t;

	(void)state;
	print_message("# three regions, 32-bit buckets:\n");
	run_three(&t, SPROFIL_UINT, order, 3);
	free_three(&t);
}

/*
 * The module sorts the entries itself: reverse order with the overflow
 * bin in the middle gives what the sorted array (bin first: offset 0)
 * gives.  Both runs get the same checks, and their shares, each less its
 * run's CPU share, must agree.
 */
static void test_unsorted_regions_same_as_sorted(void **state)
{
	static const int sorted[] = { 3, 0, 1, 2 };
	static const int unsorted[] = { 2, 1, 3, 0 };
	struct three a, b;

	(void)state;
	print_message("# sorted, with overflow bin:\n");
	run_three(&a, SPROFIL_UINT, sorted, 4);
	print_message("# reverse order, overflow bin in the middle:\n");
	run_three(&b, SPROFIL_UINT, unsorted, 4);
	for (int i = 0; i < 3; i++)
		assert_true(fabs((double)a.s[i] / a.total -
				 cpu_share(a.cpu, 3, i) -
				 ((double)b.s[i] / b.total -
				  cpu_share(b.cpu, 3, i))) <= 0.05);
	free_three(&a);
	free_three(&b);
}

/*
 * At scale 0x8000 one 16-bit bucket covers 4 bytes of text instead of 2:
 * bucket j must hold what buckets 2j and 2j + 1 hold at scale 0x10000.
 * Two runs of the same loop place their samples on the same PCs, so the
 * per-bucket shares must match.
 */
static void test_scale_half_folds_bucket_pairs(void **state)
{
	const unsigned int flags = SPROFIL_USHORT;
	struct wl_func f = wl_func_extent(wl_work_a);
	static const work_fn fn[1] = { wl_work_a };
	uint64_t n[1] = { iters_per_sec / 2 };
	struct sprofil_status st1, st2;
	struct rbuf one, half;
	uint64_t t1, t2, h, o;
	size_t first, last, j;
	double worst = 0, d, cpu[1];

	(void)state;
	rbuf_init(&one, f, flags, f.start, 0x10000, (f.size + 1) / 2);
	rbuf_init(&half, f, flags, f.start, 0x8000, (f.size + 3) / 4);
	/* mapping.h: index = (delta / 2) * 0x8000 / 0x10000 = delta / 4. */
	kt_bucket_range(&half.r, flags, f.start, f.size, &first, &last);
	assert_int_equal(first, 0);
	assert_int_equal(last, (f.size + 3) / 4);
	assert_int_equal(spm_bucket_index(7, 1, 0x8000), 1);

	print_message("# scale 0x10000:\n");
	profile(&one.r, 1, flags, 250000, fn, n, 1, &st1, cpu);
	print_message("# scale 0x8000:\n");
	profile(&half.r, 1, flags, 250000, fn, n, 1, &st2, cpu);
	t1 = rbuf_total(&one, flags);
	t2 = rbuf_total(&half, flags);
	assert_true(t1 >= MIN_SAMPLES && t2 >= MIN_SAMPLES);
	assert_int_equal(st1.samples, t1 + st1.misses);
	assert_int_equal(st2.samples, t2 + st2.misses);
	for (j = 0; j < half.nbuckets; j++) {
		h = bucket(half.buf, flags, j);
		o = (2 * j < one.nbuckets ? bucket(one.buf, flags, 2 * j) : 0) +
		    (2 * j + 1 < one.nbuckets ?
		     bucket(one.buf, flags, 2 * j + 1) : 0);
		if (h || o)
			print_message("#   text +%zu: scale 0x8000 bucket %zu = %.2f%%, scale 0x10000 buckets %zu,%zu = %.2f%%\n",
				      4 * j, j, 100.0 * h / t2, 2 * j,
				      2 * j + 1, 100.0 * o / t1);
		d = fabs((double)h / t2 - (double)o / t1);
		if (d > worst)
			worst = d;
	}
	assert_true(worst <= 0.05);
	free(one.buf);
	free(half.buf);
}

/*
 * Scale 2 is the coarsest: one bucket per 64 KiB of text (16-bit) or
 * 128 KiB (32-bit).  With the region starting 1.5 buckets below wl_work_a,
 * all of wl_work_a is in bucket 1, and so is the rest of this small
 * program's text: every in-region sample must be in bucket 1.
 */
static void check_scale_2(unsigned int flags)
{
	struct wl_func f = wl_func_extent(wl_work_a);
	static const work_fn fn[1] = { wl_work_a };
	uint64_t n[1] = { iters_per_sec / 2 };
	uint64_t span = 0x10000ull << (spm_bucket_shift(flags) - 1);
	struct sprofil_status st;
	size_t first, last, i;
	uint64_t total;
	double cpu[1];
	struct rbuf b;

	assert_true(f.start > 2 * span);
	rbuf_init(&b, f, flags, f.start - span - span / 2, 2, 4);
	kt_bucket_range(&b.r, flags, f.start, f.size, &first, &last);
	assert_int_equal(first, 1);
	assert_int_equal(last, 2);

	profile(&b.r, 1, flags, 250000, fn, n, 1, &st, cpu);
	total = rbuf_total(&b, flags);
	for (i = 0; i < b.nbuckets; i++)
		print_message("#   bucket %zu: %llu\n", i,
			      (unsigned long long)bucket(b.buf, flags, i));
	assert_true(total >= MIN_SAMPLES);
	assert_int_equal(bucket(b.buf, flags, 1), total);
	assert_int_equal(st.samples, total + st.misses);
	free(b.buf);
}

static void test_scale_2_one_bucket_per_64k_ushort(void **state)
{
	(void)state;
	check_scale_2(SPROFIL_USHORT);
}

static void test_scale_2_one_bucket_per_128k_uint(void **state)
{
	(void)state;
	check_scale_2(SPROFIL_UINT);
}

/*
 * An outer region spans wl_work_a and wl_work_b; an inner region starts
 * at the later of the two.  Larger offset wins: the later function's
 * samples go to the inner region only, the earlier one's to the outer.
 */
static void test_overlap_larger_offset_wins(void **state)
{
	const unsigned int flags = SPROFIL_UINT;
	struct wl_func fa = wl_func_extent(wl_work_a);
	struct wl_func fb = wl_func_extent(wl_work_b);
	struct wl_func lo = fa.start < fb.start ? fa : fb;
	struct wl_func hi = fa.start < fb.start ? fb : fa;
	static const work_fn fn[2] = { wl_work_a, wl_work_b };
	uint64_t n[2] = { iters_per_sec / 2, iters_per_sec / 2 };
	struct sprofil_region r[2];
	struct sprofil_status st;
	struct rbuf outer, inner;
	size_t first, last;
	uint64_t o_lo, o_hi, o_all, in_all;
	double cpu[2], hi_share;

	(void)state;
	assert_true(hi.start >= lo.start + lo.size);
	rbuf_init(&outer, lo, flags, lo.start, SPM_SCALE_ONE,
		  (hi.start + hi.size - lo.start + 3) / 4);
	rbuf_init(&inner, hi, flags, hi.start, SPM_SCALE_ONE,
		  (hi.size + 3) / 4);
	/* Inner first: the rule is about offsets, not about array order. */
	r[0] = inner.r;
	r[1] = outer.r;
	profile(r, 2, flags, PERIOD_NS, fn, n, 2, &st, cpu);
	/* The inner region is the later function's. */
	hi_share = cpu_share(cpu, 2, hi.start == fb.start);

	kt_bucket_range(&outer.r, flags, hi.start, hi.size, &first, &last);
	o_hi = wl_sum(outer.buf, flags, first, last);
	o_lo = rbuf_in_func(&outer, flags);
	o_all = rbuf_total(&outer, flags);
	in_all = rbuf_total(&inner, flags);
	print_message("# outer: %llu in the earlier function, %llu in the later one, %llu in all; inner: %llu (%.2f%% of both, its CPU %.2f +- 5)\n",
		      (unsigned long long)o_lo, (unsigned long long)o_hi,
		      (unsigned long long)o_all, (unsigned long long)in_all,
		      100.0 * in_all / (in_all + o_all), 100.0 * hi_share);

	assert_true(o_lo + in_all >= MIN_SAMPLES);
	assert_int_equal(o_hi, 0);
	assert_int_equal(o_lo, o_all);
	assert_int_equal(rbuf_in_func(&inner, flags), in_all);
	assert_true(fabs((double)in_all / (in_all + o_all) - hi_share) <= 0.05);
	assert_int_equal(st.samples, o_all + in_all + st.misses);
	free(outer.buf);
	free(inner.buf);
}

/*
 * A region for wl_work_a only plus the overflow bin, running wl_work_a and
 * wl_work_b 1:1: the bin gets wl_work_b's samples (and the few elsewhere)
 * and equals the misses exactly, since nothing saturates.  The region
 * has no slack: wl_work_b may follow wl_work_a closely.
 */
static void test_overflow_bin_counts_misses(void **state)
{
	const unsigned int flags = SPROFIL_USHORT;
	struct wl_func fa = wl_func_extent(wl_work_a);
	static const work_fn fn[2] = { wl_work_a, wl_work_b };
	uint64_t n[2] = { iters_per_sec / 2, iters_per_sec / 2 };
	struct sprofil_region r[2];
	struct sprofil_status st;
	uint16_t bin[1] = { 0 };
	uint64_t in_a;
	double cpu[2];
	struct rbuf a;

	(void)state;
	rbuf_init(&a, fa, flags, fa.start, SPM_SCALE_ONE, (fa.size + 1) / 2);
	r[0] = a.r;
	r[1] = kt_region(bin, sizeof(bin), 0, 2);
	profile(r, 2, flags, PERIOD_NS, fn, n, 2, &st, cpu);
	in_a = rbuf_total(&a, flags);
	print_message("# wl_work_a region: %llu; overflow bin: %u = %.2f%% (wl_work_b's CPU %.2f +- 5); misses: %llu\n",
		      (unsigned long long)in_a, bin[0],
		      100.0 * bin[0] / (bin[0] + in_a),
		      100.0 * cpu_share(cpu, 2, 1),
		      (unsigned long long)st.misses);

	assert_true(in_a + bin[0] >= MIN_SAMPLES);
	assert_int_equal(bin[0], st.misses);
	assert_int_equal(rbuf_in_func(&a, flags), in_a);
	assert_true(fabs((double)bin[0] / (bin[0] + in_a) -
			 cpu_share(cpu, 2, 1)) <= 0.05);
	assert_int_equal(st.samples, in_a + st.misses);
	free(a.buf);
}

/*
 * The module does not clear the buffers, so a bucket pre-filled @headroom
 * increments below its maximum saturates after that many samples: it must
 * end exactly at the maximum, and every further sample that hit it must
 * be counted as saturated.  Scale 2 with one bucket puts all of
 * wl_work_a (and the 64 KiB above it) into that bucket.
 */
static void check_saturation(unsigned int flags, uint32_t headroom)
{
	uint32_t max = spm_bucket_max(spm_bucket_shift(flags));
	struct wl_func f = wl_func_extent(wl_work_a);
	static const work_fn fn[1] = { wl_work_a };
	uint64_t n[1] = { iters_per_sec / 5 };
	struct sprofil_status st;
	uint64_t hits;
	double cpu[1];
	struct rbuf b;

	rbuf_init(&b, f, flags, f.start, 2, 1);
	if (flags & SPROFIL_UINT)
		*(uint32_t *)b.buf = max - headroom;
	else
		*(uint16_t *)b.buf = max - headroom;
	/* 100 us: the floor, so that 0.2 s of CPU is plenty of samples. */
	profile(&b.r, 1, flags, SPROFIL_MIN_PERIOD_NS, fn, n, 1, &st, cpu);
	hits = st.samples - st.misses;
	print_message("# %u-bit bucket pre-filled at max - %u: now %llu (max %u); hits=%llu saturated=%llu (want hits - %u)\n",
		      flags & SPROFIL_UINT ? 32 : 16, headroom,
		      (unsigned long long)bucket(b.buf, flags, 0), max,
		      (unsigned long long)hits,
		      (unsigned long long)st.saturated, headroom);

	assert_true(hits > headroom);
	assert_int_equal(bucket(b.buf, flags, 0), max);
	assert_true(st.saturated > 0);
	assert_int_equal(st.saturated, hits - headroom);
	free(b.buf);
}

static void test_saturation_ushort(void **state)
{
	(void)state;
	check_saturation(SPROFIL_USHORT, 5);
}

static void test_saturation_uint(void **state)
{
	(void)state;
	check_saturation(SPROFIL_UINT, 0xf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_three_regions_one_in_dso_ushort,
					  test_teardown),
		cmocka_unit_test_teardown(test_three_regions_one_in_dso_uint,
					  test_teardown),
		cmocka_unit_test_teardown(test_scale_half_folds_bucket_pairs,
					  test_teardown),
		cmocka_unit_test_teardown(test_scale_2_one_bucket_per_64k_ushort,
					  test_teardown),
		cmocka_unit_test_teardown(test_scale_2_one_bucket_per_128k_uint,
					  test_teardown),
		cmocka_unit_test_teardown(test_overlap_larger_offset_wins,
					  test_teardown),
		cmocka_unit_test_teardown(test_overflow_bin_counts_misses,
					  test_teardown),
		cmocka_unit_test_teardown(test_unsorted_regions_same_as_sorted,
					  test_teardown),
		cmocka_unit_test_teardown(test_saturation_ushort,
					  test_teardown),
		cmocka_unit_test_teardown(test_saturation_uint, test_teardown),
	};

	return cmocka_run_group_tests_name("regions", tests, group_setup,
					   NULL);
}
