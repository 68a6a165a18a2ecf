// SPDX-License-Identifier: GPL-2.0
/*
 * Region tables: the caller's regions checked with the shared mapping,
 * their buffers pinned, charged to RLIMIT_MEMLOCK and mapped into the
 * kernel, so that the sampling handler (hard IRQ) can count with plain
 * stores that never fault or sleep.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include "sprofil.h"

static atomic_long_t sprofil_pinned = ATOMIC_LONG_INIT(0);

/* Pages pinned by all sessions; exported read-only for the tests. */
long sprofil_pinned_pages(void)
{
	return atomic_long_read(&sprofil_pinned);
}

static unsigned long buffer_npages(u64 base, u64 size)
{
	return (PAGE_ALIGN(base + size) - (base & PAGE_MASK)) >> PAGE_SHIFT;
}

/*
 * Charges @npages to mm->pinned_vm against RLIMIT_MEMLOCK, as RDMA's
 * ib_umem_get() does: pinned profiling buffers are locked memory the user
 * asked for, so they count against the same limit as mlock().
 */
static int charge_pinned(unsigned long npages)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	s64 total = atomic64_add_return(npages, &current->mm->pinned_vm);

	if (total > limit && !capable(CAP_IPC_LOCK)) {
		atomic64_sub(npages, &current->mm->pinned_vm);
		pr_info_ratelimited("pid %d: %lu buffer pages exceed RLIMIT_MEMLOCK (%lu pages)\n",
				    task_tgid_nr(current), npages, limit);
		return -ENOMEM;
	}
	return 0;
}

static void buffer_release(struct sprofil_buffer *b)
{
	if (b->vaddr)
		vunmap(b->vaddr);
	if (b->npages) {
		/* Dirty: our stores bypassed the user page tables. */
		unpin_user_pages_dirty_lock(b->pages, b->npages, true);
		atomic_long_sub(b->npages, &sprofil_pinned);
	}
	kvfree(b->pages);
	memset(b, 0, sizeof(*b));
}

static int buffer_pin(struct sprofil_buffer *b, u64 base, u64 size)
{
	unsigned long npages = buffer_npages(base, size);
	int pinned;

	if (base + size < base || !access_ok(u64_to_user_ptr(base), size))
		return -EFAULT;
	/* More than RAM can never be pinned: fail before allocating. */
	if (npages > totalram_pages())
		return -ENOMEM;
	b->base = base;
	b->size = size;
	b->pages = kvcalloc(npages, sizeof(*b->pages),
			    GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!b->pages)
		return -ENOMEM;
	/*
	 * FOLL_LONGTERM: the pin lasts as long as the session, so the pages
	 * must not sit in movable zones.  FOLL_WRITE breaks COW now, so the
	 * pages we count into are the ones the process sees.
	 */
	pinned = pin_user_pages_fast(base & PAGE_MASK, npages,
				     FOLL_WRITE | FOLL_LONGTERM, b->pages);
	if (pinned > 0) {
		b->npages = pinned;
		atomic_long_add(pinned, &sprofil_pinned);
	}
	if (pinned != npages) {
		buffer_release(b);
		return pinned < 0 && pinned != -EFAULT ? pinned : -EFAULT;
	}
	b->vaddr = vmap(b->pages, npages, VM_MAP, PAGE_KERNEL);
	if (!b->vaddr) {
		buffer_release(b);
		return -ENOMEM;
	}
	b->buckets = b->vaddr + offset_in_page(base);
	return 0;
}

void sprofil_table_destroy(struct sprofil_table *t)
{
	u32 i;

	if (!t)
		return;
	for (i = 0; i < t->map.nregions; i++)
		buffer_release(&t->buffer[i]);
	buffer_release(&t->overflow);
	if (t->pinned)
		atomic64_sub(t->pinned, &t->mm->pinned_vm);
	kvfree(t->map.region);
	kvfree(t->map.segment);
	kvfree(t->map.stack);
	kvfree(t);
}

/*
 * Builds a table from @n entries in the caller's order; returns it or an
 * ERR_PTR, with nothing pinned or charged on failure.
 */
struct sprofil_table *sprofil_table_create(const struct sprofil_region *in,
					   u32 n, u32 flags)
{
	struct sprofil_table *t;
	unsigned long pages = 0;
	int err;
	u32 i;

	t = kvzalloc(struct_size(t, buffer, n), GFP_KERNEL);
	if (!t)
		return ERR_PTR(-ENOMEM);
	t->mm = current->mm;
	t->map.region = kvcalloc(n, sizeof(*t->map.region), GFP_KERNEL);
	t->map.segment = kvcalloc(SPM_MAX_SEGMENTS(n), sizeof(*t->map.segment),
				  GFP_KERNEL);
	t->map.stack = kvcalloc(n, sizeof(*t->map.stack), GFP_KERNEL);
	err = -ENOMEM;
	if (n && (!t->map.region || !t->map.segment || !t->map.stack))
		goto fail;
	err = spm_prepare(&t->map, in, n, flags);
	if (err)
		goto fail;

	for (i = 0; i < t->map.nregions; i++)
		pages += buffer_npages(in[t->map.region[i].id].base,
				       in[t->map.region[i].id].size);
	if (t->map.overflow >= 0)
		pages += 1;
	err = charge_pinned(pages);
	if (err)
		goto fail;
	t->pinned = pages;

	for (i = 0; i < t->map.nregions; i++) {
		const struct sprofil_region *r = &in[t->map.region[i].id];

		err = buffer_pin(&t->buffer[i], r->base, r->size);
		if (err)
			goto fail;
	}
	if (t->map.overflow >= 0) {
		/* Only the first bucket of the overflow bin is ever counted. */
		err = buffer_pin(&t->overflow, in[t->map.overflow].base,
				 1u << t->map.shift);
		if (err)
			goto fail;
	}
	return t;
fail:
	sprofil_table_destroy(t);
	return ERR_PTR(err);
}

