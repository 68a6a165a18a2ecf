// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The call graph: arcs as the profile files give them, then GNU gprof's
 * assembly of them (depth-first numbering, cycles, propagation of flags
 * and time, the order of the report).
 *
 * The results must be GNU's to the bit, including every tie and the
 * order in which floating-point sums are formed, so the passes visit
 * symbols and arcs in exactly GNU's order.  What differs is the cost:
 * arcs are found through a hash table instead of a walk of the parent's
 * children, the depth-first numbering keeps its own stack instead of
 * recursing (a call chain 100,000 deep must not overflow the C stack),
 * and cycles are merged with a union-find instead of relabelling and
 * rescanning the whole numbering stack each time.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"

/*
 * Arcs between symbols of the symbol table, by (parent, child).  Arcs
 * whose parent is elsewhere (the symspec tables' own copies) are not
 * hashed: those tables get sorted after their arcs exist, which moves
 * the symbols, and they are looked up by address range, as GNU does
 * (prof->arc_hash).
 */
static bool in_symtab(struct profile *prof, const struct sym *s)
{
	return prof->symtab.base && s >= prof->symtab.base &&
		s < prof->symtab.base + prof->symtab.len;
}

static size_t arc_slot(struct profile *prof, const struct sym *parent,
		       const struct sym *child)
{
	uint64_t k = (uint64_t)(uintptr_t)parent * UINT64_C(0x9e3779b97f4a7c15);

	k ^= (uint64_t)(uintptr_t)child + (k >> 29);
	k *= UINT64_C(0xbf58476d1ce4e5b9);
	k ^= k >> 32;
	return (size_t)k & (prof->arc_hash_size - 1);
}

static void arc_hash_insert(struct profile *prof, struct arc *a)
{
	size_t i = arc_slot(prof, a->parent, a->child);

	while (prof->arc_hash[i])
		i = (i + 1) & (prof->arc_hash_size - 1);
	prof->arc_hash[i] = a;
}

static void arc_hash_grow(struct profile *prof)
{
	struct arc **old = prof->arc_hash;
	size_t old_size = prof->arc_hash_size, i;

	prof->arc_hash_size = old_size ? old_size * 2 : 1024;
	prof->arc_hash = xcalloc(prof->arc_hash_size, sizeof(*prof->arc_hash));
	for (i = 0; i < old_size; i++)
		if (old[i])
			arc_hash_insert(prof, old[i]);
	free(old);
}

/*
 * GNU's test is "the arc's child covers the child's whole range".  Inside
 * the symbol table ranges never overlap, so that is identity there and
 * the hash answers it; the symspec tables' wider ranges need the walk.
 */
struct arc *arc_lookup(struct profile *prof, struct sym *parent,
		       struct sym *child)
{
	struct arc *a;
	size_t i;

	if (!parent || !child)
		return NULL;
	if (in_symtab(prof, parent)) {
		if (!prof->arc_hash_size)
			return NULL;
		for (i = arc_slot(prof, parent, child); (a = prof->arc_hash[i]);
		     i = (i + 1) & (prof->arc_hash_size - 1))
			if (a->parent == parent && a->child == child)
				return a;
		return NULL;
	}
	for (a = parent->cg.children; a; a = a->next_child)
		if (child->addr >= a->child->addr &&
		    child->end_addr <= a->child->end_addr)
			return a;
	return NULL;
}

