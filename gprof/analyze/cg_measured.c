// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The measured call graph: when the profile carries caller samples
 * (each sample's call chain, caller_tree.c), the time below every arc is
 * counted from the chains instead of being shared out by call counts as
 * GNU gprof estimates it ("Estimating children times" in its manual).
 *
 * The rules, hiprof's (Tru64), per sample of chain f0 <- f1 <- ... <- fn
 * (f0 the sampled function, fn the outermost frame):
 *  - a function's total is the samples it appears in, counted once per
 *    sample however often it appears: only its outermost activation is
 *    timed, so no total exceeds 100 %;
 *  - its self time is the samples whose f0 it is; its children time the
 *    rest of its total;
 *  - the arc into a function's outermost activation, from the frame
 *    above it, carries that sample: as the arc's self time if the
 *    function is f0, else as its children time.  Arcs into inner
 *    activations (recursion) carry nothing;
 *  - a cycle (functions that call each other, found from the arcs as
 *    GNU does) is one unit for the rules above: its total is the samples
 *    any member appears in, the arcs from outside into it carry the
 *    cycle's times, and each member has the self time of its own samples
 *    and the children time of the calls that leave the cycle from it;
 *  - frames in no known function (code without symbols, a library the
 *    profile does not cover) are skipped: their time and their calls are
 *    charged to the known caller above them, as hiprof does for code it
 *    does not instrument.
 *
 * The chains also give arcs: an arc seen in a chain that no call count
 * (-pg's mcount) recorded is added with no count, so a program built
 * without -pg gets a call graph too, its arcs marked as uncounted.
 */
#include <stdlib.h>
#include <string.h>

#include <linux/sprofil.h>

#include "analyze/analyze.h"

/*
 * The function of each node of the tree, NULL for an unknown frame: as
 * a caller's frame (its pc a return address), and as a sampled pc (the
 * innermost frame of the node's own samples).  A pc may be both
 * (prof->node_caller, prof->node_leaf; prof->node_known: the nearest
 * known caller frame at or above each node, or NULL).
 */
/*
 * The function holding a node's pc.  A return address follows its call,
 * so it may lie past the end of a function that ends with a call (one
 * that does not return): the byte before it is the call's.
 */
static struct sym *frame_function(struct profile *prof,
				  const struct caller_node *n, bool leaf)
{
	uint64_t pc = n->pc;
	struct sym *s;

	if (n->module == CALLER_ABSOLUTE || n->module >= prof->nmodules ||
	    (!leaf && pc == 0))
		return NULL;
	pc += MODULE_BASE(n->module);
	s = sym_lookup(&prof->symtab, leaf ? pc : pc - 1);
	/* With -l the symbols are lines: a frame is its function's. */
	while (s && s > prof->symtab.base && !s->is_func)
		s--;
	return s && s->is_func ? s : NULL;
}

struct sym *caller_node_function(struct profile *prof,
				 const struct caller_node *n, bool leaf)
{
	return frame_function(prof, n, leaf);
}

static void resolve_nodes(struct profile *prof)
{
	size_t i, n = prof->callers.len ? prof->callers.len : 1;

	free(prof->node_caller);
	free(prof->node_leaf);
	free(prof->node_known);
	prof->node_caller = xcalloc(n, sizeof(*prof->node_caller));
	prof->node_leaf = xcalloc(n, sizeof(*prof->node_leaf));
	prof->node_known = xcalloc(n, sizeof(*prof->node_known));
	for (i = 0; i < prof->callers.len; i++) {
		const struct caller_node *c = &prof->callers.node[i];
		uint32_t p = c->parent;

		if (caller_node_truncated(c))
			continue;
		prof->node_caller[i] = frame_function(prof, c, false);
		if (c->count)
			prof->node_leaf[i] = frame_function(prof, c, true);
		prof->node_known[i] = prof->node_caller[i] ?
			prof->node_caller[i] :
			p != CALLER_NONE ? prof->node_known[p] : NULL;
	}
}

/* The same filters as cg_tally()'s for the arcs of the call counts. */
static bool arc_wanted(struct profile *prof, struct sym *parent,
		       struct sym *child)
{
	return sym_id_arc_is_present(prof, &prof->syms[INCL_ARCS], parent,
				     child) ||
	       (prof->syms[INCL_ARCS].len == 0 &&
		!sym_id_arc_is_present(prof, &prof->syms[EXCL_ARCS], parent,
				       child));
}

/* An arc the chains show, with no count unless mcount counted it. */
static void add_arc(struct profile *prof, struct sym *parent, struct sym *child)
{
	if (!child || arc_lookup(prof, parent, child) ||
	    !arc_wanted(prof, parent, child))
		return;
	arc_add(prof, parent, child, 0);
	arc_lookup(prof, parent, child)->uncounted = true;
}

void cg_measured_arcs(struct profile *prof, const struct gprof_options *opt,
		      bool has_counts)
{
	bool *has_child;
	size_t i;

	free(prof->caller_stats.cut_in);
	memset(&prof->caller_stats, 0, sizeof(prof->caller_stats));
	prof->caller_stats.has_counts = has_counts;
	prof->caller_stats.lost = prof->callers.lost;
	prof->caller_stats.busy = prof->callers.busy;
	prof->caller_stats.dropped = prof->callers.dropped;
	prof->measured_times = !opt->estimated_times &&
		(prof->gmon_input & INPUT_CALLERS);
	if (!prof->measured_times)
		return;
	resolve_nodes(prof);
	has_child = xcalloc(prof->callers.len ? prof->callers.len : 1,
			    sizeof(*has_child));
	for (i = 0; i < prof->callers.len; i++)
		if (prof->callers.node[i].parent != CALLER_NONE)
			has_child[prof->callers.node[i].parent] = true;
	for (i = 0; i < prof->callers.len; i++) {
		uint32_t p = prof->callers.node[i].parent;

		if (p == CALLER_NONE || !prof->node_known[p])
			continue;
		if (has_child[i])
			add_arc(prof, prof->node_known[p],
				prof->node_caller[i]);
		add_arc(prof, prof->node_known[p], prof->node_leaf[i]);
	}
	free(has_child);
}

/* A function, or the cycle it is a member of: one unit of the rules. */
static struct sym *unit_of(struct sym *s)
{
	return s->cg.cyc.head;
}

static size_t unit_ix(struct profile *prof, const struct sym *u)
{
	if (u >= prof->symtab.base && u < prof->symtab.base + prof->symtab.len)
		return (size_t)(u - prof->symtab.base);
	return prof->symtab.len + (size_t)u->cg.cyc.num;
}

static bool in_table(struct profile *prof, enum table_id t, const struct sym *s)
{
	return sym_lookup(&prof->syms[t], s->addr) != NULL;
}

/*
 * -e/-E/-f/-F in measured terms: a sample counts unless its sampled
 * function's time is excluded (-E), and with -F only if the chain holds
 * one of the functions named.
 */
static bool sample_counts(struct profile *prof, struct sym *const *chain,
			  size_t n)
{
	size_t j;

	if (prof->syms[INCL_TIME].len) {
		for (j = 0; j < n; j++)
			if (in_table(prof, INCL_TIME, chain[j]))
				return true;
		return false;
	}
	return !in_table(prof, EXCL_TIME, chain[0]);
}

/*
 * Where a cut chain stands, read from its outermost frame inward: no
 * frame of the program met yet, main met first, or another function.
 */
enum chain_entry { ENTRY_NONE, ENTRY_MAIN, ENTRY_OTHER };

/*
 * The C library's start code in a static executable, which calls main
 * (glibc 2.34 and later: __libc_start_call_main) or leads to that call.
 */
static bool start_code(const struct sym *s)
{
	static const char *const name[] = {
		"_start", "__libc_start_main", "__libc_start_main_impl",
		"__libc_start_call_main", NULL,
	};
	const char *const *n;

	for (n = name; *n; n++)
		if (!strcmp(s->name, *n))
			return true;
	return false;
}

/*
 * What frame function @s says about the chain it is the outermost known
 * frame of.  Frames in no known function, in a library or in the start
 * code of the executable are passed over: that is where main is called
 * from.
 */
static enum chain_entry entry_of(const struct sym *s)
{
	if (!s || s->module != 0 || start_code(s))
		return ENTRY_NONE;
	return strcmp(s->name, "main") ? ENTRY_OTHER : ENTRY_MAIN;
}

int caller_frame_entry(const struct sym *s)
{
	return entry_of(s);
}

/* Files one chain's @t ticks by the rules at the top of this file. */
static void file_sample(struct profile *prof, struct sym *const *chain,
			size_t n, double t,
			uint64_t *stamp, uint64_t serial)
{
	struct sym *leaf_unit = unit_of(chain[0]);
	size_t j = n;

	prof->print_time += t;
	if (chain[0] != leaf_unit)
		chain[0]->cg.prop.self += t;	/* a cycle member's own */
	while (j-- > 0) {
		struct sym *f = chain[j], *u = unit_of(f), *p;
		struct arc *a;

		if (stamp[unit_ix(prof, u)] == serial)
			continue;	/* an inner activation */
		stamp[unit_ix(prof, u)] = serial;
		if (u == leaf_unit)
			u->cg.prop.self += t;
		else
			u->cg.prop.child += t;
		if (j + 1 == n)
			continue;
		p = chain[j + 1];
		a = arc_lookup(prof, p, f);
		if (a) {
			if (u == leaf_unit)
				a->time += t;
			else
				a->child_time += t;
		}
		/* The call that leaves p's cycle: p's own children time. */
		if (unit_of(p) != p)
			p->cg.prop.child += t;
	}
}

void cg_measured_times(struct profile *prof)
{
	size_t n = prof->callers.len, i, k,
		units = prof->symtab.len + prof->num_cycles + 1;
	uint64_t *stamp = xcalloc(units, sizeof(*stamp)), serial = 0;
	struct sym *chain[SPROFIL_MAX_DEPTH + 2];
	bool *cut = xcalloc(n ? n : 1, sizeof(*cut));
	/* A cut chain's outermost frame: the module its walk stopped in. */
	uint32_t *stop = xcalloc(n ? n : 1, sizeof(*stop));
	/* Of a cut chain's caller frames down to each node (entry_of()). */
	unsigned char *entry = xcalloc(n ? n : 1, sizeof(*entry));
	double tick;

	free(prof->caller_stats.cut_in);
	prof->caller_stats.cut_in = xcalloc(prof->nmodules + 1,
					    sizeof(*prof->caller_stats.cut_in));
	if (prof->hz <= 0)
		prof->hz = prof->event_type ?
			   1.0 / (double)prof->callers.period_ns :
			   1e9 / (double)prof->callers.period_ns;
	/*
	 * A sample stands for its period, in the histogram's ticks; an
	 * event's period is in events, as the histogram's (1 / hz).
	 */
	tick = prof->event_type ?
	       (double)prof->callers.period_ns * prof->hz :
	       (double)prof->callers.period_ns * 1e-9 * prof->hz;
	prof->print_time = 0.0;
	for (i = 0; i < prof->symtab.len; i++) {
		struct sym *s = &prof->symtab.base[i];
		struct arc *a;

		s->cg.prop.self = s->cg.prop.child = s->cg.child_time = 0;
		for (a = s->cg.children; a; a = a->next_child)
			a->time = a->child_time = 0;
	}
	for (i = 1; i <= prof->num_cycles; i++) {
		prof->cycle_header[i].cg.prop.self = 0;
		prof->cycle_header[i].cg.prop.child = 0;
	}
	for (i = 0; i < n; i++) {
		const struct caller_node *c = &prof->callers.node[i];
		size_t len = 0;

		enum chain_entry above = ENTRY_NONE;

		cut[i] = c->parent == CALLER_NONE ? caller_node_truncated(c) :
			 cut[c->parent];
		if (cut[i] && c->parent != CALLER_NONE)
			above = entry[c->parent];
		if (cut[i])
			stop[i] = c->parent == CALLER_NONE ? CALLER_ABSOLUTE :
				  prof->callers.node[c->parent].parent ==
				  CALLER_NONE ?
				  c->module : stop[c->parent];
		entry[i] = above != ENTRY_NONE ? above :
			   entry_of(prof->node_caller[i]);
		if (!c->count)
			continue;
		/*
		 * A sample taken in the profiler (sp_mcount, its handlers) is
		 * overhead, not its caller's self time; the profiler's frames
		 * above a sample (a wrapper such as its pthread_create) have
		 * no symbol and are passed over.
		 */
		if (c->module < prof->nmodules &&
		    prof->modules[c->module].overhead) {
			prof->caller_stats.overhead += c->count;
			continue;
		}
		/*
		 * A chain cut beyond main lacks only the C library's start
		 * code, which calls main without a frame pointer (glibc 2.36
		 * leaves 1 in the register): complete.
		 */
		if (cut[i] && (above != ENTRY_NONE ? above :
			       entry_of(prof->node_leaf[i])) != ENTRY_MAIN) {
			prof->caller_stats.truncated += c->count;
			prof->caller_stats.cut_in[stop[i] < prof->nmodules ?
						  stop[i] :
						  prof->nmodules] += c->count;
		} else {
			prof->caller_stats.complete += c->count;
		}
		/* Depths were checked when read: the walk ends in time. */
		if (prof->node_leaf[i])
			chain[len++] = prof->node_leaf[i];
		for (k = c->parent; k != CALLER_NONE &&
		     len < SPROFIL_MAX_DEPTH + 2;
		     k = prof->callers.node[k].parent)
			if (prof->node_caller[k])
				chain[len++] = prof->node_caller[k];
		if (!len) {
			prof->caller_stats.unknown += c->count;
			continue;
		}
		if (!sample_counts(prof, chain, len))
			continue;
		file_sample(prof, chain, len, (double)c->count * tick, stamp,
			    ++serial);
	}
	for (i = 0; i < prof->symtab.len; i++)
		prof->symtab.base[i].cg.child_time =
			prof->symtab.base[i].cg.prop.child;
	for (i = 1; i <= prof->num_cycles; i++)
		prof->cycle_header[i].cg.child_time =
			prof->cycle_header[i].cg.prop.child;
	free(stamp);
	free(cut);
	free(stop);
	free(entry);
	free(prof->node_caller);
	free(prof->node_leaf);
	free(prof->node_known);
	prof->node_caller = prof->node_leaf = prof->node_known = NULL;
}

bool sym_calls_unknown(struct profile *prof, const struct sym *s)
{
	const struct sym *m;
	const struct arc *a;
	bool any = false;

	if (!prof->measured_times || s->ncalls || s->cg.self_calls)
		return false;
	/* A cycle's calls are those into its members from outside. */
	for (m = s->name ? s : s->cg.cyc.next; m;
	     m = s->name ? NULL : m->cg.cyc.next) {
		for (a = m->cg.parents; a; a = a->next_parent) {
			if (!a->uncounted)
				return false;
			any = true;
		}
	}
	return any;
}
