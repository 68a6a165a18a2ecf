/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sprofil diff (the analyzer's --diff mode, docs/diff.md): two sides,
 * BASE and NEW, each one or more runs, each run a profile or a recorded
 * tree's directory.  Every run's files are read through the analyzer's
 * pipeline into a struct profile of their program, whose functions'
 * samples are taken by a key that survives a rebuild (demangled name
 * without GCC's clone suffixes, module without its version, source file
 * of a static function); then the profiles are freed and only these
 * counts are compared (diff_stats.c), reported (diff_text.c,
 * diff_report.c) and exported (diff_report.c, diff_flame.c).  Besides
 * functions, a program's source lines (--lines) and, from its caller
 * chains, its measured inclusive times and arcs are taken
 * (diff_views.c) and compared the same way.
 */
#ifndef GPROF_DIFF_DIFF_H
#define GPROF_DIFF_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pipeline/pipeline.h"

/* Exit statuses: the gate passed, it failed, bad input. */
enum { DIFF_OK = 0, DIFF_GATE = 1, DIFF_BAD = 2 };

enum diff_format { DF_TEXT, DF_JSON, DF_MARKDOWN, DF_FOLDED, DF_FLAME };

struct diff_options {
	struct gprof_options g;	/* the reader's (demangling, debug dirs) */
	double confidence;	/* --confidence, 0 < c < 1 (0.99) */
	double fail_above;	/* --fail-above PCT, < 0: no gate */
	uint64_t min_samples;	/* --min-samples: fewer do not vote */
	bool normalize;		/* --normalize: shares, not seconds */
	bool force;		/* --force: different programs compared */
	enum diff_format format;	/* --format */
	unsigned int top;	/* --top: rows printed, 0 all */
	const char *pprof;	/* --pprof=PREFIX: PREFIX.{base,new}.pb.gz */
	bool lines;		/* --lines: rows by source line too */
};

/*
 * A diff's views of a program: its functions' self time, with --lines
 * its source lines', and where both sides have caller chains the
 * measured inclusive time of each function and the time below each
 * caller -> callee arc (cg_measured.c).  Each is a table of counts by
 * key, compared row by row the same way.
 */
enum dview_id { DV_FN, DV_LINE, DV_INCL, DV_ARC, DV_N };

/*
 * A function (or line, or arc) of one program on one side: its samples
 * in each run.
 */
struct dfn {
	char *key;		/* module \t file \t name: how sides match */
	char *label;		/* the report's name for it */
	uint64_t *runs;		/* [nruns] samples */
	uint64_t total;
};

/* One row's samples in one run, before dprog_finish() merges them. */
struct draw {
	char *key, *label;
	unsigned int run;
	uint64_t samples;
};

/* A folded stack of one side and its samples (--format=folded, flamegraph). */
struct dstack {
	char *stack;
	uint64_t samples;
};

/* One view's rows of a program on one side, sorted by key. */
struct dtab {
	struct dfn *fns;
	size_t nfns;
	struct draw *raw;	/* while its runs are read */
	size_t nraw, raw_cap;
};

/* One program on one side: every run's samples of its functions. */
struct dprog {
	char *name;		/* its executable's basename */
	double sample_s;	/* seconds one sample stands for */
	char dimension[16];	/* the histograms' unit ("seconds") */
	unsigned int nruns;	/* the side's runs */
	uint64_t *run_total;	/* [nruns]: its samples in each run */
	uint64_t total;
	struct dtab tab[DV_N];	/* its views' rows */
	/* Profiles read without caller chains: no inclusive times, arcs. */
	unsigned int no_chains;
	struct dstack *stacks;
	size_t nstacks, stacks_cap;
};

struct dside {
	const char *operand;	/* as given */
	unsigned int nruns;
	struct dprog *progs;
	unsigned int nprogs;
	bool tree;		/* a directory among its runs */
	struct pp *pp;		/* --pprof: the side's profile being made */
};

/*
 * Reads side @operand: RUN[,RUN]..., each a profile or a directory of
 * *.gmon; 0, or -1 after one line on stderr (bad input), @side freed.  @which
 * ("base", "new") names its --pprof file.
 */
int diff_side_load(struct dside *side, const char *operand,
		   const struct diff_options *opt, const char *which);
void diff_side_free(struct dside *side);
/* Adds @n samples of run @run at @key (taking @key and @label). */
void dtab_add(struct dtab *t, char *key, char *label, unsigned int run,
	      uint64_t n);
/* The part of @path after its last '/'. */
const char *diff_base_of(const char *path);

/* Each symbol's key and label, made on first use, of one profile. */
struct dkeys {
	struct profile *prof;
	const struct gprof_options *opt;
	char **key, **label;	/* [symtab.len], NULL until asked */
};

void dkeys_init(struct dkeys *k, struct profile *prof,
		const struct gprof_options *opt);
void dkeys_free(struct dkeys *k);
/* Symbol @i's key and label (owned by @k). */
void dkeys_get(struct dkeys *k, size_t i, const char **key,
	       const char **label);
/*
 * --lines (diff_views.c): each function's @whole samples shared over its
 * source lines, as the line exports share them, into @t's run @run.
 */
void diff_take_lines(struct dtab *t, unsigned int run, struct profile *prof,
		     struct dkeys *keys, const uint64_t *whole);
/*
 * The measured inclusive times and arcs of analyzed @prof into @p's run
 * @run (diff_views.c); -1 when @prof has no caller chains (nothing
 * added).
 */
int diff_take_chains(struct dprog *p, unsigned int run, struct profile *prof,
		     struct dkeys *keys);

/* The row of @key in @t, or NULL. */
struct dfn *dtab_find(const struct dtab *t, const char *key);
/* Strips GCC's clone suffixes (.constprop.N, .isra.N, .part.N, .cold). */
void diff_strip_clone(char *name);

/* ---- statistics (diff_stats.c) ---- */

/* The standard normal distribution's upper tail and its inverse. */
double diff_norm_sf(double z);
double diff_norm_isf(double p);

/*
 * One function (or a total) compared: @b base samples, @n new samples,
 * @wb and @wn what one sample of each side weighs (seconds, or the
 * share of its total with --normalize), @phi the overdispersion (>= 1).
 */
struct dcmp {
	uint64_t b, n;
	double wb, wn, phi;
	double base, new;	/* b * wb, n * wn */
	double ratio;		/* new / base, INFINITY for a new one */
	double lo, hi;		/* the ratio's interval at the confidence */
	double p;		/* P-value of "grew by no more than the gate" */
	bool tested;		/* it votes in the gate */
	bool failed;		/* the gate (after Holm's correction) */
};

/* Fills @c's ratio, interval (two-sided @confidence) and P-value. */
void diff_compare(struct dcmp *c, double confidence, double gate);
/*
 * Pearson's chi-square of @bf's and @nf's runs against their shares of
 * the runs' totals, and its degrees of freedom (0 with one run a side).
 */
void diff_dispersion(const struct dprog *bp, const struct dfn *bf,
		     const struct dprog *np, const struct dfn *nf,
		     double *x2, double *df);
/* A function's overdispersion (>= 1): its own @x2 / @df shrunk to @model. */
double diff_phi(double x2, double df, double model);
/*
 * Holm's step-down over the @n tests of @c whose tested is set: sets
 * failed on those rejected at family-wise level @alpha; returns their
 * number.
 */
size_t diff_holm(struct dcmp **c, size_t n, double alpha);

/* ---- the comparison and its reports (diff_report.c) ---- */

/* One matched (or unmatched) function of one program. */
struct drow {
	const char *label;
	const struct dfn *bf, *nf;	/* NULL: not on that side */
	struct dcmp c;
	double rank;		/* lower bound of the growth, seconds */
	double x2, df;		/* its runs' chi-square (diff_dispersion) */
};

/* A view's rows of one program, sorted by rank. */
struct dview {
	struct drow *rows;
	size_t nrows;
};

struct dpair {
	const char *name;	/* the program (NEW's name with --force) */
	const struct dprog *bp, *np;	/* NULL: only on the other side */
	struct dview view[DV_N];
	bool chains;		/* both sides have caller chains */
	struct dcmp total;
	bool rates_differ;
};

struct diff {
	const struct diff_options *opt;
	const struct dside *base, *new;
	struct dpair *pairs;
	unsigned int npairs;
	size_t tested, failed;
};

/* Matches the sides' programs and functions and runs the gate. */
int diff_build(struct diff *d, const struct dside *base,
	       const struct dside *new, const struct diff_options *opt);
void diff_free(struct diff *d);
/* A side's value as printed: seconds, or percent of its total. */
double diff_shown(const struct diff *d, double v);
/* A ratio as a change in percent ("+12.5%", "inf"). */
void diff_pct(char *out, size_t size, double ratio);
/* Which side of @pr lacks caller chains: "base", "new" or both. */
const char *diff_no_chains(const struct dpair *pr);
/* Each view's column title. */
extern const char *const diff_view_title[DV_N];
/* The text report (diff_text.c). */
void diff_print_text(const struct diff *d);
void diff_print_json(const struct diff *d);
void diff_print_markdown(const struct diff *d);
void diff_print_folded(const struct diff *d);
/*
 * Calls @fn for each stack of @pr (frames joined by ';', not rooted at
 * the program) with its base and new samples, in strcmp order, each
 * stack once (a side's equal stacks merged, its clones folded).
 */
void diff_pair_stacks(const struct dpair *pr,
		      void (*fn)(void *ctx, const char *stack, uint64_t b,
				 uint64_t n),
		      void *ctx);
/* --format=flamegraph: the differential flame graph (diff_flame.c). */
void diff_print_flame(const struct diff *d);

/* The analyzer's --diff mode: argv[0] is "--diff". */
int diff_main(int argc, char **argv);

#endif /* GPROF_DIFF_DIFF_H */
