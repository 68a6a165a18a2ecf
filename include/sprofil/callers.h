/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The caller table of sprofil, defined once: how a sample's user call
 * chain is walked and filed.
 *
 * The kernel module, the BPF program, the signal backend, the library's
 * fold and dump code, the analyzer and the tests all include this header,
 * so a chain is cut and filed the same way on every backend, as
 * mapping.h does for buckets.  Pure code: no allocation, no locking, no
 * libc; compiles in the kernel, in BPF C and in userland.
 *
 * The table is a calling context tree in a caller-owned buffer: a header,
 * then a power of two of 16-byte nodes in an open-addressed hash.  A node
 * is (pc, parent): the parent's node index, or SPC_ROOT for a chain's
 * outermost frame.  A chain [pc, ra1, ..., raN] (innermost first) is
 * filed from its outermost frame inward, one node per frame, and its
 * sample is counted in the node of the sampled pc.  Prefixes are shared,
 * so a table holds many chains in little memory.  Why this structure
 * (and not one entry per whole chain, or per arc): docs/callers.md.
 *
 * Rules (docs/callers.md):
 *  - counts are exact until the table is full: a node that finds no
 *    free slot within SPC_MAX_PROBES is not added and its sample is
 *    counted in hdr.lost, never filed elsewhere;
 *  - nodes are never removed or moved, and a published node's pc and
 *    parent never change, so concurrent filers need one compare-and-swap
 *    per new node and readers need no lock;
 *  - a node index comes only from the filer's own hash and mask, never
 *    from the buffer, so a caller scribbling on its table can only spoil
 *    its own data: nothing is written outside the buffer;
 *  - chains cut short (depth limit, a frame that breaks the walk rules,
 *    a return address in unknown code that is not the outermost frame)
 *    are filed under the node SPC_PC_TRUNCATED at the top, and counted
 *    in hdr.truncated;
 *  - only user addresses (spc_user_pc()) are frames: no chain holds a
 *    marker pc below its top, whoever filed it;
 *  - with SPROFIL_THREADS, every chain is filed under a top node of its
 *    thread, pc SPC_PC_THREAD + the thread id, above everything else
 *    (the truncated node too): each thread's tree is the subtree of its
 *    node, and the process's is their union.
 */
#ifndef SPROFIL_CALLERS_H
#define SPROFIL_CALLERS_H

#if defined(__KERNEL__)
#include <linux/atomic.h>
#include <linux/errno.h>
#include <uapi/linux/sprofil.h>
#else
/* Userland and BPF C: the uapi header and errno values are the same. */
#include <errno.h>
#include <linux/sprofil.h>
#endif

/*
 * The atomics of the filing, on the caller's buffer (in the module: its
 * vmapped pages).  A node's parent word is published with release order
 * after its pc, and read with acquire order before it.  BPF has no
 * ordered loads before 6.x's load-acquire; it runs on the host's CPU,
 * whose loads and stores are ordered (x86 TSO), so a compiler barrier is
 * all it needs.
 */
static inline __u32 spc_load_acquire(__u32 *p)
{
#if defined(__KERNEL__)
	return smp_load_acquire(p);	/* pairs with spc_store_release() */
#elif defined(__bpf__)
	__u32 v = *p;

	asm volatile("" ::: "memory");
	return v;
#else
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
#endif
}

/* A load that other threads' atomics may race with: no order. */
static inline __u32 spc_load_relaxed(__u32 *p)
{
#if defined(__KERNEL__)
	return READ_ONCE(*p);
#elif defined(__bpf__)
	return *p;		/* the compare-and-swap after it checks it */
#else
	return __atomic_load_n(p, __ATOMIC_RELAXED);
#endif
}

static inline void spc_store_release(__u32 *p, __u32 v)
{
#if defined(__KERNEL__)
	smp_store_release(p, v);	/* pairs with spc_load_acquire() */
#elif defined(__bpf__)
	asm volatile("" ::: "memory");
	*p = v;
#else
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
#endif
}

/* Compare-and-swap, fully ordered; returns the value found. */
static inline __u32 spc_cmpxchg(__u32 *p, __u32 old, __u32 new)
{
#if defined(__KERNEL__)
	return cmpxchg(p, old, new);
#else
	return __sync_val_compare_and_swap(p, old, new);
#endif
}

