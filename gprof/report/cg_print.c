// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Printing the call graph (FSF layout, or BSD's with -T) and its index
 * by name; the suggested orders (-r, -R) are in cg_order.c.
 *
 * Every number, column and tie order is GNU gprof 2.40's, since tools
 * parse this text; the explanations printed without -b are our own.
 */
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

static const char fsf_blurb[] =
	"\n"
	" How to read the call graph\n"
	"\n"
	" Functions are listed by the time spent in them and in what they\n"
	" call, largest first.  Each entry between two dashed lines is about\n"
	" one function: the line starting with an index such as [3] is the\n"
	" function itself, the lines above it are its callers and the lines\n"
	" below it are its callees.\n"
	"\n"
	" On the function's own line:\n"
	"     index\tthe entry's number; the same number in brackets\n"
	"\t\tfollows the function's name wherever it appears.\n"
	"     % time\tshare of the total run time spent in the function\n"
	"\t\tand in its callees.  Excluded functions and different\n"
	"\t\tpoints of view mean the shares need not sum to 100.\n"
	"     self\ttime spent in the function's own code.\n"
	"     children\ttime its callees spent on its behalf.\n"
	"     called\thow often it was called; recursive calls to itself\n"
	"\t\tare counted apart, after a `+'.\n"
	"     name\tthe function, then its index.  A function on a\n"
	"\t\tcycle shows `<cycle N>' before the index.\n"
	"\n"
	" On a caller's line:\n"
	"     self\tthe part of the function's own time charged to\n"
	"\t\tthis caller.\n"
	"     children\tthe part of the function's callees' time charged\n"
	"\t\tto this caller.\n"
	"     called\tcalls from this caller, `/', all calls of the\n"
	"\t\tfunction other than recursive ones.\n"
	"     name\tthe caller and its index.\n"
	" A function whose callers are unknown (it was entered from code that\n"
	" was not profiled, or by a signal) shows `<spontaneous>' instead.\n"
	"\n"
	" On a callee's line:\n"
	"     self\tthe part of the callee's own time charged to this\n"
	"\t\tfunction.\n"
	"     children\tthe part of the callee's callees' time charged to\n"
	"\t\tthis function.\n"
	"     called\tcalls made by this function, `/', all calls of the\n"
	"\t\tcallee other than recursive ones.\n"
	"     name\tthe callee and its index.\n"
	"\n";

/* How the times were found: GNU's estimate, or measured. */
static const char estimated_blurb[] =
	" Time is shared out along arcs in proportion to call counts, which\n"
	" assumes every call of a function costs the same.  Within a cycle\n"
	" that cannot be done, so the times shown are those of the cycle as a\n"
	" whole.  A name followed by (N) rather than [N] has no entry of its\n"
	" own in this listing.\n";

static const char measured_blurb[] =
	" The times are measured: every sample recorded its call chain, and\n"
	" the time on an arc is that of the samples taken below that caller,\n"
	" whatever the call counts.  A function's total counts each sample it\n"
	" appears in once, at its outermost call, so recursion counts nothing\n"
	" twice.  Frames in code without symbols are charged to their caller.\n"
	" The times of a cycle's members are the cycle's.  A name followed by\n"
	" (N) rather than [N] has no entry of its own in this listing.  `-' in\n"
	" the called column: an arc seen only in the call chains, whose calls\n"
	" were not counted (code built without -pg); a function reached by no\n"
	" counted call leaves its column blank.\n";

static const char cycle_blurb[] =
	"\n"
	" Each cycle (functions calling each other in a loop) has an entry of\n"
	" its own, `<cycle N as a whole>': its callers are listed above it and\n"
	" its members below.  The number after `+' counts calls between\n"
	" members, and each member's count is the calls it got from other\n"
	" members.\n";

