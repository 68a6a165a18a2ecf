// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The stacks the folded and flame graph exports are made of.
 *
 * The caller samples' calling context tree (caller_tree.c) keys a frame
 * by its pc, so two calls from different lines of one function are two
 * nodes.  A flame graph wants one box per function in a context, so the
 * tree is merged again here, keyed by (parent, frame name): every node
 * of the result is a distinct chain of names, and its self count is the
 * samples of every calling context that prints as that chain.
 *
 * Names (docs/exports.md): the function as the reports print it; in a
 * multi-module profile "module`function" (DTrace's spelling, which
 * FlameGraph, inferno and speedscope take as plain text); a pc in no
 * known function "module+0xOFFSET", as the reports name code past every
 * symbol; a pc in no module "[unknown]"; the top of the chains the walk
 * cut short "[truncated]".  Every sample is kept, so the stacks add up
 * to the samples of the profile: symspecs do not apply here.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"

/* Interned names: one copy each, so that names compare as pointers. */
struct intern {
	char **slot;
	size_t size, len;	/* size a power of two */
};

static size_t str_hash(const char *s)
{
	size_t h = 14695981039346656037ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static void intern_grow(struct intern *in)
{
	size_t n = in->size ? in->size * 2 : 256, i;
	char **slot = xcalloc(n, sizeof(*slot));

	for (i = 0; i < in->size; i++) {
		size_t h;

		if (!in->slot[i])
			continue;
		for (h = str_hash(in->slot[i]) & (n - 1); slot[h];
		     h = (h + 1) & (n - 1))
			;
		slot[h] = in->slot[i];
	}
	free(in->slot);
	in->slot = slot;
	in->size = n;
}

/* The one copy of @s; takes @s (malloc'd) over or frees it. */
static const char *intern(struct intern *in, char *s)
{
	size_t h;

	if ((in->len + 1) * 2 > in->size)
		intern_grow(in);
	for (h = str_hash(s) & (in->size - 1); in->slot[h];
	     h = (h + 1) & (in->size - 1)) {
		if (!strcmp(in->slot[h], s)) {
			free(s);
			return in->slot[h];
		}
	}
	in->len++;
	return in->slot[h] = s;
}

static struct intern names;

/* Neither ';' (the frame separator) nor a line break may be in a name. */
static char *clean(char *s)
{
	char *p;

	for (p = s; *p; p++)
		if (*p == ';' || *p == '\n' || *p == '\r')
			*p = '_';
	return s;
}

static char *qualified(struct profile *prof, unsigned int m, const char *name)
{
	const char *mod = module_basename(&prof->modules[m]);
	size_t n = strlen(mod) + strlen(name) + 2;
	char *q = xmalloc(n);

	snprintf(q, n, "%s`%s", mod, name);
	return q;
}

/* The name of function @s, module-qualified where the profile has many. */
static const char *sym_frame_name(struct profile *prof,
				  const struct gprof_options *opt,
				  const struct sym *s)
{
	char *name = display_name(opt, s);

	/* Gaps and unread modules already name their module. */
	if (prof->multi_module && !s->is_gap &&
	    prof->modules[s->module].loaded) {
		char *q = qualified(prof, s->module, name);

		free(name);
		name = q;
	}
	return intern(&names, clean(name));
}

static const char *node_frame_name(struct profile *prof,
				   const struct gprof_options *opt,
				   const struct caller_node *n, bool leaf)
{
	struct sym *s;
	char buf[64];

	if (caller_node_truncated(n))
		return intern(&names, xstrdup("[truncated]"));
	s = caller_node_function(prof, n, leaf);
	if (s)
		return sym_frame_name(prof, opt, s);
	if (n->module == CALLER_ABSOLUTE || n->module >= prof->nmodules)
		return intern(&names, xstrdup("[unknown]"));
	snprintf(buf, sizeof(buf), "+0x%llx", (unsigned long long)n->pc);
	return intern(&names, clean(qualified(prof, n->module, buf)));
}

/* Children of a stack node by (parent, name): indices + 1, 0 free. */
static uint32_t *child_hash;
static size_t child_hash_size;

static size_t child_slot(uint32_t parent, const char *name)
{
	uint64_t k = (uint64_t)(uintptr_t)name * 0x9e3779b97f4a7c15ull;

	k ^= parent + (k >> 29);
	k *= 0xbf58476d1ce4e5b9ull;
	return (size_t)(k ^ (k >> 32)) & (child_hash_size - 1);
}

static void child_hash_put(const struct stacks *st, uint32_t i)
{
	size_t h = child_slot(st->node[i].parent, st->node[i].name);

	while (child_hash[h])
		h = (h + 1) & (child_hash_size - 1);
	child_hash[h] = i + 1;
}

static uint32_t stack_child(struct stacks *st, uint32_t parent,
			    const char *name, unsigned int module)
{
	struct stack_node *n;
	size_t h, i;

	if (child_hash_size) {
		for (h = child_slot(parent, name); child_hash[h];
		     h = (h + 1) & (child_hash_size - 1)) {
			n = &st->node[child_hash[h] - 1];
			if (n->parent == parent && n->name == name)
				return child_hash[h] - 1;
		}
	}
	if (st->len == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 256;
		st->node = xreallocarray(st->node, st->cap, sizeof(*st->node));
	}
	n = &st->node[st->len];
	memset(n, 0, sizeof(*n));
	n->name = name;
	n->module = module;
	n->parent = parent;
	n->first_child = n->next_sibling = CALLER_NONE;
	st->len++;
	if (st->len * 2 > child_hash_size) {
		free(child_hash);
		child_hash_size = child_hash_size ? child_hash_size * 2 : 1024;
		child_hash = xcalloc(child_hash_size, sizeof(*child_hash));
		for (i = 0; i < st->len; i++)
			child_hash_put(st, (uint32_t)i);
	} else {
		child_hash_put(st, (uint32_t)(st->len - 1));
	}
	return (uint32_t)(st->len - 1);
}

static unsigned int node_module(struct profile *prof,
				const struct caller_node *n)
{
	return n->module < prof->nmodules ? n->module : UINT_MAX;
}

/*
 * Every node's stack as a caller twice: under "[truncated]" when its
 * chain was cut, and without it.  A sample's chain is put under the
 * mark unless the cut lies beyond main (the rule of the measured call
 * graph, cg_measured.c: glibc's start code calls main without a frame
 * pointer, so such a chain lacks nothing of the program).
 */
struct walk {
	uint32_t *plain, *cut;	/* the stack node as a caller */
	bool *was_cut;		/* the chain through the node was cut */
	unsigned char *entry;	/* caller_frame_entry() of the cut chain */
};

static void from_chains(struct profile *prof, const struct gprof_options *opt,
			struct stacks *st)
{
	size_t n = prof->callers.len ? prof->callers.len : 1, i;
	struct walk w = {
		.plain = xcalloc(n, sizeof(*w.plain)),
		.cut = xcalloc(n, sizeof(*w.cut)),
		.was_cut = xcalloc(n, sizeof(*w.was_cut)),
		.entry = xcalloc(n, sizeof(*w.entry)),
	};

	for (i = 0; i < prof->callers.len; i++) {
		const struct caller_node *c = &prof->callers.node[i];
		uint32_t p = c->parent;
		int above = 0, leaf_entry;
		const char *name;

		if (p == CALLER_NONE && caller_node_truncated(c)) {
			w.was_cut[i] = true;
			w.plain[i] = 0;
			w.cut[i] = stack_child(st, 0, node_frame_name(prof, opt,
								      c,
								      false),
					       UINT_MAX);
			continue;
		}
		if (p != CALLER_NONE) {
			w.was_cut[i] = w.was_cut[p];
			above = w.entry[p];
		}
		name = node_frame_name(prof, opt, c, false);
		w.plain[i] = stack_child(st, p == CALLER_NONE ? 0 :
					 w.plain[p], name, node_module(prof,
								       c));
		w.cut[i] = stack_child(st, p == CALLER_NONE ? 0 : w.cut[p],
				       name, node_module(prof, c));
		w.entry[i] = above ? above :
			     caller_frame_entry(caller_node_function(prof, c,
								     false));
		if (!c->count)
			continue;
		leaf_entry = above ? above :
			     caller_frame_entry(caller_node_function(prof, c,
								     true));
		name = node_frame_name(prof, opt, c, true);
		st->node[stack_child(st, p == CALLER_NONE ? 0 :
				     w.was_cut[i] && leaf_entry != 1 ?
				     w.cut[p] : w.plain[p],
				     name, node_module(prof,
						       c))].self += c->count;
	}
	free(w.plain);
	free(w.cut);
	free(w.was_cut);
	free(w.entry);
}

static double flat_ticks(struct profile *prof, const struct sym *s)
{
	(void)prof;
	return s->hist.time;
}

/* The profiler's own time is in no function (hist.c). */
static bool program_sym(struct profile *prof, const struct gprof_options *opt,
			const struct sym *s)
{
	(void)opt;
	return s->name &&
	       !(s->module < prof->nmodules &&
		 prof->modules[s->module].overhead);
}

/*
 * One frame per function of the flat profile, with its time in whole
 * samples that add up to the flat profile's (export_whole()).
 */
static void from_histogram(struct profile *prof,
			   const struct gprof_options *opt, struct stacks *st)
{
	uint64_t *whole = export_whole(prof, opt, flat_ticks, program_sym,
				       whole_samples(prof->total_time));
	size_t i;

	for (i = 0; i < prof->symtab.len; i++) {
		const struct sym *s = &prof->symtab.base[i];

		if (whole[i])
			st->node[stack_child(st, 0, sym_frame_name(prof, opt,
								   s),
					     s->module)].self += whole[i];
	}
	free(whole);
}

static int cmp_by_name(const void *a, const void *b)
{
	const struct stack_node *x = *(const struct stack_node *const *)a;
	const struct stack_node *y = *(const struct stack_node *const *)b;

	return strcmp(x->name, y->name);
}

/*
 * Totals, the nodes with none dropped (a frame seen only as a caller of
 * contexts with no sample), children linked in name order as FlameGraph
 * sorts them.  Parents come before their children.
 */
static void finish(struct stacks *st)
{
	struct stack_node **kids = xcalloc(st->len, sizeof(*kids));
	struct stack_node *n;
	uint32_t c;
	size_t i, k, nk;

	for (i = st->len; i-- > 0;) {
		n = &st->node[i];
		n->total += n->self;
		if (i)
			st->node[n->parent].total += n->total;
	}
	/* Linked in index order first, then each list sorted. */
	for (i = st->len; i-- > 1;) {
		n = &st->node[i];
		if (!n->total)
			continue;
		n->next_sibling = st->node[n->parent].first_child;
		st->node[n->parent].first_child = (uint32_t)i;
	}
	for (i = 0; i < st->len; i++) {
		nk = 0;
		for (c = st->node[i].first_child; c != CALLER_NONE;
		     c = st->node[c].next_sibling)
			kids[nk++] = &st->node[c];
		qsort(kids, nk, sizeof(*kids), cmp_by_name);
		st->node[i].first_child = CALLER_NONE;
		for (k = nk; k-- > 0;) {
			kids[k]->next_sibling = st->node[i].first_child;
			st->node[i].first_child =
				(uint32_t)(kids[k] - st->node);
		}
	}
	free(kids);
}

bool stacks_build(struct profile *prof, const struct gprof_options *opt,
		  struct stacks *st,
		  const char *format)
{
	memset(st, 0, sizeof(*st));
	stack_child(st, CALLER_NONE, intern(&names, xstrdup("all")),
		    UINT_MAX);
	st->from_chains = (prof->gmon_input & INPUT_CALLERS) &&
		prof->callers.len;
	if (st->from_chains)
		from_chains(prof, opt, st);
	else
		from_histogram(prof, opt, st);
	free(child_hash);
	child_hash = NULL;
	child_hash_size = 0;
	finish(st);
	if (!st->node[0].total) {
		fprintf(stderr, "%s: --export=%s: the profile has no samples\n",
			opt->whoami, format);
		return false;
	}
	if (!st->from_chains)
		fprintf(stderr, "%s: --export=%s: the profile has no call chains; one-frame stacks of the flat profile instead (`sprofil record' records chains)\n",
			opt->whoami, format);
	return true;
}

void stacks_free(struct stacks *st)
{
	size_t i;

	free(st->node);
	memset(st, 0, sizeof(*st));
	for (i = 0; i < names.size; i++)
		free(names.slot[i]);
	free(names.slot);
	memset(&names, 0, sizeof(names));
}