void arc_add(struct profile *prof, struct sym *parent, struct sym *child,
	     uint64_t count)
{
	struct arc *a = arc_lookup(prof, parent, child);

	if (a) {
		a->count += count;
		return;
	}
	a = xcalloc(1, sizeof(*a));
	a->parent = parent;
	a->child = child;
	a->count = count;

	/* The array (-r, -R) holds every arc but the self-calls. */
	if (parent != child) {
		if (prof->numarcs == prof->arcs_cap) {
			prof->arcs_cap = prof->arcs_cap ?
					 prof->arcs_cap * 2 : 64;
			prof->arcs = xreallocarray(prof->arcs, prof->arcs_cap,
						   sizeof(*prof->arcs));
		}
		prof->arcs[prof->numarcs++] = a;
	}

	/* Newest first on both lists: the report's tie order needs it. */
	a->next_child = parent->cg.children;
	parent->cg.children = a;
	a->next_parent = child->cg.parents;
	child->cg.parents = a;

	if (in_symtab(prof, parent)) {
		if ((prof->arc_hash_used + 1) * 2 > prof->arc_hash_size)
			arc_hash_grow(prof);
		arc_hash_insert(prof, a);
		prof->arc_hash_used++;
	}
}

void arcs_reset(struct profile *prof)
{
	size_t i, kept = 0;

	/*
	 * Only the profile's arcs go: those between symbols of the table.
	 * Arcs the symspecs made among their own symbols stay, and are
	 * not even touched, since their symbols may have moved since.
	 */
	for (i = 0; i < prof->numarcs; i++)
		if (!in_symtab(prof, prof->arcs[i]->parent))
			prof->arcs[kept++] = prof->arcs[i];
	prof->numarcs = kept;
	for (i = 0; i < prof->arc_hash_size; i++) {
		struct arc *a = prof->arc_hash[i];

		if (!a)
			continue;
		a->parent->cg.children = NULL;
		a->child->cg.parents = NULL;
		free(a);
	}
	free(prof->arc_hash);
	prof->arc_hash = NULL;
	prof->arc_hash_size = prof->arc_hash_used = 0;
	free(prof->cycle_header);
	prof->cycle_header = NULL;
	prof->num_cycles = 0;
	prof->print_time = 0.0;
}

void cg_tally(struct profile *prof, uint64_t from_pc, uint64_t self_pc,
	      uint64_t count)
{
	struct sym *parent = sym_lookup(&prof->symtab, from_pc);
	struct sym *child = sym_lookup(&prof->symtab, self_pc);

	if (!parent || !child)
		return;

	/*
	 * With -l both ends are line symbols; the caller's line is what
	 * we want, but a call always enters a function, so the child
	 * backs up to the function symbol holding that line.
	 */
	while (child > prof->symtab.base && !child->is_func)
		child--;
	if (!child->is_func)
		return;

	if (sym_id_arc_is_present(prof, &prof->syms[INCL_ARCS], parent,
				  child) ||
	    (prof->syms[INCL_ARCS].len == 0 &&
	     !sym_id_arc_is_present(prof, &prof->syms[EXCL_ARCS], parent,
				    child))) {
		child->ncalls += count;
		arc_add(prof, parent, child, count);
	}
}

/* ---- depth-first numbering ---- */

#define DFN_NAN 0		/* not visited yet */
#define DFN_BUSY (-1)		/* on the stack, or in an open cycle */

/*
 * State of the numbering, all indexed by a symbol's position in the
 * table or by a position on the stack (1-based, as GNU's).
 *
 * GNU relabels every member's cycle head each time cycles merge; here
 * members are merged with a union-find whose root knows the head.  A
 * head's members that are still on the stack sit in one contiguous run
 * just above it ending at blk_end[head's position], which lets a new
 * back arc skip whole runs instead of walking the stack.
 */
struct dfn {
	struct sym **stk;	/* the symbols being visited */
	struct arc **next_arc;	/* next arc to follow, per position */
	size_t *blk_end;	/* per position of a head */
	size_t depth;
	size_t *pos;		/* per symbol: position on stack, or 0 */
	size_t *uf;		/* per symbol: union-find parent */
	size_t *uf_size;
	struct sym **headof;	/* per union-find root: the cycle's head */
	struct sym **tail;	/* per head: last symbol of its member list */
	int counter;
};

static size_t sym_ix(struct profile *prof, const struct sym *s)
{
	return (size_t)(s - prof->symtab.base);
}

