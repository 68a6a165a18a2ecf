// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of include/sprofil/gmon_codec.h's records other than the
 * histograms' (test_gmon_codec.c has those): the header, the record
 * framing, module (tag 1), arcs (tag 3), callers (tag 4), threads
 * (tag 5) and process (tag 7).  Each encoder's bytes are compared with a reference laid out
 * here from docs/gmon-format.md's tables, offset by offset; each decoder
 * reads the reference back in both byte orders, ignores bytes appended
 * after the fields, and refuses every truncation and every count larger
 * than its record holds, with one message that then sticks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sprofil/gmon_codec.h>

/* ---- the reference: fields at the documented offsets ---- */

struct field {
	unsigned int off, size;
};

/* @v at @off in @n bytes, little-endian, one byte at a time. */
static void ref_put(unsigned char *b, unsigned int off, unsigned int n,
		    uint64_t v)
{
	for (unsigned int i = 0; i < n; i++)
		b[off + i] = (unsigned char)(v >> (8 * i));
}

/* @b with each of its @nf fields reversed: the big-endian file. */
static void ref_swap(unsigned char *b, const struct field *f, size_t nf)
{
	for (size_t k = 0; k < nf; k++)
		for (unsigned int i = 0; i < f[k].size / 2; i++) {
			unsigned char *x = b + f[k].off + i;
			unsigned char *y = b + f[k].off + f[k].size - 1 - i;
			unsigned char t = *x;

			*x = *y;
			*y = t;
		}
}

static struct gmf_cursor cursor(const unsigned char *b, size_t len,
				bool swap, char *err, size_t errlen)
{
	struct gmf_cursor c = { .p = b, .end = b + len, .swap = swap,
				.err = err, .errlen = errlen };

	err[0] = '\0';
	return c;
}

/* The cursor failed with a message holding @says, and stays failed. */
static void refused(struct gmf_cursor *c, const char *says)
{
	const unsigned char *out;

	assert_true(c->failed);
	if (!strstr(c->err, says))
		fail_msg("\"%s\" does not say \"%s\"", c->err, says);
	assert_false(gmf_take(c, 0, &out));
	assert_int_equal(gmf_get(c, 1), 0);
	assert_true(strstr(c->err, says) != NULL);
}

/* ---- header and framing ---- */

static void header_and_framing(void **state)
{
	unsigned char b[GMF_HEADER_SIZE], ref[GMF_HEADER_SIZE] = "gmon";
	unsigned char file[3 * GMF_EXT_RECORD_HEAD + 7] = { 0 };
	struct gmf_cursor c, body = { 0 };
	uint32_t tag;
	char err[160];
	bool swap;

	(void)state;
	ref_put(ref, 4, 4, GMF_EXT_VERSION);
	gmf_header_put(b, GMF_EXT_VERSION);
	assert_memory_equal(b, ref, sizeof(ref));
	assert_int_equal(gmf_ext_revision(gmf_load(b + 4, 4, false), &swap),
			 2);
	assert_false(swap);
	ref_swap(ref, (const struct field[]){ { 4, 4 } }, 1);
	assert_int_equal(gmf_ext_revision(gmf_load(ref + 4, 4, false), &swap),
			 2);
	assert_true(swap);

	/* Tag 9, 3 bytes; tag 1, 0 bytes; then a record past the end. */
	gmf_record_head_put(file, 9, 3);
	assert_int_equal(file[0], 9);
	assert_int_equal(file[4], 3);
	memcpy(file + GMF_EXT_RECORD_HEAD, "abc", 3);
	gmf_record_head_put(file + 15, GMF_TAG_MODULE, 0);
	gmf_record_head_put(file + 27, GMF_TAG_ARCS, 5);
	c = cursor(file, sizeof(file), false, err, sizeof(err));
	assert_true(gmf_record_next(&c, &tag, &body));
	assert_int_equal(tag, 9);
	assert_int_equal(gmf_left(&body), 3);
	assert_memory_equal(body.p, "abc", 3);
	assert_true(gmf_record_next(&c, &tag, &body));
	assert_int_equal(tag, GMF_TAG_MODULE);
	assert_int_equal(gmf_left(&body), 0);
	/* 4 bytes of body left, 5 announced. */
	assert_false(gmf_record_next(&c, &tag, &body));
	refused(&c, "unexpected end of file");
	/* A head cut short. */
	c = cursor(file, 10, false, err, sizeof(err));
	assert_false(gmf_record_next(&c, &tag, &body));
	refused(&c, "unexpected end of file");
	/* The end, exactly. */
	c = cursor(file, 15, false, err, sizeof(err));
	assert_true(gmf_record_next(&c, &tag, &body));
	assert_false(gmf_record_next(&c, &tag, &body));
	assert_false(c.failed);
}

