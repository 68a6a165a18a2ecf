// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of include/sprofil/gmon_codec.h: the histogram records'
 * encoding against a reference written here from the format's text
 * (docs/gmon-format.md, tag 6), on random arrays from empty to all
 * nonzero, 16- and 32-bit, through every chunk size a writer may use;
 * the decoder on what the encoder wrote, on hand-made bodies (offsets
 * past 2^40), and on truncated or corrupt ones, which it must refuse
 * with one message that then sticks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sprofil/gmon_codec.h>

/* ---- the reference: the format's text, done the plain way ---- */

struct bytes {
	unsigned char *b;
	size_t len, cap;
};

static void ref_byte(struct bytes *o, unsigned char c)
{
	if (o->len == o->cap) {
		o->cap = o->cap * 2 + 64;
		o->b = realloc(o->b, o->cap);
		assert_non_null(o->b);
	}
	o->b[o->len++] = c;
}

/* LEB128: 7 bits a byte, low first, the high bit set on all but the last. */
static void ref_varint(struct bytes *o, uint64_t v)
{
	do {
		unsigned char c = v % 128;

		v /= 128;
		ref_byte(o, v ? c + 128 : c);
	} while (v);
}

static uint64_t ref_count(const void *b, unsigned int size, uint64_t i)
{
	return size == 4 ? ((const uint32_t *)b)[i] : ((const uint16_t *)b)[i];
}

/* nruns, then per run: zeros before it, its length, its counts. */
static struct bytes ref_encode(const void *b, uint64_t n, unsigned int size)
{
	struct bytes o = { 0 }, runs = { 0 };
	uint64_t i = 0, nruns = 0, prev_end = 0, start;

	while (i < n) {
		if (!ref_count(b, size, i)) {
			i++;
			continue;
		}
		start = i;
		while (i < n && ref_count(b, size, i))
			i++;
		nruns++;
		ref_varint(&runs, start - prev_end);
		ref_varint(&runs, i - start);
		for (uint64_t k = start; k < i; k++)
			ref_varint(&runs, ref_count(b, size, k));
		prev_end = i;
	}
	ref_varint(&o, nruns);
	for (size_t k = 0; k < runs.len; k++)
		ref_byte(&o, runs.b[k]);
	free(runs.b);
	return o;
}

/* ---- helpers ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	/* xorshift64*: a fixed seed, so a failure repeats. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

/* @n buckets, each nonzero with probability @permille / 1000. */
static void *random_hist(uint64_t n, unsigned int size, unsigned int permille)
{
	void *b = calloc(n ? n : 1, size);
	uint64_t max = size == 4 ? 0xffffffffu : 0xffff, v;

	assert_non_null(b);
	for (uint64_t i = 0; i < n; i++) {
		if (rnd() % 1000 >= permille)
			continue;
		/* Small counts mostly, as profiles have; the maximum too. */
		switch (rnd() % 4) {
		case 0:
			v = max;
			break;
		case 1:
			v = 1 + rnd() % max;
			break;
		default:
			v = 1 + rnd() % 100;
		}
		if (size == 4)
			((uint32_t *)b)[i] = v;
		else
			((uint16_t *)b)[i] = v;
	}
	return b;
}

static struct bytes encode(const void *b, uint64_t n, unsigned int size,
			   size_t chunk)
{
	unsigned char *buf = malloc(chunk);
	struct gmf_hist_enc e;
	struct bytes o = { 0 };
	uint64_t body, nruns;
	uint32_t tag;
	size_t got;

	assert_non_null(buf);
	gmf_hist_choose(b, n, size, NULL, &tag, &body, &nruns);
	gmf_hist_enc_init(&e, b, n, size, NULL, nruns);
	while ((got = gmf_hist_enc_fill(&e, buf, chunk))) {
		assert_true(got <= chunk);
		for (size_t k = 0; k < got; k++)
			ref_byte(&o, buf[k]);
	}
	free(buf);
	return o;
}

static struct gmf_hist_head head(uint64_t n, unsigned int size)
{
	return (struct gmf_hist_head){
		.module = 0, .bucket_size = size, .scale = 0x10000,
		.period_ns = 1000000, .low_pc = 0x1000,
		.high_pc = 0x1000 + n * size, .nbuckets = n,
	};
}