static size_t uf_find(struct dfn *d, size_t x)
{
	size_t r = x, n;

	while (d->uf[r] != r)
		r = d->uf[r];
	while (d->uf[x] != r) {
		n = d->uf[x];
		d->uf[x] = r;
		x = n;
	}
	return r;
}

static struct sym *head_of(struct profile *prof, struct dfn *d, struct sym *s)
{
	return d->headof[uf_find(d, sym_ix(prof, s))];
}

/* Appends the members of head @x to those of @h. */
static void glom(struct profile *prof, struct dfn *d, struct sym *h,
		 struct sym *x)
{
	size_t rh = uf_find(d, sym_ix(prof, h)), rx = uf_find(d, sym_ix(prof,
									x));

	d->tail[sym_ix(prof, h)]->cg.cyc.next = x;
	d->tail[sym_ix(prof, h)] = d->tail[sym_ix(prof, x)];
	if (d->uf_size[rh] < d->uf_size[rx]) {
		size_t t = rh;

		rh = rx;
		rx = t;
	}
	d->uf[rx] = rh;
	d->uf_size[rh] += d->uf_size[rx];
	d->headof[rh] = h;
}

/*
 * @child, already busy, was reached again: everything on the stack above
 * the place where its cycle starts joins that cycle.
 */
static void find_cycle(struct profile *prof, struct dfn *d, struct sym *child)
{
	struct sym *h = head_of(prof, d, child), *head;
	size_t top = d->pos[sym_ix(prof, child)], hp, p;

	if (h != child && d->pos[sym_ix(prof, h)] > top)
		top = d->pos[sym_ix(prof, h)];
	if (top == 0)
		fatal("call graph: no head found for a cycle");
	if (top == d->depth)
		return;		/* a call to itself */

	head = head_of(prof, d, d->stk[top]);
	hp = d->pos[sym_ix(prof, head)];
	p = top + 1;
	if (d->blk_end[hp] + 1 > p)
		p = d->blk_end[hp] + 1;
	while (p <= d->depth) {
		struct sym *x = d->stk[p];
		struct sym *xh = head_of(prof, d, x);

		if (xh == x) {
			glom(prof, d, head, x);
			p = d->blk_end[p] + 1;
		} else if (xh == head) {
			p++;
		} else {
			fatal("call graph: cycle member outside its cycle");
		}
	}
	d->blk_end[hp] = d->depth;
}

static void dfn_push(struct profile *prof, struct dfn *d, struct sym *s)
{
	d->depth++;
	d->stk[d->depth] = s;
	d->next_arc[d->depth] = s->cg.children;
	d->blk_end[d->depth] = d->depth;
	d->pos[sym_ix(prof, s)] = d->depth;
	s->cg.top_order = DFN_BUSY;
}

/* Numbers a finished head and its cycle; a member waits for its head. */
static void dfn_pop(struct profile *prof, struct dfn *d)
{
	struct sym *s = d->stk[d->depth], *h = head_of(prof, d, s), *m;

	if (h == s) {
		d->counter++;
		for (m = s; m; m = m->cg.cyc.next)
			m->cg.top_order = d->counter;
	} else {
		d->blk_end[d->pos[sym_ix(prof, h)]] = d->depth - 1;
	}
	d->pos[sym_ix(prof, s)] = 0;
	d->depth--;
}

static void dfn_visit(struct profile *prof, struct dfn *d, struct sym *root)
{
	dfn_push(prof, d, root);
	while (d->depth) {
		struct arc *a = d->next_arc[d->depth];
		struct sym *c;

		if (!a) {
			dfn_pop(prof, d);
			continue;
		}
		d->next_arc[d->depth] = a->next_child;
		c = a->child;
		if (c->cg.top_order == DFN_NAN)
			dfn_push(prof, d, c);
		else if (c->cg.top_order == DFN_BUSY)
			find_cycle(prof, d, c);
	}
}

