/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The PC-to-bucket mapping of sprofil, defined once.
 *
 * The kernel module, the BPF program, the userland backends and the tests
 * all include this header, so that a given PC lands in the same bucket on
 * every backend.  It is pure code: no allocation, no locking, no libc, only
 * shifts, one multiply and (at setup) one division, so it compiles in the
 * kernel, in BPF C and in userland alike.
 *
 * Rules (docs/contract.md):
 *  - bucket index = ((pc - offset) / bucket_size) * scale / 65536, exact in
 *    64 bits for every pc and every 32-bit scale, above 0x10000 too: the
 *    product is split so it cannot overflow;
 *  - a pc belongs to a region only if that index is inside the buffer;
 *  - among the regions holding a pc, the one with the larger offset wins
 *    (glibc and HP-UX); on equal offsets the entry given later wins;
 *  - entries with scale < 2 are ignored; offset 0 with scale 2 is the
 *    overflow bin, whose first bucket counts the samples in no region;
 *  - counters saturate at the bucket width, they never wrap.
 */
#ifndef SPROFIL_MAPPING_H
#define SPROFIL_MAPPING_H

#if defined(__KERNEL__)
#include <linux/errno.h>
#include <linux/math64.h>
#include <uapi/linux/sprofil.h>
#define SPM_DIV64(a, b) div64_u64((a), (b))
#else
/* Userland and BPF C: the uapi header and errno values are the same. */
#include <errno.h>
#include <linux/sprofil.h>
#define SPM_DIV64(a, b) ((a) / (b))
#endif

#define SPM_SCALE_ONE		0x10000u	/* one bucket per bucket-size bytes */
#define SPM_MAX_SEGMENTS(n)	(2 * (n))	/* see spm_build_segments() */

/* A region ready for lookup. */
struct spm_region {
	__u64 offset;		/* lowest pc */
	__u64 span;		/* text bytes covered: [offset, offset + span) */
	__u64 nbuckets;
	__u32 scale;
	__u32 id;		/* index of the entry in the caller's array */
};

/* A piece of the address space owned by exactly one region. */
struct spm_segment {
	__u64 start;
	__u64 end;		/* exclusive */
	__u32 region;		/* index into spm_map.region */
	__u32 reserved;
};

/*
 * A prepared region set.  The caller provides the arrays: region[] and
 * stack[] with room for the number of input entries, segment[] with room
 * for SPM_MAX_SEGMENTS() of it.
 */
struct spm_map {
	struct spm_region *region;	/* sorted by offset, then by id */
	struct spm_segment *segment;	/* sorted, disjoint */
	__u32 *stack;			/* scratch for spm_build_segments() */
	__u32 nregions;
	__u32 nsegments;
	__s32 overflow;			/* entry index of the overflow bin, -1 */
	__u32 shift;			/* log2 of the bucket size */
};

static inline __u32 spm_bucket_shift(__u32 flags)
{
	return (flags & SPROFIL_UINT) ? 2 : 1;
}

static inline __u32 spm_bucket_max(__u32 shift)
{
	return shift == 2 ? 0xffffffffu : 0xffffu;
}

static inline int spm_is_overflow_bin(const struct sprofil_region *r)
{
	return r->offset == 0 && r->scale == 2;
}

/*
 * Bucket index of a text offset: floor(q * scale / 2^16), q = floor(delta
 * / 2^shift), exact for every 64-bit delta and every 32-bit scale (glibc
 * accepts any; LTP's profil01 uses 2 * 65536).  The true value may need
 * 96 bits, and neither BPF nor every kernel architecture has a 128-bit
 * multiply, so with scale = sh * 2^16 + sl (sh, sl < 2^16) it is
 * q * sh + floor(q * sl / 2^16), each piece from 32-bit halves; a value
 * of 2^64 or more (far beyond any buffer) comes back as ~0.
 */
static inline __u64 spm_bucket_index(__u64 delta, __u32 shift, __u32 scale)
{
	__u64 q = delta >> shift;
	__u64 sh = scale >> 16, sl = scale & 0xffff;
	__u64 low = (q >> 16) * sl + (((q & 0xffff) * sl) >> 16);
	__u64 hi = (q >> 32) * sh, whole;

	/* q * sh = hi * 2^32 + (q mod 2^32) * sh; hi < 2^47. */
	if (hi >> 32)
		return ~0ull;
	whole = (hi << 32) + (q & 0xffffffffull) * sh;
	if (whole < (hi << 32))
		return ~0ull;
	whole += low;
	return whole < low ? ~0ull : whole;
}

/*
 * Text bytes covered by nbuckets buckets: the smallest span such that
 * every delta below it has an index below nbuckets.  q < ceil(n * 2^16 /
 * scale) is exactly the condition floor(q * scale / 2^16) < n.
 */
static inline __u64 spm_region_span(__u64 nbuckets, __u32 shift, __u32 scale)
{
	__u64 qmax = SPM_DIV64((nbuckets << 16) + scale - 1, scale);

	return qmax << shift;
}

/*
 * Checks one entry and, if it is a region, fills @out.  Returns 1 for a
 * region, 0 for an ignored entry or the overflow bin (told apart with
 * spm_is_overflow_bin()), or -EINVAL.  Whether the buffer is real writable
 * memory is for the caller to check.
 */
