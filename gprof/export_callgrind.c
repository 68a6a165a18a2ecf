// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --export=callgrind: KCachegrind / qcachegrind / callgrind_annotate /
 * gprof2dot -f callgrind.  Costs are integer microseconds ("events: us").
 *
 * Each function's self cost is the call graph's (the flat profile's, or
 * the measured one), as before, but spread over its source lines: the
 * histogram's bins are split byte by byte over the lines of their
 * addresses, as -l splits them over its line symbols, so the lines of a
 * function add up to it and a line's cost is what -l's flat profile
 * gives that line.  A line in another file than the function's (code
 * inlined from a header) is written under "fi=", and "fe=" goes back.
 *
 * Each arc is a "calls=" line with the arc's inclusive cost.  When the
 * profile has caller chains, the call's site is known: the line of the
 * return address's call (pc - 1) in the caller's frame, so an arc made
 * from several lines is written once per line, its cost shared by the
 * samples below each site (its call count on the site with the most,
 * 1 on each other).  Without chains (-pg's arcs are per function), the
 * site is the caller's first line.
 *
 * A call count is never written as 0, not even for an arc seen only in
 * the chains (no -pg, no count): callgrind_annotate takes the cost after
 * "calls=0" for the caller's self cost.  Such arcs say calls=1.
 */
#include <stdio.h>
#include <stdlib.h>

#include "dwarf_lines.h"
#include "export.h"

/* A share of some cost at a source line: self cost, or a call's. */
struct line_share {
	size_t sym, callee;	/* symtab indices; callee 0 for self */
	struct source_file *file;	/* NULL: unknown */
	int line;
	double weight;
};

struct shares {
	struct line_share *v;
	size_t len, cap;
};

static void share_add(struct shares *t, size_t sym, size_t callee,
		      struct source_file *file, int line, double weight)
{
	if (t->len == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 1024;
		t->v = xreallocarray(t->v, t->cap, sizeof(*t->v));
	}
	t->v[t->len++] = (struct line_share){ sym, callee, file, line,
					      weight };
}

static int cmp_share(const void *a, const void *b)
{
	const struct line_share *x = a, *y = b;

	if (x->sym != y->sym)
		return x->sym < y->sym ? -1 : 1;
	if (x->callee != y->callee)
		return x->callee < y->callee ? -1 : 1;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

/* Sorts @t and merges the shares of one (sym, callee, file, line). */
static void shares_merge(struct shares *t)
{
	size_t i, n = 0;

	if (!t->len)
		return;
	qsort(t->v, t->len, sizeof(*t->v), cmp_share);
	for (i = 1; i < t->len; i++) {
		if (!cmp_share(&t->v[n], &t->v[i]))
			t->v[n].weight += t->v[i].weight;
		else
			t->v[++n] = t->v[i];
	}
	t->len = n + 1;
}

/* The first share of (@sym, @callee) in sorted @t, or t->len. */
static size_t shares_find(const struct shares *t, size_t sym, size_t callee)
{
	size_t lo = 0, hi = t->len;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct line_share *x = &t->v[mid];

		if (x->sym < sym || (x->sym == sym && x->callee < callee))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The line of link-time @link in module @m, false when unknown. */
static bool line_of(unsigned int m, uint64_t link, struct source_file **file,
		    int *line)
{
	struct dmod *d = m < nmodules && !modules[m].absolute ?
			 dmod_get(m) : NULL;

	return d && dmod_line(d, link, file, line);
}

/* Every histogram byte's share of its bin, at its function and line. */
static void self_shares(struct shares *t)
{
	unsigned int r;

	for (r = 0; r < num_hist_records; r++) {
		const struct hist_record *h = &hist_records[r];
		unsigned int m = ADDR_MODULE(h->lowpc);
		uint64_t i, lo, hi, a;

		if (m < nmodules && modules[m].overhead)
			continue;
		for (i = 0; i < h->num_bins; i++) {
			if (!h->sample[i])
				continue;
			hist_bin_bounds(h, i, &lo, &hi);
			for (a = lo; a < hi; a++) {
				struct sym *s = sym_lookup(&symtab, a);
				struct source_file *file = NULL;
				int line = 0;

				if (!s || !export_shown(s))
					continue;
				if (!line_of(m, ADDR_LINK(a), &file, &line))
					file = NULL;
				share_add(t, s - symtab.base, 0, file, line,
					  (double)h->sample[i] / (hi - lo));
			}
		}
	}
	shares_merge(t);
}

/*
 * Each call site the chains show: a frame's return address (its
 * caller's site) over the callee's frame below it, weighted by the
 * samples of the chains through that frame.
 */
static void call_shares(struct shares *t)
{
	uint64_t *below;
	size_t i;

	if (!measured_times || !callers.len)
		return;
	below = xcalloc(callers.len, sizeof(*below));
	for (i = callers.len; i-- > 0;) {
		below[i] += callers.node[i].count;
		if (callers.node[i].parent != CALLER_NONE)
			below[callers.node[i].parent] += below[i];
	}
	for (i = 0; i < callers.len; i++) {
		const struct caller_node *n = &callers.node[i], *p;
		struct source_file *file = NULL;
		struct sym *caller, *callee;
		int line = 0;

		if (n->parent == CALLER_NONE || !below[i] ||
		    n->module == CALLER_ABSOLUTE)
			continue;
		p = &callers.node[n->parent];
		if (p->module == CALLER_ABSOLUTE || !p->pc)
			continue;
		caller = sym_lookup(&symtab, MODULE_BASE(p->module) + p->pc - 1);
		callee = sym_lookup(&symtab, MODULE_BASE(n->module) + n->pc);
		if (!caller || !callee || caller == callee)
			continue;
		if (!line_of(p->module, p->pc - 1, &file, &line))
			file = NULL;
		share_add(t, caller - symtab.base, callee - symtab.base, file,
			  line, below[i]);
	}
	free(below);
	shares_merge(t);
}

/*
 * @total microseconds shared over @n shares by weight, each rounded so
 * that they add up to @total (largest remainders); into @out.
 */
static void apportion(const struct line_share *v, size_t n, long long total,
		      long long *out)
{
	double w = 0, *rest = xcalloc(n, sizeof(*rest));
	long long given = 0;
	size_t i;

	for (i = 0; i < n; i++)
		w += v[i].weight;
	for (i = 0; i < n; i++) {
		double exact = w > 0 ? total * v[i].weight / w : 0;

		out[i] = (long long)exact;
		rest[i] = exact - out[i];
		given += out[i];
	}
	while (given < total && n) {
		size_t best = 0;

		for (i = 1; i < n; i++)
			if (rest[i] > rest[best])
				best = i;
		out[best]++;
		rest[best] = -1;
		given++;
	}
	free(rest);
}

static const char *file_name(const struct source_file *f)
{
	return f ? f->name : "???";
}

/* Switches the cost lines' file: fi= another, fe= back to @home. */
static void set_file(const struct source_file **cur,
		     const struct source_file *want,
		     const struct source_file *home)
{
	if (*cur == want)
		return;
	printf("%s=%s\n", want == home ? "fe" : "fi", file_name(want));
	*cur = want;
}

/* @s's self cost, line by line. */
static void self_lines(struct sym *s, const struct shares *self,
		       const struct source_file **cur)
{
	size_t sym = s - symtab.base, i = shares_find(self, sym, 0), n = 0, k;
	long long total = export_us(export_self_ticks(s)), *cost;

	while (i + n < self->len && self->v[i + n].sym == sym)
		n++;
	if (!n || !total) {
		printf("%d %lld\n", s->line_num, total);
		return;
	}
	cost = xcalloc(n, sizeof(*cost));
	apportion(&self->v[i], n, total, cost);
	for (k = 0; k < n; k++) {
		if (!cost[k])
			continue;
		set_file(cur, self->v[i + k].file, s->file);
		printf("%d %lld\n", self->v[i + k].line, cost[k]);
	}
	free(cost);
}

static void call_block(struct arc *a, const struct source_file *site_file,
		       int site_line, uint64_t count, long long cost,
		       const struct source_file **cur, const struct sym *s)
{
	struct sym *c = a->child;
	char *name;

	set_file(cur, site_file, s->file);
	sym_source(c);
	name = export_display_name(c);
	printf("cob=%s\ncfl=%s\ncfn=%s\ncalls=%llu %d\n%d %lld\n",
	       export_module_name(c->module), file_name(c->file), name,
	       (unsigned long long)count, c->line_num, site_line, cost);
	free(name);
}

/* Arc @a's calls= lines: one per call site the chains show, else one. */
static void call_lines(struct sym *s, struct arc *a,
		       const struct shares *calls,
		       const struct source_file **cur)
{
	size_t sym = s - symtab.base, callee = a->child - symtab.base;
	size_t i = shares_find(calls, sym, callee), n = 0, k, most, others;
	long long total = export_us(a->time + a->child_time), *cost;

	while (i + n < calls->len && calls->v[i + n].sym == sym &&
	       calls->v[i + n].callee == callee)
		n++;
	if (!n) {
		call_block(a, s->file, s->line_num, a->count ? a->count : 1,
			   total, cur, s);
		return;
	}
	cost = xcalloc(n, sizeof(*cost));
	apportion(&calls->v[i], n, total, cost);
	for (most = 0, k = 1; k < n; k++)
		if (calls->v[i + k].weight > calls->v[i + most].weight)
			most = k;
	for (others = 0, k = 0; k < n; k++)
		others += cost[k] && k != most;
	for (k = 0; k < n; k++)
		if (cost[k] || k == most)
			call_block(a, calls->v[i + k].file,
				   calls->v[i + k].line,
				   k != most ? 1 : a->count > others ?
				   a->count - others : 1, cost[k], cur, s);
	free(cost);
}

void export_callgrind(void)
{
	struct shares self = { 0 }, calls = { 0 };
	long long sum = 0;
	size_t i;

	self_shares(&self);
	call_shares(&calls);
	/* The summary is the total of the self costs written below. */
	for (i = 0; i < symtab.len; i++)
		if (export_shown(&symtab.base[i]))
			sum += export_us(export_self_ticks(&symtab.base[i]));
	printf("# callgrind format\nversion: 1\ncreator: sprofil-gprof\n");
	printf("cmd: %s\npositions: line\nevents: us\n", a_out_name);
	printf("summary: %lld\n\n", sum);
	for (i = 0; i < symtab.len; i++) {
		struct sym *s = &symtab.base[i];
		const struct source_file *cur;
		struct arc *a;
		char *name;

		if (!export_shown(s))
			continue;
		sym_source(s);
		name = export_display_name(s);
		printf("ob=%s\nfl=%s\nfn=%s\n", export_module_name(s->module),
		       file_name(s->file), name);
		free(name);
		cur = s->file;
		self_lines(s, &self, &cur);
		for (a = s->cg.children; a; a = a->next_child)
			if (export_shown(a->child) && a->child != s)
				call_lines(s, a, &calls, &cur);
		putchar('\n');
	}
	free(self.v);
	free(calls.v);
}
