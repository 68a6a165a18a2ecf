// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Reading a live caller table (include/sprofil/callers.h) for a profile
 * dump.  The table is an open-addressed hash: a node's parent may sit in
 * any slot, so the nodes are put in order of their depth (a parent is
 * one level above its child), which is the topological order the file
 * wants.  Only nodes whose subtree holds samples are kept: after a dump
 * that took the counts, the structure stays in the table with zeros, and
 * the next dump writes only what was sampled since.
 *
 * The buffer is the process's own memory, which the program may have
 * scribbled on: every index is checked against the geometry the front
 * end computed, and a parent chain longer than any walk is dropped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sprofil.h>
#include <sprofil/callers.h>
#include "backends/backend.h"
#include "gmon_callers.h"
#include "pages_in_use.h"

/* A chain's nodes: its frames, the truncated node and its thread's. */
#define MAX_LEVEL	(SPROFIL_MAX_DEPTH + 2)
#define LEVEL_UNKNOWN	(-1)
#define LEVEL_BAD	(-2)
/* The parents of used nodes, as indices into the used nodes' arrays. */
#define CP_ROOT		UINT32_MAX
#define CP_BAD		(UINT32_MAX - 1)

/*
 * The level of used node @i (0 for an outermost node), memoized in
 * @level: its parents are walked up to a known level or the root; a
 * parent that is no used node (CP_BAD), or a chain longer than any walk,
 * makes it bad.  Indices are into the used nodes' arrays.
 */
static int level_of(const uint32_t *parent, int16_t *level, uint32_t i)
{
	uint32_t path[MAX_LEVEL + 2], at = i, p;
	int n = 0, base;

	for (;;) {
		if (level[at] != LEVEL_UNKNOWN) {
			base = level[at];
			break;
		}
		if (n > MAX_LEVEL) {
			base = LEVEL_BAD;
			break;
		}
		path[n++] = at;
		p = parent[at];
		if (p == CP_ROOT) {
			base = -1;
			break;
		}
		if (p == CP_BAD) {
			base = LEVEL_BAD;
			break;
		}
		at = p;
	}
	while (n--) {
		base = base == LEVEL_BAD || base + 1 > MAX_LEVEL ?
		       LEVEL_BAD : base + 1;
		level[path[n]] = (int16_t)base;
	}
	return level[i];
}

/* The used slot @slot's place in @slots (ascending), or CP_BAD. */
static uint32_t used_index(const uint32_t *slots, uint32_t n, uint32_t slot)
{
	uint32_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (slots[mid] < slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && slots[lo] == slot ? lo : CP_BAD;
}

/*
 * The slots of the table's nodes in use, ascending, with their parent
 * words: only the pages of the node array that were ever written are
 * read (pages_in_use.h), so that a short process's dump does not fault in
 * the whole table.  Returns how many, or -ENOMEM.
 */
static ssize_t used_slots(struct spc_node *node, uint32_t nodes,
			  uint32_t **slots_out, uint32_t **words_out)
{
	uint32_t *slots = NULL, *words = NULL, *grown, i, w, n = 0, cap = 0;
	uintptr_t page_end = 0;
	struct sp_pages pages;

	sp_pages_read(&pages, node, (size_t)nodes * sizeof(*node));
	for (i = 0; i < nodes; i++) {
		uintptr_t at = (uintptr_t)&node[i];

		/* A page never written: all its slots are free. */
		if (at >= page_end) {
			page_end = (at & ~(uintptr_t)(pages.page - 1)) +
				   pages.page;
			if (!sp_page_used(&pages, at)) {
				i = (uint32_t)((page_end - (uintptr_t)node) /
					       sizeof(*node)) - 1;
				continue;
			}
		}
		w = __atomic_load_n(&node[i].parent, __ATOMIC_ACQUIRE);
		if (w == SPC_FREE || w == SPC_BUSY)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			grown = realloc(slots, cap * sizeof(*slots));
			if (grown)
				slots = grown;
			grown = grown ? realloc(words, cap * sizeof(*words)) :
					NULL;
			if (!grown) {
				free(slots);
				free(words);
				sp_pages_free(&pages);
				return -ENOMEM;
			}
			words = grown;
		}
		slots[n] = i;
		words[n++] = w;
	}
	sp_pages_free(&pages);
	*slots_out = slots;
	*words_out = words;
	return n;
}

static uint64_t read_count(struct spc_node *n, bool take)
{
	if (take)
		return __atomic_exchange_n(&n->count, 0, __ATOMIC_RELAXED);
	return __atomic_load_n(&n->count, __ATOMIC_RELAXED);
}