static void cg_dfn_all(struct profile *prof)
{
	size_t n = prof->symtab.len, i;
	struct dfn d = { 0 };

	d.stk = xmalloc((n + 1) * sizeof(*d.stk));
	d.next_arc = xmalloc((n + 1) * sizeof(*d.next_arc));
	d.blk_end = xmalloc((n + 1) * sizeof(*d.blk_end));
	d.pos = xcalloc(n, sizeof(*d.pos));
	d.uf = xmalloc(n * sizeof(*d.uf));
	d.uf_size = xmalloc(n * sizeof(*d.uf_size));
	d.headof = xmalloc(n * sizeof(*d.headof));
	d.tail = xmalloc(n * sizeof(*d.tail));
	for (i = 0; i < n; i++) {
		d.uf[i] = i;
		d.uf_size[i] = 1;
		d.headof[i] = &prof->symtab.base[i];
		d.tail[i] = &prof->symtab.base[i];
	}

	for (i = 0; i < n; i++)
		if (prof->symtab.base[i].cg.top_order == DFN_NAN)
			dfn_visit(prof, &d, &prof->symtab.base[i]);

	for (i = 0; i < n; i++)
		prof->symtab.base[i].cg.cyc.head =
			head_of(prof, &d, &prof->symtab.base[i]);

	free(d.stk);
	free(d.next_arc);
	free(d.blk_end);
	free(d.pos);
	free(d.uf);
	free(d.uf_size);
	free(d.headof);
	free(d.tail);
}

/* ---- cycles ---- */

static bool is_cycle_head(const struct sym *s)
{
	return s->cg.cyc.head == s && s->cg.cyc.next;
}

/*
 * Numbers the cycles in address order of their heads and gives each a
 * symbol of its own: calls from outside count as its calls, calls
 * between members as its self-calls.
 */
static void cycle_link(struct profile *prof)
{
	struct sym *s, *m, *cyc;
	struct arc *a;
	size_t i;
	unsigned int num = 0;

	prof->num_cycles = 0;
	for (i = 0; i < prof->symtab.len; i++)
		if (is_cycle_head(&prof->symtab.base[i]))
			prof->num_cycles++;
	free(prof->cycle_header);
	prof->cycle_header = xcalloc(prof->num_cycles + 1,
				     sizeof(*prof->cycle_header));

	for (i = 0; i < prof->symtab.len; i++) {
		s = &prof->symtab.base[i];
		if (!is_cycle_head(s))
			continue;
		cyc = &prof->cycle_header[++num];
		cyc->cg.print_flag = true;
		cyc->cg.top_order = DFN_NAN;
		cyc->cg.cyc.num = (int)num;
		cyc->cg.cyc.head = cyc;
		cyc->cg.cyc.next = s;

		for (m = s; m; m = m->cg.cyc.next) {
			m->cg.cyc.num = (int)num;
			m->cg.cyc.head = cyc;
		}
		for (m = s; m; m = m->cg.cyc.next) {
			for (a = m->cg.parents; a; a = a->next_parent) {
				if (a->parent == m)
					continue;
				if (a->parent->cg.cyc.num == (int)num)
					cyc->cg.self_calls += a->count;
				else
					cyc->ncalls += a->count;
			}
		}
	}
}

/* Adds the share @parent passes down along @a to @to's fraction. */
static void inherit_fract(struct sym *to, struct sym *parent, struct arc *a)
{
	/* A child only reached by static (-c) arcs gets no time. */
	if (to->ncalls != 0)
		to->cg.prop.fract += parent->cg.prop.fract *
			((double)a->count / (double)to->ncalls);
}

/*
 * A function inherits printing and its share of time from its callers;
 * a cycle does so from the callers outside it, for all its members.
 */