/* Decodes @body into a fresh array of @n counts; NULL and *err if refused. */
static uint64_t *decode(uint32_t tag, uint64_t n, unsigned int size,
			const unsigned char *body, size_t len, bool swap,
			char *err, size_t errlen)
{
	struct gmf_hist_head h = head(n, size);
	struct gmf_hist_dec d;
	uint64_t *out = calloc(n ? n : 1, sizeof(*out)), i, c, last = 0;
	bool first = true;

	assert_non_null(out);
	gmf_hist_dec_init(&d, tag, &h, body, body + len, swap);
	while (gmf_hist_dec_next(&d, &i, &c)) {
		assert_true(i < n);
		assert_true(first || i > last);
		assert_int_not_equal(c, 0);
		out[i] = c;
		last = i;
		first = false;
	}
	if (!d.failed)
		return out;
	/* Sticky: the next call fails too and keeps the first message. */
	snprintf(err, errlen, "%s", d.err);
	assert_false(gmf_hist_dec_next(&d, &i, &c));
	assert_string_equal(d.err, err);
	assert_true(strlen(err) > 10);
	free(out);
	return NULL;
}

static void check_round_trip(const void *b, uint64_t n, unsigned int size)
{
	static const size_t chunks[] = { GMF_HIST_ENC_MIN, 31, 64, 4096 };
	struct bytes ref = ref_encode(b, n, size), got;
	uint64_t body, nruns, *back, ref_nruns = 0;
	uint32_t tag;
	char err[200];

	gmf_hist_choose(b, n, size, NULL, &tag, &body, &nruns);
	for (int k = 0, shift = 0; k < 10; k++, shift += 7) {
		ref_nruns |= (uint64_t)(ref.b[k] & 0x7f) << shift;
		if (!(ref.b[k] & 0x80))
			break;
	}
	assert_int_equal(nruns, ref_nruns);
	if (ref.len < n * size) {
		assert_int_equal(tag, GMF_TAG_HIST_SPARSE);
		assert_int_equal(body, ref.len);
	} else {
		assert_int_equal(tag, GMF_TAG_HIST);
		assert_int_equal(body, n * size);
	}
	for (size_t k = 0; k < sizeof(chunks) / sizeof(*chunks); k++) {
		got = encode(b, n, size, chunks[k]);
		assert_int_equal(got.len, ref.len);
		assert_memory_equal(got.b, ref.b, ref.len);
		free(got.b);
	}
	back = decode(GMF_TAG_HIST_SPARSE, n, size, ref.b, ref.len, false,
		      err, sizeof(err));
	if (!back)
		fail_msg("sparse body refused: %s", err);
	for (uint64_t i = 0; i < n; i++)
		assert_int_equal(back[i], ref_count(b, size, i));
	free(back);
	/* The dense body (the host's order here) reads the same. */
	back = decode(GMF_TAG_HIST, n, size, b, n * size, false, err,
		      sizeof(err));
	if (!back)
		fail_msg("dense body refused: %s", err);
	for (uint64_t i = 0; i < n; i++)
		assert_int_equal(back[i], ref_count(b, size, i));
	free(back);
	free(ref.b);
}

/* ---- tests ---- */

static void random_arrays_match_the_reference(void **state)
{
	static const unsigned int density[] = { 0, 1, 10, 100, 300, 700,
						999, 1000 };
	static const uint64_t sizes[] = { 0, 1, 2, 3, 7, 64, 1000, 65537 };

	(void)state;
	for (unsigned int bs = 2; bs <= 4; bs += 2)
		for (size_t d = 0; d < sizeof(density) / sizeof(*density); d++)
			for (size_t s = 0; s < sizeof(sizes) / sizeof(*sizes);
			     s++) {
				void *b = random_hist(sizes[s], bs, density[d]);

				check_round_trip(b, sizes[s], bs);
				free(b);
			}
}

static void edge_arrays(void **state)
{
	uint16_t b16[300] = { 0 };
	uint32_t b32[300] = { 0 };
	struct bytes ref;
	uint64_t body, nruns;
	uint32_t tag;

	(void)state;
	/* All zero: one byte, nruns 0. */
	gmf_hist_choose(b16, 300, 2, NULL, &tag, &body, &nruns);
	assert_int_equal(tag, GMF_TAG_HIST_SPARSE);
	assert_int_equal(body, 1);
	check_round_trip(b16, 300, 2);
	/* The last bucket alone, the first alone, both. */
	b16[299] = 7;
	check_round_trip(b16, 300, 2);
	ref = ref_encode(b16, 300, 2);
	/* nruns 1, gap 299 (two bytes), length 1, count 7. */
	assert_int_equal(ref.len, 5);
	free(ref.b);
	b16[0] = 0xffff;
	check_round_trip(b16, 300, 2);
	/* All nonzero: one run, written dense when that is no larger. */
	for (int i = 0; i < 300; i++) {
		b16[i] = 1 + i % 3;
		b32[i] = 0xffffffffu - i;
	}
	check_round_trip(b16, 300, 2);
	gmf_hist_choose(b16, 300, 2, NULL, &tag, &body, &nruns);
	assert_int_equal(tag, GMF_TAG_HIST_SPARSE);	/* 1-byte counts */
	check_round_trip(b32, 300, 4);
	gmf_hist_choose(b32, 300, 4, NULL, &tag, &body, &nruns);
	assert_int_equal(tag, GMF_TAG_HIST);		/* 5-byte counts */
	/* Alternating: runs of one. */
	memset(b32, 0, sizeof(b32));
	for (int i = 1; i < 300; i += 2)
		b32[i] = i;
	check_round_trip(b32, 300, 4);
}

