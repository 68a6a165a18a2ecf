// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The bpf backend's bucket counters: the program counts each bucket a
 * process hits in that process's hash (sprofil.bpf.c, sp_pcounts), whose
 * memory grows with the buckets hit rather than with the text (a dense
 * array of 64-bit counters took 8 bytes per bucket of every module: 22
 * MB for a shell, 119 MB resident for cc1).  Counts only grow: the fold
 * keeps what it saw of each counter (the seen table) and adds the
 * difference to the caller's bucket, saturating as the module does.
 *
 * Which counters to read: the program also writes each counted key into
 * a ring in the process's state, after counting it.  A fold reads the
 * keys written since its last pass, so its cost follows the samples, not
 * the buckets; every counter only when the ring was overrun (more keys
 * than it holds since the last pass) or, for the exact folds (stop, a
 * new set, sprofil_info(), sprofil_flush(), fork, exit), when a slot
 * the program claimed stays unwritten.  Reading every counter walks the
 * whole hash, a cost of its size: 12 % of a recorded tree of short
 * processes did that at every fold.  Called with sb_lock held.
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend_bpf_session.h"

/* Counters read per system call of a full pass. */
#define SB_BATCH	1024

/* The slot of @key in @t (key + 1 stored; 0 is free), or of its place. */
static size_t sb_seen_slot(const struct sb_seen *t, uint32_t key)
{
	size_t mask = t->cap - 1, i = (key * 0x9e3779b1u) & mask;

	while (t->key[i] && t->key[i] != key + 1)
		i = (i + 1) & mask;
	return i;
}

static int sb_seen_grow(struct sb_seen *t)
{
	struct sb_seen bigger = { .cap = t->cap ? 2 * t->cap : 1024 };
	size_t i, j;

	bigger.key = calloc(bigger.cap, sizeof(*bigger.key));
	bigger.value = calloc(bigger.cap, sizeof(*bigger.value));
	if (!bigger.key || !bigger.value) {
		free(bigger.key);
		free(bigger.value);
		return -ENOMEM;
	}
	for (i = 0; i < t->cap; i++) {
		if (!t->key[i])
			continue;
		j = sb_seen_slot(&bigger, t->key[i] - 1);
		bigger.key[j] = t->key[i];
		bigger.value[j] = t->value[i];
	}
	bigger.n = t->n;
	free(t->key);
	free(t->value);
	*t = bigger;
	return 0;
}

/* What the fold saw of counter @key so far: its place, or NULL (ENOMEM). */
static uint64_t *sb_seen_of(struct sb_seen *t, uint32_t key)
{
	size_t i;

	if (2 * (t->n + 1) > t->cap && sb_seen_grow(t))
		return NULL;
	i = sb_seen_slot(t, key);
	if (!t->key[i]) {
		t->key[i] = key + 1;
		t->value[i] = 0;
		t->n++;
	}
	return &t->value[i];
}

void sb_seen_free(struct sb_seen *t)
{
	free(t->key);
	free(t->value);
	memset(t, 0, sizeof(*t));
}

/*
 * Region of @set holding counter index @c of its half, or NULL: the
 * regions' counters are consecutive, in order.
 */
static struct sb_region *sb_region_of(struct sb_set *set, uint64_t c)
{
	uint32_t lo = 0, hi = set->map.nregions, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c < set->region[mid].first)
			hi = mid;
		else if (c >= set->region[mid].first + set->region[mid].nbuckets)
			lo = mid + 1;
		else
			return &set->region[mid];
	}
	return NULL;
}

/*
 * Counter @key reads @value: its growth goes into its bucket of @set (or
 * the misses of a region turned off), if @only is NULL or its region.
 * Counters of the other half (a retired set's late samples) are only
 * remembered.
 */
static void sb_take(struct sb_session *s, struct sb_set *set, uint32_t key,
		    uint64_t value, const struct sb_region *only)
{
	uint64_t base = set->k * s->half, *seen, n;
	uint32_t shift = set->map.shift;
	struct sb_region *r;

	r = key >= base && key < base + s->half ?
	    sb_region_of(set, key - base) : NULL;
	if (only && r != only)
		return;
	seen = sb_seen_of(&s->seen, key);
	if (!seen || value <= *seen) {
		/* No memory to remember it: counted once more, later. */
		return;
	}
	n = value - *seen;
	*seen = value;
	if (!r)
		return;
	if (r->off)
		set->misses_off += n;
	else
		set->saturated += sb_bucket_add(r->base +
						((key - base - r->first)
						 << shift), shift, n);
}

