/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Profile files written from the model: gmon.sum (-s) and
 * --extract-module's GNU gmon.out.
 */
#ifndef GPROF_WRITE_WRITE_H
#define GPROF_WRITE_WRITE_H

#include <stdio.h>

#include "analyze/analyze.h"

/* gmon.sum: writes the tag-2 record of every block with a count. */
void bb_write(struct profile *prof, FILE *f);

/*
 * --extract-module: writes one module's data as GNU gmon.out.  These two
 * return 0, or -1 and @prof's error; a file not written whole is removed.
 */
int gmon_extract_module(struct profile *prof, const struct gprof_options *opt,
			const char *module,
			const char *to);

/* -s: writes gmon.sum. */
int gmon_out_write(struct profile *prof, const struct gprof_options *opt,
		   const char *path);

#endif /* GPROF_WRITE_WRITE_H */