static inline void spc_add64(__u64 *p, __u64 n)
{
#if defined(__KERNEL__)
	atomic64_add(n, (atomic64_t *)p);
#else
	__sync_fetch_and_add(p, n);
#endif
}

#define SPC_MAGIC		0x43505300u	/* "\0SPC" little-endian */

/* Node.parent values besides a node index + SPC_PARENT_BIAS. */
#define SPC_FREE		0u		/* slot never used */
#define SPC_ROOT		1u		/* parent of an outermost frame */
#define SPC_PARENT_BIAS		2u
#define SPC_BUSY		0xffffffffu	/* slot claimed, being written */

/* The pc of the top node under which cut chains are filed. */
#define SPC_PC_TRUNCATED	1ull

/*
 * The pc of a thread's top node is SPC_PC_THREAD + its thread id (as
 * gettid() gives it; the bpf backend's, in the initial pid namespace):
 * in the kernel's half of the address space, never a user pc.
 */
#define SPC_PC_THREAD		0xffffffff00000000ull

/*
 * The addresses a return address can have: above the first page, never
 * mapped for code, and below the end of the user half of x86-64 with
 * five-level paging (2^56; 2^47 with four).  The walk records no other
 * word as a frame, which also keeps every chain off the marker pcs above
 * (SPC_PC_TRUNCATED is below, SPC_PC_THREAD above): a program built
 * without frame pointers uses the register for data, and the "return
 * address" of such a record was 1, or -15, or a stack address.
 */
#define SPC_USER_PC_MIN		0x1000ull
#define SPC_USER_PC_END		0x0100000000000000ull

static inline int spc_user_pc(__u64 pc)
{
	return pc >= SPC_USER_PC_MIN && pc < SPC_USER_PC_END;
}

static inline __u64 spc_thread_pc(__u32 tid)
{
	return SPC_PC_THREAD + tid;
}

/* Whether @pc is a thread's top node; its thread id in *@tid. */
static inline int spc_pc_thread(__u64 pc, __u32 *tid)
{
	if ((pc & SPC_PC_THREAD) != SPC_PC_THREAD)
		return 0;
	*tid = (__u32)pc;
	return 1;
}

#define SPC_MAX_PROBES		16	/* slots tried per node */
#define SPC_BUSY_SPINS		64	/* re-reads of a slot being written */
#define SPC_MIN_NODES		16
#define SPC_MAX_NODES		0x10000000u	/* 2^28: 4 GiB of nodes */

/* At the start of the caller's buffer; 64 bytes. */
struct spc_header {
	__u32 magic;		/* SPC_MAGIC */
	__u32 nodes;		/* slots, a power of two */
	__u32 depth;		/* most frames kept per chain */
	__u32 reserved;
	__u64 samples;		/* samples filed, complete or truncated */
	__u64 truncated;	/* of them, filed with a cut chain */
	__u64 lost;		/* samples not filed: the table is full */
	__u64 busy;		/* samples not filed: a slot stayed busy */
	__u64 reserved2[2];
};

/* One frame of one calling context; 16 bytes. */
struct spc_node {
	__u64 pc;		/* sampled pc (a leaf) or return address */
	__u32 parent;		/* SPC_ROOT, or parent index + SPC_PARENT_BIAS */
	__u32 count;		/* samples whose chain ends here; saturates */
};

/* The filer's own view of a table: never read back from the buffer. */
struct spc_table {
	struct spc_header *hdr;
	struct spc_node *node;
	__u32 mask;		/* nodes - 1 */
	__u32 depth;
};

/* Bytes of a table of @nodes nodes. */
static inline __u64 spc_table_bytes(__u32 nodes)
{
	return sizeof(struct spc_header) + (__u64)nodes * sizeof(struct spc_node);
}

/*
 * The geometry of a caller's buffer of @bytes for chains of @depth frames:
 * *nodes is the largest power of two that fits.  Returns 0 or -EINVAL
 * (depth out of [1, SPROFIL_MAX_DEPTH], or room for fewer than
 * SPC_MIN_NODES nodes).  Larger buffers are fine: the tail is unused.
 */
