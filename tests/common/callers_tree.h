/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tests' reading of a caller table (include/sprofil/callers.h) or of
 * a callers record read back from a file: a flat list of nodes, each
 * with its parent, from which every sample's chain is rebuilt and the
 * questions the tests ask are answered by counting, each sample once.
 * Nothing here uses the filing code: it checks it.
 */
#ifndef SPROFIL_TEST_CALLERS_TREE_H
#define SPROFIL_TEST_CALLERS_TREE_H

#include <stddef.h>
#include <stdint.h>

#define CT_TOP		UINT32_MAX	/* parent of an outermost frame */
#define CT_MAX_CHAIN	256

struct ct_tree {
	size_t n;
	uint64_t *pc;		/* absolute addresses */
	uint32_t *parent;	/* node index, or CT_TOP */
	uint64_t *count;
	uint64_t samples, truncated, lost, busy;	/* the header's */
};

/* [start, end): a function's extent, or a module's text. */
struct ct_span {
	uintptr_t start, end;
};

/* From a live table; slots being written are skipped. Returns 0 or -1. */
int ct_from_table(struct ct_tree *t, const void *table);
void ct_free(struct ct_tree *t);

/* Sum of the node counts. */
uint64_t ct_total(const struct ct_tree *t);

/*
 * The chain ending at node @i, innermost first, into @chain (CT_MAX_CHAIN
 * entries); returns its length.  *@truncated: whether its top is the
 * truncated node (which is not part of the chain).
 */
size_t ct_chain(const struct ct_tree *t, size_t i, uint64_t *chain,
		int *truncated);

/*
 * Whether frame @k of a chain lies in @s: the sampled pc itself (k 0),
 * or a return address, which may be one past its caller's last byte.
 */
int ct_in(const uint64_t *chain, size_t k, struct ct_span s);

/* Frames of @chain[0..len) that lie in @s. */
size_t ct_frames_in(const uint64_t *chain, size_t len, struct ct_span s);

/*
 * Samples whose chain has a frame in @callee directly below one in
 * @caller (the arc caller -> callee), each sample counted once however
 * often the arc repeats in its chain.  Truncated chains count too.
 */
uint64_t ct_arc(const struct ct_tree *t, struct ct_span caller,
		struct ct_span callee);

/* Samples with a frame anywhere in @s, each counted once. */
uint64_t ct_below(const struct ct_tree *t, struct ct_span s);

/* Of those, the samples whose chain is complete (not truncated). */
uint64_t ct_complete_below(const struct ct_tree *t, struct ct_span s);

/* Samples whose sampled pc lies in @s; of them, *@cut were truncated. */
uint64_t ct_leaf(const struct ct_tree *t, struct ct_span s, uint64_t *cut);

#endif /* SPROFIL_TEST_CALLERS_TREE_H */