static inline int spm_check_entry(const struct sprofil_region *r, __u32 shift,
				  __u32 id, struct spm_region *out)
{
	__u64 esz = 1ull << shift;

	if (r->reserved)
		return -EINVAL;
	if (r->scale < 2)
		return 0;
	if (r->size == 0 ||
	    r->size > SPROFIL_MAX_REGION_BYTES || (r->size & (esz - 1)) ||
	    (r->base & (esz - 1)))
		return -EINVAL;
	if (spm_is_overflow_bin(r))
		return 0;
	out->offset = r->offset;
	out->nbuckets = r->size >> shift;
	out->scale = r->scale;
	out->span = spm_region_span(out->nbuckets, shift, r->scale);
	/*
	 * A region may reach past the top of the address space: clamp it
	 * there, or offset + span wraps and spm_build_segments() drops the
	 * whole region.  The last address stays outside every region (the
	 * segment ends are exclusive); no user pc can be there.
	 */
	if (out->span > ~0ull - r->offset)
		out->span = ~0ull - r->offset;
	out->id = id;
	return 1;
}

static inline int spm_region_before(const struct spm_region *a,
				    const struct spm_region *b)
{
	return a->offset < b->offset ||
	       (a->offset == b->offset && a->id < b->id);
}

/*
 * Splits the address space among the sorted regions: walking up in offset
 * order, the region on top of the stack has the largest offset among those
 * still open, so it owns the addresses until its end or until the next
 * region starts; then the regions under it resume.  Each region opens one
 * segment and ends at most one more, hence at most 2n segments.
 */
static inline __u32 spm_build_segments(struct spm_map *m)
{
	__u32 nseg = 0, depth = 0, i;
	__u64 pos = 0, limit, end;
	struct spm_region *top;

	for (i = 0; i <= m->nregions; i++) {
		limit = i < m->nregions ? m->region[i].offset : ~0ull;
		while (depth && pos < limit) {
			top = &m->region[m->stack[depth - 1]];
			end = top->offset + top->span;
			if (end <= pos) {
				depth--;
				continue;
			}
			if (end > limit)
				end = limit;
			m->segment[nseg].start = pos;
			m->segment[nseg].end = end;
			m->segment[nseg].region = m->stack[depth - 1];
			m->segment[nseg].reserved = 0;
			nseg++;
			pos = end;
		}
		if (i < m->nregions) {
			pos = limit;
			m->stack[depth++] = i;
		}
	}
	m->nsegments = nseg;
	return nseg;
}

/*
 * Prepares @n entries given in any order.  Sorting is an insertion sort:
 * the input is usually already sorted (one pass), n is bounded by
 * SPROFIL_MAX_REGIONS, and it needs no callback, so the same code runs
 * wherever this header does.  Returns 0 or -EINVAL; it writes only into
 * @m and its arrays, which callers publish only on success.
 */
static inline int spm_prepare(struct spm_map *m,
			      const struct sprofil_region *in, __u32 n,
			      __u32 flags)
{
	struct spm_region r;
	__u32 i, j;
	int kind;

	if ((flags & ~SPROFIL_START_FLAGS) || n > SPROFIL_MAX_REGIONS)
		return -EINVAL;
	m->shift = spm_bucket_shift(flags);
	m->nregions = 0;
	m->overflow = -1;
	for (i = 0; i < n; i++) {
		kind = spm_check_entry(&in[i], m->shift, i, &r);
		if (kind < 0)
			return kind;
		if (kind == 0) {
			if (in[i].scale >= 2 && spm_is_overflow_bin(&in[i])) {
				if (m->overflow >= 0)
					return -EINVAL;
				m->overflow = (__s32)i;
			}
			continue;
		}
		for (j = m->nregions; j > 0 &&
		     spm_region_before(&r, &m->region[j - 1]); j--)
			m->region[j] = m->region[j - 1];
		m->region[j] = r;
		m->nregions++;
	}
	spm_build_segments(m);
	return 0;
}

/* Index into m->region of the region owning @pc, or -1. */
static inline long spm_lookup(const struct spm_map *m, __u64 pc)
{
	__u32 lo = 0, hi = m->nsegments;

	/* Binary search for the last segment starting at or below pc. */
	while (lo < hi) {
		__u32 mid = lo + (hi - lo) / 2;

		if (m->segment[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || pc >= m->segment[lo - 1].end)
		return -1;
	return m->segment[lo - 1].region;
}

/* Bucket of @pc in the region @r owns it in (see spm_lookup()). */
static inline __u64 spm_region_bucket(const struct spm_map *m,
				      const struct spm_region *r, __u64 pc)
{
	return spm_bucket_index(pc - r->offset, m->shift, r->scale);
}

/*
 * The saturating step shared by every counter update: the value a bucket
 * holding @old takes after @n more samples, never beyond @max.
 */
static inline __u32 spm_saturating_add(__u32 old, __u32 n, __u32 max)
{
	return n > max - old ? max : old + n;
}

#endif /* SPROFIL_MAPPING_H */