static uint64_t read_u64(__u64 *p, bool take)
{
	if (take)
		return __atomic_exchange_n(p, 0, __ATOMIC_RELAXED);
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

int sp_callers_collect(const struct sp_callers *c, bool take,
		       struct sp_callers_data *d)
{
	struct spc_header *hdr = c->table;
	struct spc_node *node = (struct spc_node *)(hdr + 1);
	uint32_t nodes, i, tid, *slots = NULL, *parent = NULL;
	uint32_t *order = NULL, *to = NULL;
	uint64_t *count = NULL, *sum = NULL;
	size_t at[MAX_LEVEL + 2] = { 0 }, n = 0, k;
	int16_t *level = NULL;
	ssize_t used;
	int l, err = -ENOMEM;

	memset(d, 0, sizeof(*d));
	if (spc_geometry(c->bytes, c->depth, &nodes))
		return -EINVAL;
	d->depth = c->depth;
	d->nodes = nodes;
	used = used_slots(node, nodes, &slots, &parent);
	if (used < 0)
		return -ENOMEM;
	level = malloc((used ? used : 1) * sizeof(*level));
	order = malloc((used ? used : 1) * sizeof(*order));
	to = malloc((used ? used : 1) * sizeof(*to));
	count = calloc(used ? used : 1, sizeof(*count));
	sum = calloc(used ? used : 1, sizeof(*sum));
	if (!level || !order || !to || !count || !sum)
		goto out;
	/* Parent words become used-node indices (CP_ROOT, CP_BAD). */
	for (i = 0; i < (uint32_t)used; i++) {
		uint32_t w = parent[i];

		level[i] = LEVEL_UNKNOWN;
		if (w == SPC_ROOT)
			parent[i] = CP_ROOT;
		else if (w - SPC_PARENT_BIAS >= nodes)
			parent[i] = CP_BAD;
		else
			parent[i] = used_index(slots, (uint32_t)used,
					       w - SPC_PARENT_BIAS);
	}
	/* Counting sort by level: at[l + 1] counts, then starts. */
	for (i = 0; i < (uint32_t)used; i++) {
		l = level_of(parent, level, i);
		if (l >= 0)
			at[l + 1]++;
	}
	for (l = 0; l <= MAX_LEVEL; l++)
		at[l + 1] += at[l];
	for (i = 0; i < (uint32_t)used; i++)
		if (level[i] >= 0)
			order[at[level[i]]++] = i;
	n = at[MAX_LEVEL];
	/* Counts taken before the sums: a slot's count is read once. */
	for (k = 0; k < n; k++)
		count[order[k]] = read_count(&node[slots[order[k]]], take);
	/* Subtree sums, children first (reverse order). */
	for (k = n; k-- > 0; ) {
		i = order[k];
		sum[i] += count[i];
		if (parent[i] != CP_ROOT)
			sum[parent[i]] += sum[i];
	}
	d->node = malloc((n ? n : 1) * sizeof(*d->node));
	if (!d->node)
		goto out;
	for (k = 0; k < n; k++) {
		struct sp_cnode *o;

		i = order[k];
		if (!sum[i])
			continue;
		to[i] = (uint32_t)d->n;
		o = &d->node[d->n++];
		o->pc = node[slots[i]].pc;
		o->count = count[i];
		o->parent = parent[i] == CP_ROOT ? SP_CNODE_TOP :
			    to[parent[i]];
		d->samples += count[i];
		/* At the top, or under a thread's node (SPROFIL_THREADS). */
		if (o->pc == SPC_PC_TRUNCATED &&
		    (o->parent == SP_CNODE_TOP ||
		     (d->node[o->parent].parent == SP_CNODE_TOP &&
		      spc_pc_thread(d->node[o->parent].pc, &tid))))
			d->truncated += sum[i];
	}
	d->lost = read_u64(&hdr->lost, take);
	d->busy = read_u64(&hdr->busy, take);
	if (take) {
		/* The header's own sums follow the counts taken. */
		__atomic_fetch_sub(&hdr->samples, d->samples, __ATOMIC_RELAXED);
		__atomic_fetch_sub(&hdr->truncated, d->truncated,
				   __ATOMIC_RELAXED);
	}
	err = 0;
out:
	free(slots);
	free(parent);
	free(level);
	free(order);
	free(to);
	free(count);
	free(sum);
	if (err)
		sp_callers_data_free(d);
	return err;
}

void sp_callers_reset(const struct sp_callers *c)
{
	struct spc_header *hdr = c->table;
	struct spc_node *node = (struct spc_node *)(hdr + 1);
	struct sp_pages pages;
	__u32 nodes, i;

	if (spc_geometry(c->bytes, c->depth, &nodes))
		return;
	/* A page never written holds zeros already: left untouched. */
	sp_pages_read(&pages, node, (size_t)nodes * sizeof(*node));
	for (i = 0; i < nodes; i++)
		if (sp_page_used(&pages, (uintptr_t)&node[i]))
			__atomic_store_n(&node[i].count, 0, __ATOMIC_RELAXED);
	sp_pages_free(&pages);
	__atomic_store_n(&hdr->samples, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&hdr->truncated, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&hdr->lost, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&hdr->busy, 0, __ATOMIC_RELAXED);
}

void sp_callers_data_free(struct sp_callers_data *d)
{
	free(d->node);
	d->node = NULL;
	d->n = 0;
}

int sp_callers_for_dump(bool take, struct sp_callers_data *d)
{
	struct sp_callers c;

	memset(d, 0, sizeof(*d));
	if (!sp_front_callers(&c))
		return 0;
	/* The bpf backend's chains reach the table only when asked. */
	sprofil_flush();
	if (sp_callers_collect(&c, take, d)) {
		fprintf(stderr, "libsprofil: out of memory: the caller chains are not written\n");
		return 0;
	}
	if (d->lost || d->busy)
		fprintf(stderr, "libsprofil: %llu caller samples lost: the caller table (%zu nodes) is full; %llu found a node being written\n",
			(unsigned long long)d->lost, d->nodes,
			(unsigned long long)d->busy);
	return 1;
}
