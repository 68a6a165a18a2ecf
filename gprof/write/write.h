/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Profile files written from the model: gmon.sum (-s) and
 * --extract-module's GNU gmon.out.
 */
#ifndef GPROF_WRITE_WRITE_H
#define GPROF_WRITE_WRITE_H

#include <stdio.h>

#include "read/read.h"

/* gmon.sum: writes the tag-2 record of every block with a count. */
void bb_write(struct profile *prof, FILE *f);

/* --extract-module: writes one module's data as GNU gmon.out. */
void gmon_extract_module(struct profile *prof, const struct gprof_options *opt,
			 const char *module,
			 const char *to);

/* -s: writes gmon.sum. */
void gmon_out_write(struct profile *prof, const struct gprof_options *opt,
		    const char *path);

#endif /* GPROF_WRITE_WRITE_H */
