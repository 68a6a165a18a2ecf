/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the exporters (export*.c) share: which functions a report shows,
 * their names as the reports print them, and JSON/dot string quoting.
 * export.c holds these and the dispatch; each format has its own file.
 */
#ifndef GPROF_EXPORT_H
#define GPROF_EXPORT_H

#include "analyze/analyze.h"

/*
 * The names are those export.c had when all formats lived there, so
 * that its callgrind code reads as before.
 */
/* The module's file as the profile names it ("" when unnamed). */
const char *module_name(struct profile *prof, unsigned int m);
/* The name as the reports print it (demangled unless --no-demangle). */
char *display_name(const struct gprof_options *opt, const struct sym *s);
/* Whether the call graph (-q, symspecs, -z) shows @s. */
bool shown(struct profile *prof, const struct gprof_options *opt,
	   const struct sym *s);
/*
 * The sampling period, whole nanoseconds (the extension records it); in
 * events for a profile of an event other than CPU time (ns() then
 * counts events).
 */
uint64_t export_period_ns(struct profile *prof);
/* Ticks as integer nanoseconds. */
long long ns(struct profile *prof, double ticks);
/*
 * Each symbol's @ticks as whole units (samples, nanoseconds), its share
 * of @total, the total of the report they come from, rounded at the
 * running sum over the symbol table: the histogram's bins share their
 * samples out between symbols, so ticks need not be whole, and GNU's
 * bins may credit a little more than once, so they need not add up to
 * the total either.  The symbols with ticks add up to @total exactly,
 * no unit lost or made up; those @counted says no to keep their share
 * out of the others' (0 in the array).  An array of symtab.len, to free.
 */
uint64_t *export_whole(struct profile *prof, const struct gprof_options *opt,
		       double (*ticks)(struct profile *prof,
				       const struct sym *s),
		       bool (*counted)(struct profile *prof,
				       const struct gprof_options *opt,
				       const struct sym *s),
		       uint64_t total);
/* The call graph's total: the measured one's, or the flat profile's. */
double graph_total(struct profile *prof);
/* A total of ticks in whole samples. */
uint64_t whole_samples(double ticks);
/* A function's own time: the flat profile's, or the measured graph's. */
double self_ticks(struct profile *prof, const struct sym *s);
/* Writes @s on stdout escaped for a JSON or dot string; in quotes. */
void escaped(const char *s);
void quoted(const char *s);
/* @s's share of the call graph's time (self + children), in percent. */
double share(struct profile *prof, const struct sym *s);

int export_callgrind(struct profile *prof, const struct gprof_options *opt);
int export_pprof(struct profile *prof, const struct gprof_options *opt);
/*
 * One pprof profile of several (the combined report): pprof_begin(),
 * then pprof_add() for each, whose samples are labelled with @program
 * and @pid unless NULL and 0, then pprof_end() writes it on stdout.
 * pprof_begin() returns NULL when stdout is a terminal, pprof_end() -1
 * when the writing failed, each with why in @err.
 */
struct pp;
struct pp *pprof_begin(char *err, size_t errlen);
void pprof_add(struct pp *p, struct profile *prof,
	       const struct gprof_options *opt, const char *program,
	       uint32_t pid);
int pprof_end(struct pp *p, const struct gprof_options *opt, char *err,
	      size_t errlen);
/* Frees a profile pprof_begin() made, not written (an error came first). */
void pprof_free(struct pp *p);
int export_dot(struct profile *prof, const struct gprof_options *opt);
int export_json(struct profile *prof, const struct gprof_options *opt);
int export_folded(struct profile *prof, const struct gprof_options *opt);
/*
 * The folded stacks with @root as every stack's outermost frame (the
 * combined report's program), or none when NULL.
 */
void export_folded_rooted(struct profile *prof,
			  const struct gprof_options *opt, const char *root);
int export_flamegraph(struct profile *prof, const struct gprof_options *opt,
		      bool icicle);
/* Writes @s on stdout escaped for XML text or an attribute's value. */
void export_xml_text(const char *s);

/*
 * The profile's stacks, merged by frame name (export_stacks.c): the
 * calling context tree of the caller samples with each frame named as
 * the folded and flame graph exports print it, or, for a profile
 * without chains, one frame per function of the histogram.
 */
struct stack_node {
	const char *name;	/* interned; "all" for the root */
	unsigned int module;	/* for colours; UINT_MAX when none */
	uint32_t parent;	/* index, or CALLER_NONE for the root */
	uint32_t first_child, next_sibling;	/* CALLER_NONE ends */
	uint64_t self;		/* samples whose chain ends here */
	uint64_t total;		/* self + the children's totals */
};