/* gmf_skip_zeros() from every start of @b, and of a copy one bucket in. */
static void check_skip(const void *b, uint64_t n, unsigned int bs)
{
	unsigned char *u = malloc(n * bs + bs);
	uint64_t want;

	assert_non_null(u);
	memcpy(u + bs, b, n * bs);
	for (uint64_t i = 0; i <= n; i++) {
		for (want = i; want < n && !ref_count(b, bs, want); want++)
			;
		assert_int_equal(gmf_skip_zeros(b, n, bs, i, NULL), want);
		assert_int_equal(gmf_skip_zeros(u + bs, n, bs, i, NULL), want);
	}
	free(u);
}

/*
 * The skip of pages never written (struct gmf_pages_in_use), with pages
 * of 64 bytes.  Pages marked unused hold garbage here, which a skip that
 * read them would find: the result must be that of a plain search over
 * a copy with those pages zeroed, for every start.  @shift moves the
 * buckets off the pages' alignment, so that buckets straddle pages; a
 * straddler is read as it is, so there the unused pages are zero.
 */
static void check_skip_unused(uint64_t n, unsigned int bs, unsigned int shift,
			      int permille)
{
	const uint64_t page = 64;
	unsigned char *mem = aligned_alloc(page, n * bs + 2 * page);
	unsigned char *b, *z = malloc(n * bs + 1);
	struct gmf_pages_in_use u;
	uint8_t used[64];
	void *h = random_hist(n, bs, permille);
	uint64_t i, want;

	assert_non_null(mem);
	assert_non_null(z);
	b = mem + shift;
	memcpy(b, h, n * bs);
	u = (struct gmf_pages_in_use){
		.first = (uintptr_t)mem, .page = page, .used = used,
		.npages = (shift + n * bs + page - 1) / page,
	};
	assert_true(u.npages <= sizeof(used));
	for (i = 0; i < u.npages; i++) {
		used[i] = rnd() % 3 != 0;
		if (!used[i])
			memset(mem + i * page, shift ? 0 : 0x5a, page);
	}
	/* The truth: the buckets as the process would read them. */
	memcpy(z, b, n * bs);
	for (i = 0; i < u.npages; i++)
		if (!used[i])
			for (uint64_t k = 0; k < page; k++) {
				uint64_t at = i * page + k;

				if (at >= shift && at - shift < n * bs)
					z[at - shift] = 0;
			}
	for (i = 0; i <= n; i++) {
		for (want = i; want < n && !ref_count(z, bs, want); want++)
			;
		assert_int_equal(gmf_skip_zeros(b, n, bs, i, &u), want);
	}
	free(h);
	free(z);
	free(mem);
}

static void pages_never_written_are_skipped_unread(void **state)
{
	(void)state;
	for (unsigned int bs = 2; bs <= 4; bs += 2)
		for (uint64_t n = 0; n < 400; n += 7)
			for (int round = 0; round < 10; round++) {
				check_skip_unused(n, bs, 0, 1000 / (1 + round));
				check_skip_unused(n, bs, bs == 4 ? 2 : 6,
						  1000 / (1 + round));
			}
}

/* The zero skip, 8 bytes at a time, against a bucket-by-bucket search. */
static void zero_skip_matches_a_plain_search(void **state)
{
	(void)state;
	for (unsigned int bs = 2; bs <= 4; bs += 2)
		for (uint64_t n = 0; n < 40; n++)
			for (int round = 0; round < 20; round++) {
				void *b = random_hist(n, bs, 1000 / (1 + round));

				check_skip(b, n, bs);
				free(b);
			}
}

