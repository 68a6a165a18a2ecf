/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The top layer's phases over one profile, from the reader through the
 * analysis to the reports, and the profile's end, which frees what
 * every layer below made of it.
 */
#ifndef GPROF_MAIN_PIPELINE_H
#define GPROF_MAIN_PIPELINE_H

#include "analyze/analyze.h"
#include "export/export.h"
#include "report/report.h"
#include "write/write.h"

/* Frees everything @prof holds (it can be initialized again). */
void profile_free(struct profile *prof);

/* ---- the phases over one profile (pipeline.c) ---- */

/*
 * Reads the executable's and every module's symbols, then the @n
 * profile files @files (gmon.out when none) into @prof; 0, or -1 and
 * why in prof->error.
 */
int profile_read(struct profile *prof, const struct gprof_options *opt,
		 const char *const *files, int n);
/*
 * Decides whether the call graph is measured from caller samples or
 * estimated from call counts; sets *@counted to whether the files had
 * call counts.  0, or -1 and prof->error (the graph asked for cannot be).
 */
int profile_prepare(struct profile *prof, const struct gprof_options *opt,
		    bool *counted);
/* The STYLE_* reports to print: the options', else what the files hold. */
int report_style(const struct profile *prof, const struct gprof_options *opt);
/*
 * Histograms to symbols and the call graph; returns the symbols by
 * [index] (to free), or NULL when there is no call graph to report.
 */
struct sym **profile_analyze(struct profile *prof,
			     const struct gprof_options *opt, bool counted);
/*
 * Prints the @style reports of @prof on stdout, in GNU's order; 0, or
 * -1 and prof->error when the files lack what a report needs.
 */
int report_print(struct profile *prof, const struct gprof_options *opt,
		 int style, struct sym **cg);

/* Forgets every profile read so far (the fuzz target parses many). */
void profile_reset(struct profile *prof);

#endif /* GPROF_MAIN_PIPELINE_H */
