/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The encoding and decoding of the sprofil extension's records
 * (docs/gmon-format.md), written once for every writer and reader: the
 * library's dumps (libsprofil/pg/gmon_write.c), the analyzer's reader and
 * writer (gprof/gmon_read.c, gmon_write.c), gmon-dump and the tests.
 * gmon_format.h holds the constants; this header the code over them.
 * It covers the header, the record framing and every record: module
 * (tag 1), histogram, dense (tag 2) and sparse (tag 6), arcs (tag 3),
 * callers (tag 4) and threads (tag 5).  The GNU format's records stay
 * with their two writers and one reader, as glibc lays them out.
 *
 * Rules, so that every user reads and writes the same bytes:
 *  - Pure code over byte buffers: no allocation, no I/O.
 *  - Every integer is stored and loaded byte by byte, never through a
 *    struct or a cast: little-endian, or big-endian with swap.  Writers
 *    write their host's order (GMF_HOST_SWAP); readers take either.
 *  - An encoder writes a record's fixed part, or one element of it, into
 *    an array of exactly the format's size; a writer puts the record
 *    head (gmf_record_head_put) with the body size its *_size() gives.
 *  - A decoder reads through a struct gmf_cursor: every read is checked
 *    against the end of the record, the first problem sticks as one
 *    line in the caller's buffer and every later read fails, so a reader
 *    checks once per record.  A count a record announces is checked
 *    against the bytes it holds before anything is read or allocated.
 *    Bytes of a known record past the fields decoded are ignored (fields
 *    are only ever appended).
 *  - Only the format is checked here; what the numbers mean to a reader
 *    (a module index defined, a depth in range) is the reader's.
 * A histogram writer asks for the encoded bytes a chunk at a time, so it
 * streams a histogram of any size through a small buffer; a reader gets
 * the nonzero buckets one at a time.
 */
#ifndef SPROFIL_GMON_CODEC_H
#define SPROFIL_GMON_CODEC_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sprofil/gmon_format.h>

/*
 * The revision of the extension a header's version field names (1 to 3,
 * the ones this code reads); 0 when the version is not one of them.
 * @version is the field loaded little-endian (gmf_load(b, 4, false)),
 * so *swap is set when the file is big-endian: a cursor's swap.
 */
static inline unsigned int gmf_ext_revision(uint32_t version, bool *swap)
{
	uint32_t v = version;

	*swap = false;
	if (v >> 16 != GMF_EXT_MAJOR) {
		v = __builtin_bswap32(v);
		if (v >> 16 != GMF_EXT_MAJOR)
			return 0;
		*swap = true;
	}
	v &= 0xffff;
	return v >= 1 && v <= (GMF_EXT_VERSION_3 & 0xffff) ? v : 0;
}

/*
 * An @n-byte unsigned integer at @b: little-endian, the order of the
 * x86-64 hosts that write these files in their own order, or the other
 * order with @swap.
 */
static inline uint64_t gmf_load(const unsigned char *b, unsigned int n,
				bool swap)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		v = v << 8 | b[swap ? i : n - 1 - i];
	return v;
}

/* Writers write their host's byte order: swap for a big-endian one. */
#define GMF_HOST_SWAP	(__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)

/* @v as @n bytes at @b, little-endian, or big-endian with @swap. */
static inline void gmf_store(unsigned char *b, unsigned int n, uint64_t v,
			     bool swap)
{
	unsigned int i;

	for (i = 0; i < n; i++, v >>= 8)
		b[swap ? n - 1 - i : i] = (unsigned char)v;
}

/* The 20-byte header of either format: cookie, version, zeros. */
static inline void gmf_header_put(unsigned char out[GMF_HEADER_SIZE],
				  uint32_t version)
{
	memset(out, 0, GMF_HEADER_SIZE);
	memcpy(out, GMF_COOKIE, 4);
	gmf_store(out + 4, 4, version, GMF_HOST_SWAP);
}

/* ---- the cursor the decoders read through ---- */

struct gmf_cursor {
	const unsigned char *p, *end;
	bool swap;		/* the file's order is big-endian */
	bool failed;
	char *err;		/* the first problem, one line */
	size_t errlen;
};