static inline int spc_geometry(__u64 bytes, __u32 depth, __u32 *nodes)
{
	__u64 n;
	__u32 p = SPC_MIN_NODES;

	if (depth < 1 || depth > SPROFIL_MAX_DEPTH)
		return -EINVAL;
	if (bytes < spc_table_bytes(SPC_MIN_NODES))
		return -EINVAL;
	n = (bytes - sizeof(struct spc_header)) / sizeof(struct spc_node);
	while (p < SPC_MAX_NODES && (__u64)p * 2 <= n)
		p *= 2;
	*nodes = p;
	return 0;
}

/*
 * The slot a node (@parent, @pc) is first looked for in: the high half
 * of a product, which depends on every bit of both.  Recursion files one
 * pc under many parents whose indexes differ in their low bits only; a
 * hash that moved the parent's bits above the mask put them all in one
 * slot, and a chain through 40 calls of one function did not fit.
 */
static inline __u32 spc_hash(__u64 pc, __u32 parent)
{
	__u64 h = (pc ^ (parent * 0xff51afd7ed558ccdull)) *
		  0x9e3779b97f4a7c15ull;

	return (__u32)(h >> 32);
}

/*
 * Hooks an includer may define first: SPC_NODE(t, i), the node of index
 * i (BPF: a lookup in its node map, which may return NULL); and
 * SPC_COUNTED(t, i), told which node spc_file() counted a sample in (BPF
 * flags it for the library's fold).
 */
#ifndef SPC_NODE
#define SPC_NODE(t, i)	(&(t)->node[(i)])
#endif

/* Results of spc_node_find_add() besides a node index. */
#define SPC_FULL	(-1)
#define SPC_STUCK	(-2)

/*
 * Index of the node (@parent, @pc), added if new; SPC_FULL when no slot
 * within SPC_MAX_PROBES is free, SPC_STUCK when a slot stayed busy (its
 * writer was interrupted, or preempted in userland).
 */
static inline long spc_node_find_add(const struct spc_table *t, __u32 parent,
				     __u64 pc)
{
	__u32 slot = spc_hash(pc, parent) & t->mask;
	int probe, spin;

	for (probe = 0; probe < SPC_MAX_PROBES; probe++) {
		struct spc_node *n = SPC_NODE(t, slot);
		__u32 p;

		if (!n)
			return SPC_FULL;
		p = spc_load_acquire(&n->parent);
		if (p == SPC_FREE) {
			p = spc_cmpxchg(&n->parent, SPC_FREE, SPC_BUSY);
			if (p == SPC_FREE) {
				n->pc = pc;
				spc_store_release(&n->parent, parent);
				return slot;
			}
		}
		for (spin = 0; p == SPC_BUSY && spin < SPC_BUSY_SPINS; spin++) {
#if defined(__KERNEL__)
			cpu_relax();
#endif
			p = spc_load_acquire(&n->parent);
		}
		if (p == SPC_BUSY)
			return SPC_STUCK;
		if (p == parent && n->pc == pc)
			return slot;
		slot = (slot + 1) & t->mask;
	}
	return SPC_FULL;
}

/*
 * The per-frame step of spc_file(): BPF defines it to a global function
 * that calls spc_node_find_add(), so the verifier checks the probe loop
 * once instead of once per frame.
 */
#ifndef SPC_FIND_ADD
#define SPC_FIND_ADD(t, parent, pc)	spc_node_find_add((t), (parent), (pc))
#endif

/* Adds @n samples to a node's count, saturating at 2^32 - 1. */
static inline void spc_node_count(struct spc_node *node, __u32 n)
{
	__u32 old = spc_load_relaxed(&node->count), seen, next;
	int i;

	/* Bounded for BPF; a loser this often has lost to as many adds. */
	for (i = 0; i < 64; i++) {
		next = n > 0xffffffffu - old ? 0xffffffffu : old + n;
		if (next == old)
			return;
		seen = spc_cmpxchg(&node->count, old, next);
		if (seen == old)
			return;
		old = seen;
	}
}

/*
 * Files @n samples of the chain @chain[0..@len) (chain[0] the sampled pc,
 * chain[len - 1] the outermost frame); @truncated when the walk was cut;
 * @top, when not 0, the pc of a node above it all (a thread's,
 * spc_thread_pc()).  Returns 0, or SPC_FULL / SPC_STUCK after counting
 * the samples as lost.
 *
 * Only user addresses are filed as frames (spc_user_pc()), so that no
 * frame is ever read as a marker: a chain holding another word is cut
 * there, and filed as the truncated chain of the frames inside it (a
 * sampled pc that is none leaves no frame: the sample is counted in the
 * truncated node itself).  spc_walk() records none; other filers may.
 */
