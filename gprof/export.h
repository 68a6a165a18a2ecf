/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the --export writers share (export.c): which functions an export
 * shows and how it names and measures them, so that every format carries
 * the numbers of the same call graph.
 */
#ifndef GPROF_EXPORT_H
#define GPROF_EXPORT_H

#include "gprof.h"

/* The file of module @m: the ELF read, else the name recorded. */
const char *export_module_name(unsigned int m);
/* @s's name as the reports print it (demangled unless told not); free it. */
char *export_display_name(const struct sym *s);
/* Whether the call graph shows @s (symspecs, -z). */
bool export_shown(const struct sym *s);
/* @ticks in integer microseconds. */
long long export_us(double ticks);
/* A function's own time: the flat profile's, or the measured graph's. */
double export_self_ticks(const struct sym *s);

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
bool export_line_of(unsigned int m, uint64_t link, struct source_file **file,
		    int *line);
/*
 * Every histogram byte's share of its bin, at its function and line
 * (export_lines.c), sorted and merged: the self cost by line.
 */
void export_self_shares(struct shares *t);
/*
 * @total shared over @n shares by weight, each rounded so that they add
 * up to @total (largest remainders); into @out.
 */
void export_apportion(const struct line_share *v, size_t n, long long total,
		      long long *out);

/* The writers, one a format. */
void export_callgrind(void);
void export_pprof(void);

#endif /* GPROF_EXPORT_H */
