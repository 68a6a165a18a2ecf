// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The statistics of a diff (docs/diff.md).
 *
 * A function's samples in a run are taken as Poisson, with a mean its
 * time over the period.  Given both sides' sum m = b + n, the new side's
 * count n is binomial(m, p), and the ratio of the two sides' times is
 * R = p / (1 - p) * wn / wb, where wb and wn are what a sample weighs on
 * each side (seconds, or a share of its side's total with --normalize).
 * So the interval of R is the binomial proportion's, mapped: Wilson's
 * score interval, which holds its level at small counts where the Wald
 * interval does not, and the gate's test is the score test of
 * H0: R <= 1 + PCT/100, one-sided, with a continuity correction.
 *
 * With several runs a side, the runs' observed spread widens both: the
 * counts are divided by the overdispersion phi (quasi-Poisson: Pearson's
 * chi-square over its degrees of freedom), never below 1.  A function's
 * own phi rests on few degrees of freedom (2 with 3 runs a side), too
 * noisy for the far tail a corrected gate looks at; so it is shrunk
 * towards a model fitted to all the functions, as if the model had
 * DISP_PRIOR_DF degrees of freedom of its own.  The model is the
 * negative binomial's variance, mean + kappa * mean^2 (phi = 1 + kappa *
 * the mean count of a run): run-to-run noise that scales a function's
 * time (caches, clock, input) grows with its samples, so one pooled phi
 * would be too wide for small functions and too narrow for big ones.
 */
#include <math.h>
#include <stdlib.h>

#include "diff.h"

#define DISP_PRIOR_DF 16.0

double diff_norm_sf(double z)
{
	return 0.5 * erfc(z / M_SQRT2);
}

/*
 * Acklam's rational approximation of the normal quantile (relative
 * error below 1.2e-9), for the upper tail @p.
 */
double diff_norm_isf(double p)
{
	static const double a[] = { -3.969683028665376e+01,
		2.209460984245205e+02, -2.759285104469687e+02,
		1.383577518672690e+02, -3.066479806614716e+01,
		2.506628277459239e+00 };
	static const double b[] = { -5.447609879822406e+01,
		1.615858368580409e+02, -1.556989798598866e+02,
		6.680131188771972e+01, -1.328068155288572e+01 };
	static const double c[] = { -7.784894002430293e-03,
		-3.223964580411365e-01, -2.400758277161838e+00,
		-2.549732539343734e+00, 4.374664141464968e+00,
		2.938163982698783e+00 };
	static const double d[] = { 7.784695709041462e-03,
		3.224671290700398e-01, 2.445134137142996e+00,
		3.754408661907416e+00 };
	double q = 1 - p, r, x;

	/* x is the lower-tail quantile of q. */
	if (q <= 0)
		return INFINITY;
	if (q >= 1)
		return -INFINITY;
	if (q < 0.02425) {
		r = sqrt(-2 * log(q));
		x = (((((c[0] * r + c[1]) * r + c[2]) * r + c[3]) * r + c[4]) *
		     r + c[5]) /
		    ((((d[0] * r + d[1]) * r + d[2]) * r + d[3]) * r + 1);
	} else if (q > 1 - 0.02425) {
		r = sqrt(-2 * log(1 - q));
		x = -(((((c[0] * r + c[1]) * r + c[2]) * r + c[3]) * r +
		       c[4]) * r + c[5]) /
		    ((((d[0] * r + d[1]) * r + d[2]) * r + d[3]) * r + 1);
	} else {
		r = (q - 0.5) * (q - 0.5);
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) *
		     r + a[5]) * (q - 0.5) /
		    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) *
		     r + 1);
	}
	return x;
}

static double odds_ratio(double p, double wb, double wn)
{
	if (p >= 1)
		return INFINITY;
	return p / (1 - p) * wn / wb;
}

void diff_compare(struct dcmp *c, double confidence, double gate)
{
	double m = (double)(c->b + c->n), me, ph, z, z2, centre, half, p0;
	double odds0, sd;

	c->base = c->b * c->wb;
	c->new = c->n * c->wn;
	c->ratio = c->b ? c->new / c->base : INFINITY;
	c->lo = 0;
	c->hi = INFINITY;
	c->p = 1;
	if (!m)
		return;
	me = m / c->phi;
	ph = c->n / m;
	z = diff_norm_isf((1 - confidence) / 2);
	z2 = z * z;
	centre = (ph + z2 / (2 * me)) / (1 + z2 / me);
	half = z / (1 + z2 / me) *
	       sqrt(ph * (1 - ph) / me + z2 / (4 * me * me));
	c->lo = odds_ratio(fmax(0, centre - half), c->wb, c->wn);
	c->hi = odds_ratio(fmin(1, centre + half), c->wb, c->wn);
	if (!c->b)
		return;
	/* H0: R <= gate, i.e. p <= p0; the score test's upper tail. */
	odds0 = gate * c->wb / c->wn;
	p0 = odds0 / (1 + odds0);
	sd = sqrt(m * p0 * (1 - p0) * c->phi);
	c->p = diff_norm_sf((c->n - 0.5 - m * p0) / sd);
}

/* Pearson's chi-square of one side's runs of @f against their shares. */
static void side_x2(const struct dprog *p, const struct dfn *f, double *x2,
		    double *df)
{
	unsigned int i;

	if (!p || p->nruns < 2 || !p->total)
		return;
	for (i = 0; i < p->nruns; i++) {
		double e = (f ? (double)f->total : 0) * p->run_total[i] /
			   p->total;
		double c = f ? (double)f->runs[i] : 0;

		if (e > 0)
			*x2 += (c - e) * (c - e) / e;
	}
	*df += p->nruns - 1;
}

void diff_dispersion(const struct dprog *bp, const struct dfn *bf,
		     const struct dprog *np, const struct dfn *nf,
		     double *x2, double *df)
{
	*x2 = 0;
	*df = 0;
	side_x2(bp, bf, x2, df);
	side_x2(np, nf, x2, df);
}

double diff_phi(double x2, double df, double model)
{
	if (!df)
		return 1;
	return fmax(1, (x2 + DISP_PRIOR_DF * model) / (df + DISP_PRIOR_DF));
}

static int by_p(const void *a, const void *b)
{
	const struct dcmp *x = *(struct dcmp *const *)a;
	const struct dcmp *y = *(struct dcmp *const *)b;

	return (x->p > y->p) - (x->p < y->p);
}

size_t diff_holm(struct dcmp **c, size_t n, double alpha)
{
	struct dcmp **t = xcalloc(n + 1, sizeof(*t));
	size_t m = 0, i, failed = 0;

	for (i = 0; i < n; i++)
		if (c[i]->tested)
			t[m++] = c[i];
	qsort(t, m, sizeof(*t), by_p);
	for (i = 0; i < m && t[i]->p <= alpha / (double)(m - i); i++) {
		t[i]->failed = true;
		failed++;
	}
	free(t);
	return failed;
}
