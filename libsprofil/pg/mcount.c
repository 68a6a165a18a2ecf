// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The call-arc table behind mcount: sp_mcount() counts one call from
 * @frompc (a return address in the caller) to @selfpc (a pc just inside
 * the callee), for every thread at once and from signal handlers.
 *
 * glibc guards its table with one busy flag and drops the arc of every
 * thread that finds it taken, and sizes it once from the executable's
 * text, so a multithreaded profile, or one with many arcs or -pg shared
 * libraries, loses calls.  Here the table grows, with no lock and no
 * allocation on the mcount path: it is a lock-free split-ordered list
 * (Shalev and Shavit's extensible hash table), in address space reserved
 * once and committed by the kernel page by page as it is first written:
 *  - every arc is a 32-byte node, bump-allocated from the node arena in
 *    the order arcs are first seen, so the pages in use are dense;
 *  - all nodes are on one singly linked list sorted by the bit-reversed
 *    hash of the arc ("split order"); a new node is linked in with one
 *    compare-and-swap on its predecessor's next, and nodes never leave
 *    the list, so a walk never meets a freed node and there is no ABA;
 *  - bucket b is a dummy link, the b-th of an array, whose key is
 *    reverse(b), so the bucket's arcs follow it on the list.  When there
 *    are twice as many arcs as buckets the number of buckets doubles (one
 *    compare-and-swap): a new bucket's dummy is linked in after its
 *    parent bucket's (b without its top bit) the first time it is used,
 *    by the thread that claims it; the others walk from the parent's
 *    meanwhile.  The buckets in use are the first ones: dense too;
 *  - a thread or signal handler that finds a node half-linked never
 *    waits: the node is not on the list until its compare-and-swap
 *    succeeds.  Two that race to add the same arc both walk to the same
 *    place; the loser's compare-and-swap fails, it walks on, finds the
 *    winner's node and leaves its own unused (a spare slot per race);
 *  - counts are 64-bit atomic additions.
 *
 * The reservation holds SPROFIL_MAX_ARCS arcs (default and most: 2^28,
 * 268,435,456): no arc is lost below that many distinct arcs.  Beyond
 * it, or when the address space cannot be reserved, new arcs are counted
 * as lost and reported; the arcs already in keep counting.
 *
 * This runs where the compiler assumes no call, with only the integer
 * argument registers saved (mcount.S): libsprofil.mk builds this file
 * with -mgeneral-regs-only and no loop-to-memset patterns; every helper
 * the mcount path uses is always inlined, and it neither allocates nor
 * calls into libc (scripts/check-mcount checks the object).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>
#include "gmon.h"
#include "common/settings.h"

/* The bound on distinct arcs, and the most SPROFIL_MAX_ARCS may ask. */
#define ARC_MAX		268435456ul	/* 2^28 */
/* Smallest table a failing reservation halves down to. */
#define ARC_MIN		4096ul
/* Buckets at the start; arcs per bucket before the buckets double. */
#define ARC_FIRST_BUCKETS 1024u
#define ARC_LOAD	2

/*
 * A reference to a link: a node's index times two, or a bucket's number
 * times two plus one; 0 ends the list.  Node 0 is never used, bucket 0's
 * dummy is the head of the list (reference 1), always there.
 */
typedef uint32_t arc_ref;
#define ARC_HEAD	1u

struct arc_link {
	arc_ref next;
	/* Split-order key: odd for an arc, even (reverse(b)) for a dummy. */
	uint32_t key;
};

enum { DUMMY_UNLINKED, DUMMY_LINKING, DUMMY_LINKED };

struct arc_dummy {
	struct arc_link link;
	uint32_t state;			/* DUMMY_*, its claim word */
};

struct arc_node {
	struct arc_link link;
	uintptr_t from;
	uintptr_t self;
	uint64_t count;
};

/* One reservation: the buckets, then the nodes. */
static void *arc_area;			/* set once, never unmapped */
static size_t arc_area_size;
static struct arc_dummy *arc_buckets;
static struct arc_node *arc_nodes;
static size_t arc_max;			/* distinct arcs that always fit */
static uint32_t arc_max_buckets;	/* a power of two */
static size_t arc_node_cap;

static size_t arc_nodes_used;		/* next node to hand out */
static uint32_t arc_size;		/* buckets in use, a power of two */
static size_t arc_linked;		/* arcs on the list */
static uint64_t arc_lost;		/* calls not counted: table full */
static int arc_on;			/* sp_mcount() counts */

void sp_mcount(uintptr_t frompc, uintptr_t selfpc)
	__attribute__((visibility("hidden")));

static __always_inline uint32_t reverse32(uint32_t x)
{
	x = __builtin_bswap32(x);
	x = (x & 0x0f0f0f0fu) << 4 | (x >> 4 & 0x0f0f0f0fu);
	x = (x & 0x33333333u) << 2 | (x >> 2 & 0x33333333u);
	return (x & 0x55555555u) << 1 | (x >> 1 & 0x55555555u);
}

static __always_inline struct arc_link *link_of(arc_ref ref)
{
	return ref & 1 ? &arc_buckets[ref >> 1].link :
			 &arc_nodes[ref >> 1].link;
}

/*
 * The next free index below @cap, or 0 when none is left.  The counter
 * is read before it is bumped, so failed attempts cannot wrap it.
 */
static __always_inline size_t take_slot(size_t *used, size_t cap)
{
	size_t i;

	if (__atomic_load_n(used, __ATOMIC_RELAXED) >= cap)
		return 0;
	i = __atomic_fetch_add(used, 1, __ATOMIC_RELAXED);
	return i < cap ? i : 0;
}

/* A fresh, unlinked node for the arc, with @key; 0 if full. */
static __always_inline arc_ref new_node(uint32_t key, uintptr_t from,
					uintptr_t self)
{
	struct arc_node *n;
	size_t i;

	/*
	 * The bound is on arcs, not nodes: the spare nodes are for races.
	 * (Threads racing here may link a few arcs more.)
	 */
	if (__atomic_load_n(&arc_linked, __ATOMIC_RELAXED) >= arc_max)
		return 0;
	i = take_slot(&arc_nodes_used, arc_node_cap);
	if (!i)
		return 0;
	/* Fresh memory: the count is 0 already. */
	n = &arc_nodes[i];
	n->link.key = key;
	n->from = from;
	n->self = self;
	return (arc_ref)(i << 1);
}

/*
 * The link with @key (and, for an arc, @from and @self) on the list,
 * walking from @start, whose key is not above @key; if it is not there,
 * @fresh (a claimed dummy) or a new node is linked in (*@linked set).
 * 0 when it is not there and there is no room.
 */
static __always_inline arc_ref find_or_link(arc_ref start, uint32_t key,
					    uintptr_t from, uintptr_t self,
					    arc_ref fresh, bool *linked)
{
	struct arc_link *prev = link_of(start), *l;
	struct arc_node *n;
	arc_ref cur;

	cur = __atomic_load_n(&prev->next, __ATOMIC_ACQUIRE);
	for (;;) {
		while (cur) {
			l = link_of(cur);
			if (l->key > key)
				break;
			if (l->key == key) {
				/* Equal keys are both arcs or both dummies. */
				if (!(key & 1))
					return cur;
				n = &arc_nodes[cur >> 1];
				if (n->from == from && n->self == self)
					return cur;
			}
			prev = l;
			cur = __atomic_load_n(&l->next, __ATOMIC_ACQUIRE);
		}
		if (!fresh) {
			fresh = new_node(key, from, self);
			if (!fresh)
				return 0;
		}
		__atomic_store_n(&link_of(fresh)->next, cur, __ATOMIC_RELAXED);
		/* Release: whoever reaches fresh sees its key and arc. */
		if (__atomic_compare_exchange_n(&prev->next, &cur, fresh, false,
						__ATOMIC_RELEASE,
						__ATOMIC_ACQUIRE)) {
			*linked = true;
			return fresh;
		}
		/* Something was linked after prev: cur is it, walk on. */
	}
}

/*
 * Where bucket @b's arcs start: its dummy, linked in on first use after
 * its parent's, the dummy of b without its top bit (which lies within a
 * 2^-k part of the list before it, k the parent's bits).  While another
 * thread, or the code a signal handler interrupted, is linking a dummy,
 * the walk starts at its parent's instead, never waits: a longer walk,
 * to the same arcs.
 */
static __always_inline arc_ref bucket_start(uint32_t b)
{
	arc_ref pref = ARC_HEAD, ref;
	uint32_t p = 0, q, bit, st;
	struct arc_dummy *d;
	bool linked;

	if (!b)
		return ARC_HEAD;
	if (__atomic_load_n(&arc_buckets[b].state, __ATOMIC_ACQUIRE) ==
	    DUMMY_LINKED)
		return b << 1 | 1;
	/* b's parents are b less its top bits: 0, then each low bit in. */
	for (bit = 1; bit <= b; bit <<= 1) {
		if (!(b & bit))
			continue;
		q = p | bit;
		ref = q << 1 | 1;
		d = &arc_buckets[q];
		st = __atomic_load_n(&d->state, __ATOMIC_ACQUIRE);
		if (st == DUMMY_UNLINKED &&
		    __atomic_compare_exchange_n(&d->state, &st, DUMMY_LINKING,
						false, __ATOMIC_ACQUIRE,
						__ATOMIC_ACQUIRE)) {
			d->link.key = reverse32(q);
			find_or_link(pref, d->link.key, 0, 0, ref, &linked);
			st = DUMMY_LINKED;
			__atomic_store_n(&d->state, st, __ATOMIC_RELEASE);
		}
		if (st != DUMMY_LINKED)
			return pref;
		p = q;
		pref = ref;
	}
	return pref;
}

/*
 * Adds @count calls to the arc (@from, @self), linking it in if new.
 * Returns false when there is no room for it (nothing added).
 */
static __always_inline bool arc_add(uintptr_t from, uintptr_t self,
				    uint64_t count)
{
	uint32_t key, size;
	bool linked = false;
	arc_ref ref;
	size_t n;

	/*
	 * Fibonacci hashing of both ends (call sites of one callee spread):
	 * its top bits are the well mixed ones, so they are the key's top
	 * bits, which pick the bucket (the key's low bits, reversed).
	 */
	key = ((from ^ (self * 0x9e3779b97f4a7c15ull)) *
	       0x9e3779b97f4a7c15ull) >> 32 | 1;
	/* A stale size is fine: a smaller one's bucket holds the arc too. */
	size = __atomic_load_n(&arc_size, __ATOMIC_RELAXED);
	ref = bucket_start(reverse32(key) & (size - 1));
	ref = find_or_link(ref, key, from, self, 0, &linked);
	if (!ref)
		return false;
	__atomic_fetch_add(&arc_nodes[ref >> 1].count, count,
			   __ATOMIC_RELAXED);
	if (!linked)
		return true;
	n = __atomic_fetch_add(&arc_linked, 1, __ATOMIC_RELAXED) + 1;
	if (n > (size_t)size * ARC_LOAD && size < arc_max_buckets)
		/* One thread doubles it; the others see the new size. */
		__atomic_compare_exchange_n(&arc_size, &size, size * 2, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	return true;
}

void sp_mcount(uintptr_t frompc, uintptr_t selfpc)
{
	/* Acquire: the reservation made before arc_on was raised is seen. */
	if (!__atomic_load_n(&arc_on, __ATOMIC_ACQUIRE))
		return;
	if (!arc_add(frompc, selfpc, 1))
		__atomic_fetch_add(&arc_lost, 1, __ATOMIC_RELAXED);
}

static bool in_range(uintptr_t pc, uintptr_t low, uintptr_t high)
{
	return pc >= low && pc < high;
}

/*
 * Each arc's count is taken by an atomic exchange and added to the moved
 * arc, so a snapshot racing with the move sees every call once.  Nodes
 * linked meanwhile are met by the walk too, but their moved ends lie
 * outside [low, high) (gmon.h), so nothing is moved twice.
 */
void sp_arcs_move(uintptr_t low, uintptr_t high, uintptr_t delta)
{
	struct arc_node *node;
	uintptr_t from, self;
	arc_ref ref;
	uint64_t c;

	if (!arc_area)
		return;
	for (ref = __atomic_load_n(&link_of(ARC_HEAD)->next, __ATOMIC_ACQUIRE);
	     ref; ref = __atomic_load_n(&link_of(ref)->next, __ATOMIC_ACQUIRE)) {
		if (ref & 1)
			continue;
		node = &arc_nodes[ref >> 1];
		from = node->from;
		self = node->self;
		if (!in_range(from, low, high) && !in_range(self, low, high))
			continue;
		c = __atomic_exchange_n(&node->count, 0, __ATOMIC_RELAXED);
		if (!c)
			continue;
		if (in_range(from, low, high))
			from += delta;
		if (in_range(self, low, high))
			self += delta;
		/*
		 * No room for the moved arc (the table is full): the calls
		 * stay where they were, which the writer still maps to the
		 * module through its last place, as before moves existed.
		 */
		if (!arc_add(from, self, c))
			__atomic_fetch_add(&node->count, c, __ATOMIC_RELAXED);
	}
}

static size_t page_round(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (n + page - 1) / page * page;
}

/* The layout of a reservation for @max arcs; its size in bytes. */
static size_t arcs_layout(size_t max)
{
	size_t buckets = ARC_FIRST_BUCKETS;

	while (buckets * 2 * ARC_LOAD <= max)
		buckets *= 2;
	arc_max = max;
	arc_max_buckets = (uint32_t)buckets;
	/* Spare nodes for the races that leave one unused (see above). */
	arc_node_cap = max + max / 64 + 64;
	return page_round(buckets * sizeof(struct arc_dummy)) +
	       page_round(arc_node_cap * sizeof(struct arc_node));
}

static void arcs_place(void *area)
{
	arc_area = area;
	arc_buckets = area;
	arc_nodes = (struct arc_node *)((char *)area +
		page_round(arc_max_buckets * sizeof(struct arc_dummy)));
}

/*
 * The counters of an empty table (its memory being zero: bucket 0's
 * dummy, key 0, is the whole list).
 */
static void arcs_empty(void)
{
	arc_nodes_used = 1;		/* node 0 would be reference 0 */
	arc_size = arc_max_buckets > ARC_FIRST_BUCKETS ? ARC_FIRST_BUCKETS :
							 arc_max_buckets;
	arc_linked = 0;
	arc_lost = 0;
}

/* SPROFIL_MAX_ARCS, or ARC_MAX. */
static size_t arcs_wanted(void)
{
	const char *s = sp_setting("SPROFIL_MAX_ARCS");
	unsigned long long v;
	char *end;

	if (!s)
		return ARC_MAX;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < 1 || v > ARC_MAX) {
		fprintf(stderr, "libsprofil: SPROFIL_MAX_ARCS=%s is not a number of arcs from 1 to %lu: %lu it is\n",
			s, ARC_MAX, ARC_MAX);
		return ARC_MAX;
	}
	return v;
}

/*
 * Reserves the address space for the arcs: SPROFIL_MAX_ARCS of them, or
 * as many as the address space (RLIMIT_AS, strict overcommit) allows,
 * halving down to ARC_MIN.  MAP_NORESERVE: nothing is committed until
 * mcount writes a page.
 */
int sp_arcs_init(void)
{
	size_t want = arcs_wanted(), max = want, size;
	void *p = MAP_FAILED;
	int err = ENOMEM;

	for (;;) {
		size = arcs_layout(max);
		p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p != MAP_FAILED)
			break;
		err = errno;
		if (max <= ARC_MIN)
			return -err;
		max = max / 2 > ARC_MIN ? max / 2 : ARC_MIN;
	}
	if (max < want)
		fprintf(stderr, "libsprofil: room for %zu call arcs only, not %zu: %s\n",
			max, want, strerror(err));
	arc_area_size = size;
	arcs_place(p);
	arcs_empty();
	return 0;
}

