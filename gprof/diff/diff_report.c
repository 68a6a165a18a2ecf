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

/* A side's value as printed: seconds, or percent of its total. */
static double shown_value(const struct diff *d, double v)
{
	return d->opt->normalize ? 100 * v : v;
}

static void pct(char *out, size_t size, double ratio)
{
	if (isinf(ratio))
		snprintf(out, size, "inf");
	else
		snprintf(out, size, "%+.1f%%", 100 * (ratio - 1));
}

static void text_row(const struct diff *d, const struct drow *r)
{
	const struct dcmp *c = &r->c;
	char ch[24], lo[24], hi[24];

	if (!r->bf || !r->nf) {
		printf("%10.3f %10.3f %8s %+10.3f %21s %7.2f  %s\n",
		       shown_value(d, c->base), shown_value(d, c->new),
		       r->bf ? "gone" : "new",
		       shown_value(d, c->new - c->base), "", c->phi,
		       r->label);
		return;
	}
	pct(ch, sizeof(ch), c->ratio);
	pct(lo, sizeof(lo), c->lo);
	pct(hi, sizeof(hi), c->hi);
	printf("%10.3f %10.3f %8s %+10.3f  [%8s, %8s] %7.2f%s %s\n",
	       shown_value(d, c->base), shown_value(d, c->new), ch,
	       shown_value(d, c->new - c->base), lo, hi, c->phi,
	       c->failed ? "!" : " ", r->label);
}

static void text_header(const struct diff *d)
{
	printf("%10s %10s %8s %10s  %-20s %7s  %s\n",
	       d->opt->normalize ? "base %" : "base s",
	       d->opt->normalize ? "new %" : "new s", "change",
	       d->opt->normalize ? "change %" : "change s",
	       "interval", "disp", "function");
}

static void side_line(const char *what, const struct dside *s)
{
	printf("%s %s (%u run%s)", what, s->operand, s->nruns,
	       s->nruns == 1 ? "" : "s");
}

void diff_print_text(const struct diff *d)
{
	const struct diff_options *opt = d->opt;
	unsigned int i;
	size_t k, shown;

	side_line("base", d->base);
	side_line(", new", d->new);
	printf("; %g%% intervals; %s\n", 100 * opt->confidence,
	       opt->normalize ? "shares of each side's total (--normalize)" :
				"seconds");
	for (i = 0; i < d->npairs; i++) {
		const struct dpair *pr = &d->pairs[i];
		char ch[24], lo[24], hi[24];

		if (!pr->bp || !pr->np) {
			printf("\nprogram %s: only in %s (%.3f s)\n", pr->name,
			       pr->bp ? "base" : "new",
			       pr->bp ? pr->bp->total * pr->bp->sample_s :
					pr->np->total * pr->np->sample_s);
			continue;
		}
		pct(ch, sizeof(ch), pr->total.ratio);
		pct(lo, sizeof(lo), pr->total.lo);
		pct(hi, sizeof(hi), pr->total.hi);
		printf("\nprogram %s: base %.3f s (%llu samples), new %.3f s (%llu samples), total %s [%s, %s]%s\n",
		       pr->name, pr->total.base,
		       (unsigned long long)pr->total.b, pr->total.new,
		       (unsigned long long)pr->total.n, ch, lo, hi,
		       pr->total.failed ? " !" : "");
		if (pr->rates_differ)
			printf("note: the sides sample at different rates (%g and %g samples/s): compared in seconds\n",
			       1 / pr->bp->sample_s, 1 / pr->np->sample_s);
		text_header(d);
		for (k = 0, shown = 0; k < pr->nrows; k++) {
			const struct drow *r = &pr->rows[k];

			if (opt->top && shown >= opt->top && !r->c.failed)
				continue;
			text_row(d, r);
			shown++;
		}
		if (shown < pr->nrows)
			printf("(%zu more; --top=0 shows all)\n",
			       pr->nrows - shown);
	}
	if (opt->fail_above < 0)
		return;
	printf("\ngate: %s: %zu of %zu tests grew more than %g%% at %g%% confidence (Holm over the %zu)\n",
	       d->failed ? "FAILED" : "passed", d->failed, d->tested,
	       opt->fail_above, 100 * opt->confidence, d->tested);
	for (i = 0; i < d->npairs; i++) {
		const struct dpair *pr = &d->pairs[i];
		char ch[24], lo[24];

		if (pr->total.failed) {
			pct(ch, sizeof(ch), pr->total.ratio);
			pct(lo, sizeof(lo), pr->total.lo);
			printf("  %s: total %s (at least %s)\n", pr->name, ch,
			       lo);
		}
		for (k = 0; k < pr->nrows; k++)
			if (pr->rows[k].c.failed) {
				pct(ch, sizeof(ch), pr->rows[k].c.ratio);
				pct(lo, sizeof(lo), pr->rows[k].c.lo);
				printf("  %s: %s %s (at least %s)\n",
				       pr->name, pr->rows[k].label, ch, lo);
			}
	}
}

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

void diff_print_json(const struct diff *d)
{
	const struct diff_options *opt = d->opt;
	unsigned int i;
	size_t k;

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
		printf("},\"functions\":[");
		for (k = 0; k < pr->nrows; k++) {
			const struct drow *r = &pr->rows[k];

			printf("%s{\"name\":", k ? "," : "");
			quoted(r->label);
			printf(",\"status\":\"%s\",",
			       !r->bf ? "new" : !r->nf ? "vanished" :
					"matched");
			json_cmp(&r->c);
			putchar('}');
		}
		printf("]}");
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

void diff_print_markdown(const struct diff *d)
{
	const struct diff_options *opt = d->opt;
	unsigned int i;
	size_t k, shown;

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
		pct(ch, sizeof(ch), pr->total.ratio);
		pct(lo, sizeof(lo), pr->total.lo);
		pct(hi, sizeof(hi), pr->total.hi);
		printf("Program `%s`: %.3f s → %.3f s, %s [%s, %s]\n\n",
		       pr->name, pr->total.base, pr->total.new, ch, lo, hi);
		printf("| function | base %s | new %s | change | %g%% interval |\n",
		       unit(d), unit(d), 100 * opt->confidence);
		printf("|---|---:|---:|---:|---|\n");
		for (k = 0, shown = 0; k < pr->nrows; k++) {
			const struct drow *r = &pr->rows[k];

			if (opt->top && shown >= opt->top && !r->c.failed)
				continue;
			shown++;
			printf("| %s", r->c.failed ? "❗ " : "");
			md_text(r->label);
			printf(" | %.3f | %.3f | ", shown_value(d, r->c.base),
			       shown_value(d, r->c.new));
			if (!r->bf || !r->nf) {
				printf("%s | |\n", r->bf ? "vanished" : "new");
				continue;
			}
			pct(ch, sizeof(ch), r->c.ratio);
			pct(lo, sizeof(lo), r->c.lo);
			pct(hi, sizeof(hi), r->c.hi);
			printf("%s | %s … %s |\n", ch, lo, hi);
		}
		putchar('\n');
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
