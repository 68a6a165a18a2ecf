// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The diff's views beyond functions' self time (diff.h, docs/diff.md):
 *  - --lines: a function's samples shared over its source lines as the
 *    line exports share them (export_self_shares(), the -l flat
 *    profile's split of each histogram bin), so that a function's lines
 *    add up to its row.  A line is keyed by its file's basename, its
 *    number and its function's key: two builds in two directories
 *    match, and a line that moved into another function (renamed,
 *    inlined) is another line, new on one side and vanished on the
 *    other, as its function is.
 *  - Measured inclusive times and arcs, where the profile has caller
 *    chains: each key's samples whose chain holds it (self + children),
 *    counted once per chain however many of its frames carry the key (a
 *    recursion, or a function and its clone: foo calling foo.part.0 is
 *    one row, which the analyzer's per-function times would count
 *    twice); and each caller -> callee arc's samples below it
 *    (cg_measured.c's), keyed by both functions' keys.  Without chains
 *    nothing is taken and the report says so: an estimate from call
 *    counts would be compared as if it were measured.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "analyze/analyze.h"
#include "export/export.h"

static void add_line(struct dtab *t, const char *fkey, const char *flabel,
		     const struct source_file *file, int line,
		     unsigned int run, uint64_t n)
{
	const char *base = file ? diff_base_of(file->name) : "?";
	size_t len = strlen(fkey) + strlen(flabel) + 2 * strlen(base) + 48;
	char *key = xmalloc(len), *label = xmalloc(len);

	snprintf(key, len, "%s:%d\t%s", base, file ? line : 0, fkey);
	if (file)
		snprintf(label, len, "%s:%d (%s)", base, line, flabel);
	else
		snprintf(label, len, "%s (no line)", flabel);
	dtab_add(t, key, label, run, n);
}

void diff_take_lines(struct dtab *t, unsigned int run, struct profile *prof,
		     struct dkeys *keys, const uint64_t *whole)
{
	struct shares sh = { 0 };
	long long *part = NULL;
	const char *key, *label;
	size_t i, k, cap = 0;

	export_self_shares(prof, keys->opt, &sh);
	for (i = 0; i < prof->symtab.len; i++) {
		size_t first = export_shares_find(&sh, i, 0), n = 0;

		if (!whole[i])
			continue;
		dkeys_get(keys, i, &key, &label);
		while (first + n < sh.len && sh.v[first + n].sym == i &&
		       !sh.v[first + n].callee)
			n++;
		if (!n) {
			add_line(t, key, label, NULL, 0, run, whole[i]);
			continue;
		}
		if (n > cap) {
			cap = n;
			part = xreallocarray(part, cap, sizeof(*part));
		}
		export_apportion(&sh.v[first], n, (long long)whole[i], part);
		for (k = 0; k < n; k++)
			if (part[k] > 0)
				add_line(t, key, label, sh.v[first + k].file,
					 sh.v[first + k].line, run,
					 (uint64_t)part[k]);
	}
	free(part);
	free(sh.v);
}

static bool counted_fn(struct profile *prof, const struct sym *s)
{
	return s->name && s->is_func && !prof->modules[s->module].overhead;
}

/* A counted function's key, and the symbol it was taken from. */
struct key_sym {
	const char *key;
	size_t sym;
};

static int cmp_key_sym(const void *a, const void *b)
{
	const struct key_sym *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	return x->sym < y->sym ? -1 : x->sym > y->sym;
}

#define NO_KEY	UINT32_MAX

/* The key id of node @n's function (as a sampled pc when @leaf), or NO_KEY. */
static uint32_t node_key(struct profile *prof, const uint32_t *sym_key,
			 const struct caller_node *n, bool leaf)
{
	struct sym *s = caller_node_function(prof, n, leaf);

	return s ? sym_key[s - prof->symtab.base] : NO_KEY;
}

/*
 * Each key's inclusive samples into @p's DV_INCL run @run, walked from
 * the chains: a chain counts once for every key on it.
 */
static void take_inclusive(struct dprog *p, unsigned int run,
			   struct profile *prof, struct dkeys *keys)
{
	size_t nsym = prof->symtab.len, n = prof->callers.len, i, nk = 0;
	struct key_sym *ks = xmallocarray(nsym ? nsym : 1, sizeof(*ks));
	uint32_t *sym_key = xmallocarray(nsym ? nsym : 1, sizeof(*sym_key));
	uint32_t *caller_key = xmallocarray(n ? n : 1, sizeof(*caller_key));
	uint32_t nid = 0, id, k;
	uint64_t *incl, *stamp, serial = 0;
	size_t *first;
	const char *key, *label;

	for (i = 0; i < nsym; i++) {
		sym_key[i] = NO_KEY;
		if (!counted_fn(prof, &prof->symtab.base[i]))
			continue;
		dkeys_get(keys, i, &key, &label);
		ks[nk].key = key;
		ks[nk++].sym = i;
	}
	qsort(ks, nk, sizeof(*ks), cmp_key_sym);
	first = xmallocarray(nk ? nk : 1, sizeof(*first));
	for (i = 0; i < nk; i++) {
		if (i && strcmp(ks[i].key, ks[i - 1].key))
			nid++;
		if (!i || strcmp(ks[i].key, ks[i - 1].key))
			first[nid] = ks[i].sym;
		sym_key[ks[i].sym] = nid;
	}
	nid = nk ? nid + 1 : 0;
	incl = xcalloc(nid ? nid : 1, sizeof(*incl));
	stamp = xcalloc(nid ? nid : 1, sizeof(*stamp));
	for (i = 0; i < n; i++)
		caller_key[i] = node_key(prof, sym_key, &prof->callers.node[i],
					 false);
	for (i = 0; i < n; i++) {
		const struct caller_node *c = &prof->callers.node[i];

		if (!c->count || (c->module < prof->nmodules &&
				  prof->modules[c->module].overhead))
			continue;
		serial++;
		id = node_key(prof, sym_key, c, true);
		for (k = c->parent;; k = prof->callers.node[k].parent) {
			if (id != NO_KEY && stamp[id] != serial) {
				stamp[id] = serial;
				incl[id] += c->count;
			}
			if (k == CALLER_NONE)
				break;
			id = caller_key[k];
		}
	}
	for (id = 0; id < nid; id++) {
		if (!incl[id])
			continue;
		dkeys_get(keys, first[id], &key, &label);
		dtab_add(&p->tab[DV_INCL], xstrdup(key), xstrdup(label), run,
			 incl[id]);
	}
	free(ks);
	free(sym_key);
	free(caller_key);
	free(first);
	free(incl);
	free(stamp);
}

int diff_take_chains(struct dprog *p, unsigned int run, struct profile *prof,
		     struct dkeys *keys)
{
	const struct caller_stats *cs = &prof->caller_stats;
	struct sym *base = prof->symtab.base;
	const char *pk, *pl, *ck, *cl;
	size_t i;

	if (!(prof->gmon_input & INPUT_CALLERS) || !prof->measured_times ||
	    !(cs->complete + cs->truncated))
		return -1;
	take_inclusive(p, run, prof, keys);
	for (i = 0; i < prof->symtab.len; i++) {
		struct sym *s = &base[i];
		const struct arc *a;
		uint64_t n;
		char *key, *label;

		if (!counted_fn(prof, s))
			continue;
		dkeys_get(keys, i, &pk, &pl);
		for (a = s->cg.children; a; a = a->next_child) {
			size_t c = (size_t)(a->child - base);

			if (a->child < base || c >= prof->symtab.len ||
			    a->child == s || !counted_fn(prof, a->child))
				continue;
			n = whole_samples(a->time + a->child_time);
			if (!n)
				continue;
			dkeys_get(keys, c, &ck, &cl);
			key = xmalloc(strlen(pk) + strlen(ck) + 2);
			sprintf(key, "%s\n%s", pk, ck);
			label = xmalloc(strlen(pl) + strlen(cl) + 5);
			sprintf(label, "%s -> %s", pl, cl);
			dtab_add(&p->tab[DV_ARC], key, label, run, n);
		}
	}
	return 0;
}