/* A histogram far from its first bucket, by hand: gaps past 2^40. */
static void huge_offsets(void **state)
{
	uint64_t n = (1ull << 41) + 2, i, c;
	struct gmf_hist_head h = head(n, 4);
	struct gmf_hist_dec d;
	struct bytes o = { 0 };
	void *b;

	(void)state;
	ref_varint(&o, 2);
	ref_varint(&o, (1ull << 40) + 3);	/* gap */
	ref_varint(&o, 1);
	ref_varint(&o, 9);
	ref_varint(&o, (1ull << 40) - 4);	/* up to the last bucket */
	ref_varint(&o, 2);
	ref_varint(&o, 0xffffffffu);
	ref_varint(&o, 1);
	gmf_hist_dec_init(&d, GMF_TAG_HIST_SPARSE, &h, o.b, o.b + o.len,
			  false);
	assert_true(gmf_hist_dec_next(&d, &i, &c));
	assert_int_equal(i, (1ull << 40) + 3);
	assert_int_equal(c, 9);
	assert_true(gmf_hist_dec_next(&d, &i, &c));
	assert_int_equal(i, n - 2);
	assert_int_equal(c, 0xffffffffu);
	assert_true(gmf_hist_dec_next(&d, &i, &c));
	assert_int_equal(i, n - 1);
	assert_int_equal(c, 1);
	assert_false(gmf_hist_dec_next(&d, &i, &c));
	assert_false(d.failed);
	free(o.b);
	/* A run one bucket longer would end past the last bucket. */
	o = (struct bytes){ 0 };
	ref_varint(&o, 1);
	ref_varint(&o, n - 1);
	ref_varint(&o, 2);
	ref_varint(&o, 1);
	ref_varint(&o, 1);
	gmf_hist_dec_init(&d, GMF_TAG_HIST_SPARSE, &h, o.b, o.b + o.len,
			  false);
	assert_false(gmf_hist_dec_next(&d, &i, &c));
	assert_true(d.failed);
	assert_non_null(strstr(d.err, "ends past"));
	free(o.b);

	/* And the encoder over 4 Mi buckets, one count at the very end. */
	n = 4u << 20;
	b = calloc(n, 2);
	assert_non_null(b);
	((uint16_t *)b)[n - 1] = 3;
	check_round_trip(b, n, 2);
	free(b);
}

/* Every prefix of a valid body is refused, never read as a shorter one. */
static void truncated_bodies_are_refused(void **state)
{
	void *b = random_hist(500, 2, 100);
	struct bytes ref = ref_encode(b, 500, 2);
	uint64_t *back;
	char err[200];

	(void)state;
	for (size_t len = 0; len < ref.len; len++) {
		back = decode(GMF_TAG_HIST_SPARSE, 500, 2, ref.b, len, false,
			      err, sizeof(err));
		if (back)
			fail_msg("a body cut to %zu of %zu bytes was accepted",
				 len, ref.len);
	}
	/* Dense counts cut short. */
	back = decode(GMF_TAG_HIST, 500, 2, b, 999, false, err, sizeof(err));
	assert_null(back);
	assert_non_null(strstr(err, "run past"));
	free(ref.b);
	free(b);
}

/* Hand-made bodies breaking each rule, and the message each gets. */
static void corrupt_bodies_are_refused(void **state)
{
	static const struct {
		unsigned int size;
		uint64_t n;
		unsigned char body[16];
		size_t len;
		const char *says;
	} bad[] = {
		/* nruns 2; run 1 gap 0 len 1 count 1; run 2 gap 0 */
		{ 2, 10, { 2, 0, 1, 1, 0, 1, 1 }, 7, "touches" },
		{ 2, 10, { 1, 0, 0, 1 }, 4, "empty or ends past" },
		{ 2, 10, { 1, 9, 2, 1, 1 }, 5, "empty or ends past" },
		{ 2, 10, { 1, 10, 1, 1 }, 4, "empty or ends past" },
		{ 2, 10, { 1, 0, 1, 0 }, 4, "counts 0" },
		/* 0x10000 in a 16-bit bucket */
		{ 2, 10, { 1, 0, 1, 0x80, 0x80, 0x04 }, 6, "counts 65536" },
		/* eleven bytes of varint */
		{ 4, 10, { 1, 0, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			   0xff, 0xff, 0xff, 0x01 }, 14, "past 64 bits" },
		/* more runs than buckets */
		{ 2, 2, { 3, 0, 1, 1, 1, 1, 1, 1, 1, 1 }, 10, "more than" },
		{ 2, 10, { 1, 0, 1 }, 3, "more than" },
		{ 3, 10, { 0 }, 1, "3-byte buckets" },
	};
	char err[200];

	(void)state;
	for (size_t k = 0; k < sizeof(bad) / sizeof(*bad); k++) {
		uint64_t *back = decode(GMF_TAG_HIST_SPARSE, bad[k].n,
					bad[k].size, bad[k].body, bad[k].len,
					false, err, sizeof(err));

		if (back)
			fail_msg("corrupt body %zu accepted", k);
		if (!strstr(err, bad[k].says))
			fail_msg("corrupt body %zu: \"%s\" does not say \"%s\"",
				 k, err, bad[k].says);
	}
}

