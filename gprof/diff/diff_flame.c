// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sprofil diff --format=flamegraph: the differential flame graph, drawn
 * by the flame graph's own SVG writer (export_flame.c's
 * flame_svg_write(): layout, tooltips, zoom, search); this file says
 * what a box means.
 *
 * The stacks are those of --format=folded (diff_pair_stacks()), rooted
 * at "all" and then the program.  A stack is as wide as the larger of
 * its two sides, so that a vanished stack is still seen and a grown one
 * is drawn at its new size; a box is as wide as the stacks through it.
 * The sides are compared in seconds (shares with --normalize), as the
 * report compares them, so the widths are in the smallest weight of a
 * sample of any side: a side sampled twice as often does not look twice
 * as large.
 *
 * A box's colour is its inclusive change: red grew, blue shrank, the
 * deeper the more, saturating at twice (half) the base; grey unchanged;
 * dark red a box only in NEW, dark blue one only in BASE.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff.h"
#include "export/export.h"

/* A stack of one program: its frames, '\1'-separated, and its sides. */
struct fline {
	char *key;		/* program \1 frame \1 frame ... */
	size_t len;
	uint64_t b, n;		/* samples */
	double wb, wn;		/* what a sample of each side weighs */
};

/* A box's two sides, inclusive. */
struct fval {
	uint64_t b, n;		/* samples */
	double bv, nv;		/* seconds, or shares with --normalize */
};

struct fgraph {
	const struct diff *d;
	struct fline *lines;
	size_t nlines, cap;
	struct fval *val;	/* [st.len] */
	uint32_t *last;		/* [st.len]: a node's last child so far */
	double wb, wn;		/* the pair being collected */
	const char *prog;
};

static void add_line(void *ctx, const char *stack, uint64_t b, uint64_t n)
{
	struct fgraph *g = ctx;
	struct fline *l;
	size_t len = strlen(g->prog), i;

	if (g->nlines == g->cap) {
		g->cap = g->cap * 2 + 64;
		g->lines = xreallocarray(g->lines, g->cap, sizeof(*g->lines));
	}
	l = &g->lines[g->nlines++];
	l->len = len + strlen(stack) + 1;
	l->key = xmalloc(l->len + 1);
	memcpy(l->key, g->prog, len);
	l->key[len] = ';';
	strcpy(l->key + len + 1, stack);
	/*
	 * '\1' sorts before any character of a name, so a frame's stacks
	 * are together once sorted, right after the stack ending in it.
	 */
	for (i = 0; l->key[i]; i++)
		if (l->key[i] == ';')
			l->key[i] = '\1';
	l->b = b;
	l->n = n;
	l->wb = g->wb;
	l->wn = g->wn;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct fline *)a)->key,
		      ((const struct fline *)b)->key);
}

/* What a sample of @p weighs: seconds, or a share of its total. */
static double weight(const struct dprog *p, bool normalize)
{
	if (!p || !p->total)
		return 0;
	return normalize ? 1.0 / p->total : p->sample_s;
}

static uint32_t add_node(struct fgraph *g, struct stacks *st, uint32_t parent,
			 const char *name)
{
	uint32_t i = (uint32_t)st->len;
	struct stack_node *n;

	if (st->len == st->cap) {
		st->cap = st->cap * 2 + 64;
		st->node = xreallocarray(st->node, st->cap, sizeof(*st->node));
		g->val = xreallocarray(g->val, st->cap, sizeof(*g->val));
		g->last = xreallocarray(g->last, st->cap, sizeof(*g->last));
	}
	n = &st->node[st->len++];
	memset(n, 0, sizeof(*n));
	memset(&g->val[i], 0, sizeof(g->val[i]));
	n->name = name;
	n->module = UINT_MAX;
	n->parent = parent;
	n->first_child = CALLER_NONE;
	n->next_sibling = CALLER_NONE;
	g->last[i] = CALLER_NONE;
	if (parent != CALLER_NONE) {
		if (g->last[parent] == CALLER_NONE)
			st->node[parent].first_child = i;
		else
			st->node[g->last[parent]].next_sibling = i;
		g->last[parent] = i;
	}
	return i;
}

/*
 * The tree of the sorted lines, each as wide as its larger side in
 * @unit; false when nothing is wide enough to draw.  Siblings come in
 * name order, as in the flame graph.  Cuts the lines' keys into frames.
 */
static bool build(struct fgraph *g, struct stacks *st, double unit)
{
	uint32_t *path = NULL;
	size_t depth = 1, d, k;

	memset(st, 0, sizeof(*st));
	st->from_chains = true;
	add_node(g, st, CALLER_NONE, "all");
	for (k = 0; k < g->nlines; k++) {
		struct fline *l = &g->lines[k];
		double bv = l->b * l->wb, nv = l->n * l->wn;
		uint64_t w = llround(fmax(bv, nv) / unit);
		char *frame = l->key, *stop = l->key + l->len, *end;
		bool same = true;

		path = xreallocarray(path, l->len + 2, sizeof(*path));
		path[0] = 0;
		for (d = 1; frame < stop; frame = end + 1, d++) {
			end = frame + strcspn(frame, "\1");
			*end = '\0';
			/* The path so far, while the frames are its. */
			if (same && d < depth &&
			    !strcmp(st->node[path[d]].name, frame))
				continue;
			same = false;
			path[d] = add_node(g, st, path[d - 1], frame);
		}
		depth = d;
		for (d = 0; d < depth; d++) {
			struct fval *v = &g->val[path[d]];

			st->node[path[d]].total += w;
			v->b += l->b;
			v->n += l->n;
			v->bv += bv;
			v->nv += nv;
		}
		st->node[path[depth - 1]].self += w;
	}
	free(path);
	return st->node[0].total > 0;
}

