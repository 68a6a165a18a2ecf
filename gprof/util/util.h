/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The bottom layer: errors, allocation and GNU's sort order, which
 * every layer above may use.
 */
#ifndef GPROF_UTIL_UTIL_H
#define GPROF_UTIL_UTIL_H

#include <stddef.h>

/*
 * Sorts @n pointers at @base as glibc's qsort (a merge sort) does, so
 * that ties and even inconsistent comparisons order things as in GNU.
 */
void cg_sort(void *base, size_t n, int (*cmp)(const void *, const void *));

/* ---- errors and allocation (util.c) ---- */

/* Prints "gprof: <fmt>\n" on stderr and exits 1. */
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2),
						 noreturn));
/* The name fatal()'s messages start with, "gprof" until set. */
void fatal_set_name(const char *name);
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
/* @n * @size bytes, fatal when the product overflows (counts from files). */
void *xmallocarray(size_t n, size_t size);
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);

#endif /* GPROF_UTIL_UTIL_H */