void sp_arcs_enable(int on)
{
	__atomic_store_n(&arc_on, on && arc_area, __ATOMIC_RELEASE);
}

/*
 * With nobody in sp_mcount() (a fork child, or before counting again):
 * forget every arc.  A fresh mapping over the old one is zero without
 * touching every page, and gives the committed memory back.
 */
void sp_arcs_reset(void)
{
	void *p;

	if (!arc_area)
		return;
	p = mmap(arc_area, arc_area_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE,
		 -1, 0);
	if (p == MAP_FAILED) {
		/* Keep the old arcs rather than profile nothing. */
		return;
	}
	arcs_empty();
}

/*
 * Reads (@reset false) or takes (@reset true) every count, walking the
 * list while other threads may link arcs in.  Taking is an atomic
 * exchange with 0, so a call counted concurrently lands either in this
 * snapshot or in the table for the next one, never in both or neither:
 * an arc linked behind the walk, or counted after its node was passed,
 * waits for the next snapshot.  Each arc is on the list once; arcs at 0
 * are left out.
 */
static ssize_t arcs_snapshot(struct sp_arc **arcs, uint64_t *lost,
			     size_t *limit, bool reset)
{
	struct sp_arc *a, *more;
	struct arc_node *node;
	size_t n = 0, cap;
	uint64_t c;
	arc_ref ref;

	*arcs = NULL;
	*limit = arc_max;
	*lost = reset ? __atomic_exchange_n(&arc_lost, 0, __ATOMIC_RELAXED) :
			__atomic_load_n(&arc_lost, __ATOMIC_RELAXED);
	if (!arc_area)
		return 0;
	cap = __atomic_load_n(&arc_linked, __ATOMIC_RELAXED) + 64;
	a = malloc(cap * sizeof(*a));
	if (!a) {
		if (reset)
			__atomic_fetch_add(&arc_lost, *lost, __ATOMIC_RELAXED);
		return -ENOMEM;
	}
	for (ref = __atomic_load_n(&link_of(ARC_HEAD)->next, __ATOMIC_ACQUIRE);
	     ref; ref = __atomic_load_n(&link_of(ref)->next, __ATOMIC_ACQUIRE)) {
		if (ref & 1)
			continue;
		node = &arc_nodes[ref >> 1];
		c = reset ? __atomic_exchange_n(&node->count, 0,
						__ATOMIC_RELAXED) :
			    __atomic_load_n(&node->count, __ATOMIC_RELAXED);
		if (!c)
			continue;
		if (n == cap) {
			more = realloc(a, 2 * cap * sizeof(*a));
			if (!more) {
				/* The rest waits for the next snapshot. */
				if (reset)
					__atomic_fetch_add(&node->count, c,
							   __ATOMIC_RELAXED);
				break;
			}
			a = more;
			cap *= 2;
		}
		a[n].from = node->from;
		a[n].self = node->self;
		a[n].count = c;
		n++;
	}
	*arcs = a;
	return n;
}

ssize_t sp_arcs_collect(struct sp_arc **arcs, uint64_t *lost, size_t *limit)
{
	return arcs_snapshot(arcs, lost, limit, false);
}

ssize_t sp_arcs_snapshot_reset(struct sp_arc **arcs, uint64_t *lost,
			       size_t *limit)
{
	return arcs_snapshot(arcs, lost, limit, true);
}
