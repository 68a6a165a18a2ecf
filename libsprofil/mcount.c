// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The call-arc table behind mcount: sp_mcount() counts one call from
 * @frompc (a return address in the caller) to @selfpc (a pc just inside
 * the callee), for every thread at once and from signal handlers.
 *
 * glibc guards its table with one busy flag and drops the arc of every
 * thread that finds it taken, so a multithreaded profile loses calls.
 * Here the table is a preallocated open-addressing hash of {from, self,
 * count} with linear probing and no lock at all:
 *  - a thread claims an empty slot with a compare-and-swap on its state,
 *    fills in the key and publishes it (release);
 *  - a slot another thread (or the code a signal handler interrupted) is
 *    still filling is skipped, never waited for: waiting could deadlock
 *    a handler on its own thread.  So the same arc can end up in two
 *    slots, and the dump sums them;
 *  - counts are 64-bit atomic additions.
 * Slots are never freed, so a chain never gets a hole: a miss at an
 * empty slot means the arc is not in the table.
 *
 * This runs where the compiler assumes no call, with only the integer
 * argument registers saved (mcount.S): libsprofil.mk builds this file
 * with -mgeneral-regs-only and no loop-to-memset patterns, and the mcount
 * path neither allocates nor calls into libc.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include "gmon.h"

enum { SLOT_EMPTY, SLOT_FILLING, SLOT_READY, SLOT_DEAD };

struct arc_slot {
	uintptr_t from;
	uintptr_t self;
	uint64_t count;
	uint32_t state;			/* SLOT_*, the slot's claim word */
};

static struct arc_slot *arc_table;	/* set once, never unmapped */
static size_t arc_nslots;		/* a power of two */
static unsigned int arc_shift;		/* 64 - log2(arc_nslots) */
static size_t arc_limit;		/* slots that may be claimed */
static size_t arc_used;			/* slots claimed so far */
static uint64_t arc_lost;		/* calls not counted: table full */
static int arc_on;			/* sp_mcount() counts */

void sp_mcount(uintptr_t frompc, uintptr_t selfpc)
	__attribute__((visibility("hidden")));

static void lose(void)
{
	__atomic_fetch_add(&arc_lost, 1, __ATOMIC_RELAXED);
}

void sp_mcount(uintptr_t frompc, uintptr_t selfpc)
{
	struct arc_slot *s;
	size_t i, n;
	uint32_t st;

	/* Acquire: the table set up before arc_on was raised is seen. */
	if (!__atomic_load_n(&arc_on, __ATOMIC_ACQUIRE))
		return;
	/* Fibonacci hashing of both ends: call sites of one callee spread. */
	i = ((frompc ^ (selfpc * 0x9e3779b97f4a7c15ull)) *
	     0x9e3779b97f4a7c15ull) >> arc_shift;
	for (n = 0; n < arc_nslots; n++, i = (i + 1) & (arc_nslots - 1)) {
		s = &arc_table[i];
		st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
		if (st == SLOT_EMPTY) {
			if (__atomic_load_n(&arc_used, __ATOMIC_RELAXED) >=
			    arc_limit)
				break;
			if (__atomic_compare_exchange_n(&s->state, &st,
							SLOT_FILLING, false,
							__ATOMIC_ACQUIRE,
							__ATOMIC_ACQUIRE)) {
				if (__atomic_fetch_add(&arc_used, 1,
						       __ATOMIC_RELAXED) >=
				    arc_limit) {
					/*
					 * Not back to EMPTY: that would
					 * cut the chains that skipped it.
					 */
					__atomic_store_n(&s->state, SLOT_DEAD,
							 __ATOMIC_RELEASE);
					break;
				}
				s->from = frompc;
				s->self = selfpc;
				s->count = 1;
				__atomic_store_n(&s->state, SLOT_READY,
						 __ATOMIC_RELEASE);
				return;
			}
			/* Lost the race: st now holds the slot's state. */
		}
		if (st == SLOT_READY && s->from == frompc && s->self == selfpc) {
			__atomic_fetch_add(&s->count, 1, __ATOMIC_RELAXED);
			return;
		}
	}
	lose();
}

/* Room for @limit arcs, at most 3/4 of the slots so chains stay short. */
int sp_arcs_init(size_t limit)
{
	size_t nslots = 1024, bytes;
	unsigned int bits = 10;
	void *p;

	while (nslots / 4 * 3 < limit) {
		nslots <<= 1;
		bits++;
	}
	if (__builtin_mul_overflow(nslots, sizeof(*arc_table), &bytes))
		return -ENOMEM;
	/* Anonymous memory is zero (SLOT_EMPTY) and paged in on use. */
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	arc_table = p;
	arc_nslots = nslots;
	arc_shift = 64 - bits;
	arc_limit = limit;
	return 0;
}

void sp_arcs_enable(int on)
{
	__atomic_store_n(&arc_on, on && arc_table, __ATOMIC_RELEASE);
}

/*
 * In a fork child (one thread, nobody in sp_mcount()): forget the
 * parent's arcs.  A fresh mapping over the old one is zero without
 * touching every page, and any slot a vanished thread was filling goes
 * with it.
 */
void sp_arcs_reset(void)
{
	void *p;

	if (!arc_table)
		return;
	p = mmap(arc_table, arc_nslots * sizeof(*arc_table),
		 PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (p == MAP_FAILED) {
		/* Keep the parent's arcs rather than profile nothing. */
		return;
	}
	arc_used = 0;
	arc_lost = 0;
}

static int arc_cmp(const void *a, const void *b)
{
	const struct sp_arc *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->self != y->self)
		return x->self < y->self ? -1 : 1;
	return 0;
}

/*
 * Reads (@reset false) or takes (@reset true) every count.  Taking is an
 * atomic exchange with 0, so a call counted concurrently lands either in
 * this snapshot or in the table for the next one, never in both or
 * neither.  A slot still being filled is not READY yet: its first call
 * is left for the next snapshot too.  Slots are kept (with count 0), so
 * chains stay intact; arcs taken at 0 are left out.
 */
static ssize_t arcs_snapshot(struct sp_arc **arcs, uint64_t *lost,
			     size_t *limit, bool reset)
{
	struct sp_arc *a;
	size_t i, n = 0, m;

	*arcs = NULL;
	if (reset)
		*lost = __atomic_exchange_n(&arc_lost, 0, __ATOMIC_RELAXED);
	else
		*lost = __atomic_load_n(&arc_lost, __ATOMIC_RELAXED);
	*limit = arc_limit;
	if (!arc_table)
		return 0;
	/* No more than arc_limit slots are ever READY. */
	a = malloc(arc_limit * sizeof(*a));
	if (!a)
		return -ENOMEM;
	for (i = 0; i < arc_nslots; i++) {
		struct arc_slot *s = &arc_table[i];

		if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != SLOT_READY)
			continue;
		if (n >= arc_limit)
			break;
		a[n].from = s->from;
		a[n].self = s->self;
		if (reset)
			a[n].count = __atomic_exchange_n(&s->count, 0,
							 __ATOMIC_RELAXED);
		else
			a[n].count = __atomic_load_n(&s->count,
						     __ATOMIC_RELAXED);
		if (a[n].count)
			n++;
	}
	/* One arc may sit in two slots (see above): sum them. */
	qsort(a, n, sizeof(*a), arc_cmp);
	for (i = 0, m = 0; i < n; i++) {
		if (m && a[m - 1].from == a[i].from &&
		    a[m - 1].self == a[i].self)
			a[m - 1].count += a[i].count;
		else
			a[m++] = a[i];
	}
	*arcs = a;
	return m;
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
