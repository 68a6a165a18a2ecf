// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What every part of the analyzer uses: fatal() for the errors it
 * cannot go on from, errorf() for the one-line messages of those it
 * returns, and allocation that never returns NULL.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/*
 * The name fatal()'s messages start with (argv[0]'s last part), which
 * main() sets before anything can fail.
 */
static const char *fatal_name = "gprof";

void fatal(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", fatal_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		fatal("out of memory (%zu bytes)", n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		fatal("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		fatal("out of memory (%zu bytes)", n);
	return p;
}

/*
 * @n elements of @size bytes: a count read from a file must not wrap
 * the product into a small allocation that the elements then overrun.
 */
void *xreallocarray(void *p, size_t n, size_t size)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes))
		fatal("out of memory (%zu x %zu bytes)", n, size);
	return xrealloc(p, bytes);
}

void *xmallocarray(size_t n, size_t size)
{
	return xreallocarray(NULL, n, size);
}

void *xgrowarray(void *p, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? 2 * *cap : 16;
	return xreallocarray(p, *cap, size);
}

int verrorf(char *buf, size_t len, const char *fmt, va_list ap)
{
	vsnprintf(buf, len, fmt, ap);
	return -1;
}

int errorf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verrorf(buf, len, fmt, ap);
	va_end(ap);
	return -1;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

void fatal_set_name(const char *name)
{
	fatal_name = name;
}