/* ---- tag 1, module ---- */

static const struct field module_fields[] = {
	{ 0, 4 }, { 4, 4 }, { 8, 8 }, { 16, 4 }, { 20, 4 },
};

static void module_record(void **state)
{
	static const unsigned char id[] = { 0xde, 0xad, 0xbe, 0xef, 0x01 };
	static const char name[] = "/usr/lib/libm.so.6";
	const size_t nl = sizeof(name) - 1, len = 24 + nl + sizeof(id);
	const struct gmf_module m = {
		.index = 3, .flags = GMF_MODULE_MAIN,
		.bias = 0x7f0011223344ull,
		.name = (const unsigned char *)name, .name_len = nl,
		.build_id = id, .build_id_len = sizeof(id),
	};
	unsigned char ref[64] = { 0 }, enc[GMF_MODULE_FIXED];
	struct gmf_module back;
	struct gmf_cursor c;
	char err[160];

	(void)state;
	ref_put(ref, 0, 4, 3);
	ref_put(ref, 4, 4, 1);
	ref_put(ref, 8, 8, 0x7f0011223344ull);
	ref_put(ref, 16, 4, nl);
	ref_put(ref, 20, 4, sizeof(id));
	memcpy(ref + 24, name, nl);
	memcpy(ref + 24 + nl, id, sizeof(id));
	assert_int_equal(gmf_module_size(&m), len);
	gmf_module_put(enc, &m);
	assert_memory_equal(enc, ref, GMF_MODULE_FIXED);

	for (int big = 0; big < 2; big++) {
		/* Two bytes appended by a later revision: ignored. */
		c = cursor(ref, len + 2, big, err, sizeof(err));
		assert_true(gmf_module_get(&c, &back));
		assert_int_equal(back.index, 3);
		assert_int_equal(back.flags, GMF_MODULE_MAIN);
		assert_int_equal(back.bias, 0x7f0011223344ull);
		assert_int_equal(back.name_len, nl);
		assert_memory_equal(back.name, name, nl);
		assert_int_equal(back.build_id_len, sizeof(id));
		assert_memory_equal(back.build_id, id, sizeof(id));
		assert_ptr_equal(c.p, ref + len);
		for (size_t cut = 0; cut < len; cut++) {
			c = cursor(ref, cut, big, err, sizeof(err));
			assert_false(gmf_module_get(&c, &back));
			refused(&c, cut >= 4 ? "module record 3 is truncated" :
				"is truncated");
		}
		ref_swap(ref, module_fields, 5);
	}

	/* Lengths whose sum passes 2^32: held to the record, no wrap. */
	ref_put(ref, 16, 4, 0xffffffffu);
	ref_put(ref, 20, 4, 2);
	c = cursor(ref, sizeof(ref), false, err, sizeof(err));
	assert_false(gmf_module_get(&c, &back));
	refused(&c, "truncated");
}

/* ---- tag 3, arcs ---- */

static const struct field arc_fields[] = {
	{ 0, 4 }, { 4, 4 }, { 8, 8 }, { 16, 8 }, { 24, 8 },
};

