/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The bottom layer: errors, allocation and GNU's sort order, which
 * every layer above may use.
 */
#ifndef GPROF_UTIL_UTIL_H
#define GPROF_UTIL_UTIL_H

#include <stdarg.h>
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
/*
 * Room for element @n of the array @p (*@cap elements of @size bytes):
 * @p, or the array grown to twice its room (16 at first).
 */
void *xgrowarray(void *p, size_t n, size_t *cap, size_t size);
/*
 * An error returned up to main(): the message @fmt says, one line, into
 * @buf (@len bytes).  Both return -1, for "return errorf(...);".
 */
int errorf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int verrorf(char *buf, size_t len, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

#endif /* GPROF_UTIL_UTIL_H */