/*
 * Adds @n to a bucket, saturating; returns the samples lost to a full
 * bucket.  A cmpxchg loop rather than the per-session spinlock
 * kernel_design.md suggests: threads of one process sampled on different
 * CPUs then never wait for each other, and a retry only happens when two
 * of them hit the very same bucket at the same instant.
 */
static u32 bucket_add(void *bucket, u32 shift, u32 n)
{
	u32 max = spm_bucket_max(shift), before, next;

	if (shift == 1) {
		u16 *c = bucket, old = READ_ONCE(*c);

		do {
			next = spm_saturating_add(old, n, max);
		} while (next != old && !try_cmpxchg(c, &old, next));
		before = old;
	} else {
		u32 *c = bucket, old = READ_ONCE(*c);

		do {
			next = spm_saturating_add(old, n, max);
		} while (next != old && !try_cmpxchg(c, &old, next));
		before = old;
	}
	return n - (next - before);
}

/*
 * Files @n samples of one user PC; runs in hard IRQ with @stats this
 * CPU's counters.
 */
void sprofil_table_count(struct sprofil_table *t, u64 pc, u32 n,
			 struct sprofil_stats *stats)
{
	struct sprofil_buffer *b = &t->overflow;
	void *bucket = NULL;
	long r = spm_lookup(&t->map, pc);

	if (r >= 0 && !READ_ONCE(t->buffer[r].off)) {
		b = &t->buffer[r];
		bucket = b->buckets + (spm_region_bucket(&t->map,
							 &t->map.region[r], pc)
				       << t->map.shift);
	} else {
		stats->misses += n;
		if (b->npages && !READ_ONCE(b->off))
			bucket = b->buckets;
	}
	if (bucket)
		stats->saturated += bucket_add(bucket, t->map.shift, n);
}

static bool buffer_overlaps(struct sprofil_buffer *b, unsigned long start,
			    unsigned long end)
{
	return b->npages && b->base < end && start < b->base + b->size;
}

bool sprofil_table_overlaps(struct sprofil_table *t, unsigned long start,
			    unsigned long end)
{
	u32 i;

	for (i = 0; i < t->map.nregions; i++)
		if (buffer_overlaps(&t->buffer[i], start, end))
			return true;
	return buffer_overlaps(&t->overflow, start, end);
}

/* munmap/mremap of [start, end): the buffers there are gone for good. */
void sprofil_table_unmap(struct sprofil_table *t, unsigned long start,
			 unsigned long end)
{
	u32 i;

	for (i = 0; i < t->map.nregions; i++)
		if (buffer_overlaps(&t->buffer[i], start, end))
			WRITE_ONCE(t->buffer[i].off, true);
	if (buffer_overlaps(&t->overflow, start, end))
		WRITE_ONCE(t->overflow.off, true);
}

/*
 * True if the process still sees our pinned pages, writable, at the
 * buffer's address.  A write fault-in through the user's page tables
 * fails on a read-only mapping and, after MADV_DONTNEED or a remap, yields
 * a different page than the one we pinned.
 */
static bool buffer_intact(struct sprofil_buffer *b)
{
	struct page *page;
	unsigned long i;
	bool same;

	for (i = 0; i < b->npages; i++) {
		if (get_user_pages_fast((b->base & PAGE_MASK) + i * PAGE_SIZE,
					1, FOLL_WRITE, &page) != 1)
			return false;
		same = page == b->pages[i];
		put_page(page);
		if (!same)
			return false;
	}
	return true;
}

/*
 * Called from a worker after a protection change or a page-table clear
 * touched a buffer.  Those events also come from NUMA balancing, THP
 * collapse, KSM and reclaim, which leave the buffer as it was, so the
 * buffer is checked rather than turned off on the event itself.
 */
void sprofil_table_recheck(struct sprofil_table *t, struct mm_struct *mm)
{
	u32 i;

	if (!mmget_not_zero(mm))
		return;
	kthread_use_mm(mm);
	for (i = 0; i < t->map.nregions; i++)
		if (!READ_ONCE(t->buffer[i].off) &&
		    !buffer_intact(&t->buffer[i]))
			WRITE_ONCE(t->buffer[i].off, true);
	if (t->overflow.npages && !READ_ONCE(t->overflow.off) &&
	    !buffer_intact(&t->overflow))
		WRITE_ONCE(t->overflow.off, true);
	kthread_unuse_mm(mm);
	/*
	 * Dropping the last user here would run our release callback, which
	 * waits for the session lock the caller holds: let a worker do it.
	 */
	mmput_async(mm);
}

u32 sprofil_table_regions_off(struct sprofil_table *t)
{
	u32 i, off = 0;

	for (i = 0; i < t->map.nregions; i++)
		off += READ_ONCE(t->buffer[i].off);
	return off;
}