static void arcs_record(void **state)
{
	const struct gmf_arc arcs[2] = {
		{ 0, 1, 0x1234, 0x5678, 1ull << 40 },
		{ GMF_NO_MODULE, 2, 0xffffffffffull, 0x10, 7 },
	};
	unsigned char ref[8 + 2 * 32 + 5] = { 0 }, enc[GMF_ARC_SIZE];
	struct gmf_arc back;
	struct gmf_cursor c;
	size_t len = 8 + 2 * 32;
	char err[160];

	(void)state;
	assert_int_equal(gmf_arcs_size(2), len);
	ref_put(ref, 0, 8, 2);
	for (int i = 0; i < 2; i++) {
		unsigned char *r = ref + 8 + 32 * i;

		ref_put(r, 0, 4, arcs[i].from_module);
		ref_put(r, 4, 4, arcs[i].self_module);
		ref_put(r, 8, 8, arcs[i].from);
		ref_put(r, 16, 8, arcs[i].self);
		ref_put(r, 24, 8, arcs[i].count);
		gmf_arc_put(enc, &arcs[i]);
		assert_memory_equal(enc, r, GMF_ARC_SIZE);
	}
	gmf_arcs_head_put(enc, 2);
	assert_memory_equal(enc, ref, GMF_ARCS_FIXED);

	for (int big = 0; big < 2; big++) {
		c = cursor(ref, sizeof(ref), big, err, sizeof(err));
		assert_int_equal(gmf_arcs_begin(&c), 2);
		for (int i = 0; i < 2; i++) {
			assert_true(gmf_arc_get(&c, &back));
			assert_memory_equal(&back, &arcs[i], sizeof(back));
		}
		assert_false(c.failed);
		/* Every cut: the count announces more than is there. */
		for (size_t cut = 0; cut < len; cut++) {
			c = cursor(ref, cut, big, err, sizeof(err));
			assert_int_equal(gmf_arcs_begin(&c), 0);
			refused(&c, cut < 8 ? "unexpected end of file" :
				"arc record announces 2 arcs but holds fewer");
		}
		ref_swap(ref, (const struct field[]){ { 0, 8 } }, 1);
		for (int i = 0; i < 2; i++)
			for (size_t k = 0; k < 5; k++)
				ref_swap(ref + 8 + 32 * i, &arc_fields[k], 1);
	}
	/* A count whose bytes would overflow a size. */
	ref_put(ref, 0, 8, UINT64_MAX / 16);
	c = cursor(ref, sizeof(ref), false, err, sizeof(err));
	assert_int_equal(gmf_arcs_begin(&c), 0);
	refused(&c, "holds fewer");
}

/* ---- tag 4, callers ---- */