static inline int spc_file(const struct spc_table *t, const __u64 *chain,
			   __u32 len, int truncated, __u32 n, __u64 top)
{
	__u32 above = SPC_ROOT, parent, cut;
	struct spc_node *leaf;
	long slot = SPC_FULL;
	__u64 pc;
	int i;

	if (top) {
		slot = SPC_FIND_ADD(t, SPC_ROOT, top);
		if (slot < 0)
			goto lost;
		above = slot + SPC_PARENT_BIAS;
	}
	parent = above;
	if (truncated) {
		slot = SPC_FIND_ADD(t, above, SPC_PC_TRUNCATED);
		if (slot < 0)
			goto lost;
		parent = slot + SPC_PARENT_BIAS;
	}
	slot = SPC_FULL;
	for (i = (int)len - 1; i >= 0 && i < SPROFIL_MAX_DEPTH; i--) {
		/* The mask changes nothing but gives BPF's verifier a bound. */
		pc = chain[i & (SPROFIL_MAX_DEPTH - 1)];
		cut = !spc_user_pc(pc);
		/* What lies inside a word that is no frame: a cut chain. */
		slot = SPC_FIND_ADD(t, cut ? above : parent,
				    cut ? SPC_PC_TRUNCATED : pc);
		if (slot < 0)
			goto lost;
		truncated |= cut;
		parent = slot + SPC_PARENT_BIAS;
	}
	if (slot < 0)
		goto lost;
	/* Never NULL but from a BPF map lookup, which the verifier checks. */
	leaf = SPC_NODE(t, slot);
	if (!leaf)
		goto lost;
	spc_node_count(leaf, n);
#ifdef SPC_COUNTED
	/* A filer that folds its table later learns which node changed. */
	SPC_COUNTED(t, slot);
#endif
	spc_add64(&t->hdr->samples, n);
	if (truncated)
		spc_add64(&t->hdr->truncated, n);
	return 0;
lost:
	spc_add64(slot == SPC_STUCK ? &t->hdr->busy : &t->hdr->lost, n);
	return slot;
}

/*
 * The walk rules.  A walk starts from the interrupted user registers:
 * chain[0] is the sampled pc, fp the frame pointer, sp the stack pointer.
 * Each frame record at fp holds the caller's frame pointer and the return
 * address.  A record is read only if spc_frame_readable() allows it.
 */

/*
 * Whether the frame record at @fp may be read: 8-byte aligned, at or
 * above the interrupted @sp and, when @stack_end is known (not 0), below
 * it, and above the previous record @prev_fp (0 for the first), so that
 * every walk ends.
 */
static inline int spc_frame_readable(__u64 fp, __u64 prev_fp, __u64 sp,
				     __u64 stack_end)
{
	if (fp & 7 || fp < sp || fp + 16 < fp)
		return 0;
	if (stack_end && fp + 16 > stack_end)
		return 0;
	return !prev_fp || fp > prev_fp;
}

#ifdef SPC_READ_FRAME
/* How far into its callee a direct call may return from (the leaf rule). */
#define SPC_LEAF_SPAN		0x100000u	/* 1 MiB */

#ifdef SPC_READ_CODE
/*
 * The leaf rule.  gcc keeps no frame record in a function that needs no
 * stack, even with -fno-omit-frame-pointer and
 * -mno-omit-leaf-frame-pointer (gcc 12 on x86-64), and a sample on a
 * function's first instruction, or after its epilogue's pop, meets the
 * same state: fp is still the caller's, and the return address is the
 * word at sp.  Walked from fp alone, the chain would lose the caller.
 * So when the word at sp is a return address that a direct call (e8
 * rel32, the five bytes before it) made into code at or below pc, no
 * further than SPC_LEAF_SPAN, it is taken as the first caller.
 *
 * A function with a frame has its locals or saved registers at sp, but
 * a slot it reserved and never wrote (alignment, an unused local) keeps
 * what an earlier, deeper call left there, often such a return address.
 * So the record at fp is asked too: when its return address was made by
 * a direct call into code between the sp word's callee and pc, fp is the
 * frame of the function pc is in (its entry is the nearer one below pc)
 * and the word at sp is stale.  In a true frameless leaf the record at
 * fp is its caller's, whose entry cannot lie inside the leaf.  Indirect
 * calls and calls through a PLT are not recognized: their callers stay
 * unknown, as before.
 *
 * The hook: int SPC_READ_CODE(ctx, addr, __u8 buf[8]) reads the 8 bytes
 * at addr (user text) without faulting; 0, or nonzero if it cannot.
 */

