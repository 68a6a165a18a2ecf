/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The encoding and decoding of the sprofil extension's records
 * (docs/gmon-format.md), written once for every writer and reader: the
 * library's dumps (libsprofil/pg/gmon_write.c), the analyzer's reader and
 * writer (gprof/gmon_read.c, gmon_write.c), gmon-dump and the tests.
 * gmon_format.h holds the constants; this header the code over them.
 * Today it covers the version check and the histogram records, dense
 * (tag 2) and sparse (tag 6); the other records are to gather here too.
 *
 * Pure code over byte buffers: no allocation, no I/O.  A writer asks for
 * the encoded bytes a chunk at a time, so it streams a histogram of any
 * size through a small buffer; a reader gets the nonzero buckets one at
 * a time.  A decoder's first problem sticks, as one line in its err[],
 * and every later call fails, so a reader checks once per record.
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
 * The revision of the extension a header's version field names (1 or 2,
 * the ones this code reads), *swap set when the file was written on the
 * other byte order; 0 when the version is not one of them.
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
	return v >= 1 && v <= (GMF_EXT_VERSION & 0xffff) ? v : 0;
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
	static const uint32_t reserved;

	memcpy(out, &h->module, 4);
	memcpy(out + 4, &h->bucket_size, 4);
	memcpy(out + 8, &h->scale, 4);
	memcpy(out + 12, &reserved, 4);
	memcpy(out + 16, &h->period_ns, 8);
	memcpy(out + 24, &h->low_pc, 8);
	memcpy(out + 32, &h->high_pc, 8);
	memcpy(out + 40, &h->nbuckets, 8);
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

#endif /* SPROFIL_GMON_CODEC_H */
