// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The suggested orders of GNU gprof: of the functions (-r,
 * --function-ordering), greedily chaining the busiest arcs, and of the
 * object files (-R, --file-ordering) through the map file that names
 * the file of each function.  Every step and threshold is GNU 2.40's,
 * so the lists are the same.
 */
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

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

static bool sym_in_table(struct profile *prof, const struct sym *s)
{
	return s >= prof->symtab.base &&
		s < prof->symtab.base + prof->symtab.len;
}

static struct place *pl(struct profile *prof, const struct sym *s)
{
	size_t lo = 0, hi = num_extra;

	if (sym_in_table(prof, s))
		return &places[s - prof->symtab.base];
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if ((uintptr_t)extra_syms[mid] < (uintptr_t)s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return &places[prof->symtab.len + lo];
}

static void places_init(struct profile *prof)
{
	size_t i, n = 0;

	extra_syms = xmalloc((2 * prof->numarcs + 1) * sizeof(*extra_syms));
	for (i = 0; i < prof->numarcs; i++) {
		if (!sym_in_table(prof, prof->arcs[i]->parent))
			extra_syms[n++] = prof->arcs[i]->parent;
		if (!sym_in_table(prof, prof->arcs[i]->child))
			extra_syms[n++] = prof->arcs[i]->child;
	}
	qsort(extra_syms, n, sizeof(*extra_syms), cmp_ptr);
	num_extra = 0;
	for (i = 0; i < n; i++)
		if (!num_extra || extra_syms[num_extra - 1] != extra_syms[i])
			extra_syms[num_extra++] = extra_syms[i];
	places = xcalloc(prof->symtab.len + num_extra + 1, sizeof(*places));
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
static struct place *chain_of(struct profile *prof, struct sym *s)
{
	struct place *p = pl(prof, s);

	if (!p->rep) {
		p->rep = p;
		p->pos = p->lo = p->hi = 0;
		p->head = p->tail = s;
	}
	return p->rep;
}

/* The far end of the chain through @s, and how many steps away it is. */
static struct sym *chain_end(struct profile *prof, struct sym *s, bool forward,
			     long *steps)
{
	struct place *r = chain_of(prof, s);

	*steps = forward ? r->hi - pl(prof, s)->pos : pl(prof, s)->pos - r->lo;
	return forward ? r->tail : r->head;
}

/* Puts the lone @b right after (or before) @a, an end of its chain. */
static void chain_add(struct profile *prof, struct sym *a, struct sym *b,
		      bool after)
{
	struct place *r = chain_of(prof, a), *pa = pl(prof, a), *pb = pl(prof,
									 b);

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
static void order_and_dump(struct profile *prof, struct arc **v, size_t n,
			   bool all,
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
		pp = pl(prof, parent);
		cp = pl(prof, child);
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
			struct sym *next = chain_end(prof, child, true,
						     &nsteps);
			struct sym *prev = chain_end(prof, child, false,
						     &psteps);

			child = nsteps < psteps ? next : prev;
		} else if (!cp->next && !cp->prev) {
			struct sym *next = chain_end(prof, parent, true,
						     &nsteps);
			struct sym *prev = chain_end(prof, parent, false,
						     &psteps);

			parent = psteps < nsteps ? prev : next;
		} else {
			unplaced[(*num_unplaced)++] = v[i];
			continue;
		}
		pp = pl(prof, parent);
		cp = pl(prof, child);

		/* Never close a chain into a ring. */
		end1 = chain_end(prof, parent, pp->next != NULL, &nsteps);
		end2 = chain_end(prof, child, cp->next != NULL, &nsteps);
		if (end1 == child && end2 == parent) {
			unplaced[(*num_unplaced)++] = v[i];
			continue;
		}

		/* One of the two is alone and joins the other's end. */
		if (pp->next)
			chain_add(prof, parent, child, false);
		else if (pp->prev)
			chain_add(prof, parent, child, true);
		else if (cp->prev)
			chain_add(prof, child, parent, true);
		else
			chain_add(prof, child, parent, false);
		v[i]->has_been_placed = 1;
	}

	for (i = 0; i < n; i++) {
		struct sym *s = v[i]->parent;

		if (pl(prof, v[i]->parent)->placed || pl(prof,
							 v[i]->child)->placed)
			continue;
		/* Not on any chain: a rare arc, left for later. */
		if (!pl(prof, s)->next && !pl(prof, s)->prev)
			continue;
		for (s = chain_of(prof, s)->head; s; s = pl(prof, s)->next) {
			pl(prof, s)->placed = true;
			printf("%s\n", s->name);
		}
	}

	if (!all)
		return;
	for (i = 0; i < n; i++) {
		struct sym *s = v[i]->parent;

		if (pl(prof, v[i]->parent)->placed || pl(prof,
							 v[i]->child)->placed)
			continue;
		pl(prof, s)->placed = true;
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
void cg_print_function_ordering(struct profile *prof)
{
	size_t n = prof->symtab.len, i, used = 0, unused = 0, top = 0;
	size_t num_high = 0, num_scratch = 0, num_unplaced = 0;
	struct sym **used_syms, **unused_syms, **scratch_syms;
	struct arc **high, **scratch, **unplaced;
	unsigned long long total = 0, sofar = 0;

	places_init(prof);
	used_syms = xmalloc((n + 1) * sizeof(*used_syms));
	unused_syms = xmalloc((n + 1) * sizeof(*unused_syms));
	scratch_syms = xmalloc((n + 1) * sizeof(*scratch_syms));
	/* An arc is taken at most once from each end. */
	high = xmalloc((2 * prof->numarcs + 1) * sizeof(*high));
	scratch = xmalloc((2 * prof->numarcs + 1) * sizeof(*scratch));
	unplaced = xmalloc((2 * prof->numarcs + 1) * sizeof(*unplaced));

	for (i = 0; i < n; i++) {
		struct sym *s = &prof->symtab.base[i];

		if (s->ncalls == 0) {
			unused_syms[unused++] = s;
			places[i].placed = true;
		} else {
			used_syms[used++] = s;
			s->nuses = 0;
		}
	}

	cg_sort(prof->arcs, prof->numarcs, cmp_arc_count);
	for (i = 0; i < prof->numarcs; i++) {
		total += prof->arcs[i]->count;
		prof->arcs[i]->has_been_placed = 0;
	}

	/* How many of the busiest arcs (90% of calls) enter each function. */
	for (i = 0; i < prof->numarcs; i++) {
		sofar += prof->arcs[i]->count;
		if ((double)sofar / (double)total > 0.90)
			break;
		prof->arcs[i]->child->nuses++;
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
		pl(prof, s)->placed = true;
	}

	/* Arcs between two of them are placed by the main algorithm. */
	for (i = 0; i < num_scratch; i++) {
		struct arc *a = scratch[i];

		if (pl(prof, a->child)->placed && pl(prof, a->parent)->placed) {
			high[num_high++] = a;
			pl(prof, a->child)->placed = false;
			pl(prof, a->parent)->placed = false;
		}
	}
	for (i = 0; i < top; i++)
		if (pl(prof, scratch_syms[i])->placed)
			printf("%s\n", scratch_syms[i]->name);

	cg_sort(high, num_high, cmp_arc_count);
	order_and_dump(prof, high, num_high, true, unplaced, &num_unplaced);
	order_and_dump(prof, prof->arcs, prof->numarcs, false, unplaced,
		       &num_unplaced);
	num_scratch = 0;
	order_and_dump(prof, unplaced, num_unplaced, true, scratch,
		       &num_scratch);

	for (i = 0; i < used; i++)
		if (!pl(prof, used_syms[i])->placed)
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
void cg_print_file_ordering(struct profile *prof)
{
	struct arc **scratch;
	size_t num_scratch = 0, i, nhave = 0;
	const char *last = NULL, **have;

	places_init(prof);
	scratch = xmalloc((prof->numarcs + 1) * sizeof(*scratch));
	for (i = 0; i < prof->numarcs; i++)
		if (!sym_is_mapped(prof, prof->arcs[i]->parent) ||
		    !sym_is_mapped(prof, prof->arcs[i]->child))
			prof->arcs[i]->has_been_placed = 1;

	order_and_dump(prof, prof->arcs, prof->numarcs, false, scratch,
		       &num_scratch);

	for (i = 0; i < prof->symtab.len; i++)
		if (sym_is_mapped(prof, &prof->symtab.base[i]) &&
		    !places[i].placed)
			printf("%s\n", prof->symtab.base[i].name);

	/* The files with a symbol, sorted, to find the others quickly. */
	have = xmalloc((prof->symtab.len + 1) * sizeof(*have));
	for (i = 0; i < prof->symtab.len; i++)
		if (sym_is_mapped(prof, &prof->symtab.base[i]))
			have[nhave++] = prof->symtab.base[i].name;
	qsort(have, nhave, sizeof(*have), cmp_str);

	function_map_sort_by_file(prof);
	for (i = 0; i < prof->symbol_map_count; i++) {
		const char *file = prof->symbol_map[i].file_name;

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