static const char bsd_blurb[] =
	"\n"
	"\n"
	"\n"
	"call graph profile:\n"
	"          Entries are sorted by the time spent in a function and\n"
	"          in its descendants together, largest first.\n"
	"\n"
	"          The function's own line:\n"
	"\n"
	"index     its number in this listing, also shown in\n"
	"          brackets after its name everywhere.\n"
	"\n"
	"%time     share of all time spent in it and its\n"
	"          descendants.\n"
	"\n"
	"self      time spent in its own code.\n"
	"\n"
	"descendants\n"
	"          time its descendants spent for it.\n"
	"\n"
	"called    calls it received, with calls to itself\n"
	"          after a `+'.\n"
	"\n"
	"name      the function, and its index.\n"
	"\n"
	"          Above it, one line per caller (parent):\n"
	"\n"
	"self      its own time charged to that parent.\n"
	"\n"
	"descendants\n"
	"          its descendants' time charged to that parent.\n"
	"\n"
	"called    calls from that parent / all its calls\n"
	"          from outside (recursion excluded).\n"
	"\n"
	"name      the parent, and its index.  When no caller\n"
	"          was seen the single line says <spontaneous>.\n"
	"\n"
	"          Below it, one line per callee (child):\n"
	"\n"
	"self      the child's own time charged to this\n"
	"          function.\n"
	"\n"
	"descendants\n"
	"          the child's descendants' time charged to\n"
	"          this function.\n"
	"\n"
	"called    calls from this function / all the child's\n"
	"          calls from outside (recursion excluded).\n"
	"\n"
	"name      the child, and its index.\n"
	"\n"
	"          ";

static const char bsd_blurb_tail[] =
	"  Functions\n"
	"          calling each other in a loop form a cycle, which\n"
	"          has an entry of its own listing its callers and\n"
	"          members; times of members are the cycle's.\n"
	"\n"
	"\n"
	"\n";

/* The module column of multi-module reports, before a name. */
static void mod_col(struct profile *prof, const struct sym *s)
{
	if (prof->multi_module)
		printf("%4u ", s->module);
}

static void mod_blank(struct profile *prof)
{
	if (prof->multi_module)
		printf("     ");
}

/* GNU prints the scale of the first histogram read, truncated. */
static long granularity(struct profile *prof)
{
	if (!prof->num_hist_records)
		return 0;
	return (long)prof->hist_records[0].bin_scale * 2;
}

/*
 * The truncated samples by the module their chain stopped in (its
 * outermost frame: the walk found no caller there, e.g. code without
 * frame pointers nor unwind table), largest first.
 */
static void print_cut_in(const struct profile *prof,
			 const struct caller_stats *cs)
{
	unsigned int nmodules = prof->nmodules;
	uint64_t *left, best;
	unsigned int m, pick;

	if (!cs->truncated || !cs->cut_in)
		return;
	left = xcalloc(nmodules + 1, sizeof(*left));
	memcpy(left, cs->cut_in, (nmodules + 1) * sizeof(*left));
	printf("truncated, by module stopped in:");
	for (;;) {
		best = 0;
		pick = 0;
		for (m = 0; m <= nmodules; m++)
			if (left[m] > best) {
				best = left[m];
				pick = m;
			}
		if (!best)
			break;
		printf(" %s %llu", pick < nmodules ?
		       module_basename(&prof->modules[pick]) : "[no module]",
		       (unsigned long long)best);
		left[pick] = 0;
	}
	printf("\n");
	free(left);
}

/*
 * What a measured graph is made of: the samples by their chains, and
 * those the recording or the symbols lost.
 */
static void print_measured_header(struct profile *prof)
{
	const struct caller_stats *cs = &prof->caller_stats;

	printf("times measured from caller samples: %llu with a complete chain, %llu truncated, %llu lost\n",
	       (unsigned long long)cs->complete,
	       (unsigned long long)cs->truncated,
	       (unsigned long long)(cs->lost + cs->busy));
	print_cut_in(prof, cs);
	if (prof->callers.dropped_chains)
		printf("%llu samples of %llu malformed caller chains dropped when read\n",
		       (unsigned long long)cs->dropped,
		       (unsigned long long)prof->callers.dropped_chains);
	if (cs->unknown)
		printf("%llu samples with no frame in a known function left out\n",
		       (unsigned long long)cs->unknown);
	if (cs->overhead)
		printf("%llu samples in the profiler's own code left out\n",
		       (unsigned long long)cs->overhead);
	if (!cs->has_counts)
		printf("no call counts (not built with -pg): `-' for the calls of an arc\n");
	printf("\n");
}

