// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <sprofil/callers.h>
#include "callers_tree.h"

int ct_from_table(struct ct_tree *t, const void *table)
{
	const struct spc_header *h = table;
	const struct spc_node *node = (const struct spc_node *)(h + 1);
	size_t i, k = 0;
	uint32_t *slot_to;

	t->pc = calloc(h->nodes, sizeof(*t->pc));
	t->parent = calloc(h->nodes, sizeof(*t->parent));
	t->count = calloc(h->nodes, sizeof(*t->count));
	slot_to = calloc(h->nodes, sizeof(*slot_to));
	if (!t->pc || !t->parent || !t->count || !slot_to) {
		free(slot_to);
		ct_free(t);
		return -1;
	}
	/* Slot index -> dense index, so that a node's parent can be found. */
	for (i = 0; i < h->nodes; i++) {
		uint32_t p = __atomic_load_n(&node[i].parent, __ATOMIC_ACQUIRE);

		slot_to[i] = CT_TOP;
		if (p == SPC_FREE || p == SPC_BUSY)
			continue;
		slot_to[i] = (uint32_t)k;
		t->pc[k] = node[i].pc;
		t->parent[k] = p;	/* raw, rewritten below */
		t->count[k] = node[i].count;
		k++;
	}
	t->n = k;
	for (i = 0; i < k; i++) {
		uint32_t p = t->parent[i];

		t->parent[i] = p == SPC_ROOT || p - SPC_PARENT_BIAS >= h->nodes ?
			       CT_TOP : slot_to[p - SPC_PARENT_BIAS];
	}
	free(slot_to);
	t->samples = h->samples;
	t->truncated = h->truncated;
	t->lost = h->lost;
	t->busy = h->busy;
	return 0;
}

void ct_free(struct ct_tree *t)
{
	free(t->pc);
	free(t->parent);
	free(t->count);
	t->pc = NULL;
	t->parent = NULL;
	t->count = NULL;
	t->n = 0;
}

uint64_t ct_total(const struct ct_tree *t)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < t->n; i++)
		sum += t->count[i];
	return sum;
}

size_t ct_chain(const struct ct_tree *t, size_t i, uint64_t *chain,
		int *truncated)
{
	size_t len = 0;
	uint32_t at = (uint32_t)i;

	*truncated = 0;
	while (at != CT_TOP && len < CT_MAX_CHAIN) {
		if (t->parent[at] == CT_TOP && t->pc[at] == SPC_PC_TRUNCATED) {
			*truncated = 1;
			break;
		}
		chain[len++] = t->pc[at];
		at = t->parent[at];
	}
	return len;
}

int ct_in(const uint64_t *chain, size_t k, struct ct_span s)
{
	uint64_t pc = k ? chain[k] - 1 : chain[k];

	return pc >= s.start && pc < s.end;
}

size_t ct_frames_in(const uint64_t *chain, size_t len, struct ct_span s)
{
	size_t n = 0;

	for (size_t k = 0; k < len; k++)
		n += ct_in(chain, k, s);
	return n;
}

uint64_t ct_arc(const struct ct_tree *t, struct ct_span caller,
		struct ct_span callee)
{
	uint64_t chain[CT_MAX_CHAIN], sum = 0;
	int cut;

	for (size_t i = 0; i < t->n; i++) {
		size_t len;

		if (!t->count[i])
			continue;
		len = ct_chain(t, i, chain, &cut);
		for (size_t k = 0; k + 1 < len; k++) {
			if (ct_in(chain, k, callee) &&
			    ct_in(chain, k + 1, caller)) {
				sum += t->count[i];
				break;
			}
		}
	}
	return sum;
}

static uint64_t below(const struct ct_tree *t, struct ct_span s,
		      int complete_only)
{
	uint64_t chain[CT_MAX_CHAIN], sum = 0;
	int cut;

	for (size_t i = 0; i < t->n; i++) {
		size_t len;

		if (!t->count[i])
			continue;
		len = ct_chain(t, i, chain, &cut);
		if (ct_frames_in(chain, len, s) && !(complete_only && cut))
			sum += t->count[i];
	}
	return sum;
}

uint64_t ct_below(const struct ct_tree *t, struct ct_span s)
{
	return below(t, s, 0);
}

uint64_t ct_complete_below(const struct ct_tree *t, struct ct_span s)
{
	return below(t, s, 1);
}

uint64_t ct_leaf(const struct ct_tree *t, struct ct_span s, uint64_t *cut)
{
	uint64_t chain[CT_MAX_CHAIN], sum = 0;
	int trunc;

	*cut = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (!t->count[i])
			continue;
		if (!ct_chain(t, i, chain, &trunc) || !ct_in(chain, 0, s))
			continue;
		sum += t->count[i];
		if (trunc)
			*cut += t->count[i];
	}
	return sum;
}