static void inherit_flags(struct sym *child)
{
	struct sym *head = child->cg.cyc.head, *m;
	struct arc *a;

	if (child == head) {
		child->cg.print_flag = false;
		child->cg.prop.fract = 0.0;
		for (a = child->cg.parents; a; a = a->next_parent) {
			if (a->parent == child)
				continue;
			child->cg.print_flag |= a->parent->cg.print_flag;
			inherit_fract(child, a->parent, a);
		}
		return;
	}

	head->cg.print_flag = false;
	head->cg.prop.fract = 0.0;
	for (m = head->cg.cyc.next; m; m = m->cg.cyc.next) {
		for (a = m->cg.parents; a; a = a->next_parent) {
			if (a->parent->cg.cyc.head == head)
				continue;
			head->cg.print_flag |= a->parent->cg.print_flag;
			inherit_fract(head, a->parent, a);
		}
	}
	for (m = head; m; m = m->cg.cyc.next) {
		m->cg.print_flag = head->cg.print_flag;
		m->cg.prop.fract = head->cg.prop.fract;
	}
}

static bool in_table(struct profile *prof, enum table_id t, const struct sym *s)
{
	return sym_lookup(&prof->syms[t], s->addr) != NULL;
}

/*
 * Top-down (callers first): printing flags and the fraction of each
 * function's time that is propagated, then the self time printed.
 */
static void propagate_flags(struct profile *prof, struct sym **top)
{
	struct sym *old_head = NULL, *child;
	size_t i;

	for (i = prof->symtab.len; i-- > 0;) {
		child = top[i];
		/* A cycle is done as a whole at its first member seen. */
		if (child->cg.cyc.head != old_head) {
			old_head = child->cg.cyc.head;
			inherit_flags(child);
		}
		if (!child->cg.print_flag) {
			if (in_table(prof, INCL_GRAPH, child) ||
			    (prof->syms[INCL_GRAPH].len == 0 &&
			     !in_table(prof, EXCL_GRAPH, child)))
				child->cg.print_flag = true;
		} else if (!in_table(prof, INCL_GRAPH, child) &&
			   in_table(prof, EXCL_GRAPH, child)) {
			child->cg.print_flag = false;
		}
		if (child->cg.prop.fract == 0.0) {
			if (in_table(prof, INCL_TIME, child) ||
			    (prof->syms[INCL_TIME].len == 0 &&
			     !in_table(prof, EXCL_TIME, child)))
				child->cg.prop.fract = 1.0;
		} else if (!in_table(prof, INCL_TIME, child) &&
			   in_table(prof, EXCL_TIME, child)) {
			child->cg.prop.fract = 0.0;
		}
		child->cg.prop.self = child->hist.time * child->cg.prop.fract;
		prof->print_time += child->cg.prop.self;
	}
}

/* A cycle's self time: that of its members which pass time on. */
static void cycle_time(struct profile *prof)
{
	struct sym *cyc, *m;
	unsigned int i;

	for (i = 1; i <= prof->num_cycles; i++) {
		cyc = &prof->cycle_header[i];
		for (m = cyc->cg.cyc.next; m; m = m->cg.cyc.next) {
			/* Members excluded with -E pass nothing on. */
			if (m->cg.prop.fract == 0.0)
				continue;
			cyc->hist.time += m->hist.time;
		}
		cyc->cg.prop.self = cyc->cg.prop.fract * cyc->hist.time;
	}
}

/*
 * Bottom-up: each arc carries its share (by call count) of the child's
 * (or child's cycle's) self and child time to the parent.
 */
