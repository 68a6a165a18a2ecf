// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Printing the call graph (FSF layout, or BSD's with -T), its index by
 * name, and the suggested function (-r) and object file (-R) orders.
 *
 * Every number, column and tie order is GNU gprof 2.40's, since tools
 * parse this text; the explanations printed without -b are our own.
 */
#include <stdlib.h>
#include <string.h>

#include "gprof.h"

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
	"\n"
	" Time is shared out along arcs in proportion to call counts, which\n"
	" assumes every call of a function costs the same.  Within a cycle\n"
	" that cannot be done, so the times shown are those of the cycle as a\n"
	" whole.  A name followed by (N) rather than [N] has no entry of its\n"
	" own in this listing.\n"
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
	"          Time is split in proportion to calls.  Functions\n"
	"          calling each other in a loop form a cycle, which\n"
	"          has an entry of its own listing its callers and\n"
	"          members; times of members are the cycle's.\n"
	"\n"
	"\n"
	"\n";

/* The module column of multi-module reports, before a name. */
static void mod_col(const struct sym *s)
{
	if (multi_module)
		printf("%4u ", s->module);
}

static void mod_blank(void)
{
	if (multi_module)
		printf("     ");
}

/* GNU prints the scale of the first histogram read, truncated. */
static long granularity(void)
{
	if (!num_hist_records)
		return 0;
	return (long)hist_records[0].bin_scale * 2;
}

static void print_header(void)
{
	if (first_output)
		first_output = false;
	else
		printf("\f\n");

	if (!bsd_style_output) {
		if (print_descriptions)
			printf("\t\t     Call graph (explanation follows)\n\n");
		else
			printf("\t\t\tCall graph\n\n");
	}

	printf("\ngranularity: each sample hit covers %ld byte(s)",
	       granularity());
	if (print_time > 0.0) {
		printf(" for %.2f%% of %.2f seconds\n\n",
		       100.0 / print_time, print_time / hz);
	} else {
		printf(" no time propagated\n\n");
		/* Every numerator is 0 then; avoid dividing by zero. */
		print_time = 1.0;
	}

	if (bsd_style_output) {
		printf("%6.6s %5.5s %7.7s %11.11s %7.7s/%-7.7s     %-8.8s\n",
		       "", "", "", "", "called", "total", "parents");
		printf("%-6.6s %5.5s %7.7s %11.11s %7.7s+%-7.7s %s%-8.8s\t%5.5s\n",
		       "index", "%time", "self", "descendants", "called",
		       "self", multi_module ? "mod " : "", "name", "index");
		printf("%6.6s %5.5s %7.7s %11.11s %7.7s/%-7.7s     %-8.8s\n",
		       "", "", "", "", "called", "total", "children");
		printf("\n");
	} else {
		printf("index %% time    self  children    called     %sname\n",
		       multi_module ? "mod " : "");
	}
}

/* "self children" or "self descendants" columns of two times. */
static void print_times(double self, double child)
{
	printf(bsd_style_output ? " %7.2f %11.2f" : " %7.2f %7.2f",
	       self / hz, child / hz);
}

static void print_blank_times(void)
{
	printf(bsd_style_output ? " %7.7s %11.11s" : " %7.7s %7.7s", "", "");
}

/* "[N] %time self children" of an entry's own line. */
static void print_entry_times(const struct sym *s)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "[%d]", s->cg.index);
	printf("%-6.6s %5.1f", buf,
	       100 * (s->cg.prop.self + s->cg.prop.child) / print_time);
	print_times(s->cg.prop.self, s->cg.prop.child);
}

/* " calls+self" of a cycle or cycle member, self blank when none. */
static void print_cycle_calls(const struct sym *s)
{
	printf(" %7lu", (unsigned long)s->ncalls);
	if (s->cg.self_calls != 0)
		printf("+%-7lu", (unsigned long)s->cg.self_calls);
	else
		printf(" %7.7s", "");
}