static void callers_record(void **state)
{
	const struct gmf_callers_head h = {
		.nnodes = 3, .depth = 64, .samples = 1000001,
		.truncated = 5, .lost = 1ull << 33, .busy = 2,
		.period_ns = 1000000,
	};
	const struct gmf_caller_node nodes[3] = {
		{ GMF_CALLER_TOP, 0, 0x401000, 0 },
		{ 0, 1, 0x7f00deadbeefull, 999996 },
		{ GMF_CALLER_TOP, GMF_NO_MODULE, 0xfffffffffffffffeull, 5 },
	};
	static const struct field head_fields[] = {
		{ 0, 8 }, { 8, 4 }, { 12, 4 }, { 16, 8 }, { 24, 8 },
		{ 32, 8 }, { 40, 8 }, { 48, 8 },
	};
	static const struct field node_fields[] = {
		{ 0, 4 }, { 4, 4 }, { 8, 8 }, { 16, 8 },
	};
	const size_t len = 56 + 3 * 24;
	unsigned char ref[56 + 3 * 24 + 3] = { 0 }, enc[GMF_CALLERS_FIXED];
	struct gmf_callers_head hb;
	struct gmf_caller_node nb;
	struct gmf_cursor c;
	char err[160];

	(void)state;
	assert_int_equal(gmf_callers_size(3), len);
	ref_put(ref, 0, 8, 3);
	ref_put(ref, 8, 4, 64);
	ref_put(ref, 16, 8, 1000001);
	ref_put(ref, 24, 8, 5);
	ref_put(ref, 32, 8, 1ull << 33);
	ref_put(ref, 40, 8, 2);
	ref_put(ref, 48, 8, 1000000);
	gmf_callers_head_put(enc, &h);
	assert_memory_equal(enc, ref, GMF_CALLERS_FIXED);
	for (int i = 0; i < 3; i++) {
		unsigned char *r = ref + 56 + 24 * i;

		ref_put(r, 0, 4, nodes[i].parent);
		ref_put(r, 4, 4, nodes[i].module);
		ref_put(r, 8, 8, nodes[i].pc);
		ref_put(r, 16, 8, nodes[i].count);
		gmf_caller_node_put(enc, &nodes[i]);
		assert_memory_equal(enc, r, GMF_CALLER_NODE_SIZE);
	}

	for (int big = 0; big < 2; big++) {
		c = cursor(ref, sizeof(ref), big, err, sizeof(err));
		assert_true(gmf_callers_head_get(&c, &hb));
		assert_int_equal(hb.nnodes, h.nnodes);
		assert_int_equal(hb.depth, h.depth);
		assert_int_equal(hb.samples, h.samples);
		assert_int_equal(hb.truncated, h.truncated);
		assert_int_equal(hb.lost, h.lost);
		assert_int_equal(hb.busy, h.busy);
		assert_int_equal(hb.period_ns, h.period_ns);
		for (int i = 0; i < 3; i++) {
			assert_true(gmf_caller_node_get(&c, &nb));
			assert_memory_equal(&nb, &nodes[i], sizeof(nb));
		}
		assert_int_equal(gmf_left(&c), 3);
		for (size_t cut = 0; cut < len; cut++) {
			c = cursor(ref, cut, big, err, sizeof(err));
			assert_false(gmf_callers_head_get(&c, &hb));
			refused(&c, cut < 56 ?
				"callers record shorter than its 56-byte fixed part" :
				"callers record announces 3 nodes but holds fewer");
		}
		ref_swap(ref, head_fields, 8);
		for (int i = 0; i < 3; i++)
			ref_swap(ref + 56 + 24 * i, node_fields, 4);
	}
	ref_put(ref, 0, 8, UINT64_MAX);
	c = cursor(ref, sizeof(ref), false, err, sizeof(err));
	assert_false(gmf_callers_head_get(&c, &hb));
	refused(&c, "holds fewer");
}

/* ---- tag 5, threads ---- */

static void threads_record(void **state)
{
	struct gmf_thread t[2] = {
		{ .tid = 4242, .flags = GMF_THREAD_CPU, .cpu_ns = 123456789 },
		{ .tid = 7, .flags = GMF_THREAD_EXITED | GMF_THREAD_CPU,
		  .cpu_ns = 1ull << 50 },
	};
	static const struct field thread_fields[] = {
		{ 0, 4 }, { 4, 4 }, { 8, 8 },
	};
	const size_t len = 8 + 2 * 32;
	unsigned char ref[8 + 2 * 32 + 1] = { 0 }, enc[GMF_THREAD_SIZE];
	struct gmf_thread back;
	struct gmf_cursor c;
	char err[160];

	(void)state;
	memcpy(t[0].name, "worker", 6);
	memcpy(t[1].name, "fifteen-bytes!!", 15);
	assert_int_equal(gmf_threads_size(2), len);
	ref_put(ref, 0, 8, 2);
	gmf_threads_head_put(enc, 2);
	assert_memory_equal(enc, ref, GMF_THREADS_FIXED);
	for (int i = 0; i < 2; i++) {
		unsigned char *r = ref + 8 + 32 * i;

		ref_put(r, 0, 4, t[i].tid);
		ref_put(r, 4, 4, t[i].flags);
		ref_put(r, 8, 8, t[i].cpu_ns);
		memcpy(r + 16, t[i].name, 16);
		gmf_thread_put(enc, &t[i]);
		assert_memory_equal(enc, r, GMF_THREAD_SIZE);
	}

	for (int big = 0; big < 2; big++) {
		c = cursor(ref, sizeof(ref), big, err, sizeof(err));
		assert_int_equal(gmf_threads_begin(&c), 2);
		for (int i = 0; i < 2; i++) {
			assert_true(gmf_thread_get(&c, &back));
			assert_memory_equal(&back, &t[i], sizeof(back));
		}
		for (size_t cut = 0; cut < len; cut++) {
			c = cursor(ref, cut, big, err, sizeof(err));
			assert_int_equal(gmf_threads_begin(&c), 0);
			refused(&c, cut < 8 ? "unexpected end of file" :
				"threads record announces 2 threads but holds fewer");
		}
		ref_swap(ref, (const struct field[]){ { 0, 8 } }, 1);
		for (int i = 0; i < 2; i++)
			ref_swap(ref + 8 + 32 * i, thread_fields, 3);
	}
	ref_put(ref, 0, 8, UINT64_MAX / 8);
	c = cursor(ref, sizeof(ref), false, err, sizeof(err));
	assert_int_equal(gmf_threads_begin(&c), 0);
	refused(&c, "holds fewer");
}

