// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --export=callgrind: KCachegrind / qcachegrind / callgrind_annotate /
 * gprof2dot -f callgrind.  Costs are integer nanoseconds ("events: ns").
 *
 * Each function's self cost is the call graph's (the flat profile's, or
 * the measured one), rounded to the nanosecond at the running sum so
 * that they add up to the graph's total exactly (export_whole()),
 * and spread over its source lines: the
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

#include <sprofil/events.h>

#include "read/dwarf_lines.h"
#include "export/export.h"

/*
 * Each call site the chains show: a frame's return address (its
 * caller's site) over the callee's frame below it, weighted by the
 * samples of the chains through that frame.
 */
static void call_shares(struct profile *prof, const struct gprof_options *opt,
			struct shares *t)
{
	uint64_t *below;
	size_t i;

	if (!prof->measured_times || !prof->callers.len)
		return;
	below = xcalloc(prof->callers.len, sizeof(*below));
	for (i = prof->callers.len; i-- > 0;) {
		below[i] += prof->callers.node[i].count;
		if (prof->callers.node[i].parent != CALLER_NONE)
			below[prof->callers.node[i].parent] += below[i];
	}
	for (i = 0; i < prof->callers.len; i++) {
		const struct caller_node *n = &prof->callers.node[i], *p;
		struct source_file *file = NULL;
		struct sym *caller, *callee;
		int line = 0;

		if (n->parent == CALLER_NONE || !below[i] ||
		    n->module == CALLER_ABSOLUTE)
			continue;
		p = &prof->callers.node[n->parent];
		if (p->module == CALLER_ABSOLUTE || !p->pc)
			continue;
		caller = sym_lookup(&prof->symtab,
				    MODULE_BASE(p->module) + p->pc - 1);
		callee = sym_lookup(&prof->symtab,
				    MODULE_BASE(n->module) + n->pc);
		if (!caller || !callee || caller == callee)
			continue;
		if (!export_line_of(prof, opt, p->module, p->pc - 1, &file,
				    &line))
			file = NULL;
		export_share_add(t, caller - prof->symtab.base,
				 callee - prof->symtab.base,
				 file, line, MODULE_BASE(p->module) + p->pc - 1,
				 below[i]);
	}
	free(below);
	export_shares_merge(t);
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
static void self_lines(struct profile *prof, struct sym *s,
		       const struct shares *self,
		       uint64_t self_ns, const struct source_file **cur)
{
	size_t sym = s - prof->symtab.base, n = 0, k;
	size_t i = export_shares_find(self, sym, 0);
	long long total = (long long)self_ns, *cost;

	while (i + n < self->len && self->v[i + n].sym == sym)
		n++;
	if (!n || !total) {
		printf("%d %lld\n", s->line_num, total);
		return;
	}
	cost = xcalloc(n, sizeof(*cost));
	export_apportion(&self->v[i], n, total, cost);
	for (k = 0; k < n; k++) {
		if (!cost[k])
			continue;
		set_file(cur, self->v[i + k].file, s->file);
		printf("%d %lld\n", self->v[i + k].line, cost[k]);
	}
	free(cost);
}

static void call_block(struct profile *prof, const struct gprof_options *opt,
		       struct arc *a,
		       const struct source_file *site_file,
		       int site_line, uint64_t count, long long cost,
		       const struct source_file **cur, const struct sym *s)
{
	struct sym *c = a->child;
	char *name;

	set_file(cur, site_file, s->file);
	sym_source(prof, opt, c);
	name = display_name(opt, c);
	printf("cob=%s\ncfl=%s\ncfn=%s\ncalls=%llu %d\n%d %lld\n",
	       module_name(prof, c->module), file_name(c->file), name,
	       (unsigned long long)count, c->line_num, site_line, cost);
	free(name);
}

/* Arc @a's calls= lines: one per call site the chains show, else one. */
static void call_lines(struct profile *prof, const struct gprof_options *opt,
		       struct sym *s,
		       struct arc *a,
		       const struct shares *calls,
		       const struct source_file **cur)
{
	size_t sym = s - prof->symtab.base,
		callee = a->child - prof->symtab.base;
	size_t i = export_shares_find(calls, sym, callee);
	size_t n = 0, k, most, others;
	long long total = ns(prof, a->time + a->child_time), *cost;

	while (i + n < calls->len && calls->v[i + n].sym == sym &&
	       calls->v[i + n].callee == callee)
		n++;
	if (!n) {
		call_block(prof, opt, a, s->file, s->line_num,
			   a->count ? a->count : 1,
			   total, cur, s);
		return;
	}
	cost = xcalloc(n, sizeof(*cost));
	export_apportion(&calls->v[i], n, total, cost);
	for (most = 0, k = 1; k < n; k++)
		if (calls->v[i + k].weight > calls->v[i + most].weight)
			most = k;
	for (others = 0, k = 0; k < n; k++)
		others += cost[k] && k != most;
	for (k = 0; k < n; k++)
		if (cost[k] || k == most)
			call_block(prof, opt, a, calls->v[i + k].file,
				   calls->v[i + k].line,
				   k != most ? 1 : a->count > others ?
				   a->count - others : 1, cost[k], cur, s);
	free(cost);
}

int export_callgrind(struct profile *prof, const struct gprof_options *opt)
{
	struct shares self = { 0 }, calls = { 0 };
	uint64_t *self_ns = export_whole(prof, opt, self_ticks, shown,
					 ns(prof, graph_total(prof)));
	uint64_t sum = 0;
	const char *p;
	size_t i;

	export_self_shares(prof, opt, &self);
	call_shares(prof, opt, &calls);
	/* The summary is the total of the self costs written below. */
	for (i = 0; i < prof->symtab.len; i++)
		sum += self_ns[i];
	printf("# callgrind format\nversion: 1\ncreator: sprofil-gprof\n");
	/* An event's name is its cost's: "page_faults" (an identifier). */
	if (prof->event_type) {
		printf("cmd: %s\npositions: line\nevents: ", opt->a_out_name);
		for (p = spe_event(prof->event_type)->name; *p; p++)
			putchar(*p == '-' ? '_' : *p);
		putchar('\n');
	} else {
		printf("cmd: %s\npositions: line\nevents: ns\n",
		       opt->a_out_name);
	}
	printf("summary: %llu\n\n", (unsigned long long)sum);
	for (i = 0; i < prof->symtab.len; i++) {
		struct sym *s = &prof->symtab.base[i];
		const struct source_file *cur;
		struct arc *a;
		char *name;

		if (!shown(prof, opt, s))
			continue;
		sym_source(prof, opt, s);
		name = display_name(opt, s);
		printf("ob=%s\nfl=%s\nfn=%s\n", module_name(prof, s->module),
		       file_name(s->file), name);
		free(name);
		cur = s->file;
		self_lines(prof, s, &self, self_ns[i], &cur);
		for (a = s->cg.children; a; a = a->next_child)
			if (shown(prof, opt, a->child) && a->child != s)
				call_lines(prof, opt, s, a, &calls, &cur);
		putchar('\n');
	}
	free(self_ns);
	free(self.v);
	free(calls.v);
	return 0;
}
