// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Caller samples: the calling context trees of the profile files' tag-4
 * records (docs/gmon-format.md, include/sprofil/gmon_format.h), merged
 * into one tree (gmon_write.c writes it back for -s).  The reader keeps
 * each record as read; profile_tally() merges them here, file by file,
 * in the order read.
 *
 * A file's record is a tree whose nodes come after their parents; each
 * node is (parent, module, link-time pc, count).  Merging keys a node by
 * (merged parent, module, pc), so the same calling context in several
 * files (or twice in one) becomes one node whose count is the sum, and
 * every node of the merged tree still comes after its parent.
 *
 * Nothing in a record is trusted: its size against the node count, each
 * parent index against the node's own (it must come first, which also
 * rules out loops), each module against the file's module records, each
 * chain's length against the record's depth (so that the analysis walks
 * at most SPROFIL_MAX_DEPTH + 1 frames per chain), the counters against
 * each other.  A record whose fixed part is wrong is refused; a node
 * that is wrong is dropped with the chains through it, their samples
 * counted in callers.dropped (said on stderr once per record and in the
 * reports' headers), and the rest of the record is read.
 *
 * A per-thread record's top nodes are its threads' (read/threads.c):
 * they are no frames; each chain below one is counted for its thread,
 * and merged as if it began at the top when --thread chooses the thread
 * (threads_select.c; all are chosen without it), left out when not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/sprofil.h>
#include <sprofil/callers.h>
#include <sprofil/gmon_codec.h>
#include <sprofil/gmon_format.h>

#include "analyze/analyze.h"
#include "read/threads.h"

/* The pc of the top node holding the chains that were cut short. */
#define PC_TRUNCATED 1ull	/* SPC_PC_TRUNCATED of sprofil/callers.h */

/* What a file's node is, besides a frame (callers_parse()). */
enum {
	NODE_THREAD = 1,	/* a thread's top node: no frame */
	NODE_SKIPPED = 2,	/* of a thread --thread did not select */
	NODE_CUT = 4,		/* the truncated node or below it */
	NODE_BAD = 8,		/* malformed, or below a malformed node */
};


/*
 * Merged nodes by (parent, module, pc), prof->node_hash: indices + 1,
 * 0 for free.
 */
static size_t node_slot(struct profile *prof, uint32_t parent, uint32_t module,
			uint64_t pc)
{
	uint64_t k = pc * UINT64_C(0x9e3779b97f4a7c15);

	k ^= ((uint64_t)parent << 32 | module) + (k >> 29);
	k *= UINT64_C(0xbf58476d1ce4e5b9);
	k ^= k >> 32;
	return (size_t)k & (prof->node_hash_size - 1);
}

static void node_hash_put(struct profile *prof, uint32_t i)
{
	const struct caller_node *n = &prof->callers.node[i];
	size_t s = node_slot(prof, n->parent, n->module, n->pc);

	while (prof->node_hash[s])
		s = (s + 1) & (prof->node_hash_size - 1);
	prof->node_hash[s] = i + 1;
}

static void node_hash_grow(struct profile *prof)
{
	size_t i;

	free(prof->node_hash);
	prof->node_hash_size = prof->node_hash_size ?
		prof->node_hash_size * 2 : 1024;
	prof->node_hash =
		xcalloc(prof->node_hash_size, sizeof(*prof->node_hash));
	for (i = 0; i < prof->callers.len; i++)
		node_hash_put(prof, (uint32_t)i);
}

/* The merged node (@parent, @module, @pc), added if new. */
static uint32_t node_find_add(struct profile *prof, uint32_t parent,
			      uint32_t module, uint64_t pc)
{
	struct caller_node *n;
	size_t s;

	if (prof->node_hash_size) {
		for (s = node_slot(prof, parent, module, pc);
		     prof->node_hash[s];
		     s = (s + 1) & (prof->node_hash_size - 1)) {
			n = &prof->callers.node[prof->node_hash[s] - 1];
			if (n->parent == parent && n->module == module &&
			    n->pc == pc)
				return prof->node_hash[s] - 1;
		}
	}
	if (prof->callers.len >= CALLER_NONE - 1)
		fatal("more than %u distinct calling contexts in the profiles",
		      CALLER_NONE - 1);
	if (prof->callers.len == prof->callers.cap) {
		prof->callers.cap = prof->callers.cap ?
				    prof->callers.cap * 2 : 256;
		prof->callers.node = xreallocarray(prof->callers.node,
						   prof->callers.cap,
					     sizeof(*prof->callers.node));
	}
	n = &prof->callers.node[prof->callers.len];
	n->parent = parent;
	n->module = module;
	n->pc = pc;
	n->count = 0;
	if ((prof->callers.len + 1) * 2 > prof->node_hash_size)
		node_hash_grow(prof);
	node_hash_put(prof, (uint32_t)prof->callers.len);
	return (uint32_t)prof->callers.len++;
}

bool caller_node_truncated(const struct caller_node *n)
{
	return n->parent == CALLER_NONE && n->module == CALLER_ABSOLUTE &&
	       n->pc == PC_TRUNCATED;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The fixed part of a record, checked; false after gmf_fail(). */
static bool read_head(struct profile *prof, struct gmf_cursor *c,
		      struct gmf_callers_head *h)
{
	if (!gmf_callers_head_get(c, h))
		return false;
	if (h->depth < 1 || h->depth > SPROFIL_MAX_DEPTH) {
		gmf_fail(c, "callers record of depth %u (1 to %d expected)",
			 h->depth, SPROFIL_MAX_DEPTH);
		return false;
	}
	if (h->truncated > h->samples || !h->period_ns) {
		gmf_fail(c, "malformed callers record (%llu samples, %llu truncated, period %llu ns)",
			 (unsigned long long)h->samples,
			 (unsigned long long)h->truncated,
			 (unsigned long long)h->period_ns);
		return false;
	}
	if (prof->callers.period_ns &&
	    prof->callers.period_ns != h->period_ns) {
		gmf_fail(c, "caller samples of different periods (%llu ns, then %llu ns) cannot be summed",
			 (unsigned long long)prof->callers.period_ns,
			 (unsigned long long)h->period_ns);
		return false;
	}
	return true;
}

/*
 * Why node @i of a record, read as (@parent, @fmod, @pc), cannot be a
 * frame of a chain; NULL if it can (a thread's node at the top, the
 * truncated node at the top or under its thread, or a frame).  *@bad
 * says so for a node below a malformed one: the same chain, no reason.
 */
static const char *node_problem(uint64_t i, uint32_t parent, uint32_t fmod,
				uint64_t pc, bool top, unsigned int nmap,
				const uint8_t *kind, char *why, size_t len)
{
	uint32_t tid;

	if (parent != GMF_CALLER_TOP && parent >= i)
		snprintf(why, len, "caller node %llu names parent %u, which does not come before it",
			 (unsigned long long)i, parent);
	else if (parent != GMF_CALLER_TOP && (kind[parent] & NODE_BAD))
		return "";
	else if (fmod == GMF_NO_MODULE && pc == PC_TRUNCATED && !top)
		snprintf(why, len, "caller node %llu: the mark of truncated chains below the top",
			 (unsigned long long)i);
	else if (fmod == GMF_NO_MODULE && spc_pc_thread(pc, &tid) &&
		 parent != GMF_CALLER_TOP)
		snprintf(why, len, "caller node %llu: a thread's node below the top",
			 (unsigned long long)i);
	else if (fmod != GMF_NO_MODULE && fmod >= nmap)
		snprintf(why, len, "caller node %llu names module %u, which no module record defined",
			 (unsigned long long)i, fmod);
	else if (fmod != GMF_NO_MODULE && pc > ADDR_LINK(~0ull))
		snprintf(why, len, "caller node %llu: pc 0x%llx beyond any module",
			 (unsigned long long)i, (unsigned long long)pc);
	else
		return NULL;
	return why;
}

/*
 * Samples that no chain can hold: counted in @dropped, their chains in
 * @chains, and the first reason of the record kept in @first.
 */
static void drop_samples(uint64_t count, const char *why, uint64_t *dropped,
			 uint64_t *chains, char *first, size_t len)
{
	if (count) {
		*dropped = add_sat(*dropped, count);
		(*chains)++;
	}
	if (*why && !*first)
		snprintf(first, len, "%s", why);
}

void callers_parse(struct profile *prof, const struct gprof_options *opt,
		   struct gmf_cursor *c,
		   const unsigned int *map,
		   unsigned int nmap)
{
	struct gmf_callers_head h;
	struct gmf_caller_node node;
	uint32_t *merged, *thread, tid;
	uint64_t i, dropped = 0, chains = 0;
	uint8_t *depth, *kind;
	char why[160], first[160] = "";

	if (!read_head(prof, c, &h))
		return;
	/* Bounded by the record's bytes, checked above. */
	merged = xmallocarray(h.nnodes ? h.nnodes : 1, sizeof(*merged));
	depth = xmallocarray(h.nnodes ? h.nnodes : 1, sizeof(*depth));
	kind = xcalloc(h.nnodes ? h.nnodes : 1, sizeof(*kind));
	thread = xmallocarray(h.nnodes ? h.nnodes : 1, sizeof(*thread));
	for (i = 0; i < h.nnodes && gmf_caller_node_get(c, &node); i++) {
		uint32_t parent = node.parent, fmod = node.module;
		uint64_t pc = node.pc, count = node.count;
		uint32_t module, mparent = CALLER_NONE;
		const char *problem;
		unsigned int d = 1;
		bool top;

		thread[i] = THREAD_NONE;
		merged[i] = CALLER_NONE;
		/* At the top, or right below a thread's node. */
		top = parent == GMF_CALLER_TOP ||
		      (parent < i && (kind[parent] & NODE_THREAD));
		problem = node_problem(i, parent, fmod, pc, top, nmap, kind,
				       why, sizeof(why));
		/*
		 * A malformed node is dropped with every node below it, and
		 * the record's other chains are read as usual.
		 */
		if (problem) {
			kind[i] = NODE_BAD;
			drop_samples(count, problem, &dropped, &chains, first,
				     sizeof(first));
			continue;
		}
		if (parent != GMF_CALLER_TOP) {
			thread[i] = thread[parent];
			kind[i] = kind[parent] & (NODE_SKIPPED | NODE_CUT);
			if (!(kind[parent] & NODE_THREAD)) {
				mparent = merged[parent];
				d = depth[parent] + 1u;
			}
		}
		module = fmod == GMF_NO_MODULE ? CALLER_ABSOLUTE : map[fmod];
		/* The marker of cut chains is no frame. */
		if (fmod == GMF_NO_MODULE && pc == PC_TRUNCATED) {
			kind[i] |= NODE_CUT;
			d = 0;
		} else if (fmod == GMF_NO_MODULE && spc_pc_thread(pc, &tid)) {
			thread[i] = thread_find_add(prof, tid);
			kind[i] = NODE_THREAD;
			if (!thread_is_selected(prof, opt, thread[i]))
				kind[i] |= NODE_SKIPPED;
			depth[i] = 0;
			/* A thread's node is no frame: no sample ends in it. */
			if (count) {
				snprintf(why, sizeof(why), "caller node %llu: samples in a thread's node",
					 (unsigned long long)i);
				drop_samples(count, why, &dropped, &chains,
					     first, sizeof(first));
			}
			continue;
		}
		if (d > h.depth) {
			snprintf(why, sizeof(why), "caller node %llu is %u frames deep, more than the record's depth %u",
				 (unsigned long long)i, d, h.depth);
			kind[i] = NODE_BAD;
			drop_samples(count, why, &dropped, &chains, first,
				     sizeof(first));
			continue;
		}
		depth[i] = (uint8_t)d;
		merged[i] = kind[i] & NODE_SKIPPED ? CALLER_NONE :
			    node_find_add(prof, mparent, module, pc);
		if (thread[i] != THREAD_NONE && count)
			thread_leaf(prof, thread[i], module, pc, count,
				    kind[i] & NODE_CUT, merged[i]);
		if (kind[i] & NODE_SKIPPED)
			continue;
		prof->callers.node[merged[i]].count =
			add_sat(prof->callers.node[merged[i]].count, count);
		if (d == 0)
			prof->callers.truncated_top = merged[i];
	}
	free(merged);
	free(depth);
	free(kind);
	free(thread);
	if (c->failed)
		return;
	if (*first)
		fprintf(stderr, "%s: %s: %llu caller samples of %llu malformed chains dropped (%s)\n",
			opt->whoami, prof->module_profile,
			(unsigned long long)dropped,
			(unsigned long long)chains, first);
	prof->callers.dropped = add_sat(prof->callers.dropped, dropped);
	prof->callers.dropped_chains = add_sat(prof->callers.dropped_chains,
					       chains);
	prof->callers.period_ns = h.period_ns;
	prof->callers.lost = add_sat(prof->callers.lost, h.lost);
	prof->callers.busy = add_sat(prof->callers.busy, h.busy);
	if (h.depth > prof->callers.depth)
		prof->callers.depth = h.depth;
	prof->callers.records++;
	prof->gmon_input |= INPUT_CALLERS;
}

void callers_reset(struct profile *prof)
{
	free(prof->callers.node);
	free(prof->node_hash);
	prof->node_hash = NULL;
	prof->node_hash_size = 0;
	memset(&prof->callers, 0, sizeof(prof->callers));
	prof->callers.truncated_top = CALLER_NONE;
}

void callers_totals(const struct caller_tree *t, uint64_t *samples,
		    uint64_t *truncated)
{
	bool *cut = xcalloc(t->len ? t->len : 1, sizeof(*cut));
	size_t i;

	*samples = *truncated = 0;
	/* Parents come first: a node's chain is cut when its top is. */
	for (i = 0; i < t->len; i++) {
		const struct caller_node *n = &t->node[i];

		/* The truncated node may be below a thread's. */
		cut[i] = (n->module == CALLER_ABSOLUTE && n->pc == PC_TRUNCATED) ||
			 (n->parent != CALLER_NONE && cut[n->parent]);
		*samples = add_sat(*samples, n->count);
		if (cut[i])
			*truncated = add_sat(*truncated, n->count);
	}
	free(cut);
}

void caller_tree_counts_copy(struct caller_tree *to,
			     const struct caller_tree *from)
{
	to->lost = from->lost;
	to->busy = from->busy;
	to->dropped = from->dropped;
	to->period_ns = from->period_ns;
	to->depth = from->depth;
	to->records = from->records;
}

uint32_t caller_tree_add(struct caller_tree *t, uint32_t parent,
			 uint32_t module, uint64_t pc)
{
	struct caller_node *n;

	if (t->len == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		t->node = xreallocarray(t->node, t->cap, sizeof(*t->node));
	}
	n = &t->node[t->len];
	n->parent = parent;
	n->module = module;
	n->pc = pc;
	n->count = 0;
	if (caller_node_truncated(n))
		t->truncated_top = (uint32_t)t->len;
	return (uint32_t)t->len++;
}

uint64_t callers_of_module(struct profile *prof, unsigned int m,
			   struct caller_tree *t)
{
	size_t n = prof->callers.len, i;
	bool *touched = xcalloc(n ? n : 1, sizeof(*touched));
	bool *keep = xcalloc(n ? n : 1, sizeof(*keep));
	bool *in_m = xcalloc(n ? n : 1, sizeof(*in_m));
	uint32_t *out = xcalloc(n ? n : 1, sizeof(*out));
	uint64_t left_out = 0;

	memset(t, 0, sizeof(*t));
	t->truncated_top = CALLER_NONE;
	for (i = 0; i < n; i++) {
		const struct caller_node *c = &prof->callers.node[i];

		in_m[i] = c->module == m;
		touched[i] = in_m[i] ||
			     (c->parent != CALLER_NONE && touched[c->parent]);
	}
	/* A node is kept when a sample of a chain through @m is below it. */
	for (i = n; i-- > 0;) {
		const struct caller_node *c = &prof->callers.node[i];

		if (c->count && touched[i])
			keep[i] = true;
		else if (c->count)
			left_out = add_sat(left_out, c->count);
		if (keep[i] && c->parent != CALLER_NONE)
			keep[c->parent] = true;
	}
	for (i = 0; i < n; i++) {
		const struct caller_node *c = &prof->callers.node[i];
		uint32_t p = c->parent == CALLER_NONE ? CALLER_NONE :
			     out[c->parent];

		if (!keep[i])
			continue;
		if (caller_node_truncated(c))
			out[i] = caller_tree_add(t, CALLER_NONE, CALLER_ABSOLUTE,
					     PC_TRUNCATED);
		else if (in_m[i])
			out[i] = caller_tree_add(t, p, 0, c->pc);
		else if (c->parent != CALLER_NONE && !in_m[c->parent] &&
			 !caller_node_truncated(&prof->callers.node[c->parent]))
			out[i] = p;	/* the same run of foreign frames */
		else
			out[i] = caller_tree_add(t, p, CALLER_ABSOLUTE, 0);
		if (touched[i])
			t->node[out[i]].count = add_sat(t->node[out[i]].count,
							c->count);
	}
	caller_tree_counts_copy(t, &prof->callers);
	free(touched);
	free(keep);
	free(in_m);
	free(out);
	return left_out;
}