static void print_header(struct profile *prof, const struct gprof_options *opt)
{
	if (prof->first_output)
		prof->first_output = false;
	else
		printf("\f\n");

	if (!opt->bsd_style_output) {
		if (opt->print_descriptions)
			printf("\t\t     Call graph (explanation follows)\n\n");
		else
			printf("\t\t\tCall graph\n\n");
	}

	printf("\ngranularity: each sample hit covers %ld byte(s)",
	       granularity(prof));
	if (prof->print_time > 0.0) {
		/* An event's count ("faults") where time's is seconds. */
		printf(" for %.2f%% of %.2f %s\n\n",
		       100.0 / prof->print_time, prof->print_time / prof->hz,
		       prof->event_type ? prof->hist_dimension : "seconds");
	} else {
		printf(" no time propagated\n\n");
		/* Every numerator is 0 then; avoid dividing by zero. */
		prof->print_time = 1.0;
	}
	/* Its time is in no entry of the graph: say how much it was. */
	if (overhead_print(prof) && !prof->measured_times)
		printf("\n");
	if (prof->measured_times)
		print_measured_header(prof);

	if (opt->bsd_style_output) {
		printf("%6.6s %5.5s %7.7s %11.11s %7.7s/%-7.7s     %-8.8s\n",
		       "", "", "", "", "called", "total", "parents");
		printf("%-6.6s %5.5s %7.7s %11.11s %7.7s+%-7.7s %s%-8.8s\t%5.5s\n",
		       "index", "%time", "self", "descendants", "called",
		       "self", prof->multi_module ? "mod " : "", "name", "index");
		printf("%6.6s %5.5s %7.7s %11.11s %7.7s/%-7.7s     %-8.8s\n",
		       "", "", "", "", "called", "total", "children");
		printf("\n");
	} else {
		printf("index %% time    self  children    called     %sname\n",
		       prof->multi_module ? "mod " : "");
	}
}

/* "self children" or "self descendants" columns of two times. */
static void print_times(struct profile *prof, const struct gprof_options *opt,
			double self,
			double child)
{
	printf(opt->bsd_style_output ? " %7.2f %11.2f" : " %7.2f %7.2f",
	       self / prof->hz, child / prof->hz);
}

static void print_blank_times(const struct gprof_options *opt)
{
	printf(opt->bsd_style_output ? " %7.7s %11.11s" : " %7.7s %7.7s",
	       "", "");
}

/* "[N] %time self children" of an entry's own line. */
static void print_entry_times(struct profile *prof,
			      const struct gprof_options *opt,
			      const struct sym *s)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "[%d]", s->cg.index);
	printf("%-6.6s %5.1f", buf,
	       100 * (s->cg.prop.self + s->cg.prop.child) / prof->print_time);
	print_times(prof, opt, s->cg.prop.self, s->cg.prop.child);
}

/* " calls+self" of a cycle or cycle member, self blank when none. */
static void print_cycle_calls(struct profile *prof, const struct sym *s)
{
	/* Blank, as GNU leaves a function no counted call reached. */
	if (sym_calls_unknown(prof, s)) {
		printf(" %7.7s %7.7s", "", "");
		return;
	}
	printf(" %7lu", (unsigned long)s->ncalls);
	if (s->cg.self_calls != 0)
		printf("+%-7lu", (unsigned long)s->cg.self_calls);
	else
		printf(" %7.7s", "");
}

static void print_cycle(struct profile *prof, const struct gprof_options *opt,
			struct sym *cyc)
{
	print_entry_times(prof, opt, cyc);
	print_cycle_calls(prof, cyc);
	printf(" ");
	mod_blank(prof);
	printf("<cycle %d as a whole> [%d]\n", cyc->cg.cyc.num,
	       cyc->cg.index);
}