/* ---- tag 7, process ---- */

static void process_record(void **state)
{
	struct gmf_process p = {
		.pid = 31337, .ppid = 4242,
		.flags = GMF_PROCESS_CPU | GMF_PROCESS_START,
		.cpu_ns = 987654321, .start_ns = 1765000000123456789ull,
	};
	static const struct field fields[] = {
		{ 0, 4 }, { 4, 4 }, { 8, 4 }, { 12, 4 }, { 16, 8 }, { 24, 8 },
	};
	unsigned char ref[GMF_PROCESS_SIZE + 5] = { 0 }, enc[GMF_PROCESS_SIZE];
	struct gmf_process back;
	struct gmf_cursor c;
	char err[160];

	(void)state;
	memcpy(p.comm, "cc1", 3);
	ref_put(ref, 0, 4, p.pid);
	ref_put(ref, 4, 4, p.ppid);
	ref_put(ref, 8, 4, p.flags);
	ref_put(ref, 16, 8, p.cpu_ns);
	ref_put(ref, 24, 8, p.start_ns);
	memcpy(ref + 32, "cc1", 3);
	/* A later revision's field after the documented ones. */
	memcpy(ref + GMF_PROCESS_SIZE, "later", 5);
	gmf_process_put(enc, &p);
	assert_memory_equal(enc, ref, GMF_PROCESS_SIZE);

	for (int big = 0; big < 2; big++) {
		c = cursor(ref, sizeof(ref), big, err, sizeof(err));
		assert_true(gmf_process_get(&c, &back));
		assert_int_equal(back.pid, p.pid);
		assert_int_equal(back.ppid, p.ppid);
		assert_int_equal(back.flags, p.flags);
		assert_int_equal(back.cpu_ns, p.cpu_ns);
		assert_int_equal(back.start_ns, p.start_ns);
		assert_memory_equal(back.comm, p.comm, GMF_PROCESS_COMM);
		assert_ptr_equal(c.p, c.end);
		for (size_t cut = 0; cut < GMF_PROCESS_SIZE; cut++) {
			c = cursor(ref, cut, big, err, sizeof(err));
			assert_false(gmf_process_get(&c, &back));
			refused(&c, "process record shorter than its 48 bytes");
		}
		ref_swap(ref, fields, 6);
	}
}