/* The callee of the direct call that returns to @ret, or 0 if none. */
static inline __u64 spc_call_target(void *ctx, __u64 ret)
{
	__u8 code[8];
	__s32 rel;

	if (!spc_user_pc(ret) || !SPC_TEXT_KNOWN(ctx, ret) ||
	    SPC_READ_CODE(ctx, ret - 8, code) || code[3] != 0xe8)
		return 0;
	rel = (__s32)((__u32)code[4] | (__u32)code[5] << 8 |
		      (__u32)code[6] << 16 | (__u32)code[7] << 24);
	return ret + (__s64)rel;
}

static inline int spc_leaf_return(void *ctx, __u64 pc, __u64 fp, __u64 sp,
				  __u64 stack_end, __u64 *ret)
{
	__u64 rec[2], target, owner;

	if (!spc_frame_readable(sp, 0, sp, stack_end) ||
	    SPC_READ_FRAME(ctx, sp, rec))
		return 0;
	target = spc_call_target(ctx, rec[0]);
	if (!target || target > pc || pc - target >= SPC_LEAF_SPAN)
		return 0;
	*ret = rec[0];
	if (!spc_frame_readable(fp, 0, sp, stack_end) ||
	    SPC_READ_FRAME(ctx, fp, rec))
		return 1;
	owner = spc_call_target(ctx, rec[1]);
	return !(owner && owner >= target && owner <= pc);
}
#endif

/*
 * The walk itself, for the includer that defines two hooks:
 *   int SPC_READ_FRAME(ctx, fp, __u64 rec[2]): reads the record at fp
 *	without faulting or sleeping (rec[0] the caller's fp, rec[1] the
 *	return address); 0, or nonzero if it cannot;
 *   int SPC_TEXT_KNOWN(ctx, pc): whether pc lies in a text the session
 *	knows (a region that is not the overflow bin).
 * and, optionally, SPC_READ_CODE for the leaf rule above.
 * Fills @chain (room for @depth, at most SPROFIL_MAX_DEPTH) and *@len;
 * returns 1 if the chain was cut, 0 if it reached the outermost frame.
 *
 * A return address in unknown code (libc's start routines, a qsort()
 * calling back) is recorded and ends the walk: that code may not keep
 * frame pointers, so frames beyond it cannot be trusted.  The chain is
 * complete only if its last record says nothing lies beyond (a zero
 * frame pointer, or a zero return address, which is not recorded).  A
 * word that is no user address (spc_user_pc()) is not recorded and cuts
 * the chain: the record was none.
 */
static inline int spc_walk(void *ctx, __u64 pc, __u64 fp, __u64 sp,
			   __u64 stack_end, __u32 depth, __u64 *chain,
			   __u32 *len)
{
	__u64 prev = 0, rec[2];
	__u32 n = 1;
	int i, cut = 1;

	chain[0] = pc;
#ifdef SPC_READ_CODE
	if (depth > 1 && spc_leaf_return(ctx, pc, fp, sp, stack_end, &rec[1]))
		chain[n++] = rec[1];
#endif
	for (i = 1; i < SPROFIL_MAX_DEPTH; i++) {
		if (!fp) {
			cut = 0;
			break;
		}
		if (n >= depth || !spc_frame_readable(fp, prev, sp, stack_end) ||
		    SPC_READ_FRAME(ctx, fp, rec))
			break;
		if (!rec[1]) {
			cut = 0;
			break;
		}
		if (!spc_user_pc(rec[1]))
			break;
		/* n < depth: the mask only tells a verifier so. */
		chain[n++ & (SPROFIL_MAX_DEPTH - 1)] = rec[1];
		if (!SPC_TEXT_KNOWN(ctx, rec[1])) {
			cut = rec[0] != 0;
			break;
		}
		prev = fp;
		fp = rec[0];
	}
	if (i == SPROFIL_MAX_DEPTH && !fp)
		cut = 0;
	*len = n;
	return cut;
}
#endif /* SPC_READ_FRAME */

#endif /* SPROFIL_CALLERS_H */