/* The colours of the ends: in NEW only, in BASE only. */
#define NEW_FILL "rgb(170,0,0)"
#define GONE_FILL "rgb(20,40,170)"

static void fill_of(const struct flame_svg *f, uint32_t i, char out[24])
{
	const struct fval *v = &((const struct fgraph *)f->data)->val[i];
	double t;
	int c;

	if (!v->b || !v->n) {
		snprintf(out, 24, "%s", v->b ? GONE_FILL : NEW_FILL);
		return;
	}
	/* Deeper with the change's log: full at twice or half the base. */
	t = fmin(1, fabs(log2(v->nv / v->bv)));
	c = (int)lround(230 - 190 * t);
	if (v->nv > v->bv)
		snprintf(out, 24, "rgb(255,%d,%d)", c, c);
	else if (v->nv < v->bv)
		snprintf(out, 24, "rgb(%d,%d,255)", c, c);
	else
		snprintf(out, 24, "rgb(220,220,220)");
}

static const char *label_of(const struct flame_svg *f, uint32_t i)
{
	return f->st->node[i].name;
}

/* One side's samples and what they weigh: seconds, or a share. */
static void side(const char *which, uint64_t samples, double v,
		 bool normalize)
{
	printf("%s %llu sample%s (", which, (unsigned long long)samples,
	       samples == 1 ? "" : "s");
	if (normalize)
		printf("%.2f%%)", 100 * v);
	else
		printf("%.3f s)", v);
}

static void tip_of(const struct flame_svg *f, uint32_t i)
{
	const struct fgraph *g = f->data;
	const struct fval *v = &g->val[i];
	bool norm = g->d->opt->normalize;

	export_xml_text(f->st->node[i].name);
	printf(": ");
	side("base", v->b, v->bv, norm);
	printf(", ");
	side("new", v->n, v->nv, norm);
	if (!v->b)
		printf(": new");
	else if (!v->n)
		printf(": vanished");
	else if (norm)
		printf(": %+.1f%% of its share", 100 * (v->nv / v->bv - 1));
	else
		printf(": %+.1f%% (%+.3f s)", 100 * (v->nv / v->bv - 1),
		       v->nv - v->bv);
}

static void title_of(const struct flame_svg *f)
{
	const struct fgraph *g = f->data;
	const struct fval *v = &g->val[0];
	const struct diff *d = g->d;

	printf("<text x=\"600\" y=\"22\" class=\"title\">Differential flame graph of ");
	if (d->npairs == 1)
		export_xml_text(d->pairs[0].name);
	else
		printf("%u programs", d->npairs);
	printf("</text>\n<text x=\"600\" y=\"40\" class=\"sub\">");
	side("base", v->b, v->bv, d->opt->normalize);
	printf(", ");
	side("new", v->n, v->nv, d->opt->normalize);
	printf(". Width = each stack's larger side; callers below their callees. Click a box to zoom.</text>\n");
}

/* What the colours say, under the title. */
static void legend(const struct flame_svg *f)
{
	static const char *const key[][2] = {
		{ "rgb(255,40,40)", "grew (2x and more)" },
		{ "rgb(255,185,185)", "grew 25%" },
		{ "rgb(220,220,220)", "unchanged" },
		{ "rgb(185,185,255)", "shrank 20%" },
		{ "rgb(40,40,255)", "shrank to half and less" },
		{ NEW_FILL, "new (only in NEW)" },
		{ GONE_FILL, "vanished (only in BASE)" },
	};
	double x = 10;
	size_t k;

	(void)f;
	for (k = 0; k < sizeof(key) / sizeof(key[0]); k++) {
		printf("<rect x=\"%.1f\" y=\"46\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%.1f\" y=\"55\" font-size=\"11\">%s</text>\n",
		       x, key[k][0], x + 14, key[k][1]);
		x += 24 + 6.5 * strlen(key[k][1]);
	}
}

void diff_print_flame(const struct diff *d)
{
	struct fgraph g = { .d = d };
	struct flame_svg f = {
		.data = &g, .fill = fill_of, .tip = tip_of,
		.label = label_of, .title = title_of, .legend = legend,
	};
	struct stacks st;
	double unit = INFINITY;
	unsigned int i;
	size_t k;

	for (i = 0; i < d->npairs; i++) {
		g.prog = d->pairs[i].name;
		g.wb = weight(d->pairs[i].bp, d->opt->normalize);
		g.wn = weight(d->pairs[i].np, d->opt->normalize);
		if (g.wb > 0)
			unit = fmin(unit, g.wb);
		if (g.wn > 0)
			unit = fmin(unit, g.wn);
		diff_pair_stacks(&d->pairs[i], add_line, &g);
	}
	if (g.nlines)
		qsort(g.lines, g.nlines, sizeof(*g.lines), by_key);
	if (!isfinite(unit) || !build(&g, &st, unit)) {
		flame_svg_empty("Differential flame graph of ",
				d->npairs == 1 ? d->pairs[0].name : "the programs",
				"no stacks with samples");
	} else {
		f.st = &st;
		flame_svg_write(&f);
	}
	if (isfinite(unit))
		free(st.node);
	free(g.val);
	free(g.last);
	for (k = 0; k < g.nlines; k++)
		free(g.lines[k].key);
	free(g.lines);
}
