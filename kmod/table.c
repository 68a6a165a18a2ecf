// SPDX-License-Identifier: GPL-2.0
/*
 * Region tables: the caller's regions checked with the shared mapping,
 * their buffers pinned, charged and mapped into the kernel, so that the
 * sampling handler (hard IRQ) can count with plain stores that never fault
 * or sleep.
 *
 * A table is built and pinned with no lock held: pinning may wait on a
 * userfaultfd or FUSE page fault for as long as the user likes, and only
 * the caller, which a fatal signal releases, waits with it.
 *
 * Each distinct user page is pinned once per table however many buffers
 * share it: the buffers' page ranges are merged into disjoint runs, each
 * pinned and vmapped once, and every buffer points into its run.
 *
 * With SPROFIL_CALLERS the caller table (include/sprofil/callers.h) is
 * one more buffer of the same kind: checked, pinned, charged and mapped
 * with the bucket arrays, so it costs RLIMIT_MEMLOCK like them and bad
 * input fails the same way before anything changes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bsearch.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/hugetlb.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/moduleparam.h>
#include <linux/pagemap.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include "sprofil.h"

static atomic_long_t sprofil_pinned = ATOMIC_LONG_INIT(0);

/*
 * A pin of a small page adds GUP_PIN_COUNTING_BIAS (1024) to its reference
 * count, which the kernel refuses (with a WARN) to take past INT_MAX: a
 * page shared by many processes could get there.  We refuse first, once
 * the count passes this limit, which leaves half the range to everyone
 * else.  Root may lower it (the tests do).
 */
#define PIN_REF_LIMIT_MAX	(INT_MAX / 2)
static unsigned int pin_ref_limit = PIN_REF_LIMIT_MAX;
module_param(pin_ref_limit, uint, 0644);
MODULE_PARM_DESC(pin_ref_limit,
		 "refuse to pin a page whose reference count would pass this");

/* Pages pinned by all sessions; exported read-only for the tests. */
long sprofil_pinned_pages(void)
{
	return atomic_long_read(&sprofil_pinned);
}

/* First and one-past-last user page numbers of [base, base + size). */
static void buffer_pages(u64 base, u64 size, u64 *first, u64 *end)
{
	*first = base >> PAGE_SHIFT;
	*end = PAGE_ALIGN(base + size) >> PAGE_SHIFT;
}

/*
 * Charges @npages to the user's locked_vm against RLIMIT_MEMLOCK, as
 * io_uring does, and to mm->pinned_vm, as RDMA's ib_umem_get() does.
 * The per-user charge is the one that limits: RLIMIT_MEMLOCK is per
 * process, and forked children would each get their own.  Users with
 * CAP_IPC_LOCK are not charged to the user (io_uring's rule) but still
 * show in pinned_vm.
 */
static int charge_pinned(struct sprofil_table *t, unsigned long npages)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	struct user_struct *user = current_user();
	unsigned long cur, next;

	if (!capable(CAP_IPC_LOCK)) {
		cur = atomic_long_read(&user->locked_vm);
		do {
			next = cur + npages;
			if (next < cur || next > limit) {
				pr_info_ratelimited("pid %d: %lu buffer pages over RLIMIT_MEMLOCK (%lu pages, %lu locked by uid %u)\n",
						    task_tgid_nr(current),
						    npages, limit, cur,
						    from_kuid(&init_user_ns,
							      user->uid));
				return -ENOMEM;
			}
		} while (!atomic_long_try_cmpxchg(&user->locked_vm, &cur,
						  next));
		t->user = get_uid(user);
	}
	atomic64_add(npages, &t->mm->pinned_vm);
	t->charged = npages;
	return 0;
}

static void uncharge_pinned(struct sprofil_table *t)
{
	if (!t->charged)
		return;
	atomic64_sub(t->charged, &t->mm->pinned_vm);
	if (t->user) {
		atomic_long_sub(t->charged, &t->user->locked_vm);
		free_uid(t->user);
	}
}