/* Tag 8, the event of the samples: its 32 bytes, refusals. */
static void event_record(void **state)
{
	const struct gmf_event e = { .type = 3, .period = 1000003,
				     .name = "major-faults" };
	static const struct field fields[] = {
		{ 0, 4 }, { 4, 4 }, { 8, 8 },
	};
	unsigned char ref[GMF_EVENT_SIZE + 5] = { 0 }, enc[GMF_EVENT_SIZE];
	struct gmf_event back;
	struct gmf_cursor c;
	char err[160];

	(void)state;
	ref_put(ref, 0, 4, e.type);
	ref_put(ref, 8, 8, e.period);
	memcpy(ref + 16, "major-faults", 12);
	memcpy(ref + GMF_EVENT_SIZE, "later", 5);
	gmf_event_put(enc, &e);
	assert_memory_equal(enc, ref, GMF_EVENT_SIZE);

	for (int big = 0; big < 2; big++) {
		c = cursor(ref, sizeof(ref), big, err, sizeof(err));
		assert_true(gmf_event_get(&c, &back));
		assert_int_equal(back.type, e.type);
		assert_int_equal(back.period, e.period);
		assert_string_equal(back.name, "major-faults");
		assert_ptr_equal(c.p, c.end);
		for (size_t cut = 0; cut < GMF_EVENT_SIZE; cut++) {
			c = cursor(ref, cut, big, err, sizeof(err));
			assert_false(gmf_event_get(&c, &back));
			refused(&c, "event record shorter than its 32 bytes");
		}
		ref_swap(ref, fields, 3);
	}
	/* No period: no count to give the samples. */
	memset(ref + 8, 0, 8);
	c = cursor(ref, sizeof(ref), 0, err, sizeof(err));
	assert_false(gmf_event_get(&c, &back));
	refused(&c, "event record of major-faults with no period");
	/* A name of all 16 bytes still ends. */
	memset(ref + 16, 'x', 16);
	ref_put(ref, 8, 8, 1);
	c = cursor(ref, sizeof(ref), 0, err, sizeof(err));
	assert_true(gmf_event_get(&c, &back));
	assert_int_equal(strlen(back.name), 16);
}

/* A whole file through the framing: every record back as written. */
static void file_round_trip(void **state)
{
	unsigned char f[512], *p = f;
	const struct gmf_module m = {
		.index = 0, .name = (const unsigned char *)"a.out",
		.name_len = 5,
	};
	const struct gmf_arc a = { 0, 0, 0x10, 0x20, 3 };
	struct gmf_cursor c, b = { 0 };
	struct gmf_module mb;
	struct gmf_arc ab;
	uint32_t tag;
	char err[160];
	int n = 0;

	(void)state;
	gmf_header_put(p, GMF_EXT_VERSION);
	p += GMF_HEADER_SIZE;
	gmf_record_head_put(p, GMF_TAG_MODULE, gmf_module_size(&m));
	gmf_module_put(p + GMF_EXT_RECORD_HEAD, &m);
	memcpy(p + GMF_EXT_RECORD_HEAD + GMF_MODULE_FIXED, "a.out", 5);
	p += GMF_EXT_RECORD_HEAD + gmf_module_size(&m);
	gmf_record_head_put(p, GMF_TAG_ARCS, gmf_arcs_size(1));
	gmf_arcs_head_put(p + GMF_EXT_RECORD_HEAD, 1);
	gmf_arc_put(p + GMF_EXT_RECORD_HEAD + GMF_ARCS_FIXED, &a);
	p += GMF_EXT_RECORD_HEAD + gmf_arcs_size(1);

	c = cursor(f + GMF_HEADER_SIZE, p - f - GMF_HEADER_SIZE,
		   GMF_HOST_SWAP, err, sizeof(err));
	while (gmf_record_next(&c, &tag, &b)) {
		if (n++ == 0) {
			assert_int_equal(tag, GMF_TAG_MODULE);
			assert_true(gmf_module_get(&b, &mb));
			assert_memory_equal(mb.name, "a.out", 5);
		} else {
			assert_int_equal(tag, GMF_TAG_ARCS);
			assert_int_equal(gmf_arcs_begin(&b), 1);
			assert_true(gmf_arc_get(&b, &ab));
			assert_memory_equal(&ab, &a, sizeof(ab));
		}
		assert_ptr_equal(b.p, b.end);
	}
	assert_false(c.failed);
	assert_int_equal(n, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(header_and_framing),
		cmocka_unit_test(module_record),
		cmocka_unit_test(arcs_record),
		cmocka_unit_test(callers_record),
		cmocka_unit_test(threads_record),
		cmocka_unit_test(process_record),
		cmocka_unit_test(event_record),
		cmocka_unit_test(file_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