static void print_cycle(struct sym *cyc)
{
	print_entry_times(cyc);
	print_cycle_calls(cyc);
	printf(" ");
	mod_blank();
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

static void print_members(struct sym *cyc)
{
	struct sym *m;

	sort_members(cyc);
	for (m = cyc->cg.cyc.next; m; m = m->cg.cyc.next) {
		printf("%6.6s %5.5s", "", "");
		print_times(m->cg.prop.self, m->cg.prop.child);
		print_cycle_calls(m);
		printf("     ");
		mod_col(m);
		print_name(stdout, m);
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
static void print_arc_line(struct arc *a, struct sym *other, bool inside,
			   uint64_t total)
{
	printf("%6.6s %5.5s", "", "");
	if (inside) {
		print_blank_times();
		printf(" %7lu %7.7s     ", (unsigned long)a->count, "");
	} else {
		print_times(a->time, a->child_time);
		printf(" %7lu/%-7lu     ", (unsigned long)a->count,
		       (unsigned long)total);
	}
	mod_col(other);
	print_name(stdout, other);
	printf("\n");
}

static void print_parents(struct sym *child)
{
	struct sym *head = child->cg.cyc.head ? child->cg.cyc.head : child;
	struct arc *a;

	if (!child->cg.parents) {
		printf("%6.6s %5.5s", "", "");
		print_blank_times();
		printf(" %7.7s %7.7s     ", "", "");
		mod_blank();
		printf("<spontaneous>\n");
		return;
	}
	child->cg.parents = sort_arcs(child->cg.parents, true);
	for (a = child->cg.parents; a; a = a->next_parent)
		print_arc_line(a, a->parent,
			       a->parent == child ||
			       in_one_cycle(child, a->parent),
			       head->ncalls);
}

static void print_children(struct sym *parent)
{
	struct arc *a;

	parent->cg.children = sort_arcs(parent->cg.children, false);
	for (a = parent->cg.children; a; a = a->next_child)
		print_arc_line(a, a->child,
			       a->child == parent ||
			       in_one_cycle(a->child, parent),
			       a->child->cg.cyc.head->ncalls);
}

static void print_line(struct sym *s)
{
	print_entry_times(s);
	if (s->ncalls + s->cg.self_calls != 0) {
		printf(" %7lu", (unsigned long)s->ncalls);
		if (s->cg.self_calls != 0)
			printf("+%-7lu ", (unsigned long)s->cg.self_calls);
		else
			printf(" %7.7s ", "");
	} else {
		printf(" %7.7s %7.7s ", "", "");
	}
	mod_col(s);
	print_name(stdout, s);
	printf("\n");
}

void cg_print(struct sym **timesortsym)
{
	size_t i, n = symtab.len + num_cycles;
	struct sym *s;

	if (print_descriptions && bsd_style_output)
		fputs(bsd_blurb, stdout);

	print_header();

	for (i = 0; i < n; i++) {
		s = timesortsym[i];
		if ((ignore_zeros && s->ncalls == 0 &&
		     s->cg.self_calls == 0 && s->cg.prop.self == 0 &&
		     s->cg.prop.child == 0) ||
		    !s->cg.print_flag ||
		    (line_granularity && !s->is_func))
			continue;

		if (!s->name && s->cg.cyc.num != 0) {
			print_cycle(s);
			print_members(s);
		} else {
			print_parents(s);
			print_line(s);
			print_children(s);
		}
		if (bsd_style_output)
			printf("\n");
		printf("-----------------------------------------------\n");
		if (bsd_style_output)
			printf("\n");
	}

	if (print_descriptions && !bsd_style_output)
		fputs(fsf_blurb, stdout);
}

/* ---- the index ---- */

static int cmp_name(const void *lp, const void *rp)
{
	return strcmp((*(const struct sym *const *)lp)->name,
		      (*(const struct sym *const *)rp)->name);
}

/* The file a static function's index entry names, or NULL. */
static const char *index_file(struct sym *s)
{
	const char *name, *slash;

	if (line_granularity || !s->is_static)
		return NULL;
	sym_source(s);
	if (!s->file)
		return NULL;
	name = s->file->name;
	slash = strrchr(name, '/');
	if (!print_path && slash)
		name = slash + 1;
	return name;
}

/*
 * One index entry at @col (the characters written so far on the line),
 * which starts at @start; returns the new @col.  As in GNU, the column
 * count leaves out the two spaces around the number.
 */
static int print_index_entry(struct sym *s, bool is_cycle, int col,
			     int start)
{
	char buf[32], cyc[32];
	const char *file;

	snprintf(buf, sizeof(buf), s->cg.print_flag ? "[%d]" : "(%d)",
		 s->cg.index);
	snprintf(cyc, sizeof(cyc), "<cycle %d>", s->cg.cyc.num);

	if (bsd_style_output) {
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
	col += (int)print_name_only(stdout, s);
	file = index_file(s);
	if (file) {
		printf(" (%s)", file);
		col += (int)strlen(file) + 3;
	}
	return col;
}

void cg_print_index(void)
{
	size_t i, j, nnames = 0, todo, rows;
	struct sym **v, *s;
	int col_width = (output_width - 1) / 3;

	v = xmalloc((symtab.len + num_cycles + 1) * sizeof(*v));
	for (i = 0; i < symtab.len; i++) {
		s = &symtab.base[i];
		if (ignore_zeros && s->ncalls == 0 && s->hist.time == 0)
			continue;
		v[nnames++] = s;
	}
	cg_sort(v, nnames, cmp_name);
	todo = nnames;
	for (i = 1; i <= num_cycles; i++)
		v[todo++] = &cycle_header[i];

	printf("\f\n");
	printf("Index by function name\n\n");
	rows = (todo + 2) / 3;
	for (i = 0; i < rows; i++) {
		int col = 0, start = 0;

		for (j = i; j < todo; j += rows) {
			col = print_index_entry(v[j], j >= nnames, col, start);
			start += col_width;
		}
		printf("\n");
	}
	free(v);
}

/* ---- suggested orders: functions (-r) and object files (-R) ---- */

struct function_map *symbol_map;
unsigned int symbol_map_count;

/* The file names of the map live in one block, which marks them. */
static char *map_names;
static size_t map_names_len;

/*
 * Placement state of the symbols, which struct sym does not carry: one
 * slot per symbol of the table, then one per other symbol an arc names
 * (arcs the symspecs made between their own symbols), found by address.
 */
struct place {
	struct sym *next, *prev;
	bool placed;
	/*
	 * GNU walks a chain to find its ends, which is quadratic in long
	 * chains.  Chains only ever grow by one lone symbol at an end, so
	 * a chain instead numbers its symbols (pos) and its first symbol's
	 * slot (rep) keeps the ends and their numbers.
	 */
	struct place *rep;	/* NULL while the symbol is alone */
	long pos, lo, hi;
	struct sym *head, *tail;
};

static struct place *places;
static struct sym **extra_syms;	/* sorted by pointer */
static size_t num_extra;

static int cmp_ptr(const void *l, const void *r)
{
	uintptr_t a = (uintptr_t)*(void *const *)l;
	uintptr_t b = (uintptr_t)*(void *const *)r;

	return a < b ? -1 : a > b;
}

static bool sym_in_table(const struct sym *s)
{
	return s >= symtab.base && s < symtab.base + symtab.len;
}

static struct place *pl(const struct sym *s)
{
	size_t lo = 0, hi = num_extra;

	if (sym_in_table(s))
		return &places[s - symtab.base];
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if ((uintptr_t)extra_syms[mid] < (uintptr_t)s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return &places[symtab.len + lo];
}

static void places_init(void)
{
	size_t i, n = 0;

	extra_syms = xmalloc((2 * numarcs + 1) * sizeof(*extra_syms));
	for (i = 0; i < numarcs; i++) {
		if (!sym_in_table(arcs[i]->parent))
			extra_syms[n++] = arcs[i]->parent;
		if (!sym_in_table(arcs[i]->child))
			extra_syms[n++] = arcs[i]->child;
	}
	qsort(extra_syms, n, sizeof(*extra_syms), cmp_ptr);
	num_extra = 0;
	for (i = 0; i < n; i++)
		if (!num_extra || extra_syms[num_extra - 1] != extra_syms[i])
			extra_syms[num_extra++] = extra_syms[i];
	places = xcalloc(symtab.len + num_extra + 1, sizeof(*places));
}

static void places_free(void)
{
	free(places);
	free(extra_syms);
	places = NULL;
	extra_syms = NULL;
	num_extra = 0;
}

/* The slot holding the ends of the chain of @s. */
static struct place *chain_of(struct sym *s)
{
	struct place *p = pl(s);

	if (!p->rep) {
		p->rep = p;
		p->pos = p->lo = p->hi = 0;
		p->head = p->tail = s;
	}
	return p->rep;
}

/* The far end of the chain through @s, and how many steps away it is. */
static struct sym *chain_end(struct sym *s, bool forward, long *steps)
{
	struct place *r = chain_of(s);

	*steps = forward ? r->hi - pl(s)->pos : pl(s)->pos - r->lo;
	return forward ? r->tail : r->head;
}

/* Puts the lone @b right after (or before) @a, an end of its chain. */
static void chain_add(struct sym *a, struct sym *b, bool after)
{
	struct place *r = chain_of(a), *pa = pl(a), *pb = pl(b);

	pb->rep = r;
	if (after) {
		pa->next = b;
		pb->prev = a;
		pb->pos = ++r->hi;
		r->tail = b;
	} else {
		pa->prev = b;
		pb->next = a;
		pb->pos = --r->lo;
		r->head = b;
	}
}

/*
 * GNU's greedy placement: arcs, most used first, glue their parent and
 * child into chains of functions; the chains are printed, and what
 * could not be placed is handed back in @unplaced.  Without @all only
 * the arcs making up the first 99% of the calls are used.
 */
static void order_and_dump(struct arc **v, size_t n, bool all,
			   struct arc **unplaced, size_t *num_unplaced)
{
	unsigned long long total = 0, sofar = 0;
	size_t i;

	if (!all)
		for (i = 0; i < n; i++)
			total += v[i]->count;

	for (i = 0; i < n; i++) {
		struct sym *child = v[i]->child, *parent = v[i]->parent;
		struct place *pp, *cp;
		struct sym *end1, *end2;
		long nsteps, psteps;

		sofar += v[i]->count;
		if (v[i]->has_been_placed)
			continue;
		pp = pl(parent);
		cp = pl(child);
		if ((!all && (double)sofar / (double)total > 0.99) ||
		    cp->placed || pp->placed) {
			unplaced[(*num_unplaced)++] = v[i];
			continue;
		}
		if (pp->next && pp->prev && cp->next && cp->prev) {
			unplaced[(*num_unplaced)++] = v[i];
			continue;
		}

		/* A lone end joins the nearer end of the other's chain. */
		if (!pp->next && !pp->prev) {
			struct sym *next = chain_end(child, true, &nsteps);
			struct sym *prev = chain_end(child, false, &psteps);

			child = nsteps < psteps ? next : prev;
		} else if (!cp->next && !cp->prev) {
			struct sym *next = chain_end(parent, true, &nsteps);
			struct sym *prev = chain_end(parent, false, &psteps);

			parent = psteps < nsteps ? prev : next;
		} else {
			unplaced[(*num_unplaced)++] = v[i];
			continue;
		}
		pp = pl(parent);
		cp = pl(child);

		/* Never close a chain into a ring. */
		end1 = chain_end(parent, pp->next != NULL, &nsteps);
		end2 = chain_end(child, cp->next != NULL, &nsteps);
		if (end1 == child && end2 == parent) {
			unplaced[(*num_unplaced)++] = v[i];
			continue;
		}

		/* One of the two is alone and joins the other's end. */
		if (pp->next)
			chain_add(parent, child, false);
		else if (pp->prev)
			chain_add(parent, child, true);
		else if (cp->prev)
			chain_add(child, parent, true);
		else
			chain_add(child, parent, false);
		v[i]->has_been_placed = 1;
	}

	for (i = 0; i < n; i++) {
		struct sym *s = v[i]->parent;

		if (pl(v[i]->parent)->placed || pl(v[i]->child)->placed)
			continue;
		/* Not on any chain: a rare arc, left for later. */
		if (!pl(s)->next && !pl(s)->prev)
			continue;
		for (s = chain_of(s)->head; s; s = pl(s)->next) {
			pl(s)->placed = true;
			printf("%s\n", s->name);
		}
	}

	if (!all)
		return;
	for (i = 0; i < n; i++) {
		struct sym *s = v[i]->parent;

		if (pl(v[i]->parent)->placed || pl(v[i]->child)->placed)
			continue;
		pl(s)->placed = true;
		printf("%s\n", s->name);
	}
}

static int cmp_arc_count(const void *lp, const void *rp)
{
	uint64_t l = (*(const struct arc *const *)lp)->count;
	uint64_t r = (*(const struct arc *const *)rp)->count;

	return (l < r) - (l > r);	/* most used first */
}

static int cmp_fun_nuses(const void *lp, const void *rp)
{
	int l = (*(const struct sym *const *)lp)->nuses;
	int r = (*(const struct sym *const *)rp)->nuses;

	return (l < r) - (l > r);	/* most uses first */
}

/* Collects the arcs of @s (not self-calls) and marks them placed. */
static void take_arcs(struct sym *s, struct arc **scratch, size_t *n)
{
	struct arc *a;

	for (a = s->cg.children; a; a = a->next_child) {
		if (a->parent != a->child)
			scratch[(*n)++] = a;
		a->has_been_placed = 1;
	}
	for (a = s->cg.parents; a; a = a->next_parent) {
		if (a->parent != a->child)
			scratch[(*n)++] = a;
		a->has_been_placed = 1;
	}
}

/*
 * -r: functions never called go last; functions called from many places
 * by the busiest arcs go first; the rest are chained greedily.  The
 * steps and their thresholds are GNU's, so the list is the same.
 */
void cg_print_function_ordering(void)
{
	size_t n = symtab.len, i, used = 0, unused = 0, top = 0;
	size_t num_high = 0, num_scratch = 0, num_unplaced = 0;
	struct sym **used_syms, **unused_syms, **scratch_syms;
	struct arc **high, **scratch, **unplaced;
	unsigned long long total = 0, sofar = 0;

	places_init();
	used_syms = xmalloc((n + 1) * sizeof(*used_syms));
	unused_syms = xmalloc((n + 1) * sizeof(*unused_syms));
	scratch_syms = xmalloc((n + 1) * sizeof(*scratch_syms));
	/* An arc is taken at most once from each end. */
	high = xmalloc((2 * numarcs + 1) * sizeof(*high));
	scratch = xmalloc((2 * numarcs + 1) * sizeof(*scratch));
	unplaced = xmalloc((2 * numarcs + 1) * sizeof(*unplaced));

	for (i = 0; i < n; i++) {
		struct sym *s = &symtab.base[i];

		if (s->ncalls == 0) {
			unused_syms[unused++] = s;
			places[i].placed = true;
		} else {
			used_syms[used++] = s;
			s->nuses = 0;
		}
	}

	cg_sort(arcs, numarcs, cmp_arc_count);
	for (i = 0; i < numarcs; i++) {
		total += arcs[i]->count;
		arcs[i]->has_been_placed = 0;
	}

	/* How many of the busiest arcs (90% of calls) enter each function. */
	for (i = 0; i < numarcs; i++) {
		sofar += arcs[i]->count;
		if ((double)sofar / (double)total > 0.90)
			break;
		arcs[i]->child->nuses++;
	}

	memcpy(scratch_syms, used_syms, used * sizeof(*used_syms));
	cg_sort(scratch_syms, used, cmp_fun_nuses);

	/* Up to 1.25% of the used functions (GNU stops at exactly 5). */
	for (i = 0; i < used / 80; i++) {
		struct sym *s = scratch_syms[i];

		if (s->nuses == 5)
			break;
		take_arcs(s, scratch, &num_scratch);
		top = i;
		pl(s)->placed = true;
	}

	/* Arcs between two of them are placed by the main algorithm. */
	for (i = 0; i < num_scratch; i++) {
		struct arc *a = scratch[i];

		if (pl(a->child)->placed && pl(a->parent)->placed) {
			high[num_high++] = a;
			pl(a->child)->placed = false;
			pl(a->parent)->placed = false;
		}
	}
	for (i = 0; i < top; i++)
		if (pl(scratch_syms[i])->placed)
			printf("%s\n", scratch_syms[i]->name);

	cg_sort(high, num_high, cmp_arc_count);
	order_and_dump(high, num_high, true, unplaced, &num_unplaced);
	order_and_dump(arcs, numarcs, false, unplaced, &num_unplaced);
	num_scratch = 0;
	order_and_dump(unplaced, num_unplaced, true, scratch, &num_scratch);

	for (i = 0; i < used; i++)
		if (!pl(used_syms[i])->placed)
			printf("%s\n", used_syms[i]->name);
	for (i = 0; i < unused; i++)
		printf("%s\n", unused_syms[i]->name);

	free(used_syms);
	free(unused_syms);
	free(scratch_syms);
	free(high);
	free(scratch);
	free(unplaced);
	places_free();
}

bool sym_is_mapped(const struct sym *s)
{
	uintptr_t p = (uintptr_t)s->name, lo = (uintptr_t)map_names;

	return map_names && p >= lo && p < lo + map_names_len;
}

static int cmp_map_function(const void *l, const void *r)
{
	return strcmp(((const struct function_map *)l)->function_name,
		      ((const struct function_map *)r)->function_name);
}

static int cmp_map_file(const void *l, const void *r)
{
	return strcmp(((const struct function_map *)l)->file_name,
		      ((const struct function_map *)r)->file_name);
}

/* As glibc's bsearch, so duplicate names give GNU's pick. */
struct function_map *symbol_map_find(const char *name)
{
	size_t lo = 0, hi = symbol_map_count;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(name, symbol_map[mid].function_name);

		if (c < 0)
			hi = mid;
		else if (c > 0)
			lo = mid + 1;
		else
			return &symbol_map[mid];
	}
	return NULL;
}

/*
 * Sorts an array of structs stably (glibc's qsort is a merge sort) by
 * going through an array of pointers to them.
 */
static void sort_map(int (*cmp)(const void *, const void *))
{
	struct function_map *copy, **v;
	unsigned int i;

	if (symbol_map_count < 2)
		return;
	v = xmalloc(symbol_map_count * sizeof(*v));
	copy = xmalloc(symbol_map_count * sizeof(*copy));
	memcpy(copy, symbol_map, symbol_map_count * sizeof(*copy));
	for (i = 0; i < symbol_map_count; i++)
		v[i] = &copy[i];
	cg_sort(v, symbol_map_count, cmp);
	for (i = 0; i < symbol_map_count; i++)
		symbol_map[i] = *v[i];
	free(copy);
	free(v);
}

/* Element comparisons through the pointers cg_sort hands over. */
static int cmp_map_function_p(const void *l, const void *r)
{
	return cmp_map_function(*(void *const *)l, *(void *const *)r);
}

static int cmp_map_file_p(const void *l, const void *r)
{
	return cmp_map_file(*(void *const *)l, *(void *const *)r);
}

#define MAP_LINE 1024

/*
 * Reads one "FILE:...FUNCTION" entry the way GNU's two fscanf calls do;
 * returns 0 for a "No symbols in" line, 1 for an entry, exits on junk.
 */
static int read_map_entry(FILE *f, const char *path, char *file, char *rest)
{
	if (!fscanf(f, "%1023[^\n:]", file))
		fatal("unable to parse mapping file %s.", path);
	if (!strncmp(file, "No symbols in ", 14)) {
		if (fscanf(f, "\n") == EOF)
			fatal("unable to parse mapping file %s.", path);
		return 0;
	}
	if (!fscanf(f, "%1023[^\n]\n", rest))
		fatal("unable to parse mapping file %s.", path);
	return 1;
}

void read_function_mappings(const char *path)
{
	FILE *f = fopen(path, "r");
	char file[MAP_LINE] = "", rest[MAP_LINE] = "";
	size_t count = 0, names = 0, off = 0, i;

	if (!f)
		fatal("could not open %s.", path);

	/* First pass: how many entries, and room for their file names. */
	while (!feof(f)) {
		if (read_map_entry(f, path, file, rest)) {
			count++;
			names += strlen(file) + 1;
		}
	}
	symbol_map = xcalloc(count + 1, sizeof(*symbol_map));
	map_names = xmalloc(names + 1);
	map_names_len = names + 1;
	rewind(f);

	count = 0;
	while (!feof(f)) {
		const char *fn;

		if (!read_map_entry(f, path, file, rest))
			continue;
		if (off + strlen(file) + 1 > map_names_len)
			fatal("mapping file %s changed while read", path);
		symbol_map[count].file_name = strcpy(map_names + off, file);
		off += strlen(file) + 1;
		fn = strrchr(rest, ' ');
		fn = fn ? fn + 1 : rest;
		symbol_map[count].function_name = xstrdup(fn);
		count++;
	}
	fclose(f);
	symbol_map_count = (unsigned int)count;

	for (i = 0; i < count; i++)
		symbol_map[i].is_first = i == 0 ||
			strcmp(symbol_map[i].file_name,
			       symbol_map[i - 1].file_name) != 0;
	sort_map(cmp_map_function_p);
}

static int cmp_str(const void *l, const void *r)
{
	return strcmp(*(const char *const *)l, *(const char *const *)r);
}

/*
 * -R: an order of the object files for the link line.  Symbols stand for
 * their files here (see read_function_mappings()), so it is the function
 * placement again, then the files it did not place, then those that had
 * no text symbol at all.
 */
void cg_print_file_ordering(void)
{
	struct arc **scratch;
	size_t num_scratch = 0, i, nhave = 0;
	const char *last = NULL, **have;

	places_init();
	scratch = xmalloc((numarcs + 1) * sizeof(*scratch));
	for (i = 0; i < numarcs; i++)
		if (!sym_is_mapped(arcs[i]->parent) ||
		    !sym_is_mapped(arcs[i]->child))
			arcs[i]->has_been_placed = 1;

	order_and_dump(arcs, numarcs, false, scratch, &num_scratch);

	for (i = 0; i < symtab.len; i++)
		if (sym_is_mapped(&symtab.base[i]) && !places[i].placed)
			printf("%s\n", symtab.base[i].name);

	/* The files with a symbol, sorted, to find the others quickly. */
	have = xmalloc((symtab.len + 1) * sizeof(*have));
	for (i = 0; i < symtab.len; i++)
		if (sym_is_mapped(&symtab.base[i]))
			have[nhave++] = symtab.base[i].name;
	qsort(have, nhave, sizeof(*have), cmp_str);

	sort_map(cmp_map_file_p);
	for (i = 0; i < symbol_map_count; i++) {
		const char *file = symbol_map[i].file_name;

		if (last && !strcmp(last, file))
			continue;
		if (!bsearch(&file, have, nhave, sizeof(*have), cmp_str))
			printf("%s\n", file);
		last = file;
	}
	free(have);
	free(scratch);
	places_free();
}