static inline void gmf_fail(struct gmf_cursor *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline void gmf_fail(struct gmf_cursor *c, const char *fmt, ...)
{
	va_list ap;

	if (c->failed)
		return;
	c->failed = true;
	if (!c->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(c->err, c->errlen, fmt, ap);
	va_end(ap);
}

/* The bytes left before the end. */
static inline uint64_t gmf_left(const struct gmf_cursor *c)
{
	return (uint64_t)(c->end - c->p);
}

/* The next @n bytes in *out; false (failed) when fewer are left. */
static inline bool gmf_take(struct gmf_cursor *c, uint64_t n,
			    const unsigned char **out)
{
	if (c->failed)
		return false;
	if (gmf_left(c) < n) {
		gmf_fail(c, "unexpected end of file");
		return false;
	}
	*out = c->p;
	c->p += n;
	return true;
}

/* The next @n-byte unsigned integer (0 after a failure). */
static inline uint64_t gmf_get(struct gmf_cursor *c, unsigned int n)
{
	const unsigned char *b;

	return gmf_take(c, n, &b) ? gmf_load(b, n, c->swap) : 0;
}

/* ---- records: u32 tag, u64 body size, the body ---- */

static inline void gmf_record_head_put(unsigned char out[GMF_EXT_RECORD_HEAD],
				       uint32_t tag, uint64_t size)
{
	gmf_store(out, 4, tag, GMF_HOST_SWAP);
	gmf_store(out + 4, 8, size, GMF_HOST_SWAP);
}

/*
 * The next record at @c: its tag, and a cursor @body over its body that
 * shares @c's message buffer.  False at the end, or when the record runs
 * past the end (@c failed then).
 */
static inline bool gmf_record_next(struct gmf_cursor *c, uint32_t *tag,
				   struct gmf_cursor *body)
{
	const unsigned char *b;
	uint64_t size;

	if (c->failed || c->p >= c->end)
		return false;
	*tag = gmf_get(c, 4);
	size = gmf_get(c, 8);
	if (!gmf_take(c, size, &b))
		return false;
	*body = *c;
	body->p = b;
	body->end = b + size;
	return true;
}

/* ---- varints: unsigned LEB128, 7 bits a byte, low bits first ---- */

#define GMF_VARINT_MAX	10	/* bytes of the largest u64 */

static inline size_t gmf_varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static inline size_t gmf_varint_put(unsigned char *out, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (unsigned char)v;
	return n;
}

/* ---- histogram records: the fixed part tags 2 and 6 share ---- */

struct gmf_hist_head {
	uint32_t module;	/* a module record's index, or GMF_NO_MODULE */
	uint32_t bucket_size;	/* 2 or 4 */
	uint32_t scale;		/* the profil scale */
	uint64_t period_ns;	/* the true sampling period */
	uint64_t low_pc, high_pc;	/* link-time */
	uint64_t nbuckets;
};

/* The fixed part in the writing host's byte order. */
static inline void gmf_hist_head_put(unsigned char out[GMF_HIST_FIXED],
				     const struct gmf_hist_head *h)
{
	const bool s = GMF_HOST_SWAP;

	gmf_store(out, 4, h->module, s);
	gmf_store(out + 4, 4, h->bucket_size, s);
	gmf_store(out + 8, 4, h->scale, s);
	gmf_store(out + 12, 4, 0, s);	/* reserved */
	gmf_store(out + 16, 8, h->period_ns, s);
	gmf_store(out + 24, 8, h->low_pc, s);
	gmf_store(out + 32, 8, h->high_pc, s);
	gmf_store(out + 40, 8, h->nbuckets, s);
}

/* The fixed part of a record body of @len bytes; false if it is shorter. */
static inline bool gmf_hist_head_get(const unsigned char *b, size_t len,
				     bool swap, struct gmf_hist_head *h)
{
	if (len < GMF_HIST_FIXED)
		return false;
	h->module = gmf_load(b, 4, swap);
	h->bucket_size = gmf_load(b + 4, 4, swap);
	h->scale = gmf_load(b + 8, 4, swap);
	h->period_ns = gmf_load(b + 16, 8, swap);
	h->low_pc = gmf_load(b + 24, 8, swap);
	h->high_pc = gmf_load(b + 32, 8, swap);
	h->nbuckets = gmf_load(b + 40, 8, swap);
	return true;
}

/* Bucket @i of host-order counts of @size bytes (2 or 4). */
static inline uint64_t gmf_bucket(const void *buckets, unsigned int size,
				  uint64_t i)
{
	uint32_t v32;
	uint16_t v16;

	if (size == 4) {
		memcpy(&v32, (const unsigned char *)buckets + i * 4, 4);
		return v32;
	}
	memcpy(&v16, (const unsigned char *)buckets + i * 2, 2);
	return v16;
}

/*
 * What a writer may know of its buckets' memory: which pages were never
 * written, and so read as zero without being read.  A process's buckets
 * are mostly such pages, and reading one faults the zero page in (the
 * library's dumps fill it from /proc/self/pagemap).  NULL, or @used
 * NULL: every page is read.
 */
struct gmf_pages_in_use {
	uintptr_t first;	/* address of the first page */
	uint64_t npages;
	uint64_t page;		/* bytes, a power of two */
	const uint8_t *used;	/* per page: 0 never written */
};

/* From bucket @i, the first one not inside a page never written. */
static inline uint64_t gmf_skip_unused(const void *buckets, uint64_t n,
				       unsigned int size, uint64_t i,
				       const struct gmf_pages_in_use *u)
{
	const uintptr_t base = (uintptr_t)buckets;
	uintptr_t a, next;
	uint64_t pg, j;

	while (u && u->used && i < n) {
		a = base + i * size;
		if (a < u->first)
			break;
		pg = (a - u->first) / u->page;
		if (pg >= u->npages || u->used[pg])
			break;
		next = u->first + (pg + 1) * u->page;
		j = (next - base) / size;
		/* A bucket across the page's end is read as it is. */
		if (j <= i)
			break;
		i = j;
	}
	return i < n ? i : n;
}

/*
 * The first nonzero bucket from @i on, or @n: 8 bytes at a time through
 * the zero stretches, which are most of a histogram, and a page at a
 * time through the pages @u says were never written.
 */
static inline uint64_t gmf_skip_zeros(const void *buckets, uint64_t n,
				      unsigned int size, uint64_t i,
				      const struct gmf_pages_in_use *u)
{
	const uint64_t per = 8 / size;
	uint64_t word;

	for (;;) {
		i = gmf_skip_unused(buckets, n, size, i, u);
		while (i < n && i % per && !gmf_bucket(buckets, size, i))
			i++;
		while (i + per <= n) {
			/* At each page's start: the page may be skipped. */
			if (u && u->used &&
			    (((uintptr_t)buckets + i * size) & (u->page - 1)) < 8) {
				uint64_t j = gmf_skip_unused(buckets, n, size,
							     i, u);

				if (j != i) {
					i = j;
					continue;
				}
			}
			memcpy(&word, (const unsigned char *)buckets + i * size,
			       8);
			if (word)
				break;
			i += per;
		}
		/* The last buckets, too few for a word: one at a time. */
		i = gmf_skip_unused(buckets, n, size, i, u);
		if (i >= n || gmf_bucket(buckets, size, i))
			return i < n ? i : n;
		i++;
	}
}

/*
 * How a histogram of @n host-order buckets of @size bytes is best
 * written: *tag GMF_TAG_HIST_SPARSE or, when the dense counts are no
 * larger, GMF_TAG_HIST; *body the bytes after the fixed part; *nruns
 * its runs of nonzero buckets, for gmf_hist_enc_init().  Reads the
 * buckets and writes nothing, so buckets never touched stay
 * uncommitted.
 */
static inline void gmf_hist_choose(const void *buckets, uint64_t n,
				   unsigned int size,
				   const struct gmf_pages_in_use *u,
				   uint32_t *tag, uint64_t *body,
				   uint64_t *nruns)
{
	uint64_t i = 0, bytes = 0, start, end = 0, c;

	*nruns = 0;
	while ((i = gmf_skip_zeros(buckets, n, size, i, u)) < n) {
		start = i;
		++*nruns;
		bytes += gmf_varint_len(start - end);
		while (i < n && (c = gmf_bucket(buckets, size, i))) {
			bytes += gmf_varint_len(c);
			i++;
		}
		bytes += gmf_varint_len(i - start);
		end = i;
	}
	bytes += gmf_varint_len(*nruns);
	*tag = bytes < n * size ? GMF_TAG_HIST_SPARSE : GMF_TAG_HIST;
	*body = *tag == GMF_TAG_HIST ? n * size : bytes;
}

/*
 * The encoder of a sparse histogram's body after the fixed part:
 * nruns, then each run of nonzero buckets as its gap (the zero buckets
 * since the previous run's end, or since bucket 0), its length and its
 * counts, every number a varint.
 */
struct gmf_hist_enc {
	const void *buckets;
	uint64_t nbuckets;
	unsigned int size;	/* 2 or 4 */
	uint64_t nruns;		/* gmf_hist_choose()'s */
	const struct gmf_pages_in_use *pages;	/* gmf_hist_choose()'s */
	uint64_t pos;		/* the next bucket to encode or look at */
	uint64_t run_end;	/* the end of the run being encoded */
	uint64_t prev_end;	/* the end of the run before it */
	bool started;		/* nruns is out */
};

static inline void gmf_hist_enc_init(struct gmf_hist_enc *e,
				     const void *buckets, uint64_t n,
				     unsigned int size,
				     const struct gmf_pages_in_use *u,
				     uint64_t nruns)
{
	memset(e, 0, sizeof(*e));
	e->buckets = buckets;
	e->nbuckets = n;
	e->size = size;
	e->pages = u;
	e->nruns = nruns;
}

#define GMF_HIST_ENC_MIN	(3 * GMF_VARINT_MAX)	/* room per call */

/*
 * The next bytes of the encoding into @out (@room >= GMF_HIST_ENC_MIN);
 * returns how many, 0 when it is all out.  The buckets must not change
 * between gmf_hist_choose() and the last call.
 */
static inline size_t gmf_hist_enc_fill(struct gmf_hist_enc *e,
				       unsigned char *out, size_t room)
{
	size_t used = 0;

	while (room - used >= GMF_HIST_ENC_MIN) {
		if (!e->started) {
			used += gmf_varint_put(out + used, e->nruns);
			e->started = true;
		} else if (e->pos < e->run_end) {
			used += gmf_varint_put(out + used,
					       gmf_bucket(e->buckets, e->size,
							  e->pos++));
		} else {
			e->pos = gmf_skip_zeros(e->buckets, e->nbuckets,
						e->size, e->pos, e->pages);
			if (e->pos == e->nbuckets)
				break;
			e->run_end = e->pos;
			while (e->run_end < e->nbuckets &&
			       gmf_bucket(e->buckets, e->size, e->run_end))
				e->run_end++;
			used += gmf_varint_put(out + used,
					       e->pos - e->prev_end);
			used += gmf_varint_put(out + used,
					       e->run_end - e->pos);
			e->prev_end = e->run_end;
		}
	}
	return used;
}

/*
 * The decoder of a histogram record's counts, dense or sparse: it hands
 * out the nonzero buckets in increasing order.  A sparse body is held to
 * its one encoding: no empty run, no run touching the one before, no
 * zero count, none above the bucket width, nothing past nbuckets.
 */
struct gmf_hist_dec {
	const unsigned char *p, *end;
	bool sparse, swap, failed;
	unsigned int size;
	uint64_t nbuckets;
	uint64_t next;		/* after the last bucket handed out */
	uint64_t runs_left, run_left, run;
	char err[160];
};

static inline void gmf_hist_dec_fail(struct gmf_hist_dec *d,
				     const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline void gmf_hist_dec_fail(struct gmf_hist_dec *d,
				     const char *fmt, ...)
{
	va_list ap;

	if (d->failed)
		return;
	d->failed = true;
	va_start(ap, fmt);
	vsnprintf(d->err, sizeof(d->err), fmt, ap);
	va_end(ap);
}

static inline uint64_t gmf_hist_dec_varint(struct gmf_hist_dec *d,
					   const char *what)
{
	uint64_t v = 0;
	unsigned int shift = 0;
	unsigned char b;

	for (;;) {
		if (d->failed)
			return 0;
		if (d->p == d->end) {
			gmf_hist_dec_fail(d, "sparse histogram ends inside %s (run %llu)",
					  what, (unsigned long long)d->run);
			return 0;
		}
		b = *d->p++;
		if (shift == 63 && (b & 0xfe)) {
			gmf_hist_dec_fail(d, "sparse histogram: %s of run %llu is past 64 bits",
					  what, (unsigned long long)d->run);
			return 0;
		}
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
		shift += 7;
	}
}

/*
 * Starts decoding the body after the fixed part @h of a record of @tag
 * (GMF_TAG_HIST or GMF_TAG_HIST_SPARSE), [@body, @end).
 */
static inline void gmf_hist_dec_init(struct gmf_hist_dec *d, uint32_t tag,
				     const struct gmf_hist_head *h,
				     const unsigned char *body,
				     const unsigned char *end, bool swap)
{
	memset(d, 0, sizeof(*d));
	d->p = body;
	d->end = end;
	d->swap = swap;
	d->size = h->bucket_size;
	d->nbuckets = h->nbuckets;
	d->sparse = tag == GMF_TAG_HIST_SPARSE;
	if (d->size != 2 && d->size != 4) {
		gmf_hist_dec_fail(d, "histogram with %u-byte buckets (2 or 4 expected)",
				  d->size);
	} else if (!d->sparse &&
		   d->nbuckets > (uint64_t)(end - body) / d->size) {
		gmf_hist_dec_fail(d, "the counts of %llu buckets run past the histogram record",
				  (unsigned long long)d->nbuckets);
	} else if (d->sparse) {
		d->runs_left = gmf_hist_dec_varint(d, "the number of runs");
		/* Every run holds a bucket and takes 3 bytes at least. */
		if (!d->failed && (d->runs_left > d->nbuckets ||
				   d->runs_left > (uint64_t)(end - d->p) / 3))
			gmf_hist_dec_fail(d, "sparse histogram of %llu runs, more than its %llu buckets or its bytes hold",
					  (unsigned long long)d->runs_left,
					  (unsigned long long)d->nbuckets);
	}
}

/*
 * The next nonzero bucket: its index and count.  False at the end, and
 * on a problem (d->failed, d->err says it).
 */
static inline bool gmf_hist_dec_next(struct gmf_hist_dec *d, uint64_t *index,
				     uint64_t *count)
{
	uint64_t gap, len, c, max = d->size == 4 ? 0xffffffffu : 0xffffu;

	if (d->failed)
		return false;
	if (!d->sparse) {
		for (; d->next < d->nbuckets; d->next++) {
			c = gmf_load(d->p + d->next * d->size, d->size,
				     d->swap);
			if (c) {
				*index = d->next++;
				*count = c;
				return true;
			}
		}
		return false;
	}
	if (!d->run_left) {
		if (!d->runs_left)
			return false;
		d->run++;
		gap = gmf_hist_dec_varint(d, "a gap");
		len = gmf_hist_dec_varint(d, "a run length");
		if (d->failed)
			return false;
		if (d->run > 1 && !gap) {
			gmf_hist_dec_fail(d, "sparse histogram: run %llu touches the run before it",
					  (unsigned long long)d->run);
			return false;
		}
		if (!len || gap > d->nbuckets - d->next ||
		    len > d->nbuckets - d->next - gap) {
			gmf_hist_dec_fail(d, "sparse histogram: run %llu (%llu buckets after a gap of %llu) is empty or ends past the %llu buckets",
					  (unsigned long long)d->run,
					  (unsigned long long)len,
					  (unsigned long long)gap,
					  (unsigned long long)d->nbuckets);
			return false;
		}
		d->next += gap;
		d->run_left = len;
		d->runs_left--;
	}
	c = gmf_hist_dec_varint(d, "a count");
	if (d->failed)
		return false;
	if (!c || c > max) {
		gmf_hist_dec_fail(d, "sparse histogram: bucket %llu counts %llu (1 to %llu expected)",
				  (unsigned long long)d->next,
				  (unsigned long long)c,
				  (unsigned long long)max);
		return false;
	}
	d->run_left--;
	*index = d->next++;
	*count = c;
	return true;
}

/* ---- tag 1, module ---- */

struct gmf_module {
	uint32_t index;		/* 0, 1, 2... in the order written */
	uint32_t flags;		/* GMF_MODULE_MAIN */
	uint64_t bias;		/* runtime address minus link-time address */
	const unsigned char *name;	/* not NUL-terminated */
	uint32_t name_len;
	const unsigned char *build_id;
	uint32_t build_id_len;
};

static inline uint64_t gmf_module_size(const struct gmf_module *m)
{
	return GMF_MODULE_FIXED + (uint64_t)m->name_len + m->build_id_len;
}

/* The fixed part; name_len bytes of name and the build-id follow it. */
static inline void gmf_module_put(unsigned char out[GMF_MODULE_FIXED],
				  const struct gmf_module *m)
{
	const bool s = GMF_HOST_SWAP;

	gmf_store(out, 4, m->index, s);
	gmf_store(out + 4, 4, m->flags, s);
	gmf_store(out + 8, 8, m->bias, s);
	gmf_store(out + 16, 4, m->name_len, s);
	gmf_store(out + 20, 4, m->build_id_len, s);
}

/* A module record's body; name and build_id point into it. */
static inline bool gmf_module_get(struct gmf_cursor *b, struct gmf_module *m)
{
	const unsigned char *f = b->p;

	memset(m, 0, sizeof(*m));
	if (b->failed)
		return false;
	if (gmf_left(b) >= 4)
		m->index = gmf_load(f, 4, b->swap);
	if (gmf_left(b) < GMF_MODULE_FIXED) {
		gmf_fail(b, "module record %u is truncated", m->index);
		return false;
	}
	m->flags = gmf_load(f + 4, 4, b->swap);
	m->bias = gmf_load(f + 8, 8, b->swap);
	m->name_len = gmf_load(f + 16, 4, b->swap);
	m->build_id_len = gmf_load(f + 20, 4, b->swap);
	if (gmf_module_size(m) > gmf_left(b)) {
		gmf_fail(b, "module record %u is truncated", m->index);
		return false;
	}
	b->p += GMF_MODULE_FIXED;
	m->name = b->p;
	b->p += m->name_len;
	m->build_id = b->p;
	b->p += m->build_id_len;
	return true;
}

/* ---- tag 3, arcs: u64 narcs, then the arcs ---- */

struct gmf_arc {
	uint32_t from_module, self_module;	/* or GMF_NO_MODULE */
	uint64_t from, self;	/* link-time: the call site, the callee */
	uint64_t count;
};

static inline uint64_t gmf_arcs_size(uint64_t narcs)
{
	return GMF_ARCS_FIXED + GMF_ARC_SIZE * narcs;
}

static inline void gmf_arcs_head_put(unsigned char out[GMF_ARCS_FIXED],
				     uint64_t narcs)
{
	gmf_store(out, 8, narcs, GMF_HOST_SWAP);
}

static inline void gmf_arc_put(unsigned char out[GMF_ARC_SIZE],
			       const struct gmf_arc *a)
{
	const bool s = GMF_HOST_SWAP;

	gmf_store(out, 4, a->from_module, s);
	gmf_store(out + 4, 4, a->self_module, s);
	gmf_store(out + 8, 8, a->from, s);
	gmf_store(out + 16, 8, a->self, s);
	gmf_store(out + 24, 8, a->count, s);
}

/* The number of arcs, which the body holds (0 and failed if not). */
static inline uint64_t gmf_arcs_begin(struct gmf_cursor *b)
{
	uint64_t n = gmf_get(b, 8);

	if (!b->failed && n > gmf_left(b) / GMF_ARC_SIZE) {
		gmf_fail(b, "arc record announces %llu arcs but holds fewer",
			 (unsigned long long)n);
		return 0;
	}
	return n;
}

static inline bool gmf_arc_get(struct gmf_cursor *b, struct gmf_arc *a)
{
	const unsigned char *f;

	if (!gmf_take(b, GMF_ARC_SIZE, &f))
		return false;
	a->from_module = gmf_load(f, 4, b->swap);
	a->self_module = gmf_load(f + 4, 4, b->swap);
	a->from = gmf_load(f + 8, 8, b->swap);
	a->self = gmf_load(f + 16, 8, b->swap);
	a->count = gmf_load(f + 24, 8, b->swap);
	return true;
}

/* ---- tag 4, callers: the fixed part, then the nodes ---- */

struct gmf_callers_head {
	uint64_t nnodes;
	uint32_t depth;		/* most frames kept per chain */
	uint64_t samples, truncated, lost, busy;
	uint64_t period_ns;
};

struct gmf_caller_node {
	uint32_t parent;	/* an earlier node, or GMF_CALLER_TOP */
	uint32_t module;	/* or GMF_NO_MODULE */
	uint64_t pc, count;
};

static inline uint64_t gmf_callers_size(uint64_t nnodes)
{
	return GMF_CALLERS_FIXED + GMF_CALLER_NODE_SIZE * nnodes;
}

static inline void gmf_callers_head_put(unsigned char out[GMF_CALLERS_FIXED],
					const struct gmf_callers_head *h)
{
	const bool s = GMF_HOST_SWAP;

	gmf_store(out, 8, h->nnodes, s);
	gmf_store(out + 8, 4, h->depth, s);
	gmf_store(out + 12, 4, 0, s);	/* reserved */
	gmf_store(out + 16, 8, h->samples, s);
	gmf_store(out + 24, 8, h->truncated, s);
	gmf_store(out + 32, 8, h->lost, s);
	gmf_store(out + 40, 8, h->busy, s);
	gmf_store(out + 48, 8, h->period_ns, s);
}

static inline void gmf_caller_node_put(unsigned char out[GMF_CALLER_NODE_SIZE],
				       const struct gmf_caller_node *n)
{
	const bool s = GMF_HOST_SWAP;

	gmf_store(out, 4, n->parent, s);
	gmf_store(out + 4, 4, n->module, s);
	gmf_store(out + 8, 8, n->pc, s);
	gmf_store(out + 16, 8, n->count, s);
}

/* The fixed part, its nnodes checked against the bytes that follow. */
static inline bool gmf_callers_head_get(struct gmf_cursor *b,
					struct gmf_callers_head *h)
{
	const unsigned char *f;

	memset(h, 0, sizeof(*h));
	if (b->failed)
		return false;
	if (gmf_left(b) < GMF_CALLERS_FIXED) {
		gmf_fail(b, "callers record shorter than its %d-byte fixed part",
			 GMF_CALLERS_FIXED);
		return false;
	}
	gmf_take(b, GMF_CALLERS_FIXED, &f);
	h->nnodes = gmf_load(f, 8, b->swap);
	h->depth = gmf_load(f + 8, 4, b->swap);
	h->samples = gmf_load(f + 16, 8, b->swap);
	h->truncated = gmf_load(f + 24, 8, b->swap);
	h->lost = gmf_load(f + 32, 8, b->swap);
	h->busy = gmf_load(f + 40, 8, b->swap);
	h->period_ns = gmf_load(f + 48, 8, b->swap);
	if (h->nnodes > gmf_left(b) / GMF_CALLER_NODE_SIZE) {
		gmf_fail(b, "callers record announces %llu nodes but holds fewer",
			 (unsigned long long)h->nnodes);
		return false;
	}
	return true;
}

static inline bool gmf_caller_node_get(struct gmf_cursor *b,
				       struct gmf_caller_node *n)
{
	const unsigned char *f;

	if (!gmf_take(b, GMF_CALLER_NODE_SIZE, &f))
		return false;
	n->parent = gmf_load(f, 4, b->swap);
	n->module = gmf_load(f + 4, 4, b->swap);
	n->pc = gmf_load(f + 8, 8, b->swap);
	n->count = gmf_load(f + 16, 8, b->swap);
	return true;
}

/* ---- tag 5, threads: u64 nthreads, then the threads ---- */

#define GMF_THREAD_NAME		16

struct gmf_thread {
	uint32_t tid;
	uint32_t flags;		/* GMF_THREAD_* */
	uint64_t cpu_ns;
	unsigned char name[GMF_THREAD_NAME];	/* NUL-padded, maybe not ended */
};

static inline uint64_t gmf_threads_size(uint64_t nthreads)
{
	return GMF_THREADS_FIXED + GMF_THREAD_SIZE * nthreads;
}

static inline void gmf_threads_head_put(unsigned char out[GMF_THREADS_FIXED],
					uint64_t nthreads)
{
	gmf_store(out, 8, nthreads, GMF_HOST_SWAP);
}

static inline void gmf_thread_put(unsigned char out[GMF_THREAD_SIZE],
				  const struct gmf_thread *t)
{
	gmf_store(out, 4, t->tid, GMF_HOST_SWAP);
	gmf_store(out + 4, 4, t->flags, GMF_HOST_SWAP);
	gmf_store(out + 8, 8, t->cpu_ns, GMF_HOST_SWAP);
	memcpy(out + 16, t->name, GMF_THREAD_NAME);
}

/* The number of threads, which the body holds (0 and failed if not). */
static inline uint64_t gmf_threads_begin(struct gmf_cursor *b)
{
	uint64_t n = gmf_get(b, 8);

	if (!b->failed && n > gmf_left(b) / GMF_THREAD_SIZE) {
		gmf_fail(b, "threads record announces %llu threads but holds fewer",
			 (unsigned long long)n);
		return 0;
	}
	return n;
}

static inline bool gmf_thread_get(struct gmf_cursor *b, struct gmf_thread *t)
{
	const unsigned char *f;

	if (!gmf_take(b, GMF_THREAD_SIZE, &f))
		return false;
	t->tid = gmf_load(f, 4, b->swap);
	t->flags = gmf_load(f + 4, 4, b->swap);
	t->cpu_ns = gmf_load(f + 8, 8, b->swap);
	memcpy(t->name, f + 16, GMF_THREAD_NAME);
	return true;
}

/* ---- tag 7, process ---- */

#define GMF_PROCESS_COMM	16

struct gmf_process {
	uint32_t pid, ppid;
	uint32_t flags;		/* GMF_PROCESS_* */
	uint64_t cpu_ns;
	uint64_t start_ns;	/* since the epoch */
	unsigned char comm[GMF_PROCESS_COMM];	/* NUL-padded, maybe not ended */
};

static inline void gmf_process_put(unsigned char out[GMF_PROCESS_SIZE],
				   const struct gmf_process *p)
{
	const bool s = GMF_HOST_SWAP;

	gmf_store(out, 4, p->pid, s);
	gmf_store(out + 4, 4, p->ppid, s);
	gmf_store(out + 8, 4, p->flags, s);
	gmf_store(out + 12, 4, 0, s);	/* reserved */
	gmf_store(out + 16, 8, p->cpu_ns, s);
	gmf_store(out + 24, 8, p->start_ns, s);
	memcpy(out + 32, p->comm, GMF_PROCESS_COMM);
}

/* A process record's body; bytes after its fields are skipped. */
static inline bool gmf_process_get(struct gmf_cursor *b, struct gmf_process *p)
{
	const unsigned char *f;

	memset(p, 0, sizeof(*p));
	if (b->failed)
		return false;
	if (gmf_left(b) < GMF_PROCESS_SIZE) {
		gmf_fail(b, "process record shorter than its %d bytes",
			 GMF_PROCESS_SIZE);
		return false;
	}
	gmf_take(b, GMF_PROCESS_SIZE, &f);
	p->pid = gmf_load(f, 4, b->swap);
	p->ppid = gmf_load(f + 4, 4, b->swap);
	p->flags = gmf_load(f + 8, 4, b->swap);
	p->cpu_ns = gmf_load(f + 16, 8, b->swap);
	p->start_ns = gmf_load(f + 24, 8, b->swap);
	memcpy(p->comm, f + 32, GMF_PROCESS_COMM);
	b->p = b->end;
	return true;
}

/* ---- tag 8, event ---- */

#define GMF_EVENT_NAME		16

struct gmf_event {
	uint32_t type;		/* SPROFIL_EVENT_* */
	uint64_t period;	/* events per sample */
	char name[GMF_EVENT_NAME + 1];	/* NUL-ended */
};

static inline void gmf_event_put(unsigned char out[GMF_EVENT_SIZE],
				 const struct gmf_event *e)
{
	const bool s = GMF_HOST_SWAP;

	memset(out, 0, GMF_EVENT_SIZE);
	gmf_store(out, 4, e->type, s);
	gmf_store(out + 8, 8, e->period, s);
	memcpy(out + 16, e->name, strnlen(e->name, GMF_EVENT_NAME));
}

/* An event record's body; bytes after its fields are skipped. */
static inline bool gmf_event_get(struct gmf_cursor *b, struct gmf_event *e)
{
	const unsigned char *f;

	memset(e, 0, sizeof(*e));
	if (b->failed)
		return false;
	if (gmf_left(b) < GMF_EVENT_SIZE) {
		gmf_fail(b, "event record shorter than its %d bytes",
			 GMF_EVENT_SIZE);
		return false;
	}
	gmf_take(b, GMF_EVENT_SIZE, &f);
	e->type = (uint32_t)gmf_load(f, 4, b->swap);
	e->period = gmf_load(f + 8, 8, b->swap);
	memcpy(e->name, f + 16, GMF_EVENT_NAME);
	e->name[GMF_EVENT_NAME] = '\0';
	if (!e->period) {
		gmf_fail(b, "event record of %s with no period", e->name);
		return false;
	}
	b->p = b->end;
	return true;
}

#endif /* SPROFIL_GMON_CODEC_H */