/* ---- sorting the lists the way GNU's insertion sorts leave them ---- */

/* Members: more time first, then more calls; stable. */
static int cmp_member_desc(const void *lp, const void *rp)
{
	const struct sym *l = *(const struct sym *const *)lp;
	const struct sym *r = *(const struct sym *const *)rp;
	double lt = l->cg.prop.self + l->cg.prop.child;
	double rt = r->cg.prop.self + r->cg.prop.child;
	uint64_t lc = l->ncalls + l->cg.self_calls;
	uint64_t rc = r->ncalls + r->cg.self_calls;

	if (lt > rt)
		return -1;
	if (lt < rt)
		return 1;
	if (lc > rc)
		return -1;
	if (lc < rc)
		return 1;
	return 0;
}

static void sort_members(struct sym *cyc)
{
	struct sym *m, **v;
	size_t n = 0, i;

	for (m = cyc->cg.cyc.next; m; m = m->cg.cyc.next)
		n++;
	if (n < 2)
		return;
	v = xmalloc(n * sizeof(*v));
	for (i = 0, m = cyc->cg.cyc.next; m; m = m->cg.cyc.next)
		v[i++] = m;
	cg_sort(v, n, cmp_member_desc);
	cyc->cg.cyc.next = v[0];
	for (i = 0; i + 1 < n; i++)
		v[i]->cg.cyc.next = v[i + 1];
	v[n - 1]->cg.cyc.next = NULL;
	free(v);
}

static void print_members(struct profile *prof, const struct gprof_options *opt,
			  struct sym *cyc)
{
	struct sym *m;

	sort_members(cyc);
	for (m = cyc->cg.cyc.next; m; m = m->cg.cyc.next) {
		printf("%6.6s %5.5s", "", "");
		print_times(prof, opt, m->cg.prop.self, m->cg.prop.child);
		print_cycle_calls(prof, m);
		printf("     ");
		mod_col(prof, m);
		print_name(prof, opt, stdout, m);
		printf("\n");
	}
}

static bool in_one_cycle(const struct sym *a, const struct sym *b)
{
	return a->cg.cyc.num != 0 && b->cg.cyc.num != 0 &&
	       a->cg.cyc.num == b->cg.cyc.num;
}

/*
 * GNU's arc order: a self-call is least, then calls inside a cycle (by
 * count), then the others by time inherited and then by count.
 */
static int cmp_arc(const struct arc *l, const struct arc *r)
{
	double lt, rt;

	if (l->parent == l->child)
		return -1;
	if (r->parent == r->child)
		return 1;
	if (in_one_cycle(l->parent, l->child)) {
		if (!in_one_cycle(r->parent, r->child))
			return -1;
		if (l->count < r->count)
			return -1;
		return l->count > r->count;
	}
	if (in_one_cycle(r->parent, r->child))
		return 1;
	lt = l->time + l->child_time;
	rt = r->time + r->child_time;
	if (lt < rt)
		return -1;
	if (lt > rt)
		return 1;
	if (l->count < r->count)
		return -1;
	return l->count > r->count;
}

static int cmp_arc_asc(const void *lp, const void *rp)
{
	return cmp_arc(*(const struct arc *const *)lp,
		       *(const struct arc *const *)rp);
}

static int cmp_arc_desc(const void *lp, const void *rp)
{
	return cmp_arc(*(const struct arc *const *)rp,
		       *(const struct arc *const *)lp);
}

/*
 * GNU insertion-sorts each list, putting an arc before the equal ones
 * already placed: equal arcs end up in the reverse of the list's order.
 * A stable sort of the reversed list gives the same, in n log n.
 */
static struct arc *sort_arcs(struct arc *list, bool parents)
{
	struct arc *a, **v;
	size_t n = 0, i;