static void propagate_time(struct sym *parent)
{
	struct arc *a;
	struct sym *child;
	double share, prop_share, ratio;

	if (parent->cg.prop.fract == 0.0)
		return;

	for (a = parent->cg.children; a; a = a->next_child) {
		child = a->child;
		if (a->count == 0 || child == parent ||
		    child->cg.prop.fract == 0)
			continue;
		if (child->cg.cyc.head != child) {
			if (parent->cg.cyc.num == child->cg.cyc.num)
				continue;
			child = child->cg.cyc.head;
		} else if (parent->cg.top_order <= child->cg.top_order) {
			/* Cannot happen with a sound numbering; GNU skips. */
			continue;
		}
		if (child->ncalls == 0)
			continue;

		ratio = (double)a->count / (double)child->ncalls;
		a->time = child->hist.time * ratio;
		a->child_time = child->cg.child_time * ratio;
		share = a->time + a->child_time;
		parent->cg.child_time += share;

		/* The part (1 - fract) of it is not printed anywhere. */
		prop_share = parent->cg.prop.fract * share;
		parent->cg.prop.child += prop_share;
		a->time *= parent->cg.prop.fract;
		a->child_time *= parent->cg.prop.fract;

		if (parent->cg.cyc.head != parent) {
			parent->cg.cyc.head->cg.child_time += share;
			parent->cg.cyc.head->cg.prop.child += prop_share;
		}
	}
}

/*
 * The report's order: most propagated time first; on a tie cycles, then
 * names without a leading underscore, then more calls, then the name.
 */
static int cmp_total(const void *lp, const void *rp)
{
	const struct sym *l = *(const struct sym *const *)lp;
	const struct sym *r = *(const struct sym *const *)rp;
	double diff = (l->cg.prop.self + l->cg.prop.child) -
		      (r->cg.prop.self + r->cg.prop.child);

	if (diff < 0.0)
		return 1;
	if (diff > 0.0)
		return -1;
	if (!l->name && l->cg.cyc.num != 0)
		return -1;
	if (!r->name && r->cg.cyc.num != 0)
		return 1;
	if (!l->name)
		return -1;
	if (!r->name)
		return 1;
	if (l->name[0] != '_' && r->name[0] == '_')
		return -1;
	if (l->name[0] == '_' && r->name[0] != '_')
		return 1;
	if (l->ncalls > r->ncalls)
		return -1;
	if (l->ncalls < r->ncalls)
		return 1;
	return strcmp(l->name, r->name);
}

/*
 * Symbols by increasing topological number, members of one cycle (which
 * share a number) in table order: a counting sort, as stable as GNU's.
 */
static struct sym **top_sort(struct profile *prof)
{
	size_t n = prof->symtab.len, i, max = 0, *start;
	struct sym **top = xmalloc((n ? n : 1) * sizeof(*top));

	for (i = 0; i < n; i++)
		if ((size_t)prof->symtab.base[i].cg.top_order > max)
			max = (size_t)prof->symtab.base[i].cg.top_order;
	start = xcalloc(max + 2, sizeof(*start));
	for (i = 0; i < n; i++)
		start[prof->symtab.base[i].cg.top_order + 1]++;
	for (i = 1; i <= max + 1; i++)
		start[i] += start[i - 1];
	for (i = 0; i < n; i++)
		top[start[prof->symtab.base[i].cg.top_order]++] =
			&prof->symtab.base[i];
	free(start);
	return top;
}

/*
 * A symbol no report can show unless -z: no time, no calls, no arcs.
 * Most symbols of a big program are such; they only matter to the
 * others' indices, through how many of them sort before each.
 */
static bool unprinted(const struct sym *s)
{
	return s->name && !s->cg.parents && !s->cg.children && !s->ncalls &&
	       !s->cg.self_calls && s->hist.time == 0 &&
	       s->cg.prop.self + s->cg.prop.child == 0;
}

/*
 * Gives every other symbol the index the full sort by cmp_total would
 * give it, sorting only them: among total-time ties cmp_total puts
 * cycles first, then names without a leading '_', then the rest, each
 * by calls (an unprinted symbol has none) and then by name, the input
 * (address) order breaking exact ties.  So an unprinted symbol precedes
 * a printed one X with no time only when it is in an earlier name
 * group, or in X's group when X has no calls either and its name sorts
 * first.  That last case needs a scan of the unprinted symbols per such
 * X; when there are many of them the full sort is cheaper (returns
 * false).  Fills @sorted as the full sort would for the symbols printed,
 * followed by the unprinted ones, which keep index 0.
 */