static void same_head(const struct gmf_hist_head *a,
		      const struct gmf_hist_head *b)
{
	assert_int_equal(a->module, b->module);
	assert_int_equal(a->bucket_size, b->bucket_size);
	assert_int_equal(a->scale, b->scale);
	assert_int_equal(a->period_ns, b->period_ns);
	assert_int_equal(a->low_pc, b->low_pc);
	assert_int_equal(a->high_pc, b->high_pc);
	assert_int_equal(a->nbuckets, b->nbuckets);
}

static void versions_and_byte_order(void **state)
{
	struct gmf_hist_head h = head(77, 4), back;
	unsigned char fixed[GMF_HIST_FIXED], swapped[GMF_HIST_FIXED];
	static const int fields[][2] = { { 0, 4 }, { 4, 4 }, { 8, 4 },
					 { 12, 4 }, { 16, 8 }, { 24, 8 },
					 { 32, 8 }, { 40, 8 } };
	uint32_t dense[3] = { 0, 0x01020304, 5 }, sw[3];
	uint64_t *out;
	char err[200];
	bool swap;

	(void)state;
	assert_int_equal(gmf_ext_revision(GMF_EXT_VERSION_1, &swap), 1);
	assert_false(swap);
	assert_int_equal(gmf_ext_revision(GMF_EXT_VERSION, &swap), 2);
	assert_false(swap);
	assert_int_equal(gmf_ext_revision(__builtin_bswap32(GMF_EXT_VERSION),
					  &swap), 2);
	assert_true(swap);
	assert_int_equal(gmf_ext_revision(0x01005053u, &swap), 1);
	assert_true(swap);
	/* Revision 3: a profile of another event than CPU time. */
	assert_int_equal(gmf_ext_revision(GMF_EXT_VERSION_3, &swap), 3);
	assert_int_equal(gmf_ext_revision(__builtin_bswap32(GMF_EXT_VERSION_3),
					  &swap), 3);
	assert_true(swap);
	assert_int_equal(gmf_ext_revision(0x53500004u, &swap), 0);
	assert_int_equal(gmf_ext_revision(0x53500000u, &swap), 0);
	assert_int_equal(gmf_ext_revision(GMF_GNU_VERSION, &swap), 0);

	h.module = GMF_NO_MODULE;
	h.low_pc = 0x123456789abcull;
	gmf_hist_head_put(fixed, &h);
	assert_true(gmf_hist_head_get(fixed, sizeof(fixed), false, &back));
	same_head(&back, &h);
	assert_false(gmf_hist_head_get(fixed, sizeof(fixed) - 1, false,
				       &back));
	/* The other byte order, field by field. */
	for (size_t f = 0; f < 8; f++)
		for (int k = 0; k < fields[f][1]; k++)
			swapped[fields[f][0] + k] =
				fixed[fields[f][0] + fields[f][1] - 1 - k];
	assert_true(gmf_hist_head_get(swapped, sizeof(swapped), true, &back));
	same_head(&back, &h);
	/* Dense counts of the other byte order; sparse ones have none. */
	for (int i = 0; i < 3; i++)
		sw[i] = __builtin_bswap32(dense[i]);
	out = decode(GMF_TAG_HIST, 3, 4, (unsigned char *)sw, sizeof(sw),
		     true, err, sizeof(err));
	assert_non_null(out);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[1], 0x01020304);
	assert_int_equal(out[2], 5);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(random_arrays_match_the_reference),
		cmocka_unit_test(edge_arrays),
		cmocka_unit_test(zero_skip_matches_a_plain_search),
		cmocka_unit_test(pages_never_written_are_skipped_unread),
		cmocka_unit_test(huge_offsets),
		cmocka_unit_test(truncated_bodies_are_refused),
		cmocka_unit_test(corrupt_bodies_are_refused),
		cmocka_unit_test(versions_and_byte_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