	for (a = list; a; a = parents ? a->next_parent : a->next_child)
		n++;
	if (n < 2)
		return list;
	v = xmalloc(n * sizeof(*v));
	i = n;
	for (a = list; a; a = parents ? a->next_parent : a->next_child)
		v[--i] = a;
	cg_sort(v, n, parents ? cmp_arc_asc : cmp_arc_desc);
	for (i = 0; i < n; i++) {
		struct arc *next = i + 1 < n ? v[i + 1] : NULL;

		if (parents)
			v[i]->next_parent = next;
		else
			v[i]->next_child = next;
	}
	list = v[0];
	free(v);
	return list;
}

/* A caller or callee line; @other is the symbol the line names. */
static void print_arc_line(struct profile *prof,
			   const struct gprof_options *opt, struct arc *a,
			   struct sym *other, bool inside,
			   uint64_t total)
{
	printf("%6.6s %5.5s", "", "");
	if (a->uncounted) {
		if (inside)
			print_blank_times(opt);
		else
			print_times(prof, opt, a->time, a->child_time);
		printf(" %7s %7.7s     ", "-", "");
	} else if (inside) {
		print_blank_times(opt);
		printf(" %7lu %7.7s     ", (unsigned long)a->count, "");
	} else {
		print_times(prof, opt, a->time, a->child_time);
		printf(" %7lu/%-7lu     ", (unsigned long)a->count,
		       (unsigned long)total);
	}
	mod_col(prof, other);
	print_name(prof, opt, stdout, other);
	printf("\n");
}

static void print_parents(struct profile *prof, const struct gprof_options *opt,
			  struct sym *child)
{
	struct sym *head = child->cg.cyc.head ? child->cg.cyc.head : child;
	struct arc *a;

	if (!child->cg.parents) {
		printf("%6.6s %5.5s", "", "");
		print_blank_times(opt);
		printf(" %7.7s %7.7s     ", "", "");
		mod_blank(prof);
		printf("<spontaneous>\n");
		return;
	}
	child->cg.parents = sort_arcs(child->cg.parents, true);
	for (a = child->cg.parents; a; a = a->next_parent)
		print_arc_line(prof, opt, a, a->parent,
			       a->parent == child ||
			       in_one_cycle(child, a->parent),
			       head->ncalls);
}

static void print_children(struct profile *prof,
			   const struct gprof_options *opt, struct sym *parent)
{
	struct arc *a;

	parent->cg.children = sort_arcs(parent->cg.children, false);
	for (a = parent->cg.children; a; a = a->next_child)
		print_arc_line(prof, opt, a, a->child,
			       a->child == parent ||
			       in_one_cycle(a->child, parent),
			       a->child->cg.cyc.head->ncalls);
}

static void print_line(struct profile *prof, const struct gprof_options *opt,
		       struct sym *s)
{
	print_entry_times(prof, opt, s);
	if (sym_calls_unknown(prof, s)) {
		printf(" %7.7s %7.7s ", "", "");
	} else if (s->ncalls + s->cg.self_calls != 0) {
		printf(" %7lu", (unsigned long)s->ncalls);
		if (s->cg.self_calls != 0)
			printf("+%-7lu ", (unsigned long)s->cg.self_calls);
		else
			printf(" %7.7s ", "");
	} else {
		printf(" %7.7s %7.7s ", "", "");
	}
	mod_col(prof, s);
	print_name(prof, opt, stdout, s);
	printf("\n");
}

void cg_print(struct profile *prof, const struct gprof_options *opt,
	      struct sym **timesortsym)
{
	size_t i, n = prof->symtab.len + prof->num_cycles;
	struct sym *s;

	if (opt->print_descriptions && opt->bsd_style_output) {
		fputs(bsd_blurb, stdout);
		fputs(prof->measured_times ?
		      "Times are measured from the samples'\n"
		      "          call chains, `-' marks calls not counted." :
		      "Time is split in proportion to calls.", stdout);
		fputs(bsd_blurb_tail, stdout);
	}

	print_header(prof, opt);