/*
 * Reads every counter, in batches: each goes to @take with @arg.  Stops
 * at the first error but ENOENT, the end.
 */
static void sb_each_counter(struct sb_session *s,
			    void (*take)(struct sb_session *, uint32_t,
					 uint64_t, void *), void *arg)
{
	uint32_t keys[SB_BATCH], out, i;
	uint64_t values[SB_BATCH];
	bool first = true;
	uint32_t count;
	int err, saved = errno;

	/* The caller's errno is not ours to change (ENOENT ends a pass). */
	do {
		count = SB_BATCH;
		err = spb_map_lookup_batch(s->inner_fd[0], first ? NULL : &out,
					   &out, keys, values, &count);
		if (err && errno != ENOENT)
			break;
		for (i = 0; i < count; i++)
			take(s, keys[i], values[i], arg);
		first = false;
	} while (!err);
	errno = saved;
}

struct sb_take_all {
	struct sb_set *set;
	const struct sb_region *only;
};

static void sb_take_one(struct sb_session *s, uint32_t key, uint64_t value,
			void *arg)
{
	struct sb_take_all *a = arg;

	sb_take(s, a->set, key, value, a->only);
}

void sb_fold_region(struct sb_session *s, struct sb_set *set, uint32_t i)
{
	struct sb_take_all a = { .set = set, .only = &set->region[i] };

	sb_each_counter(s, sb_take_one, &a);
}

/* Every counter, in batches: the ring starts afresh. */
static void sb_full_pass(struct sb_session *s, struct sb_set *set)
{
	struct sb_take_all a = { .set = set };

	s->ring_tail = __atomic_load_n(&s->proc->ring_head, __ATOMIC_ACQUIRE);
	memset(s->proc->ring, 0, sizeof(s->proc->ring));
	sb_each_counter(s, sb_take_one, &a);
}

static int sb_key_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Re-reads of a slot claimed but not yet written, in an exact pass. */
#define SB_SLOT_WAITS	10000

/*
 * Reads the counters the ring names since the last pass.  A slot the
 * program claimed but has not written yet ends the pass, to be read
 * next time; when @exact, it is waited for a while (the program writes
 * it from an interrupt, at once), and if it stays empty, or the ring
 * was overrun, the pass fails: the caller then reads every counter.
 * 0, or -1 for a full pass.
 */
static int sb_ring_pass(struct sb_session *s, struct sb_set *set, bool exact)
{
	static uint32_t keys[SPB_RING];
	uint32_t head, n = 0, i, v, waits;
	int saved = errno;
	uint64_t value;

	head = __atomic_load_n(&s->proc->ring_head, __ATOMIC_ACQUIRE);
	if (head - s->ring_tail > SPB_RING)
		return -1;
	for (; s->ring_tail != head; s->ring_tail++) {
		uint32_t *slot = &s->proc->ring[s->ring_tail & (SPB_RING - 1)];

		v = __atomic_exchange_n(slot, 0, __ATOMIC_ACQ_REL);
		for (waits = 0; !v && exact && waits < SB_SLOT_WAITS; waits++) {
			sched_yield();
			v = __atomic_exchange_n(slot, 0, __ATOMIC_ACQ_REL);
		}
		if (!v)
			break;
		keys[n++] = v - 1;
	}
	qsort(keys, n, sizeof(*keys), sb_key_cmp);
	for (i = 0; i < n; i++) {
		if (i && keys[i] == keys[i - 1])
			continue;
		if (!spb_map_lookup(s->inner_fd[0], &keys[i], &value))
			sb_take(s, set, keys[i], value, NULL);
	}
	errno = saved;
	return exact && s->ring_tail != head ? -1 : 0;
}

void sb_fold_counters(struct sb_session *s, struct sb_set *set)
{
	if (sb_ring_pass(s, set, true))
		sb_full_pass(s, set);
}

void sb_fold_recent(struct sb_session *s, struct sb_set *set)
{
	if (sb_ring_pass(s, set, false))
		sb_full_pass(s, set);
}

static void sb_drop_one(struct sb_session *s, uint32_t key, uint64_t value,
			void *arg)
{
	uint64_t *k = arg, *seen;

	(void)value;
	if (key < *k * s->half || key >= (*k + 1) * s->half)
		return;
	if (spb_map_delete(s->inner_fd[0], &key))
		return;
	seen = sb_seen_of(&s->seen, key);
	if (seen)
		*seen = 0;
}

void sb_clear_half(struct sb_session *s, uint32_t k)
{
	uint64_t half = k;

	sb_each_counter(s, sb_drop_one, &half);
}