struct stacks {
	struct stack_node *node;	/* [0] is the root */
	size_t len, cap;
	bool from_chains;	/* false: one-frame stacks of the histogram */
};

/* Builds @st; false (and one line on stderr) when there is nothing. */
bool stacks_build(struct profile *prof, const struct gprof_options *opt,
		  struct stacks *st,
		  const char *format);
void stacks_free(struct stacks *st);

/*
 * The flame graph's SVG (export_flame.c) of a tree of stacks, each box
 * as wide as its node's total: the layout, the zoom, the search and
 * where the tooltips go are the writer's, what a box means (its colour,
 * its tooltip, the title) the caller's, so that the flame graph and the
 * differential one of sprofil diff draw alike.
 */
struct flame_svg {
	const struct stacks *st;	/* [0] the root, total > 0 */
	bool icicle;			/* hangs down from the root */
	void *data;			/* the callbacks' */
	/* Node @i's fill, "rgb(R,G,B)". */
	void (*fill)(const struct flame_svg *f, uint32_t i, char out[24]);
	/* Writes node @i's tooltip, escaped (export_xml_text()). */
	void (*tip)(const struct flame_svg *f, uint32_t i);
	/* The text in node @i's box. */
	const char *(*label)(const struct flame_svg *f, uint32_t i);
	/* Told of each node wide enough to draw, first; or NULL. */
	void (*drawn)(const struct flame_svg *f, uint32_t i);
	/* Writes the title and the subtitle (<text>s at y 22 and 40). */
	void (*title)(const struct flame_svg *f);
	/* Writes a legend under them (y 46 to 56), or NULL. */
	void (*legend)(const struct flame_svg *f);
};

void flame_svg_write(const struct flame_svg *f);
/* A picture of one line instead: @title@name: @why (nothing to draw). */
void flame_svg_empty(const char *title, const char *name, const char *why);

/*
 * Costs by source line (export_lines.c), for callgrind's cost lines and
 * pprof's locations.
 */
/* A share of some cost at a source line: self cost, or a call's. */
struct line_share {
	size_t sym, callee;	/* symtab indices; callee 0 for self */
	struct source_file *file;	/* NULL: unknown */
	int line;
	uint64_t addr;		/* the lowest unified address it was seen at */
	double weight;
};

/* A growing list of shares, sorted and merged by export_shares_merge(). */
struct shares {
	struct line_share *v;
	size_t len, cap;
};

/* Adds @weight at (@sym, @callee, @file, @line), seen at unified @addr. */
void export_share_add(struct shares *t, size_t sym, size_t callee,
		      struct source_file *file, int line, uint64_t addr,
		      double weight);
/* Sorts @t and merges the shares of one (sym, callee, file, line). */
void export_shares_merge(struct shares *t);
/* The first share of (@sym, @callee) in sorted @t, or t->len. */
size_t export_shares_find(const struct shares *t, size_t sym, size_t callee);
/* The line of link-time @link in module @m, false when unknown. */
bool export_line_of(struct profile *prof, const struct gprof_options *opt,
		    unsigned int m,
		    uint64_t link, struct source_file **file,
		    int *line);
/*
 * Every histogram byte's share of its bin, at its function and line
 * (export_lines.c), sorted and merged: the self cost by line.
 */
void export_self_shares(struct profile *prof, const struct gprof_options *opt,
			struct shares *t);
/*
 * @total shared over @n shares by weight, each rounded so that they add
 * up to @total (largest remainders); into @out.
 */
void export_apportion(const struct line_share *v, size_t n, long long total,
		      long long *out);

bool export_format_known(const char *format);
/*
 * Writes the analyzed profile in export_format on stdout; 0, or -1 and
 * @prof's error.
 */
int export_profile(struct profile *prof, const struct gprof_options *opt);
/*
 * --render=FORMAT: render_start() sends stdout through `dot -TFORMAT`;
 * render_finish() waits for it.  Each returns 0, or -1 and why (one
 * line) in @err: dot is not installed, or it failed.
 */
int render_start(const struct gprof_options *opt, char *err, size_t errlen);
int render_finish(const struct gprof_options *opt, char *err, size_t errlen);
/*
 * The export on stdout, through dot when --render asks; 0, or -1 and
 * @prof's error.
 */
int export_rendered(struct profile *prof, const struct gprof_options *opt);

#endif /* GPROF_EXPORT_H */
