// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The -pg runtime's histogram buffers, committed as they are sampled.
 * A buffer covers a module's whole text (cc1: 4 MiB of buckets, and as
 * much again for each large library), yet a run samples a few hundred
 * pages of it.  So a buffer is anonymous memory the kernel commits page
 * by page on the first store, never calloc()'s (which may take recycled
 * heap memory and clear all of it), and nothing here stores to a bucket
 * that is zero: clearing, copying and taking the counts read only the
 * pages that were ever stored to (pages_in_use.h), since reading the
 * others would fault each one in, to the shared zero page, for nothing.
 * Transparent huge pages are refused, as one sample would commit 2 MiB.
 *
 * The kmod backend pins every page of a buffer for its session, which
 * commits it whole; the signal and bpf backends store only where they
 * count.
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#include "gmon.h"
#include "pages_in_use.h"

static size_t sp_buckets_bytes(size_t n, unsigned int size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (n * size + page - 1) / page * page;
}

void *sp_buckets_alloc(size_t n, unsigned int size)
{
	void *p = mmap(NULL, sp_buckets_bytes(n, size),
		       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	/* Only a hint: a kernel without THP has nothing to refuse. */
	madvise(p, sp_buckets_bytes(n, size), MADV_NOHUGEPAGE);
	return p;
}

void sp_buckets_free(const void *buckets, size_t n, unsigned int size)
{
	if (buckets)
		munmap((void *)buckets, sp_buckets_bytes(n, size));
}

/*
 * Bucket @i of a buffer being sampled, read atomically; with @take, a
 * nonzero one is exchanged with zero (a store only where a count is).
 */
static uint32_t sp_bucket_read(const void *buckets, unsigned int size,
			       size_t i, bool take)
{
	uint32_t *b32 = (uint32_t *)buckets + i, v;
	uint16_t *b16 = (uint16_t *)buckets + i;

	if (size == 4) {
		v = __atomic_load_n(b32, __ATOMIC_RELAXED);
		if (v && take)
			v = __atomic_exchange_n(b32, 0, __ATOMIC_RELAXED);
		return v;
	}
	v = __atomic_load_n(b16, __ATOMIC_RELAXED);
	if (v && take)
		v = __atomic_exchange_n(b16, 0, __ATOMIC_RELAXED);
	return v;
}

/*
 * Whether the 8 bytes of buckets from bucket @i (a multiple of 8 / @size,
 * so aligned: buffers are page-aligned) are all zero, read at once: a
 * buffer is mostly zero, and 4 buckets a load make the walk cheap.
 */
static bool sp_word_zero(const void *buckets, unsigned int size, size_t i)
{
	const uint64_t *w = (const uint64_t *)((const char *)buckets +
					       i * size);

	return !__atomic_load_n(w, __ATOMIC_RELAXED);
}

/*
 * Calls @fn on each nonzero bucket of [0, @n) with its value, read
 * atomically (with @take, exchanged with zero); the sampling side may be
 * adding meanwhile.
 */
static void sp_buckets_walk(const void *buckets, size_t n, unsigned int size,
			    bool take, void (*fn)(void *, size_t, uint32_t),
			    void *arg)
{
	size_t per = 8 / size, i = 0, end, page_end = 0;
	struct sp_pages pages;
	uint32_t v;

	/* Pages never stored to are zero: not even read (pages_in_use.h). */
	sp_pages_read(&pages, buckets, n * size);
	while (i < n) {
		if (i >= page_end) {
			uintptr_t at = (uintptr_t)buckets + i * size;

			/* The first bucket on the next page. */
			page_end = i + (pages.page - at % pages.page +
					size - 1) / size;
			if (!sp_page_used(&pages, at)) {
				i = page_end < n ? page_end : n;
				continue;
			}
		}
		if (i + per <= n && sp_word_zero(buckets, size, i)) {
			i += per;
			continue;
		}
		for (end = i + per < n ? i + per : n; i < end; i++) {
			v = sp_bucket_read(buckets, size, i, take);
			if (v && fn)
				fn(arg, i, v);
		}
	}
	sp_pages_free(&pages);
}

void sp_buckets_clear(const void *buckets, size_t n, unsigned int size)
{
	sp_buckets_walk(buckets, n, size, true, NULL, NULL);
}

struct sp_copy {
	void *to;
	unsigned int size;
};

static void sp_copy_one(void *arg, size_t i, uint32_t v)
{
	struct sp_copy *c = arg;

	if (c->size == 4)
		((uint32_t *)c->to)[i] = v;
	else
		((uint16_t *)c->to)[i] = v;
}

/*
 * Each bucket is read atomically, since the sampling side (a signal
 * handler, the bpf backend's fold thread) adds while the profile is
 * written; @take exchanges the nonzero ones with zero, so that a sample
 * racing with a SPROFIL_SIGDUMP dump lands in one dump.
 */
void *sp_buckets_copy(const struct sp_hist *h, bool take)
{
	struct sp_copy c = {
		.to = sp_buckets_alloc(h->nbuckets, h->bucket_size),
		.size = h->bucket_size,
	};

	if (c.to)
		sp_buckets_walk(h->buckets, h->nbuckets, h->bucket_size, take,
				sp_copy_one, &c);
	return c.to;
}
