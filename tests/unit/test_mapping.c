// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of include/sprofil/mapping.h.
 *
 * Every backend (kernel module, BPF program, library) files samples with
 * this one header, so a mistake here misfiles samples everywhere at once.
 * The tests therefore check it against independent references rather than
 * against itself: bucket indices against 128-bit arithmetic, spans against
 * a brute-force scan, and region ownership against a direct reading of the
 * rule "among the entries whose index range holds pc, the one with the
 * largest offset wins; on equal offsets, the later entry".
 *
 * All randomness comes from a fixed-seed PRNG so a failure reproduces.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <sys/profil.h>
#include <cmocka.h>

#include <linux/sprofil.h>
#include <sprofil/mapping.h>

/*
 * ABI checks.  The flag values must equal glibc's so that a sprofil()
 * flags word passes through unchanged.  The structures must have one
 * layout for 32- and 64-bit callers (no implicit padding, every __u64
 * 8-aligned), or the compat ioctl path would read garbage.
 */
_Static_assert(SPROFIL_USHORT == PROF_USHORT, "PROF_USHORT");
_Static_assert(SPROFIL_UINT == PROF_UINT, "PROF_UINT");
_Static_assert(SPROFIL_FAST == PROF_FAST, "PROF_FAST");

_Static_assert(sizeof(struct sprofil_region) == 32, "sprofil_region size");
_Static_assert(offsetof(struct sprofil_region, base) == 0, "base");
_Static_assert(offsetof(struct sprofil_region, size) == 8, "size");
_Static_assert(offsetof(struct sprofil_region, offset) == 16, "offset");
_Static_assert(offsetof(struct sprofil_region, scale) == 24, "scale");
_Static_assert(offsetof(struct sprofil_region, reserved) == 28, "reserved");

_Static_assert(sizeof(struct sprofil_start) == 96, "sprofil_start size");
_Static_assert(offsetof(struct sprofil_start, size) == 0, "size");
_Static_assert(offsetof(struct sprofil_start, flags) == 4, "flags");
_Static_assert(offsetof(struct sprofil_start, regions) == 8, "regions");
_Static_assert(offsetof(struct sprofil_start, nregions) == 16, "nregions");
_Static_assert(offsetof(struct sprofil_start, reserved) == 20, "reserved");
_Static_assert(offsetof(struct sprofil_start, period_ns) == 24, "period_ns");
_Static_assert(offsetof(struct sprofil_start, callers) == 32, "callers");
_Static_assert(offsetof(struct sprofil_start, callers_size) == 40, "size");
_Static_assert(offsetof(struct sprofil_start, callers_depth) == 48, "depth");
_Static_assert(offsetof(struct sprofil_start, reserved2) == 52, "reserved2");
_Static_assert(offsetof(struct sprofil_start, target_fd) == 56, "target_fd");
_Static_assert(offsetof(struct sprofil_start, event_type) == 60, "event_type");
_Static_assert(offsetof(struct sprofil_start, event_config) == 64, "config");
_Static_assert(offsetof(struct sprofil_start, event_period) == 72, "period");
_Static_assert(offsetof(struct sprofil_start, unwind) == 80, "unwind");
_Static_assert(offsetof(struct sprofil_start, nunwind) == 88, "nunwind");
_Static_assert(offsetof(struct sprofil_start, reserved3) == 92, "reserved3");
_Static_assert(sizeof(struct sprofil_unwind_module) == 24, "unwind module");

/* 4 + 4 + 4 * 8 + 4 + 4: the header as it stands has no other field. */
_Static_assert(sizeof(struct sprofil_status) == 48, "sprofil_status size");
_Static_assert(offsetof(struct sprofil_status, size) == 0, "size");
_Static_assert(offsetof(struct sprofil_status, state) == 4, "state");
_Static_assert(offsetof(struct sprofil_status, period_ns) == 8, "period_ns");
_Static_assert(offsetof(struct sprofil_status, samples) == 16, "samples");
_Static_assert(offsetof(struct sprofil_status, misses) == 24, "misses");
_Static_assert(offsetof(struct sprofil_status, saturated) == 32, "saturated");
_Static_assert(offsetof(struct sprofil_status, nregions) == 40, "nregions");
_Static_assert(offsetof(struct sprofil_status, regions_off) == 44,
	       "regions_off");

#define U64_MAX		(~0ull)
#define MAXN		SPROFIL_MAX_REGIONS
#define BUF_BASE	0x7f0000000000ull	/* aligned for both widths */

typedef unsigned __int128 u128;

/* ---- deterministic PRNG (splitmix64) ---- */

static __u64 rng_state;

static void rng_seed(__u64 seed)
{
	rng_state = seed;
}