static int cmp_run(const void *a, const void *b)
{
	const struct sprofil_run *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/* bsearch key: the run holding page number *key. */
static int find_run(const void *key, const void *elt)
{
	const u64 *page = key;
	const struct sprofil_run *r = elt;

	if (*page < r->first)
		return -1;
	return *page >= r->first + r->npages;
}

/*
 * Sorts the page ranges in t->run[0..n) and merges the overlapping and
 * adjacent ones in place; returns the total number of distinct pages.
 */
static unsigned long merge_runs(struct sprofil_table *t, u32 n)
{
	unsigned long total = 0;
	u32 i, out = 0;

	sort(t->run, n, sizeof(*t->run), cmp_run, NULL);
	for (i = 0; i < n; i++) {
		u64 end = t->run[i].first + t->run[i].npages;
		struct sprofil_run *last = out ? &t->run[out - 1] : NULL;

		if (last && t->run[i].first <= last->first + last->npages) {
			if (end > last->first + last->npages)
				last->npages = end - last->first;
			continue;
		}
		t->run[out++] = t->run[i];
	}
	t->nruns = out;
	for (i = 0; i < out; i++) {
		t->run[i].pages = t->pages + total;
		total += t->run[i].npages;
	}
	return total;
}

/*
 * A page that already carries about INT_MAX / GUP_PIN_COUNTING_BIAS pins
 * would overflow its reference count: refuse instead of letting the
 * kernel WARN.  Checked after our pin, so concurrent pinners all see it.
 */
static bool pins_near_limit(struct page **pages, unsigned long n)
{
	unsigned int limit = min_t(unsigned int, READ_ONCE(pin_ref_limit),
				   PIN_REF_LIMIT_MAX);
	unsigned long i;

	for (i = 0; i < n; i++)
		if (folio_ref_count(page_folio(pages[i])) > limit)
			return true;
	return false;
}

static void run_release(struct sprofil_run *r)
{
	if (r->vaddr)
		vunmap(r->vaddr);
	if (r->pinned) {
		/* Dirty: our stores bypassed the user page tables. */
		unpin_user_pages_dirty_lock(r->pages, r->pinned, true);
		atomic_long_sub(r->pinned, &sprofil_pinned);
	}
}

/*
 * Pins and maps one run.  The pages are first faulted in for writing by
 * fault_in_safe_writeable(), which changes no data and waits killably
 * (FAULT_FLAG_ALLOW_RETRY | FAULT_FLAG_KILLABLE, mmap_lock dropped while
 * it waits) on a userfaultfd or a FUSE server: a fatal signal ends it.
 * The FOLL_LONGTERM pin itself never faults (FOLL_NOFAULT): on 6.1 it
 * would fault with the mmap_lock held and no retry, and a FUSE read would
 * wait unkillably there if another thread zapped the pages in between.
 * Pages that went missing are faulted in again, killably, and the pin
 * goes on from the first page it did not get.
 */
#define PIN_TRIES	16	/* rounds in a row that pin nothing */

static int run_pin(struct sprofil_run *r)
{
	unsigned long addr = r->first << PAGE_SHIFT;
	unsigned int idle = 0;
	long pinned;

	if (!access_ok((void __user *)addr, r->npages << PAGE_SHIFT))
		return -EFAULT;
	while (r->pinned < r->npages) {
		unsigned long at = addr + (r->pinned << PAGE_SHIFT);
		unsigned long left = r->npages - r->pinned;

		if (fault_in_safe_writeable((const char __user *)at,
					    left << PAGE_SHIFT))
			return fatal_signal_pending(current) ? -EINTR : -EFAULT;
		/*
		 * FOLL_LONGTERM: the pin lasts as long as the session, so the
		 * pages must not sit in movable zones.  FOLL_WRITE breaks COW
		 * now, so the pages we count into are the ones the process
		 * sees.
		 */
		pinned = pin_user_pages_fast(at, left, FOLL_WRITE |
					     FOLL_LONGTERM | FOLL_NOFAULT,
					     r->pages + r->pinned);
		if (pinned > 0) {
			r->pinned += pinned;
			atomic_long_add(pinned, &sprofil_pinned);
			idle = 0;
		} else if (pinned < 0 && pinned != -EFAULT) {
			return pinned == -EINTR || pinned == -ENOMEM ?
			       pinned : -EFAULT;
		} else if (++idle == PIN_TRIES) {
			return -EFAULT;
		}
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	if (pins_near_limit(r->pages, r->npages)) {
		pr_info_ratelimited("pid %d: a buffer page is pinned too often (reference count over %u)\n",
				    task_tgid_nr(current), pin_ref_limit);
		return -ENOMEM;
	}
	r->vaddr = vmap(r->pages, r->npages, VM_MAP, PAGE_KERNEL);
	return r->vaddr ? 0 : -ENOMEM;
}

/* Points @b, a buffer of @size bytes at user address @base, into its run. */
static void buffer_place(struct sprofil_table *t, struct sprofil_buffer *b,
			 u64 base, u64 size)
{
	u64 first = base >> PAGE_SHIFT, end;
	struct sprofil_run *r;

	r = bsearch(&first, t->run, t->nruns, sizeof(*t->run), find_run);
	buffer_pages(base, size, &first, &end);
	b->base = base;
	b->size = size;
	b->pages = r->pages + (first - r->first);
	b->npages = end - first;
	b->buckets = r->vaddr + (base - (r->first << PAGE_SHIFT));
}

void sprofil_table_destroy(struct sprofil_table *t)
{
	u32 i;

	if (!t)
		return;
	for (i = 0; i < t->nruns; i++)
		run_release(&t->run[i]);
	uncharge_pinned(t);
	sprofil_unwind_destroy(t->unwind);
	if (t->mm)
		mmdrop(t->mm);
	kvfree(t->pages);
	kvfree(t->run);
	kvfree(t->map.region);
	kvfree(t->map.segment);
	kvfree(t->map.stack);
	kvfree(t);
}

/* Records [base, base + size) as run @i's pages, if it is user memory. */
static int buffer_range(struct sprofil_table *t, u32 i, u64 base, u64 size)
{
	u64 first, end;

	if (base + size < base || !access_ok(u64_to_user_ptr(base), size))
		return -EFAULT;
	buffer_pages(base, size, &first, &end);
	t->run[i].first = first;
	t->run[i].npages = end - first;
	return 0;
}

/*
 * Checks the caller-table fields of @args and keeps their geometry in
 * t->spc; the buffer is mapped later.  Only the bytes the geometry uses
 * are pinned: a larger buffer's tail is never written.  EINVAL for a
 * depth out of [1, SPROFIL_MAX_DEPTH], room for fewer than SPC_MIN_NODES
 * nodes, or a table not 8-byte aligned (its counters are updated with
 * 64-bit atomics, which must not straddle cache lines).
 */
static int callers_prepare(struct sprofil_table *t,
			   const struct sprofil_start *args, u32 *nodes)
{
	int err;

	if (!(args->flags & SPROFIL_CALLERS))
		return 0;
	err = spc_geometry(args->callers_size, args->callers_depth, nodes);
	if (err)
		return err;
	if (args->callers & 7)
		return -EINVAL;
	t->spc.mask = *nodes - 1;
	t->spc.depth = args->callers_depth;
	t->per_thread = args->flags & SPROFIL_THREADS;
	return 0;
}

/*
 * Builds a table from the @args->nregions entries @in, in the caller's
 * order, and the caller table of @args if it has one; returns it or an
 * ERR_PTR, with nothing pinned or charged on failure.  Every allocation
 * is charged to the caller's memory cgroup and may fail rather than
 * invoke the OOM killer.
 */
struct sprofil_table *sprofil_table_create(const struct sprofil_start *args,
					   const struct sprofil_region *in)
{
	u32 n = args->nregions, flags = args->flags, nodes = 0;
	struct sprofil_table *t;
	unsigned long pages;
	int err;
	u32 i, nranges;

	t = kvzalloc(struct_size(t, buffer, n), SPROFIL_GFP);
	if (!t)
		return ERR_PTR(-ENOMEM);
	/*
	 * Kept until the table goes, which may be after its owner exited:
	 * an outside session's target outlives it, or its release runs
	 * after the owner's exit_mm().
	 */
	t->mm = current->mm;
	mmgrab(t->mm);
	t->sampled = t->mm;
	t->map.region = kvcalloc(n, sizeof(*t->map.region), SPROFIL_GFP);
	t->map.segment = kvcalloc(SPM_MAX_SEGMENTS(n), sizeof(*t->map.segment),
				  SPROFIL_GFP);
	t->map.stack = kvcalloc(n, sizeof(*t->map.stack), SPROFIL_GFP);
	/* A run per region, the overflow bin and the caller table. */
	t->run = kvcalloc(n + 2, sizeof(*t->run), SPROFIL_GFP);
	err = -ENOMEM;
	if (!t->run || (n && (!t->map.region || !t->map.segment ||
			      !t->map.stack)))
		goto fail;
	err = spm_prepare(&t->map, in, n, flags);
	if (err)
		goto fail;
	err = callers_prepare(t, args, &nodes);
	if (err)
		goto fail;
	t->unwind = sprofil_unwind_create(args);
	if (IS_ERR(t->unwind)) {
		err = PTR_ERR(t->unwind);
		t->unwind = NULL;
		goto fail;
	}

	for (i = 0; i < t->map.nregions; i++) {
		const struct sprofil_region *r = &in[t->map.region[i].id];

		err = buffer_range(t, i, r->base, r->size);
		if (err)
			goto fail;
	}
	nranges = t->map.nregions;
	/* Only the first bucket of the overflow bin is ever counted. */
	if (t->map.overflow >= 0) {
		err = buffer_range(t, nranges++, in[t->map.overflow].base,
				   1u << t->map.shift);
		if (err)
			goto fail;
	}
	if (nodes) {
		err = buffer_range(t, nranges++, args->callers,
				   spc_table_bytes(nodes));
		if (err)
			goto fail;
	}
	pages = 0;
	for (i = 0; i < nranges; i++)
		pages += t->run[i].npages;
	/* More than RAM can never be pinned: fail before allocating. */
	err = -ENOMEM;
	if (pages > totalram_pages())
		goto fail;
	t->pages = kvcalloc(pages, sizeof(*t->pages),
			    SPROFIL_GFP | __GFP_NOWARN);
	if (nranges && !t->pages)
		goto fail;
	pages = merge_runs(t, nranges);
	err = charge_pinned(t, pages);
	if (err)
		goto fail;

	for (i = 0; i < t->nruns; i++) {
		err = run_pin(&t->run[i]);
		if (err)
			goto fail;
	}
	for (i = 0; i < t->map.nregions; i++) {
		const struct sprofil_region *r = &in[t->map.region[i].id];

		buffer_place(t, &t->buffer[i], r->base, r->size);
	}
	if (t->map.overflow >= 0)
		buffer_place(t, &t->overflow, in[t->map.overflow].base,
			     1u << t->map.shift);
	if (nodes) {
		buffer_place(t, &t->callers, args->callers,
			     spc_table_bytes(nodes));
		t->spc.hdr = t->callers.buckets;
		t->spc.node = t->callers.buckets + sizeof(*t->spc.hdr);
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
	return buffer_overlaps(&t->overflow, start, end) ||
	       buffer_overlaps(&t->callers, start, end);
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
	if (buffer_overlaps(&t->callers, start, end))
		WRITE_ONCE(t->callers.off, true);
}

/*
 * The page the process would find at @addr of @vma, found without
 * faulting: the one its page tables map or, where a shared file
 * mapping's entry was cleared (reclaim unmaps pinned pages too), the
 * page cache's, which a fault would map.  NULL if there is none; else a
 * reference the caller puts.
 *
 * FOLL_NOFAULT: a fault here could wait on a userfaultfd or a FUSE
 * server the user holds, and nothing can wake or kill a worker.
 * FOLL_FORCE, on a read, follows NUMA-hinting entries, which 6.1 would
 * otherwise fault on (6.12 follows them unless asked not to).
 */
static struct page *page_seen(struct mm_struct *mm,
			      struct vm_area_struct *vma, unsigned long addr)
{
	unsigned int flags = FOLL_NOFAULT | FOLL_FORCE;
	struct page *page;
	long got;

#ifdef SPROFIL_GUP_REMOTE_NO_VMAS
	got = get_user_pages_remote(mm, addr, 1, flags, &page, NULL);
#else
	got = get_user_pages_remote(mm, addr, 1, flags, &page, NULL, NULL);
#endif
	if (got == 1)
		return page;
	if (!(vma->vm_flags & VM_SHARED) || !vma->vm_file ||
	    is_vm_hugetlb_page(vma))
		return NULL;
	return find_get_page(vma->vm_file->f_mapping,
			     linear_page_index(vma, addr));
}

/*
 * True if the process still sees our pinned pages at the buffer's
 * address, in a writable mapping.  After munmap, mprotect to read-only,
 * MADV_DONTNEED or a remap, the mapping is gone or read-only, or the
 * address shows no page or another page than the one we pinned.  A page
 * mapped read-only in a writable mapping (write-protected for dirty
 * tracking or by userfaultfd) still counts: it is the page the process
 * writes once its fault is served.  Called with the mmap lock held.
 */
static bool buffer_intact(struct sprofil_buffer *b, struct mm_struct *mm)
{
	unsigned long addr = b->base & PAGE_MASK;
	struct vm_area_struct *vma = NULL;
	struct page *page;
	unsigned long i;
	bool same;

	for (i = 0; i < b->npages; i++, addr += PAGE_SIZE) {
		if (!vma || addr >= vma->vm_end)
			vma = vma_lookup(mm, addr);
		if (!vma || !(vma->vm_flags & VM_WRITE))
			return false;
		page = page_seen(mm, vma, addr);
		same = page == b->pages[i];
		if (page)
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
 *
 * Nothing here waits on the user: the pages are looked up without
 * faulting, and the mmap lock is only tried (a writer can be queued
 * behind a reader waiting on a FUSE server).  Returns false if the lock
 * was busy: the caller tries again later.
 */
bool sprofil_table_recheck(struct sprofil_table *t, struct mm_struct *mm)
{
	u32 i;

	if (!mmget_not_zero(mm))
		return true;
	if (!mmap_read_trylock(mm)) {
		mmput_async(mm);
		return false;
	}
	for (i = 0; i < t->map.nregions; i++)
		if (!READ_ONCE(t->buffer[i].off) &&
		    !buffer_intact(&t->buffer[i], mm))
			WRITE_ONCE(t->buffer[i].off, true);
	if (t->overflow.npages && !READ_ONCE(t->overflow.off) &&
	    !buffer_intact(&t->overflow, mm))
		WRITE_ONCE(t->overflow.off, true);
	if (t->callers.npages && !READ_ONCE(t->callers.off) &&
	    !buffer_intact(&t->callers, mm))
		WRITE_ONCE(t->callers.off, true);
	mmap_read_unlock(mm);
	/*
	 * Dropping the last user here would run our release callback, which
	 * waits for the session lock the caller holds: let a worker do it.
	 */
	mmput_async(mm);
	return true;
}

u32 sprofil_table_regions_off(struct sprofil_table *t)
{
	u32 i, off = 0;

	for (i = 0; i < t->map.nregions; i++)
		off += READ_ONCE(t->buffer[i].off);
	return off;
}
