// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A diff's reports: text for people, JSON for CI bots, a Markdown table
 * for a pull-request comment, and differential folded stacks
 * ("stack BASE NEW", the input of flamegraph.pl's differential mode).
 * Every number is the comparison's (diff_build.c): nothing is computed
 * here but the printing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "export/export.h"

static const char *unit(const struct diff *d)
{
	return d->opt->normalize ? "%" : "s";
}

double diff_shown(const struct diff *d, double v)
{
	return d->opt->normalize ? 100 * v : v;
}

void diff_pct(char *out, size_t size, double ratio)
{
	if (isinf(ratio))
		snprintf(out, size, "inf");
	else
		snprintf(out, size, "%+.1f%%", 100 * (ratio - 1));
}

const char *diff_no_chains(const struct dpair *pr)
{
	if (pr->bp->no_chains && pr->np->no_chains)
		return "base and new";
	return pr->bp->no_chains ? "base" : "new";
}

const char *const diff_view_title[DV_N] = {
	"function", "line", "function (inclusive)", "caller -> callee"
};

/* A number JSON can hold: infinities are null. */
static void jnum(const char *name, double v, bool comma)
{
	if (isfinite(v))
		printf("\"%s\":%.9g%s", name, v, comma ? "," : "");
	else
		printf("\"%s\":null%s", name, comma ? "," : "");
}

static void json_cmp(const struct dcmp *c)
{
	printf("\"base_samples\":%llu,\"new_samples\":%llu,",
	       (unsigned long long)c->b, (unsigned long long)c->n);
	jnum("base", c->base, true);
	jnum("new", c->new, true);
	jnum("ratio", c->ratio, true);
	jnum("ratio_low", c->lo, true);
	jnum("ratio_high", c->hi, true);
	jnum("dispersion", c->phi, true);
	jnum("p", c->p, true);
	printf("\"tested\":%s,\"failed\":%s", c->tested ? "true" : "false",
	       c->failed ? "true" : "false");
}

static void json_view(const struct dview *w)
{
	size_t k;

	putchar('[');
	for (k = 0; k < w->nrows; k++) {
		const struct drow *r = &w->rows[k];

		printf("%s{\"name\":", k ? "," : "");
		quoted(r->label);
		printf(",\"status\":\"%s\",",
		       !r->bf ? "new" : !r->nf ? "vanished" : "matched");
		json_cmp(&r->c);
		putchar('}');
	}
	putchar(']');
}

void diff_print_json(const struct diff *d)
{
	const struct diff_options *opt = d->opt;
	unsigned int i;

	printf("{\"base\":{\"operand\":");
	quoted(d->base->operand);
	printf(",\"runs\":%u},\"new\":{\"operand\":", d->base->nruns);
	quoted(d->new->operand);
	printf(",\"runs\":%u},", d->new->nruns);
	jnum("confidence", opt->confidence, true);
	printf("\"unit\":\"%s\",", opt->normalize ? "share" : "seconds");
	if (opt->fail_above >= 0)
		jnum("fail_above_percent", opt->fail_above, true);
	printf("\"tests\":%zu,\"failed\":%zu,\"programs\":[", d->tested,
	       d->failed);
	for (i = 0; i < d->npairs; i++) {
		const struct dpair *pr = &d->pairs[i];

		printf("%s{\"name\":", i ? "," : "");
		quoted(pr->name);
		if (!pr->bp || !pr->np) {
			printf(",\"only_in\":\"%s\"}", pr->bp ? "base" : "new");
			continue;
		}
		printf(",\"rates_differ\":%s,\"total\":{",
		       pr->rates_differ ? "true" : "false");
		json_cmp(&pr->total);
		printf("},\"functions\":");
		json_view(&pr->view[DV_FN]);
		if (opt->lines) {
			printf(",\"lines\":");
			json_view(&pr->view[DV_LINE]);
		}
		printf(",\"caller_chains\":%s,\"inclusive\":",
		       pr->chains ? "true" : "false");
		if (pr->chains)
			json_view(&pr->view[DV_INCL]);
		else
			printf("null");
		printf(",\"arcs\":");
		if (pr->chains)
			json_view(&pr->view[DV_ARC]);
		else
			printf("null");
		putchar('}');
	}
	printf("]}\n");
}

/* Markdown's table cells: a | would end the cell. */
static void md_text(const char *s)
{
	for (; *s; s++)
		if (*s == '|')
			fputs("\\|", stdout);
		else
			putchar(*s);
}

/* One view's table, its top rows (and every failing one). */
static void md_view(const struct diff *d, const struct dview *w,
		    enum dview_id v)
{
	const struct diff_options *opt = d->opt;
	char ch[24], lo[24], hi[24];
	size_t k, shown;

	printf("| %s | base %s | new %s | change | %g%% interval |\n",
	       diff_view_title[v], unit(d), unit(d), 100 * opt->confidence);
	printf("|---|---:|---:|---:|---|\n");
	for (k = 0, shown = 0; k < w->nrows; k++) {
		const struct drow *r = &w->rows[k];

		if (opt->top && shown >= opt->top && !r->c.failed)
			continue;
		shown++;
		printf("| %s", r->c.failed ? "❗ " : "");
		md_text(r->label);
		printf(" | %.3f | %.3f | ", diff_shown(d, r->c.base),
		       diff_shown(d, r->c.new));
		if (!r->bf || !r->nf) {
			printf("%s | |\n", r->bf ? "vanished" : "new");
			continue;
		}
		diff_pct(ch, sizeof(ch), r->c.ratio);
		diff_pct(lo, sizeof(lo), r->c.lo);
		diff_pct(hi, sizeof(hi), r->c.hi);
		printf("%s | %s … %s |\n", ch, lo, hi);
	}
	putchar('\n');
}

void diff_print_markdown(const struct diff *d)
{
	const struct diff_options *opt = d->opt;
	unsigned int i;

	if (opt->fail_above >= 0)
		printf("**sprofil diff: %s** — %zu of %zu tests grew more than %g%% at %g%% confidence\n\n",
		       d->failed ? "gate failed" : "gate passed", d->failed,
		       d->tested, opt->fail_above, 100 * opt->confidence);
	for (i = 0; i < d->npairs; i++) {
		const struct dpair *pr = &d->pairs[i];
		char ch[24], lo[24], hi[24];

		if (!pr->bp || !pr->np) {
			printf("Program `%s`: only in %s.\n\n", pr->name,
			       pr->bp ? "base" : "new");
			continue;
		}
		diff_pct(ch, sizeof(ch), pr->total.ratio);
		diff_pct(lo, sizeof(lo), pr->total.lo);
		diff_pct(hi, sizeof(hi), pr->total.hi);
		printf("Program `%s`: %.3f s → %.3f s, %s [%s, %s]\n\n",
		       pr->name, pr->total.base, pr->total.new, ch, lo, hi);
		md_view(d, &pr->view[DV_FN], DV_FN);
		if (opt->lines)
			md_view(d, &pr->view[DV_LINE], DV_LINE);
		if (!pr->chains) {
			printf("Inclusive times and arcs: no caller chains in %s.\n\n",
			       diff_no_chains(pr));
			continue;
		}
		printf("Measured from caller chains:\n\n");
		md_view(d, &pr->view[DV_INCL], DV_INCL);
		md_view(d, &pr->view[DV_ARC], DV_ARC);
	}
}

static int by_stack(const void *a, const void *b)
{
	return strcmp(((const struct dstack *)a)->stack,
		      ((const struct dstack *)b)->stack);
}

/* Sorts @p's stacks and merges equal ones (clones folded into one). */
static void merge_stacks(struct dprog *p)
{
	size_t i, n = 0;

	if (p->nstacks)
		qsort(p->stacks, p->nstacks, sizeof(*p->stacks), by_stack);
	for (i = 0; i < p->nstacks; i++) {
		if (n && !strcmp(p->stacks[n - 1].stack, p->stacks[i].stack)) {
			p->stacks[n - 1].samples += p->stacks[i].samples;
			free(p->stacks[i].stack);
			continue;
		}
		p->stacks[n++] = p->stacks[i];
	}
	p->nstacks = n;
}

void diff_pair_stacks(const struct dpair *pr,
		      void (*fn)(void *ctx, const char *stack, uint64_t b,
				 uint64_t n),
		      void *ctx)
{
	struct dprog *bp = (struct dprog *)pr->bp;
	struct dprog *np = (struct dprog *)pr->np;
	size_t a = 0, b = 0;
	int c;

	if (bp)
		merge_stacks(bp);
	if (np)
		merge_stacks(np);
	while ((bp && a < bp->nstacks) || (np && b < np->nstacks)) {
		if (!bp || a == bp->nstacks)
			c = 1;
		else if (!np || b == np->nstacks)
			c = -1;
		else
			c = strcmp(bp->stacks[a].stack, np->stacks[b].stack);
		fn(ctx, c <= 0 ? bp->stacks[a].stack : np->stacks[b].stack,
		   c <= 0 ? bp->stacks[a].samples : 0,
		   c >= 0 ? np->stacks[b].samples : 0);
		a += c <= 0;
		b += c >= 0;
	}
}

static void folded_line(void *ctx, const char *stack, uint64_t b,
			uint64_t n)
{
	printf("%s;%s %llu %llu\n", (const char *)ctx, stack,
	       (unsigned long long)b, (unsigned long long)n);
}

void diff_print_folded(const struct diff *d)
{
	unsigned int i;

	for (i = 0; i < d->npairs; i++)
		diff_pair_stacks(&d->pairs[i], folded_line,
				 (void *)d->pairs[i].name);
}
