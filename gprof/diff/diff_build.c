// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The comparison of two sides (diff.h): programs matched by name, their
 * functions by key, each pair of counts compared (diff_stats.c), and
 * the gate: every function seen on both sides with --min-samples
 * samples, and each program's total, is one test of "grew by more than
 * --fail-above", and Holm's step-down keeps the family-wise error at
 * 1 - --confidence over all of them (docs/diff.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

static struct dpair *add_pair(struct diff *d, const char *name,
			      const struct dprog *bp, const struct dprog *np)
{
	struct dpair *pr;

	d->pairs = xreallocarray(d->pairs, d->npairs + 1, sizeof(*d->pairs));
	pr = &d->pairs[d->npairs++];
	memset(pr, 0, sizeof(*pr));
	pr->name = name;
	pr->bp = bp;
	pr->np = np;
	return pr;
}

/* The run totals' spread: Pearson's chi-square of equal runs. */
static void total_x2(const struct dprog *p, double *x2, double *df)
{
	double mean;
	unsigned int i;

	if (!p || p->nruns < 2 || !p->total)
		return;
	mean = (double)p->total / p->nruns;
	for (i = 0; i < p->nruns; i++)
		*x2 += (p->run_total[i] - mean) * (p->run_total[i] - mean) /
		       mean;
	*df += p->nruns - 1;
}

static int by_rank(const void *a, const void *b)
{
	const struct drow *x = a, *y = b;

	/* Matched rows first, by growth's lower bound; then new, vanished. */
	int cx = !x->bf ? 1 : !x->nf ? 2 : 0;
	int cy = !y->bf ? 1 : !y->nf ? 2 : 0;

	if (cx != cy)
		return cx - cy;
	if (x->rank != y->rank)
		return x->rank < y->rank ? 1 : -1;
	return strcmp(x->label, y->label);
}

/*
 * The rows of view @v of @pr: matched by key, each compared, sorted.
 * Function rows vote in the gate, and line rows with --lines; inclusive
 * times and arcs do not (docs/diff.md, "The gate"): their samples are
 * their callees' self samples again, which vote already.
 */
static void view_rows(struct diff *d, struct dpair *pr, enum dview_id v)
{
	const struct diff_options *opt = d->opt;
	const struct dprog *bp = pr->bp, *np = pr->np;
	const struct dtab *bt = &bp->tab[v], *nt = &np->tab[v];
	struct dview *w = &pr->view[v];
	double gate = opt->fail_above >= 0 ? 1 + opt->fail_above / 100 : 1;
	double wb, wn, x2 = 0, df = 0, kappa;
	bool votes = opt->fail_above >= 0 && (v == DV_FN || v == DV_LINE);
	size_t i, n = 0;

	wb = opt->normalize ? 1.0 / bp->total : bp->sample_s;
	wn = opt->normalize ? 1.0 / np->total : np->sample_s;
	w->rows = xcalloc(bt->nfns + nt->nfns + 1, sizeof(*w->rows));
	for (i = 0; i < bt->nfns; i++) {
		struct drow *r = &w->rows[n++];

		r->bf = &bt->fns[i];
		r->nf = dtab_find(nt, r->bf->key);
		r->label = r->bf->label;
	}
	for (i = 0; i < nt->nfns; i++)
		if (!dtab_find(bt, nt->fns[i].key)) {
			struct drow *r = &w->rows[n++];

			r->nf = &nt->fns[i];
			r->label = r->nf->label;
		}
	w->nrows = n;
	/*
	 * The spread model phi = 1 + kappa * (mean samples a run), kappa
	 * by moments over the rows that can vote (diff_stats.c).
	 */
	for (i = 0; i < n; i++) {
		struct drow *r = &w->rows[i];

		diff_dispersion(bp, r->bf, np, r->nf, &r->x2, &r->df);
		if (r->bf && r->nf && r->df &&
		    r->bf->total + r->nf->total >= opt->min_samples) {
			x2 += r->x2 - r->df;
			df += r->df * (double)(r->bf->total + r->nf->total) /
			      (bp->nruns + np->nruns);
		}
	}
	kappa = df > 0 ? fmax(0, x2 / df) : 0;
	for (i = 0; i < n; i++) {
		struct drow *r = &w->rows[i];
		struct dcmp *c = &r->c;

		c->b = r->bf ? r->bf->total : 0;
		c->n = r->nf ? r->nf->total : 0;
		c->wb = wb;
		c->wn = wn;
		c->phi = diff_phi(r->x2, r->df, 1 + kappa * (double)(c->b + c->n) /
				  (bp->nruns + np->nruns));
		c->tested = votes && r->bf && r->nf &&
			    c->b + c->n >= opt->min_samples;
		diff_compare(c, opt->confidence, gate);
		r->rank = r->bf && r->nf ? c->base * (c->lo - 1) :
			  r->nf ? c->new : c->base;
	}
	qsort(w->rows, n, sizeof(*w->rows), by_rank);
}

static void pair_rows(struct diff *d, struct dpair *pr)
{
	const struct diff_options *opt = d->opt;
	const struct dprog *bp = pr->bp, *np = pr->np;
	double gate = opt->fail_above >= 0 ? 1 + opt->fail_above / 100 : 1;
	double x2 = 0, df = 0;

	pr->rates_differ = bp->sample_s != np->sample_s;
	pr->chains = !bp->no_chains && !np->no_chains;
	view_rows(d, pr, DV_FN);
	if (opt->lines)
		view_rows(d, pr, DV_LINE);
	if (pr->chains) {
		view_rows(d, pr, DV_INCL);
		view_rows(d, pr, DV_ARC);
	}
	pr->total.b = bp->total;
	pr->total.n = np->total;
	pr->total.wb = bp->sample_s;
	pr->total.wn = np->sample_s;
	total_x2(bp, &x2, &df);
	total_x2(np, &x2, &df);
	pr->total.phi = diff_phi(x2, df, 1);
	/* Shares always sum to one: --normalize has no total to gate. */
	pr->total.tested = opt->fail_above >= 0 && !opt->normalize;
	diff_compare(&pr->total, opt->confidence, gate);
}

int diff_build(struct diff *d, const struct dside *base,
	       const struct dside *new, const struct diff_options *opt)
{
	unsigned int i, j, v, common = 0;
	struct dcmp **tests;
	size_t n = 0, k;

	memset(d, 0, sizeof(*d));
	d->opt = opt;
	d->base = base;
	d->new = new;
	if (base->nprogs == 1 && new->nprogs == 1 && !base->tree &&
	    !new->tree) {
		const char *bn = base->progs[0].name, *nn = new->progs[0].name;

		if (strcmp(bn, nn) && !opt->force) {
			fprintf(stderr, "%s: %s is a profile of %s, %s of %s: different programs (--force compares them)\n",
				opt->g.whoami, base->operand, bn, new->operand,
				nn);
			return -1;
		}
		add_pair(d, nn, &base->progs[0], &new->progs[0]);
	} else {
		for (i = 0; i < base->nprogs; i++) {
			const struct dprog *np = NULL;

			for (j = 0; j < new->nprogs; j++)
				if (!strcmp(base->progs[i].name,
					    new->progs[j].name))
					np = &new->progs[j];
			add_pair(d, base->progs[i].name, &base->progs[i], np);
			common += np != NULL;
		}
		for (j = 0; j < new->nprogs; j++) {
			for (i = 0; i < base->nprogs; i++)
				if (!strcmp(base->progs[i].name,
					    new->progs[j].name))
					break;
			if (i == base->nprogs)
				add_pair(d, new->progs[j].name, NULL,
					 &new->progs[j]);
		}
		if (!common) {
			fprintf(stderr, "%s: %s and %s have no program in common\n",
				opt->g.whoami, base->operand, new->operand);
			return -1;
		}
	}
	for (i = 0; i < d->npairs; i++) {
		struct dpair *pr = &d->pairs[i];

		if (!pr->bp || !pr->np)
			continue;
		if (strcmp(pr->bp->dimension, pr->np->dimension)) {
			fprintf(stderr, "%s: %s: the sides count different events (%s and %s)\n",
				opt->g.whoami, pr->name, pr->bp->dimension,
				pr->np->dimension);
			return -1;
		}
		if (!pr->bp->total || !pr->np->total) {
			fprintf(stderr, "%s: %s: %s has no samples of it: nothing to compare\n",
				opt->g.whoami, pr->name,
				pr->bp->total ? new->operand : base->operand);
			return -1;
		}
		pair_rows(d, pr);
		for (v = 0; v < DV_N; v++)
			n += pr->view[v].nrows;
		n++;
	}
	tests = xcalloc(n + 1, sizeof(*tests));
	for (n = 0, i = 0; i < d->npairs; i++) {
		struct dpair *pr = &d->pairs[i];

		if (!pr->bp || !pr->np)
			continue;
		for (v = 0; v < DV_N; v++)
			for (k = 0; k < pr->view[v].nrows; k++)
				tests[n++] = &pr->view[v].rows[k].c;
		tests[n++] = &pr->total;
	}
	for (k = 0; k < n; k++)
		d->tested += tests[k]->tested;
	if (opt->fail_above >= 0)
		d->failed = diff_holm(tests, n, 1 - opt->confidence);
	free(tests);
	return 0;
}

void diff_free(struct diff *d)
{
	unsigned int i, v;

	for (i = 0; i < d->npairs; i++)
		for (v = 0; v < DV_N; v++)
			free(d->pairs[i].view[v].rows);
	free(d->pairs);
	memset(d, 0, sizeof(*d));
}
