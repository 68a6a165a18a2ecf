// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A diff's text report, for people: per program its totals, then a
 * table a view (functions; with --lines source lines; where both sides
 * have caller chains measured inclusive times and arcs), then the gate
 * and the rows that failed it.  Every number is the comparison's
 * (diff_build.c): nothing is computed here but the printing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

static void text_row(const struct diff *d, const struct drow *r)
{
	const struct dcmp *c = &r->c;
	char ch[24], lo[24], hi[24];

	if (!r->bf || !r->nf) {
		printf("%10.3f %10.3f %8s %+10.3f %21s %7.2f  %s\n",
		       diff_shown(d, c->base), diff_shown(d, c->new),
		       r->bf ? "gone" : "new",
		       diff_shown(d, c->new - c->base), "", c->phi,
		       r->label);
		return;
	}
	diff_pct(ch, sizeof(ch), c->ratio);
	diff_pct(lo, sizeof(lo), c->lo);
	diff_pct(hi, sizeof(hi), c->hi);
	printf("%10.3f %10.3f %8s %+10.3f  [%8s, %8s] %7.2f%s %s\n",
	       diff_shown(d, c->base), diff_shown(d, c->new), ch,
	       diff_shown(d, c->new - c->base), lo, hi, c->phi,
	       c->failed ? "!" : " ", r->label);
}

/* One view's table: its top rows, and every row that failed the gate. */
static void text_view(const struct diff *d, const struct dview *w,
		      enum dview_id v)
{
	const struct diff_options *opt = d->opt;
	size_t k, shown;

	printf("%10s %10s %8s %10s  %-20s %7s  %s\n",
	       opt->normalize ? "base %" : "base s",
	       opt->normalize ? "new %" : "new s", "change",
	       opt->normalize ? "change %" : "change s",
	       "interval", "disp", diff_view_title[v]);
	for (k = 0, shown = 0; k < w->nrows; k++) {
		const struct drow *r = &w->rows[k];

		if (opt->top && shown >= opt->top && !r->c.failed)
			continue;
		text_row(d, r);
		shown++;
	}
	if (shown < w->nrows)
		printf("(%zu more; --top=0 shows all)\n", w->nrows - shown);
}

static void side_line(const char *what, const struct dside *s)
{
	printf("%s %s (%u run%s)", what, s->operand, s->nruns,
	       s->nruns == 1 ? "" : "s");
}

static void text_pair(const struct diff *d, const struct dpair *pr)
{
	char ch[24], lo[24], hi[24];

	if (!pr->bp || !pr->np) {
		printf("\nprogram %s: only in %s (%.3f s)\n", pr->name,
		       pr->bp ? "base" : "new",
		       pr->bp ? pr->bp->total * pr->bp->sample_s :
				pr->np->total * pr->np->sample_s);
		return;
	}
	diff_pct(ch, sizeof(ch), pr->total.ratio);
	diff_pct(lo, sizeof(lo), pr->total.lo);
	diff_pct(hi, sizeof(hi), pr->total.hi);
	printf("\nprogram %s: base %.3f s (%llu samples), new %.3f s (%llu samples), total %s [%s, %s]%s\n",
	       pr->name, pr->total.base, (unsigned long long)pr->total.b,
	       pr->total.new, (unsigned long long)pr->total.n, ch, lo, hi,
	       pr->total.failed ? " !" : "");
	if (pr->rates_differ)
		printf("note: the sides sample at different rates (%g and %g samples/s): compared in seconds\n",
		       1 / pr->bp->sample_s, 1 / pr->np->sample_s);
	text_view(d, &pr->view[DV_FN], DV_FN);
	if (d->opt->lines) {
		printf("\nlines of %s:\n", pr->name);
		text_view(d, &pr->view[DV_LINE], DV_LINE);
	}
	if (!pr->chains) {
		printf("\ninclusive times and arcs of %s: no caller chains in %s\n",
		       pr->name, diff_no_chains(pr));
		return;
	}
	printf("\ninclusive times of %s (measured from caller chains):\n",
	       pr->name);
	text_view(d, &pr->view[DV_INCL], DV_INCL);
	printf("\narcs of %s (measured from caller chains):\n", pr->name);
	text_view(d, &pr->view[DV_ARC], DV_ARC);
}

void diff_print_text(const struct diff *d)
{
	const struct diff_options *opt = d->opt;
	char ch[24], lo[24];
	unsigned int i, v;
	size_t k;

	side_line("base", d->base);
	side_line(", new", d->new);
	printf("; %g%% intervals; %s\n", 100 * opt->confidence,
	       opt->normalize ? "shares of each side's total (--normalize)" :
				"seconds");
	for (i = 0; i < d->npairs; i++)
		text_pair(d, &d->pairs[i]);
	if (opt->fail_above < 0)
		return;
	printf("\ngate: %s: %zu of %zu tests grew more than %g%% at %g%% confidence (Holm over the %zu)\n",
	       d->failed ? "FAILED" : "passed", d->failed, d->tested,
	       opt->fail_above, 100 * opt->confidence, d->tested);
	for (i = 0; i < d->npairs; i++) {
		const struct dpair *pr = &d->pairs[i];

		if (pr->total.failed) {
			diff_pct(ch, sizeof(ch), pr->total.ratio);
			diff_pct(lo, sizeof(lo), pr->total.lo);
			printf("  %s: total %s (at least %s)\n", pr->name, ch,
			       lo);
		}
		for (v = 0; v < DV_N; v++)
			for (k = 0; k < pr->view[v].nrows; k++) {
				const struct drow *r = &pr->view[v].rows[k];

				if (!r->c.failed)
					continue;
				diff_pct(ch, sizeof(ch), r->c.ratio);
				diff_pct(lo, sizeof(lo), r->c.lo);
				printf("  %s: %s %s (at least %s)\n",
				       pr->name, r->label, ch, lo);
			}
	}
}
