/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * GNU gprof's text reports of an analyzed profile (analyze/analyze.h).
 */
#ifndef GPROF_REPORT_REPORT_H
#define GPROF_REPORT_REPORT_H

#include <stdio.h>

#include "analyze/analyze.h"

void cg_print(struct profile *prof, const struct gprof_options *opt,
	      struct sym **timesortsym);
void cg_print_index(struct profile *prof, const struct gprof_options *opt);
void cg_print_function_ordering(struct profile *prof);
void cg_print_file_ordering(struct profile *prof);

/* ---- names (names.c) ---- */

/* GNU's print_name_only: name, (file:line) decorations; returns width. */
size_t print_name_only(struct profile *prof, const struct gprof_options *opt,
		       FILE *f, struct sym *s);
/* GNU's print_name: name, " <cycle N>", " [N]" or " (N)". */
void print_name(struct profile *prof, const struct gprof_options *opt, FILE *f,
		struct sym *s);

void hist_print(struct profile *prof, const struct gprof_options *opt);

void print_exec_counts(struct profile *prof, const struct gprof_options *opt);
void print_annotated_source(struct profile *prof,
			    const struct gprof_options *opt);
/* -I and GPROF_PATH: appends colon-separated directories for -A. */
void source_search_append(const char *dirs);

/* ---- modules (modules.c) ---- */

/*
 * Multi-module reports (multi_module true): the flat profile and the call
 * graph get a module column ("%4u " before the name, header "mod "), and
 * modules_print() ends the report with the table of modules, including
 * those that could not be read and why.
 */
void modules_print(struct profile *prof, const struct gprof_options *opt);
/* The line saying what the profiler's own code took, if anything. */
bool overhead_print(struct profile *prof);

/* --threads: the per-thread table instead of the reports. */
void threads_print(struct profile *prof, const struct gprof_options *opt);

#endif /* GPROF_REPORT_REPORT_H */