static bool index_unprinted_fast(struct profile *prof, struct sym **sorted)
{
	size_t i, n = 0, nb = 0, slow = 0, plain_b = 0;
	struct sym **b;

	for (i = 0; i < prof->symtab.len; i++) {
		struct sym *s = &prof->symtab.base[i];

		if (unprinted(s)) {
			nb++;
			plain_b += s->name[0] != '_';
		} else if (s->name && !s->ncalls &&
			   s->cg.prop.self + s->cg.prop.child == 0) {
			slow++;
		}
	}
	if (slow > 16 || nb < 1024)
		return false;
	b = sorted + (prof->symtab.len + prof->num_cycles - nb);
	for (i = 0; i < prof->symtab.len; i++) {
		struct sym *s = &prof->symtab.base[i];

		if (unprinted(s)) {
			*b++ = s;
			s->cg.index = 0;
		} else {
			sorted[n++] = s;
		}
	}
	for (i = 1; i <= prof->num_cycles; i++)
		sorted[n++] = &prof->cycle_header[i];
	cg_sort(sorted, n, cmp_total);
	b = sorted + n;
	for (i = 0; i < n; i++) {
		struct sym *x = sorted[i];
		size_t before = 0, k;
		bool under;

		if (x->name && x->cg.prop.self + x->cg.prop.child == 0) {
			under = x->name[0] == '_';
			if (under)
				before = plain_b;
			for (k = 0; !x->ncalls && k < nb; k++) {
				int c;

				if ((b[k]->name[0] == '_') != under)
					continue;
				c = strcmp(b[k]->name, x->name);
				before += c < 0 || (c == 0 && b[k] < x);
			}
		}
		x->cg.index = (int)(i + before + 1);
	}
	return true;
}

struct sym **cg_assemble(struct profile *prof, const struct gprof_options *opt)
{
	struct sym *p, **top, **sorted;
	struct arc *a;
	size_t i, n;

	prof->print_time = 0.0;
	for (i = 0; i < prof->symtab.len; i++) {
		p = &prof->symtab.base[i];
		p->cg.child_time = 0.0;
		a = arc_lookup(prof, p, p);
		if (a) {
			p->ncalls -= a->count;
			p->cg.self_calls = a->count;
		} else {
			p->cg.self_calls = 0;
		}
		p->cg.prop.fract = 0.0;
		p->cg.prop.self = 0.0;
		p->cg.prop.child = 0.0;
		p->cg.print_flag = false;
		p->cg.top_order = DFN_NAN;
		p->cg.cyc.num = 0;
		p->cg.cyc.head = p;
		p->cg.cyc.next = NULL;
		if (opt->ignore_direct_calls)
			find_call(prof, p, p->addr, i + 1 < prof->symtab.len ?
				  p[1].addr : p->end_addr + 1);
	}

	cg_dfn_all(prof);
	cycle_link(prof);

	top = top_sort(prof);
	propagate_flags(prof, top);
	if (prof->measured_times) {
		cg_measured_times(prof);
	} else {
		cycle_time(prof);
		for (i = 0; i < prof->symtab.len; i++)
			propagate_time(top[i]);
	}
	free(top);

	n = prof->symtab.len + prof->num_cycles;
	sorted = xmalloc((n ? n : 1) * sizeof(*sorted));
	if (opt->ignore_zeros && index_unprinted_fast(prof, sorted))
		return sorted;
	for (i = 0; i < prof->symtab.len; i++)
		sorted[i] = &prof->symtab.base[i];
	for (i = 1; i <= prof->num_cycles; i++)
		sorted[prof->symtab.len + i - 1] = &prof->cycle_header[i];
	cg_sort(sorted, n, cmp_total);
	for (i = 0; i < n; i++)
		sorted[i]->cg.index = (int)(i + 1);
	return sorted;
}
