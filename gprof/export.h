/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the exporters (export*.c) share: which functions a report shows,
 * their names as the reports print them, and JSON/dot string quoting.
 * export.c holds these and the dispatch; each format has its own file.
 */
#ifndef GPROF_EXPORT_H
#define GPROF_EXPORT_H

#include "gprof.h"

/*
 * The names are those export.c had when all formats lived there, so
 * that its callgrind code reads as before.
 */
/* The module's file as the profile names it ("" when unnamed). */
const char *module_name(unsigned int m);
/* The name as the reports print it (demangled unless --no-demangle). */
char *display_name(const struct sym *s);
/* Whether the call graph (-q, symspecs, -z) shows @s. */
bool shown(const struct sym *s);
/* Ticks as integer microseconds. */
long long us(double ticks);
/* A function's own time: the flat profile's, or the measured graph's. */
double self_ticks(const struct sym *s);
/* Writes @s on stdout escaped for a JSON or dot string; in quotes. */
void escaped(const char *s);
void quoted(const char *s);
/* @s's share of the call graph's time (self + children), in percent. */
double share(const struct sym *s);

void export_dot(void);
void export_json(void);
void export_folded(void);
void export_flamegraph(bool icicle);

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
bool stacks_build(struct stacks *st, const char *format);
void stacks_free(struct stacks *st);

#endif /* GPROF_EXPORT_H */