static __u64 rng_next(void)
{
	__u64 z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform enough in [0, n) for test purposes; n > 0. */
static __u64 rng_below(__u64 n)
{
	return rng_next() % n;
}

/* ---- the map under test, with caller-provided arrays ---- */

static struct spm_region t_region[MAXN];
static struct spm_segment t_segment[SPM_MAX_SEGMENTS(MAXN)];
static __u32 t_stack[MAXN];
static struct spm_map t_map;

/* One entry more than allowed, to test the limit. */
static struct sprofil_region t_in[MAXN + 1];

static struct spm_map *fresh_map(void)
{
	/* Poison, so that nothing left by an earlier test can pass a check. */
	memset(t_region, 0xa5, sizeof(t_region));
	memset(t_segment, 0xa5, sizeof(t_segment));
	memset(t_stack, 0xa5, sizeof(t_stack));
	memset(&t_map, 0xa5, sizeof(t_map));
	t_map.region = t_region;
	t_map.segment = t_segment;
	t_map.stack = t_stack;
	return &t_map;
}

static struct sprofil_region reg(__u64 offset, __u64 size, __u32 scale)
{
	struct sprofil_region r = {
		.base = BUF_BASE,
		.size = size,
		.offset = offset,
		.scale = scale,
	};

	return r;
}

/* ---- references, written from the rules and not from the header ---- */

/* An index of 2^64 or more (scales above 0x10000) saturates at ~0. */
static __u64 ref_index(__u64 delta, __u32 shift, __u32 scale)
{
	u128 i = ((u128)(delta >> shift) * scale) >> 16;

	return i > U64_MAX ? U64_MAX : (__u64)i;
}

/* ceil(n * 65536 / scale) bucket-size units, in bytes. */
static u128 ref_span(__u64 nbuckets, __u32 shift, __u32 scale)
{
	u128 units = (((u128)nbuckets << 16) + scale - 1) / scale;

	return units << shift;
}

static int ref_is_bin(const struct sprofil_region *r)
{
	return r->offset == 0 && r->scale == 2;
}

/* Does entry @r hold @pc, taken alone? */
static int ref_holds(const struct sprofil_region *r, __u32 shift, __u64 pc)
{
	if (r->scale < 2 || ref_is_bin(r) || pc < r->offset)
		return 0;
	return ref_index(pc - r->offset, shift, r->scale) < r->size >> shift;
}

/*
 * Entry index owning @pc, or -1.  The last address, 2^64 - 1, is in no
 * region: segment ends are exclusive 64-bit values, so the map cannot
 * express it, and no user-mode pc can be there on any Linux architecture.
 */
static long ref_owner(const struct sprofil_region *in, __u32 n, __u32 shift,
		      __u64 pc)
{
	long best = -1;
	__u32 i;

	if (pc == U64_MAX)
		return -1;
	for (i = 0; i < n; i++) {
		if (!ref_holds(&in[i], shift, pc))
			continue;
		/* ">=": on equal offsets the later entry wins. */
		if (best < 0 || in[i].offset >= in[best].offset)
			best = i;
	}
	return best;
}

/* ---- helpers around the header ---- */

static long owner(const struct spm_map *m, __u64 pc)
{
	long i = spm_lookup(m, pc);

	return i < 0 ? -1 : (long)m->region[i].id;
}

static __u64 bucket(const struct spm_map *m, __u64 pc)
{
	long i = spm_lookup(m, pc);

	assert_true(i >= 0);
	return spm_region_bucket(m, &m->region[i], pc);
}

/* The invariants spm_lookup()'s binary search relies on. */
static void check_map(const struct spm_map *m)
{
	const struct spm_region *r;
	const struct spm_segment *s;
	__u32 i;

	assert_true(m->nsegments <= SPM_MAX_SEGMENTS(m->nregions));
	for (i = 1; i < m->nregions; i++)
		assert_true(spm_region_before(&m->region[i - 1],
					      &m->region[i]));
	for (i = 0; i < m->nsegments; i++) {
		s = &m->segment[i];
		assert_true(s->start < s->end);
		assert_true(s->region < m->nregions);
		if (i > 0)
			assert_true(m->segment[i - 1].end <= s->start);
		/* A segment never leaves its region. */
		r = &m->region[s->region];
		assert_true(r->offset <= s->start);
		assert_true(s->end - r->offset <= r->span);
	}
}

static void prepare_ok(struct spm_map *m, const struct sprofil_region *in,
		       __u32 n, __u32 flags)
{
	assert_int_equal(spm_prepare(m, in, n, flags), 0);
	check_map(m);
}

/* Compares the map with the reference at @pc, bucket included. */
static void check_pc(const struct spm_map *m, const struct sprofil_region *in,
		     __u32 n, __u64 pc)
{
	long want = ref_owner(in, n, m->shift, pc);
	long got = owner(m, pc);
	__u64 b, rb;

	if (got != want) {
		print_error("pc %#llx: owner %ld, reference says %ld\n",
			    (unsigned long long)pc, got, want);
		fail();
	}
	if (got < 0)
		return;
	b = bucket(m, pc);
	rb = ref_index(pc - in[got].offset, m->shift, in[got].scale);
	if (b != rb || b >= in[got].size >> m->shift) {
		print_error("pc %#llx: bucket %llu, reference says %llu\n",
			    (unsigned long long)pc, (unsigned long long)b,
			    (unsigned long long)rb);
		fail();
	}
}

/* Checks every pc of [lo, hi], inclusive so that hi may be 2^64 - 1. */
static void check_window(const struct spm_map *m,
			 const struct sprofil_region *in, __u32 n,
			 __u64 lo, __u64 hi)
{
	__u64 pc = lo;

	for (;;) {
		check_pc(m, in, n, pc);
		if (pc == hi)
			break;
		pc++;
	}
}

static void expect_einval(const struct sprofil_region *in, __u32 n,
			  __u32 flags)
{
	assert_int_equal(spm_prepare(fresh_map(), in, n, flags), -EINVAL);
}

/* ---- ABI ---- */

static void test_abi_values_and_layout(void **state)
{
	(void)state;
	/* The real checks are the _Static_asserts; this reports them. */
	assert_int_equal(SPROFIL_USHORT, PROF_USHORT);
	assert_int_equal(SPROFIL_UINT, PROF_UINT);
	assert_int_equal(SPROFIL_FAST, PROF_FAST);
	assert_int_equal(sizeof(struct sprofil_region), 32);
	assert_int_equal(sizeof(struct sprofil_start), 96);
	assert_int_equal(sizeof(struct sprofil_status), 48);
}

/* ---- region boundaries ---- */

/* The boundary cases for a few scales and both widths. */
struct bound_case {
	__u32 flags;
	__u32 scale;
	__u64 offset;
	__u64 size;
};

static const struct bound_case bound_cases[] = {
	{ SPROFIL_USHORT, 0x10000, 0x400000, 0x100 },
	{ SPROFIL_UINT, 0x10000, 0x400000, 0x100 },
	{ SPROFIL_USHORT, 0x8000, 0x400000, 0x100 },
	{ SPROFIL_UINT, 0x7fff, 0x400001, 0x104 },
	{ SPROFIL_USHORT, 3, 0x400000, 0x6 },
	{ SPROFIL_UINT, 12345, 0x400003, 0x40 },
	{ SPROFIL_USHORT | SPROFIL_FAST, 2, 0x400000, 0x2 },
};

#define for_each_bound_case(c) \
	for (c = bound_cases; \
	     c < bound_cases + sizeof(bound_cases) / sizeof(bound_cases[0]); \
	     c++)

static struct spm_map *prepare_case(const struct bound_case *c,
				    struct sprofil_region *in)
{
	struct spm_map *m = fresh_map();

	*in = reg(c->offset, c->size, c->scale);
	prepare_ok(m, in, 1, c->flags);
	return m;
}

static __u64 case_span(const struct bound_case *c)
{
	__u32 shift = spm_bucket_shift(c->flags);

	return (__u64)ref_span(c->size >> shift, shift, c->scale);
}

static void test_pc_below_offset_is_in_no_region(void **state)
{
	const struct bound_case *c;
	struct sprofil_region in;
	struct spm_map *m;

	(void)state;
	for_each_bound_case(c) {
		m = prepare_case(c, &in);
		assert_int_equal(spm_lookup(m, c->offset - 1), -1);
		/* Far below too: glibc crashed on pcs below the lowest. */
		assert_int_equal(spm_lookup(m, 0), -1);
		check_pc(m, &in, 1, c->offset - 1);
	}
}

static void test_pc_at_first_byte_is_bucket_0(void **state)
{
	const struct bound_case *c;
	struct sprofil_region in;
	struct spm_map *m;

	(void)state;
	for_each_bound_case(c) {
		m = prepare_case(c, &in);
		assert_int_equal(owner(m, c->offset), 0);
		assert_int_equal(bucket(m, c->offset), 0);
	}
}

static void test_pc_at_last_byte_is_last_bucket(void **state)
{
	const struct bound_case *c;
	struct sprofil_region in;
	struct spm_map *m;
	__u64 last;

	(void)state;
	for_each_bound_case(c) {
		m = prepare_case(c, &in);
		last = c->offset + case_span(c) - 1;
		assert_int_equal(owner(m, last), 0);
		assert_int_equal(bucket(m, last),
				 (c->size >> m->shift) - 1);
		check_pc(m, &in, 1, last);
	}
}

static void test_pc_one_past_last_byte_is_in_no_region(void **state)
{
	const struct bound_case *c;
	struct sprofil_region in;
	struct spm_map *m;
	__u64 end;

	(void)state;
	for_each_bound_case(c) {
		m = prepare_case(c, &in);
		end = c->offset + case_span(c);
		assert_int_equal(spm_lookup(m, end), -1);
		/* The reference agrees that the index left the buffer. */
		assert_true(ref_index(end - c->offset, m->shift, c->scale) >=
			    c->size >> m->shift);
		check_pc(m, &in, 1, end);
		assert_int_equal(spm_lookup(m, U64_MAX), -1);
	}
}

/* ---- 64-bit arithmetic ---- */

static const __u32 all_scales[] = {
	2, 3, 5, 7, 0xff, 0x100, 0x7fff, 0x8000, 0x8001, 12345,
	0xfffe, 0xffff, 0x10000,
	/* Above one (glibc accepts any; LTP's profil01 uses 0x20000). */
	0x10001, 0x18000, 0x1ffff, 0x20000, 0x12345678, 0xfffeffff,
	0xffff0000, 0xffffffff,
};

#define NSCALES (sizeof(all_scales) / sizeof(all_scales[0]))

static const __u64 edge_values[] = {
	0, 1, 2, 3, 4, 7, 0xffff, 0x10000, 0x10001, 0x1ffff, 0x20000,
	0x3ffff, 0x40000, 0xffffffffull, 0x100000000ull, 0x1ffffffffull,
	0xffffffffffffull, 0x1000000000000ull, 0x7fffffffffffffffull,
	0x8000000000000000ull, 0x8000000000000001ull, 0xfffffffffffeffffull,
	0xffffffffffff0000ull, 0xfffffffffffffffcull, 0xfffffffffffffffdull,
	0xfffffffffffffffeull, 0xffffffffffffffffull,
};

#define NEDGES (sizeof(edge_values) / sizeof(edge_values[0]))

static void check_index(__u64 delta, __u32 shift, __u32 scale)
{
	__u64 got = spm_bucket_index(delta, shift, scale);
	__u64 want = ref_index(delta, shift, scale);

	if (got != want) {
		print_error("delta %#llx shift %u scale %#x: %#llx != %#llx\n",
			    (unsigned long long)delta, shift, scale,
			    (unsigned long long)got,
			    (unsigned long long)want);
		fail();
	}
}

static void test_bucket_index_matches_128bit_reference(void **state)
{
	__u32 shift, scale;
	__u64 d;
	size_t i, k;

	(void)state;
	rng_seed(0x5350524f46494cull);
	for (shift = 1; shift <= 2; shift++) {
		for (k = 0; k < NSCALES; k++) {
			for (i = 0; i < NEDGES; i++)
				check_index(edge_values[i], shift,
					    all_scales[k]);
			for (i = 0; i < 20000; i++) {
				/* Random magnitudes, not just huge ones. */
				d = rng_next() >> rng_below(64);
				check_index(d, shift, all_scales[k]);
			}
		}
		for (i = 0; i < 200000; i++) {
			scale = 2 + rng_below(SPM_SCALE_ONE - 1);
			d = rng_next() >> rng_below(64);
			check_index(d, shift, scale);
			/* Every 32-bit scale, above one too. */
			scale = 2 + rng_below(0xfffffffeull);
			check_index(d, shift, scale);
		}
	}
}

/* The largest deltas: the split product must not overflow. */
static void test_bucket_index_extreme_deltas(void **state)
{
	__u32 shift;
	size_t i;

	(void)state;
	for (shift = 1; shift <= 2; shift++) {
		/* Scale one is the identity on units: no rounding at all. */
		assert_true(spm_bucket_index(U64_MAX, shift, 0x10000) ==
			    U64_MAX >> shift);
		assert_true(spm_bucket_index(U64_MAX - 1, shift, 0x10000) ==
			    (U64_MAX - 1) >> shift);
		for (i = 0; i < NEDGES; i++) {
			check_index(U64_MAX - edge_values[i], shift, 0x10000);
			check_index(U64_MAX - edge_values[i], shift, 0xffff);
			check_index(U64_MAX - edge_values[i], shift, 2);
		}
	}
	/* Above one the true index can pass 2^64: it saturates, never wraps. */
	for (shift = 1; shift <= 2; shift++)
		for (i = 0; i < NEDGES; i++) {
			check_index(U64_MAX - edge_values[i], shift, 0x20000);
			check_index(U64_MAX - edge_values[i], shift,
				    0xffffffffu);
			check_index(edge_values[i] << 16, shift, 0xffffffffu);
		}
	assert_true(spm_bucket_index(U64_MAX, 1, 0x20000) == U64_MAX - 1);
	assert_true(spm_bucket_index(U64_MAX, 2, 0x20000) ==
		    (U64_MAX >> 2) << 1);
	assert_true(spm_bucket_index(U64_MAX, 1, 0x30000) == U64_MAX);
	assert_true(spm_bucket_index(1ull << 48, 1, 0x10001) ==
		    (1ull << 47) + (1ull << 31));
	/* A naive q * scale would wrap here and give a small index. */
	assert_true(spm_bucket_index(U64_MAX, 1, 0xffff) ==
		    ref_index(U64_MAX, 1, 0xffff));
	assert_true(spm_bucket_index(U64_MAX, 1, 0xffff) >
		    0x7ffe000000000000ull);
}

/* A region at offset 0 and one at the top, with pcs at both ends. */
static void test_pc_at_address_extremes(void **state)
{
	struct sprofil_region in[2];
	struct spm_map *m;

	(void)state;
	/* Offset 0 with scale 3 is a region, not the overflow bin. */
	in[0] = reg(0, 0x100, 0x10000);
	in[0].scale = 3;
	m = fresh_map();
	prepare_ok(m, in, 1, SPROFIL_USHORT);
	assert_int_equal(owner(m, 0), 0);
	assert_int_equal(bucket(m, 0), 0);
	check_window(m, in, 1, 0, 0x1000);
	check_pc(m, in, 1, U64_MAX);
	check_pc(m, in, 1, U64_MAX - 1);

	/* Offset 0 with scale one: pc 0 is bucket 0, no underflow. */
	in[0] = reg(0, 0x100, 0x10000);
	m = fresh_map();
	prepare_ok(m, in, 1, SPROFIL_UINT);
	assert_int_equal(bucket(m, 0), 0);
	assert_int_equal(bucket(m, 0xff), 0x3f);
	assert_int_equal(spm_lookup(m, 0x100), -1);

	/* A region in the middle: both extremes are outside it. */
	in[0] = reg(0x8000000000000000ull, 0x100, 0x10000);
	m = fresh_map();
	prepare_ok(m, in, 1, SPROFIL_UINT);
	assert_int_equal(spm_lookup(m, 0), -1);
	assert_int_equal(spm_lookup(m, U64_MAX), -1);
	assert_int_equal(spm_lookup(m, 0x7fffffffffffffffull), -1);
	assert_int_equal(owner(m, 0x8000000000000000ull), 0);
}

/*
 * A region whose buffer would reach past 2^64: it holds every pc from its
 * offset up to the top (2^64 - 1 excepted, see ref_owner()).  offset +
 * span wraps to a small number here, which must not make the region
 * vanish.
 */
static void test_region_at_top_of_address_space(void **state)
{
	struct sprofil_region in[2];
	struct spm_map *m;
	__u64 off = U64_MAX - 0xfff;	/* the last 4 KiB */

	(void)state;
	/* Span exactly up to 2^64: offset + span == 0 in 64 bits. */
	in[0] = reg(off, 0x1000, 0x10000);
	m = fresh_map();
	prepare_ok(m, in, 1, SPROFIL_USHORT);
	assert_int_equal(owner(m, off), 0);
	assert_int_equal(bucket(m, off), 0);
	assert_int_equal(bucket(m, U64_MAX - 1), 0x7ff);
	assert_int_equal(spm_lookup(m, off - 1), -1);
	check_window(m, in, 1, off - 0x10, U64_MAX);

	/* Span past 2^64. */
	in[0] = reg(off, 0x4000, 0x10000);
	m = fresh_map();
	prepare_ok(m, in, 1, SPROFIL_UINT);
	assert_int_equal(owner(m, off), 0);
	assert_int_equal(bucket(m, U64_MAX - 1), 0x3ff);
	check_window(m, in, 1, off - 0x10, U64_MAX);

	/* Nested under a wrapping region: the outer one resumes. */
	in[1] = reg(off + 0x100, 0x10, 0x10000);
	m = fresh_map();
	prepare_ok(m, in, 2, SPROFIL_UINT);
	assert_int_equal(owner(m, off + 0xff), 0);
	assert_int_equal(owner(m, off + 0x100), 1);
	assert_int_equal(owner(m, off + 0x10f), 1);
	assert_int_equal(owner(m, off + 0x110), 0);
	check_window(m, in, 2, off - 0x10, U64_MAX);

	/* The largest region at the largest offset below the top. */
	in[0] = reg(U64_MAX - 1, SPROFIL_MAX_REGION_BYTES, 2);
	in[0].offset = U64_MAX - 1;
	m = fresh_map();
	prepare_ok(m, in, 1, SPROFIL_UINT);
	assert_int_equal(owner(m, U64_MAX - 1), 0);
	assert_int_equal(bucket(m, U64_MAX - 1), 0);
	assert_int_equal(spm_lookup(m, U64_MAX), -1);
}

/* ---- spans ---- */

static void test_region_span_matches_128bit_reference(void **state)
{
	__u64 n, nmax;
	__u32 shift;
	size_t i, k;

	(void)state;
	rng_seed(0x7370616eull);
	for (shift = 1; shift <= 2; shift++) {
		nmax = SPROFIL_MAX_REGION_BYTES >> shift;
		for (k = 0; k < NSCALES; k++) {
			for (i = 0; i < 5000; i++) {
				n = i < 64 ? i + 1 :
				    i < 128 ? nmax - (i - 64) :
				    1 + rng_below(nmax);
				assert_true(spm_region_span(n, shift,
							    all_scales[k]) ==
					    (__u64)ref_span(n, shift,
							    all_scales[k]));
			}
		}
	}
}

/*
 * Brute force: walk every delta from 0 and note, for each n, the first
 * delta whose index reaches n.  That delta is by definition the smallest
 * span for n buckets: every delta below it indexes below n (the walk saw
 * them all) and it does not.
 */
#define SPAN_NMAX	48

static void check_span_brute_force(__u32 scale)
{
	__u64 first[SPAN_NMAX + 1];
	__u64 delta, idx, n, span;
	__u32 shift;

	for (shift = 1; shift <= 2; shift++) {
		n = 1;
		for (delta = 0; n <= SPAN_NMAX; delta++) {
			idx = spm_bucket_index(delta, shift, scale);
			assert_true(idx == ref_index(delta, shift, scale));
			while (n <= SPAN_NMAX && idx >= n)
				first[n++] = delta;
		}
		for (n = 1; n <= SPAN_NMAX; n++) {
			span = spm_region_span(n, shift, scale);
			if (span != first[n]) {
				print_error("scale %#x shift %u n %llu: span %#llx, brute force %#llx\n",
					    scale, shift,
					    (unsigned long long)n,
					    (unsigned long long)span,
					    (unsigned long long)first[n]);
				fail();
			}
			assert_true(spm_bucket_index(span - 1, shift, scale) <
				    n);
			assert_true(spm_bucket_index(span, shift, scale) >= n);
		}
	}
}

static void test_region_span_scale_2(void **state)
{
	(void)state;
	check_span_brute_force(2);
}

static void test_region_span_scale_0x8000(void **state)
{
	(void)state;
	check_span_brute_force(0x8000);
}

static void test_region_span_scale_0x10000(void **state)
{
	(void)state;
	check_span_brute_force(0x10000);
	/* Scale one: one bucket per bucket-size bytes, span == size. */
	assert_int_equal(spm_region_span(100, 1, 0x10000), 200);
	assert_int_equal(spm_region_span(100, 2, 0x10000), 400);
}

static void test_region_span_odd_scales(void **state)
{
	static const __u32 odd[] = { 3, 5, 7, 0x7fff, 0x8001, 12345, 0xffff };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
		check_span_brute_force(odd[i]);
}

/* Above one a bucket covers less than its width of text. */
static void test_region_span_scales_above_one(void **state)
{
	static const __u32 above[] = { 0x10001, 0x18000, 0x20000, 0x30001,
				       0x100000 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(above) / sizeof(above[0]); i++)
		check_span_brute_force(above[i]);
	/* Scale two: one 16-bit bucket per text byte (profil01). */
	assert_int_equal(spm_region_span(32768, 1, 0x20000), 32768);
}

/* ---- offsets and bucket widths ---- */

/* Buckets are counted from the offset, not from aligned addresses. */
static void test_odd_offset_buckets_start_at_offset(void **state)
{
	struct sprofil_region in;
	struct spm_map *m;

	(void)state;
	in = reg(0x400001, 0x10, 0x10000);
	m = fresh_map();
	prepare_ok(m, &in, 1, SPROFIL_USHORT);
	assert_int_equal(spm_lookup(m, 0x400000), -1);
	assert_int_equal(bucket(m, 0x400001), 0);
	assert_int_equal(bucket(m, 0x400002), 0);
	assert_int_equal(bucket(m, 0x400003), 1);
	assert_int_equal(bucket(m, 0x400010), 7);
	assert_int_equal(spm_lookup(m, 0x400011), -1);

	in = reg(0x400003, 0x10, 0x10000);
	m = fresh_map();
	prepare_ok(m, &in, 1, SPROFIL_UINT);
	assert_int_equal(bucket(m, 0x400003), 0);
	assert_int_equal(bucket(m, 0x400006), 0);
	assert_int_equal(bucket(m, 0x400007), 1);
	assert_int_equal(bucket(m, 0x400012), 3);
	assert_int_equal(spm_lookup(m, 0x400013), -1);
	check_window(m, &in, 1, 0x3ffff0, 0x400020);
}

static void test_ushort_vs_uint_buckets(void **state)
{
	struct sprofil_region in;
	struct spm_map *m;

	(void)state;
	assert_int_equal(spm_bucket_shift(SPROFIL_USHORT), 1);
	assert_int_equal(spm_bucket_shift(SPROFIL_UINT), 2);
	/* PROF_FAST changes the clock, never the bucket width. */
	assert_int_equal(spm_bucket_shift(SPROFIL_FAST), 1);
	assert_int_equal(spm_bucket_shift(SPROFIL_UINT | SPROFIL_FAST), 2);
	assert_int_equal(spm_bucket_max(1), 0xffff);
	assert_int_equal(spm_bucket_max(2), 0xffffffffu);

	/* The same 0x100-byte buffer: 128 short or 64 int buckets. */
	in = reg(0x1000, 0x100, 0x10000);
	m = fresh_map();
	prepare_ok(m, &in, 1, SPROFIL_USHORT);
	assert_int_equal(m->shift, 1);
	assert_int_equal(m->region[0].nbuckets, 128);
	assert_int_equal(m->region[0].span, 0x100);
	assert_int_equal(bucket(m, 0x10ff), 127);

	m = fresh_map();
	prepare_ok(m, &in, 1, SPROFIL_UINT);
	assert_int_equal(m->shift, 2);
	assert_int_equal(m->region[0].nbuckets, 64);
	assert_int_equal(m->region[0].span, 0x100);
	assert_int_equal(bucket(m, 0x10ff), 63);
	assert_int_equal(bucket(m, 0x1004), 1);

	/* Half scale: each bucket covers twice the text. */
	in.scale = 0x8000;
	m = fresh_map();
	prepare_ok(m, &in, 1, SPROFIL_UINT);
	assert_int_equal(m->region[0].span, 0x200);
	assert_int_equal(bucket(m, 0x1007), 0);
	assert_int_equal(bucket(m, 0x1008), 1);
	assert_int_equal(bucket(m, 0x11ff), 63);
	assert_int_equal(spm_lookup(m, 0x1200), -1);
}

/* spm_check_entry() fills the region from the entry alone. */
static void test_check_entry_fills_region(void **state)
{
	struct sprofil_region in = reg(0x1234, 0x40, 0x7fff);
	struct spm_region out;

	(void)state;
	assert_int_equal(spm_check_entry(&in, 2, 7, &out), 1);
	assert_int_equal(out.offset, 0x1234);
	assert_int_equal(out.nbuckets, 0x10);
	assert_int_equal(out.scale, 0x7fff);
	assert_int_equal(out.id, 7);
	assert_true(out.span == (__u64)ref_span(0x10, 2, 0x7fff));
}

/* ---- overlapping regions ---- */

static void test_overlap_larger_offset_wins(void **state)
{
	struct sprofil_region in[2];
	struct spm_map *m;
	__u64 pc;

	(void)state;
	/* A [0x1000, 0x1100), B [0x1080, 0x1180): B wins where both. */
	in[0] = reg(0x1000, 0x100, 0x10000);
	in[1] = reg(0x1080, 0x100, 0x10000);
	m = fresh_map();
	prepare_ok(m, in, 2, SPROFIL_USHORT);
	assert_int_equal(owner(m, 0x107f), 0);
	assert_int_equal(owner(m, 0x1080), 1);
	assert_int_equal(owner(m, 0x10ff), 1);
	assert_int_equal(owner(m, 0x117f), 1);
	assert_int_equal(spm_lookup(m, 0x1180), -1);
	check_window(m, in, 2, 0xff0, 0x1190);

	/* Given the other way round: still the larger offset. */
	in[0] = reg(0x1080, 0x100, 0x10000);
	in[1] = reg(0x1000, 0x100, 0x10000);
	m = fresh_map();
	prepare_ok(m, in, 2, SPROFIL_USHORT);
	for (pc = 0x1080; pc < 0x1180; pc++)
		assert_int_equal(owner(m, pc), 0);
	assert_int_equal(owner(m, 0x107f), 1);
	check_window(m, in, 2, 0xff0, 0x1190);
}

static void test_nested_region_outer_resumes(void **state)
{
	struct sprofil_region in[2];
	struct spm_map *m;

	(void)state;
	in[0] = reg(0x1000, 0x100, 0x10000);	/* [0x1000, 0x1100) */
	in[1] = reg(0x1040, 0x20, 0x10000);	/* [0x1040, 0x1060) */
	m = fresh_map();
	prepare_ok(m, in, 2, SPROFIL_USHORT);
	assert_int_equal(owner(m, 0x103f), 0);
	assert_int_equal(owner(m, 0x1040), 1);
	assert_int_equal(owner(m, 0x105f), 1);
	assert_int_equal(owner(m, 0x1060), 0);
	/* The outer region's bucket is computed from its own offset. */
	assert_int_equal(bucket(m, 0x1060), 0x30);
	assert_int_equal(owner(m, 0x10ff), 0);
	assert_int_equal(spm_lookup(m, 0x1100), -1);
	check_window(m, in, 2, 0xff0, 0x1110);

	/* Inner region ending exactly where the outer one does. */
	in[1] = reg(0x10c0, 0x40, 0x10000);
	m = fresh_map();
	prepare_ok(m, in, 2, SPROFIL_USHORT);
	assert_int_equal(owner(m, 0x10bf), 0);
	assert_int_equal(owner(m, 0x10ff), 1);
	assert_int_equal(spm_lookup(m, 0x1100), -1);
	check_window(m, in, 2, 0xff0, 0x1110);
}

static void test_equal_offsets_later_entry_wins(void **state)
{
	struct sprofil_region in[3];
	struct spm_map *m;

	(void)state;
	/* The later, shorter entry wins; the earlier one resumes. */
	in[0] = reg(0x1000, 0x100, 0x10000);
	in[1] = reg(0x1000, 0x80, 0x10000);
	m = fresh_map();
	prepare_ok(m, in, 2, SPROFIL_USHORT);
	assert_int_equal(owner(m, 0x1000), 1);
	assert_int_equal(owner(m, 0x107f), 1);
	assert_int_equal(owner(m, 0x1080), 0);
	check_window(m, in, 2, 0xff0, 0x1110);

	/* The later, longer entry hides the earlier one entirely. */
	in[0] = reg(0x1000, 0x80, 0x10000);
	in[1] = reg(0x1000, 0x100, 0x10000);
	m = fresh_map();
	prepare_ok(m, in, 2, SPROFIL_USHORT);
	assert_int_equal(owner(m, 0x1000), 1);
	assert_int_equal(owner(m, 0x107f), 1);
	assert_int_equal(owner(m, 0x10ff), 1);
	check_window(m, in, 2, 0xff0, 0x1110);

	/* Three identical entries: the last one owns everything. */
	in[0] = reg(0x1000, 0x100, 0x10000);
	in[1] = in[0];
	in[2] = in[0];
	m = fresh_map();
	prepare_ok(m, in, 3, SPROFIL_UINT);
	assert_int_equal(owner(m, 0x1000), 2);
	assert_int_equal(owner(m, 0x10ff), 2);
	assert_int_equal(m->nsegments, 1);
}

static void test_three_deep_nesting(void **state)
{
	struct sprofil_region in[3];
	struct spm_map *m;

	(void)state;
	in[0] = reg(0x1000, 0x400, 0x10000);	/* A [0x1000, 0x1400) */
	in[1] = reg(0x1100, 0x200, 0x10000);	/* B [0x1100, 0x1300) */
	in[2] = reg(0x1180, 0x80, 0x10000);	/* C [0x1180, 0x1200) */
	m = fresh_map();
	prepare_ok(m, in, 3, SPROFIL_USHORT);
	assert_int_equal(owner(m, 0x10ff), 0);
	assert_int_equal(owner(m, 0x1100), 1);
	assert_int_equal(owner(m, 0x117f), 1);
	assert_int_equal(owner(m, 0x1180), 2);
	assert_int_equal(owner(m, 0x11ff), 2);
	assert_int_equal(owner(m, 0x1200), 1);
	assert_int_equal(owner(m, 0x12ff), 1);
	assert_int_equal(owner(m, 0x1300), 0);
	assert_int_equal(owner(m, 0x13ff), 0);
	assert_int_equal(spm_lookup(m, 0x1400), -1);
	/* A, B, C, B, A: five segments, within the 2n bound. */
	assert_int_equal(m->nsegments, 5);
	check_window(m, in, 3, 0xff0, 0x1410);
}

static void test_adjacent_regions(void **state)
{
	struct sprofil_region in[3];
	struct spm_map *m;

	(void)state;
	in[0] = reg(0x1000, 0x100, 0x10000);
	in[1] = reg(0x1100, 0x100, 0x10000);
	in[2] = reg(0x1200, 0x100, 0x8000);	/* span 0x200 */
	m = fresh_map();
	prepare_ok(m, in, 3, SPROFIL_USHORT);
	assert_int_equal(owner(m, 0x10ff), 0);
	assert_int_equal(owner(m, 0x1100), 1);
	assert_int_equal(bucket(m, 0x1100), 0);
	assert_int_equal(owner(m, 0x11ff), 1);
	assert_int_equal(owner(m, 0x1200), 2);
	assert_int_equal(owner(m, 0x13ff), 2);
	assert_int_equal(spm_lookup(m, 0x1400), -1);
	check_window(m, in, 3, 0xff0, 0x1410);
}

/* ---- randomized comparison with the reference ---- */

#define RSET_MAX 12

static __u32 random_scale(void)
{
	switch (rng_below(9)) {
	case 8:
		return 0x10001 + rng_below(0x30000);
	case 0:
		return 0x10000;
	case 1:
		return 0x8000;
	case 2:
		return 0x7fff;
	case 3:
		return 0xffff;
	default:
		/* Keep spans short enough to walk every pc of them. */
		return 0x800 + rng_below(SPM_SCALE_ONE - 0x800 + 1);
	}
}

/*
 * Fills @in with up to RSET_MAX entries at base + [0, 384): regions of
 * random size and scale, with repeated offsets, ignored entries and
 * sometimes an overflow bin.  Returns the entry count and sets *hi to the
 * last pc any region could reach.
 */
static __u32 random_set(struct sprofil_region *in, __u64 base, __u32 *flags,
			__u64 *hi)
{
	__u32 n = 1 + rng_below(RSET_MAX), i, shift, bin = 0, noffs = 0;
	__u64 nb, offs[RSET_MAX], off;
	u128 end, top = base;

	*flags = rng_below(4);
	shift = spm_bucket_shift(*flags);
	for (i = 0; i < n; i++) {
		switch (rng_below(16)) {
		case 0:
			/* Ignored: the other fields are garbage. */
			in[i] = reg(rng_next(), rng_next(), rng_below(2));
			in[i].base = rng_next();
			continue;
		case 1:
			if (!bin++) {
				in[i] = reg(0, 2 << shift, 2);
				continue;
			}
			break;
		}
		/* Equal offsets are where the tie rule matters. */
		if (noffs > 0 && rng_below(4) == 0)
			off = offs[rng_below(noffs)];
		else
			off = base + rng_below(384);
		offs[noffs++] = off;
		nb = 1 + rng_below(32);
		in[i] = reg(off, nb << shift, random_scale());
		/* Rarely a tiny scale: one bucket over a lot of text. */
		if (rng_below(256) == 0) {
			in[i].scale = 2 + rng_below(2);
			in[i].size = 1 << shift;
		}
		/* Offset 0 with scale 2 would be a second overflow bin. */
		if (in[i].offset == 0 && in[i].scale == 2)
			in[i].scale = 3;
		end = in[i].offset +
		      ref_span(in[i].size >> shift, shift, in[i].scale);
		if (end > top)
			top = end;
	}
	*hi = top > U64_MAX ? U64_MAX : (__u64)top;
	return n;
}

static void check_random_sets(__u64 seed, int iterations, __u64 base)
{
	struct sprofil_region in[RSET_MAX];
	struct spm_map *m;
	__u32 n, flags;
	__u64 lo, hi;
	int it;

	rng_seed(seed);
	for (it = 0; it < iterations; it++) {
		n = random_set(in, base, &flags, &hi);
		m = fresh_map();
		prepare_ok(m, in, n, flags);
		lo = base < 16 ? 0 : base - 16;
		hi = hi > U64_MAX - 16 ? U64_MAX : hi + 16;
		check_window(m, in, n, lo, hi);
		check_pc(m, in, n, 0);
		check_pc(m, in, n, U64_MAX);
	}
}

static void test_random_sets_match_reference(void **state)
{
	(void)state;
	check_random_sets(0x5eedull, 3000, 0x400000);
}

static void test_random_sets_at_address_zero(void **state)
{
	(void)state;
	check_random_sets(0x2e40ull, 1000, 0);
}

static void test_random_sets_at_top_of_address_space(void **state)
{
	(void)state;
	check_random_sets(0x70bull, 1000, U64_MAX - 400);
}

/* ---- the overflow bin ---- */

static void test_overflow_bin_is_not_a_region(void **state)
{
	struct sprofil_region in[2];
	struct spm_map *m;
	__u64 pc;

	(void)state;
	in[0] = reg(0, 0x100, 2);
	m = fresh_map();
	prepare_ok(m, in, 1, SPROFIL_USHORT);
	assert_int_equal(m->overflow, 0);
	assert_int_equal(m->nregions, 0);
	assert_int_equal(m->nsegments, 0);
	/* As a region it would hold [0, 0x100 << 15): it does not. */
	for (pc = 0; pc < 0x10000; pc++)
		assert_int_equal(spm_lookup(m, pc), -1);
	assert_int_equal(spm_lookup(m, U64_MAX), -1);

	/* With a real region too: only the region is found. */
	in[1] = reg(0x1000, 0x100, 0x10000);
	m = fresh_map();
	prepare_ok(m, in, 2, SPROFIL_USHORT);
	assert_int_equal(m->overflow, 0);
	assert_int_equal(m->nregions, 1);
	assert_int_equal(spm_lookup(m, 0), -1);
	assert_int_equal(spm_lookup(m, 0xfff), -1);
	assert_int_equal(owner(m, 0x1000), 1);
	check_window(m, in, 2, 0, 0x2000);

	/* No bin: overflow is -1. */
	m = fresh_map();
	prepare_ok(m, &in[1], 1, SPROFIL_USHORT);
	assert_int_equal(m->overflow, -1);
}

/* Only offset 0 with scale exactly 2 is the bin. */
static void test_near_overflow_bin_entries_are_regions(void **state)
{
	struct sprofil_region in;
	struct spm_map *m;

	(void)state;
	in = reg(1, 2, 2);
	m = fresh_map();
	prepare_ok(m, &in, 1, SPROFIL_USHORT);
	assert_int_equal(m->overflow, -1);
	assert_int_equal(m->nregions, 1);
	assert_int_equal(spm_lookup(m, 0), -1);
	assert_int_equal(owner(m, 1), 0);
	assert_int_equal(owner(m, 0x10000), 0);
	assert_int_equal(spm_lookup(m, 0x10001), -1);

	in = reg(0, 2, 3);
	m = fresh_map();
	prepare_ok(m, &in, 1, SPROFIL_USHORT);
	assert_int_equal(m->overflow, -1);
	assert_int_equal(owner(m, 0), 0);
}

static void test_overflow_bin_anywhere_in_array(void **state)
{
	struct sprofil_region in[5];
	struct spm_map *m;
	__u32 pos, i;

	(void)state;
	for (pos = 0; pos < 5; pos++) {
		for (i = 0; i < 5; i++)
			in[i] = reg(0x1000 + 0x100 * i, 0x100, 0x10000);
		in[pos] = reg(0, 0x10, 2);
		m = fresh_map();
		prepare_ok(m, in, 5, SPROFIL_UINT);
		assert_int_equal(m->overflow, pos);
		assert_int_equal(m->nregions, 4);
		for (i = 0; i < m->nregions; i++)
			assert_int_not_equal(m->region[i].id, pos);
		check_window(m, in, 5, 0, 0x1600);
	}
}

static void test_two_overflow_bins_rejected(void **state)
{
	struct sprofil_region in[3];

	(void)state;
	in[0] = reg(0, 0x10, 2);
	in[1] = reg(0x1000, 0x100, 0x10000);
	in[2] = reg(0, 0x20, 2);
	expect_einval(in, 3, SPROFIL_USHORT);
	in[1] = in[0];
	expect_einval(in, 2, SPROFIL_UINT);
}

/* The bin's first bucket is written, so its buffer is checked too. */
static void test_overflow_bin_is_validated(void **state)
{
	struct sprofil_region in;

	(void)state;
	in = reg(0, 0, 2);
	expect_einval(&in, 1, SPROFIL_USHORT);
	in = reg(0, 6, 2);
	expect_einval(&in, 1, SPROFIL_UINT);
	in = reg(0, 4, 2);
	in.base = BUF_BASE + 2;
	expect_einval(&in, 1, SPROFIL_UINT);
	in = reg(0, 4, 2);
	in.reserved = 1;
	expect_einval(&in, 1, SPROFIL_UINT);
}

/* ---- input order ---- */

static void shuffle(struct sprofil_region *in, __u32 n)
{
	struct sprofil_region t;
	__u32 i, j;

	for (i = n - 1; i > 0; i--) {
		j = rng_below(i + 1);
		t = in[i];
		in[i] = in[j];
		in[j] = t;
	}
}

/*
 * Offsets are distinct here so the winner does not depend on the order;
 * the winner is then compared by offset, as its entry index moves.
 */
static void test_unsorted_input_same_result(void **state)
{
	static __u64 want[0x3000];
	struct sprofil_region sorted[10], in[10];
	__u64 pc;
	struct spm_map *m;
	long i;
	int round, pass;

	(void)state;
	rng_seed(0x50e7ull);
	for (round = 0; round < 50; round++) {
		for (i = 0; i < 10; i++)
			sorted[i] = reg(0x1000 + 0x80 * i + rng_below(0x40),
					(1 + rng_below(0x40)) << 1,
					random_scale());
		m = fresh_map();
		prepare_ok(m, sorted, 10, SPROFIL_USHORT);
		for (pc = 0; pc < 0x3000; pc++) {
			i = spm_lookup(m, 0xc00 + pc);
			want[pc] = i < 0 ? 0 : m->region[i].offset;
		}
		for (pass = 0; pass < 21; pass++) {
			memcpy(in, sorted, sizeof(in));
			if (pass == 0) {
				for (i = 0; i < 10; i++)
					in[i] = sorted[9 - i];
			} else {
				shuffle(in, 10);
			}
			m = fresh_map();
			prepare_ok(m, in, 10, SPROFIL_USHORT);
			for (pc = 0; pc < 0x3000; pc++) {
				i = spm_lookup(m, 0xc00 + pc);
				assert_true(want[pc] ==
					    (i < 0 ? 0 : m->region[i].offset));
				check_pc(m, in, 10, 0xc00 + pc);
			}
		}
	}
}

/* ---- ignored and invalid entries ---- */

static void test_ignored_entries_skipped_unvalidated(void **state)
{
	struct sprofil_region in[4];
	struct spm_map *m;
	struct spm_region out;

	(void)state;
	/* Every field but reserved is garbage: none of it is looked at. */
	in[0] = reg(0x1000, 0, 0);
	in[0].base = 1;
	in[1] = reg(0, 3, 1);
	in[1].base = 3;
	in[2] = reg(0x1000, 0x100, 0x10000);
	in[3] = reg(U64_MAX, U64_MAX, 1);
	in[3].base = U64_MAX;
	assert_int_equal(spm_check_entry(&in[0], 2, 0, &out), 0);
	assert_int_equal(spm_check_entry(&in[3], 2, 3, &out), 0);
	assert_int_equal(spm_is_overflow_bin(&in[1]), 0);
	m = fresh_map();
	prepare_ok(m, in, 4, SPROFIL_UINT);
	assert_int_equal(m->nregions, 1);
	assert_int_equal(m->overflow, -1);
	assert_int_equal(owner(m, 0x1000), 2);
	check_window(m, in, 4, 0, 0x1200);
}

/* reserved must be zero in every entry, ignored ones included. */
static void test_invalid_reserved(void **state)
{
	struct sprofil_region in[2];

	(void)state;
	in[0] = reg(0x1000, 0x100, 0x10000);
	in[0].reserved = 1;
	expect_einval(in, 1, SPROFIL_USHORT);
	in[0].reserved = 0x80000000u;
	expect_einval(in, 1, SPROFIL_UINT);
	in[0] = reg(0x1000, 0x100, 0);
	in[0].reserved = 1;
	expect_einval(in, 1, SPROFIL_USHORT);
}

/* glibc accepts a scale above 0x10000, and so do we (LTP profil01). */
static void test_scale_above_one_is_accepted(void **state)
{
	struct sprofil_region in;
	struct spm_map *m;

	(void)state;
	/*
	 * 128 16-bit buckets over 128 text bytes: floor(delta / 2) * 2, so
	 * only the even ones count, as with glibc.
	 */
	in = reg(0x1000, 0x100, 0x20000);
	m = fresh_map();
	prepare_ok(m, &in, 1, SPROFIL_USHORT);
	assert_int_equal(bucket(m, 0x1000), 0);
	assert_int_equal(bucket(m, 0x1001), 0);
	assert_int_equal(bucket(m, 0x1002), 2);
	assert_int_equal(bucket(m, 0x107f), 126);
	assert_int_equal(spm_lookup(m, 0x1080), -1);
	check_window(m, &in, 1, 0xff0, 0x1090);
	in.scale = 0xffffffffu;
	m = fresh_map();
	prepare_ok(m, &in, 1, SPROFIL_UINT);
	check_window(m, &in, 1, 0xff0, 0x1010);
	assert_int_equal(spm_lookup(m, 0x1004), -1);
}

static void test_invalid_size_zero(void **state)
{
	struct sprofil_region in = reg(0x1000, 0, 0x10000);

	(void)state;
	expect_einval(&in, 1, SPROFIL_USHORT);
	expect_einval(&in, 1, SPROFIL_UINT);
}

static void test_invalid_size_not_bucket_multiple(void **state)
{
	struct sprofil_region in;

	(void)state;
	in = reg(0x1000, 3, 0x10000);
	expect_einval(&in, 1, SPROFIL_USHORT);
	in.size = 1;
	expect_einval(&in, 1, SPROFIL_USHORT);
	/* 6 is fine for shorts, not for ints. */
	in.size = 6;
	assert_int_equal(spm_prepare(fresh_map(), &in, 1, SPROFIL_USHORT), 0);
	expect_einval(&in, 1, SPROFIL_UINT);
	in.size = 2;
	expect_einval(&in, 1, SPROFIL_UINT);
	in.size = 8;
	assert_int_equal(spm_prepare(fresh_map(), &in, 1, SPROFIL_UINT), 0);
}

static void test_invalid_base_misaligned(void **state)
{
	struct sprofil_region in = reg(0x1000, 0x100, 0x10000);

	(void)state;
	in.base = BUF_BASE + 1;
	expect_einval(&in, 1, SPROFIL_USHORT);
	expect_einval(&in, 1, SPROFIL_UINT);
	in.base = BUF_BASE + 2;
	assert_int_equal(spm_prepare(fresh_map(), &in, 1, SPROFIL_USHORT), 0);
	expect_einval(&in, 1, SPROFIL_UINT);
	in.base = BUF_BASE + 3;
	expect_einval(&in, 1, SPROFIL_UINT);
	/* The offset, unlike the base, may be odd (see odd offsets). */
	in.base = BUF_BASE;
	in.offset = 0x1001;
	assert_int_equal(spm_prepare(fresh_map(), &in, 1, SPROFIL_UINT), 0);
}

static void test_invalid_size_above_max(void **state)
{
	struct sprofil_region in;
	struct spm_map *m;

	(void)state;
	in = reg(0x1000, SPROFIL_MAX_REGION_BYTES + 2, 0x10000);
	expect_einval(&in, 1, SPROFIL_USHORT);
	in.size = SPROFIL_MAX_REGION_BYTES + 4;
	expect_einval(&in, 1, SPROFIL_UINT);
	in.size = U64_MAX - 3;
	expect_einval(&in, 1, SPROFIL_UINT);
	/* The maximum itself is accepted, at the smallest scale too. */
	in.size = SPROFIL_MAX_REGION_BYTES;
	in.scale = 2;
	m = fresh_map();
	prepare_ok(m, &in, 1, SPROFIL_USHORT);
	assert_true(m->region[0].span ==
		    (__u64)ref_span(SPROFIL_MAX_REGION_BYTES >> 1, 1, 2));
	assert_true(bucket(m, 0x1000 + m->region[0].span - 1) ==
		    (SPROFIL_MAX_REGION_BYTES >> 1) - 1);
}

static void test_invalid_flags(void **state)
{
	struct sprofil_region in = reg(0x1000, 0x100, 0x10000);
	__u32 bit;

	(void)state;
	for (bit = 2; bit < 32; bit++)
		if (!((1u << bit) & SPROFIL_START_FLAGS))
			expect_einval(&in, 1, 1u << bit);
	expect_einval(&in, 1, ~0u);
	/* Even with no entries, bad flags are refused. */
	expect_einval(&in, 0, 1u << 31);
	assert_int_equal(spm_prepare(fresh_map(), &in, 1, SPROFIL_START_FLAGS),
			 0);
}

static void test_invalid_too_many_regions(void **state)
{
	struct spm_map *m;
	__u32 i;

	(void)state;
	for (i = 0; i <= MAXN; i++)
		t_in[i] = reg(0x1000 + 0x100 * i, 0x100, 0x10000);
	expect_einval(t_in, MAXN + 1, SPROFIL_USHORT);
	expect_einval(t_in, ~0u, SPROFIL_USHORT);
	m = fresh_map();
	prepare_ok(m, t_in, MAXN, SPROFIL_USHORT);
	assert_int_equal(m->nregions, MAXN);
	assert_int_equal(owner(m, 0x1000 + 0x100 * (MAXN - 1)), MAXN - 1);
}

/* One bad entry anywhere fails the whole call. */
static void test_invalid_entry_after_valid_ones(void **state)
{
	struct sprofil_region in[4];
	__u32 pos, i;

	(void)state;
	for (pos = 0; pos < 4; pos++) {
		for (i = 0; i < 4; i++)
			in[i] = reg(0x1000 + 0x100 * i, 0x100, 0x10000);
		in[pos].size = 0;
		expect_einval(in, 4, SPROFIL_USHORT);
	}
}

static void test_empty_set(void **state)
{
	struct spm_map *m = fresh_map();

	(void)state;
	prepare_ok(m, t_in, 0, SPROFIL_UINT);
	assert_int_equal(m->nregions, 0);
	assert_int_equal(m->nsegments, 0);
	assert_int_equal(m->overflow, -1);
	assert_int_equal(spm_lookup(m, 0), -1);
	assert_int_equal(spm_lookup(m, U64_MAX), -1);
}

/* ---- segments ---- */

/*
 * check_map() asserts the bound, order, disjointness and non-emptiness;
 * here it meets many shapes, up to the full SPROFIL_MAX_REGIONS, and the
 * boundaries of every segment are compared with the reference.
 */
static void test_segments_bounded_sorted_disjoint(void **state)
{
	struct spm_map *m;
	__u32 n, i, shift, flags;
	__u64 spread;
	int it, resumed = 0;

	(void)state;
	rng_seed(0x5e65ull);
	for (it = 0; it < 300; it++) {
		n = it == 0 ? MAXN : 1 + rng_below(it < 10 ? MAXN : 64);
		flags = rng_below(2);
		shift = spm_bucket_shift(flags);
		spread = 1ull << (8 + rng_below(24));
		for (i = 0; i < n; i++) {
			t_in[i] = reg(0x400000 + rng_below(spread),
				      (1 + rng_below(0x100)) << shift,
				      random_scale());
			/* Deep nesting: many regions start together. */
			if (i > 0 && rng_below(3) == 0)
				t_in[i].offset = t_in[i - 1].offset;
		}
		m = fresh_map();
		prepare_ok(m, t_in, n, flags);
		if (m->nsegments > m->nregions)
			resumed++;
		for (i = 0; i < m->nsegments; i++) {
			check_pc(m, t_in, n, m->segment[i].start - 1);
			check_pc(m, t_in, n, m->segment[i].start);
			check_pc(m, t_in, n, m->segment[i].end - 1);
			check_pc(m, t_in, n, m->segment[i].end);
		}
	}
	/* Outer regions did resume: not only one segment per region. */
	assert_true(resumed > 0);
}

/* Fully nested regions reach the 2n - 1 segments of the worst case. */
static void test_segments_worst_case_nesting(void **state)
{
	struct spm_map *m;
	__u32 i, n = MAXN;

	(void)state;
	for (i = 0; i < n; i++)
		t_in[i] = reg(0x100000 + 2 * i, 2 * (2 * (n - i) - 1),
			      0x10000);
	m = fresh_map();
	prepare_ok(m, t_in, n, SPROFIL_USHORT);
	assert_int_equal(m->nsegments, 2 * n - 1);
	check_window(m, t_in, n, 0xffff0, 0x100000 + 4 * n + 16);
}

/* ---- saturation ---- */

static void test_saturating_add_16bit(void **state)
{
	__u32 max = spm_bucket_max(spm_bucket_shift(SPROFIL_USHORT));

	(void)state;
	assert_int_equal(max, 0xffff);
	assert_int_equal(spm_saturating_add(0, 1, max), 1);
	assert_int_equal(spm_saturating_add(0xfffd, 1, max), 0xfffe);
	assert_int_equal(spm_saturating_add(0xfffe, 1, max), 0xffff);
	assert_int_equal(spm_saturating_add(0xffff, 1, max), 0xffff);
	/* Several periods credited at once stop at the maximum too. */
	assert_int_equal(spm_saturating_add(0xfff0, 15, max), 0xffff);
	assert_int_equal(spm_saturating_add(0xfff0, 16, max), 0xffff);
	assert_int_equal(spm_saturating_add(0xfff0, 0xffffffffu, max), 0xffff);
	assert_int_equal(spm_saturating_add(7, 0, max), 7);
}

static void test_saturating_add_32bit(void **state)
{
	__u32 max = spm_bucket_max(spm_bucket_shift(SPROFIL_UINT));

	(void)state;
	assert_int_equal(max, 0xffffffffu);
	assert_int_equal(spm_saturating_add(0, 1, max), 1);
	/* A 16-bit maximum is nothing special in a 32-bit bucket. */
	assert_int_equal(spm_saturating_add(0xffff, 1, max), 0x10000);
	assert_int_equal(spm_saturating_add(0xfffffffeu, 1, max), 0xffffffffu);
	assert_int_equal(spm_saturating_add(0xffffffffu, 1, max), 0xffffffffu);
	assert_int_equal(spm_saturating_add(0xfffffff0u, 0x20, max),
			 0xffffffffu);
	assert_int_equal(spm_saturating_add(1, 0xffffffffu, max), 0xffffffffu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_abi_values_and_layout),
		cmocka_unit_test(test_pc_below_offset_is_in_no_region),
		cmocka_unit_test(test_pc_at_first_byte_is_bucket_0),
		cmocka_unit_test(test_pc_at_last_byte_is_last_bucket),
		cmocka_unit_test(test_pc_one_past_last_byte_is_in_no_region),
		cmocka_unit_test(test_bucket_index_matches_128bit_reference),
		cmocka_unit_test(test_bucket_index_extreme_deltas),
		cmocka_unit_test(test_pc_at_address_extremes),
		cmocka_unit_test(test_region_at_top_of_address_space),
		cmocka_unit_test(test_region_span_matches_128bit_reference),
		cmocka_unit_test(test_region_span_scale_2),
		cmocka_unit_test(test_region_span_scale_0x8000),
		cmocka_unit_test(test_region_span_scale_0x10000),
		cmocka_unit_test(test_region_span_odd_scales),
		cmocka_unit_test(test_region_span_scales_above_one),
		cmocka_unit_test(test_odd_offset_buckets_start_at_offset),
		cmocka_unit_test(test_ushort_vs_uint_buckets),
		cmocka_unit_test(test_check_entry_fills_region),
		cmocka_unit_test(test_overlap_larger_offset_wins),
		cmocka_unit_test(test_nested_region_outer_resumes),
		cmocka_unit_test(test_equal_offsets_later_entry_wins),
		cmocka_unit_test(test_three_deep_nesting),
		cmocka_unit_test(test_adjacent_regions),
		cmocka_unit_test(test_random_sets_match_reference),
		cmocka_unit_test(test_random_sets_at_address_zero),
		cmocka_unit_test(test_random_sets_at_top_of_address_space),
		cmocka_unit_test(test_overflow_bin_is_not_a_region),
		cmocka_unit_test(test_near_overflow_bin_entries_are_regions),
		cmocka_unit_test(test_overflow_bin_anywhere_in_array),
		cmocka_unit_test(test_two_overflow_bins_rejected),
		cmocka_unit_test(test_overflow_bin_is_validated),
		cmocka_unit_test(test_unsorted_input_same_result),
		cmocka_unit_test(test_ignored_entries_skipped_unvalidated),
		cmocka_unit_test(test_invalid_reserved),
		cmocka_unit_test(test_scale_above_one_is_accepted),
		cmocka_unit_test(test_invalid_size_zero),
		cmocka_unit_test(test_invalid_size_not_bucket_multiple),
		cmocka_unit_test(test_invalid_base_misaligned),
		cmocka_unit_test(test_invalid_size_above_max),
		cmocka_unit_test(test_invalid_flags),
		cmocka_unit_test(test_invalid_too_many_regions),
		cmocka_unit_test(test_invalid_entry_after_valid_ones),
		cmocka_unit_test(test_empty_set),
		cmocka_unit_test(test_segments_bounded_sorted_disjoint),
		cmocka_unit_test(test_segments_worst_case_nesting),
		cmocka_unit_test(test_saturating_add_16bit),
		cmocka_unit_test(test_saturating_add_32bit),
	};

	return cmocka_run_group_tests_name("mapping", tests, NULL, NULL);
}
