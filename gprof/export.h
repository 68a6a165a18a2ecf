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

/* The writers, one a format. */
void export_callgrind(void);
void export_pprof(void);

#endif /* GPROF_EXPORT_H */