	for (i = 0; i < n; i++) {
		s = timesortsym[i];
		if ((opt->ignore_zeros && s->ncalls == 0 &&
		     s->cg.self_calls == 0 && s->cg.prop.self == 0 &&
		     s->cg.prop.child == 0) ||
		    !s->cg.print_flag ||
		    (opt->line_granularity && !s->is_func))
			continue;

		if (!s->name && s->cg.cyc.num != 0) {
			print_cycle(prof, opt, s);
			print_members(prof, opt, s);
		} else {
			print_parents(prof, opt, s);
			print_line(prof, opt, s);
			print_children(prof, opt, s);
		}
		if (opt->bsd_style_output)
			printf("\n");
		printf("-----------------------------------------------\n");
		if (opt->bsd_style_output)
			printf("\n");
	}

	if (opt->print_descriptions && !opt->bsd_style_output) {
		fputs(fsf_blurb, stdout);
		fputs(prof->measured_times ? measured_blurb : estimated_blurb,
		      stdout);
		fputs(cycle_blurb, stdout);
	}
}

/* ---- the index ---- */

static int cmp_name(const void *lp, const void *rp)
{
	return strcmp((*(const struct sym *const *)lp)->name,
		      (*(const struct sym *const *)rp)->name);
}

/* The file a static function's index entry names, or NULL. */
static const char *index_file(struct profile *prof,
			      const struct gprof_options *opt, struct sym *s)
{
	const char *name, *slash;

	if (opt->line_granularity || !s->is_static)
		return NULL;
	sym_source(prof, opt, s);
	if (!s->file)
		return NULL;
	name = s->file->name;
	slash = strrchr(name, '/');
	if (!opt->print_path && slash)
		name = slash + 1;
	return name;
}

/*
 * One index entry at @col (the characters written so far on the line),
 * which starts at @start; returns the new @col.  As in GNU, the column
 * count leaves out the two spaces around the number.
 */
static int print_index_entry(struct profile *prof,
			     const struct gprof_options *opt, struct sym *s,
			     bool is_cycle, int col,
			     int start)
{
	char buf[32], cyc[32];
	const char *file;

	snprintf(buf, sizeof(buf), s->cg.print_flag ? "[%d]" : "(%d)",
		 s->cg.index);
	snprintf(cyc, sizeof(cyc), "<cycle %d>", s->cg.cyc.num);

	if (opt->bsd_style_output) {
		printf("%6.6s ", buf);
		printf("%-19.19s", is_cycle ? cyc : s->name);
		return col;
	}
	col += (int)strlen(buf);
	for (; col < start + 5; col++)
		putchar(' ');
	printf(" %s ", buf);
	if (is_cycle) {
		printf("%s", cyc);
		return col + (int)strlen(cyc);
	}
	col += (int)print_name_only(prof, opt, stdout, s);
	file = index_file(prof, opt, s);
	if (file) {
		printf(" (%s)", file);
		col += (int)strlen(file) + 3;
	}
	return col;
}

void cg_print_index(struct profile *prof, const struct gprof_options *opt)
{
	size_t i, j, nnames = 0, todo, rows;
	struct sym **v, *s;
	int col_width = (opt->output_width - 1) / 3;

	v = xmalloc((prof->symtab.len + prof->num_cycles + 1) * sizeof(*v));
	for (i = 0; i < prof->symtab.len; i++) {
		s = &prof->symtab.base[i];
		/* A measured graph shows functions by their time too. */
		if (opt->ignore_zeros && s->ncalls == 0 && s->hist.time == 0 &&
		    !(prof->measured_times &&
		      s->cg.prop.self + s->cg.prop.child != 0))
			continue;
		v[nnames++] = s;
	}
	cg_sort(v, nnames, cmp_name);
	todo = nnames;
	for (i = 1; i <= prof->num_cycles; i++)
		v[todo++] = &prof->cycle_header[i];

	printf("\f\n");
	printf("Index by function name\n\n");
	rows = (todo + 2) / 3;
	for (i = 0; i < rows; i++) {
		int col = 0, start = 0;

		for (j = i; j < todo; j += rows) {
			col = print_index_entry(prof, opt, v[j], j >= nnames,
						col,
						start);
			start += col_width;
		}
		printf("\n");
	}
	free(v);
}
