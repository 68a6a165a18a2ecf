/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A cursor over the bytes of one profile file held in memory, shared by
 * the readers of its records (gmon_read.c, caller_tree.c).  Every read
 * is checked against the end of the buffer; the first problem is kept
 * as one line in the caller's message buffer and every later read
 * fails, so a parser checks c->failed once per record, not per field.
 */
#ifndef GPROF_GMON_CURSOR_H
#define GPROF_GMON_CURSOR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct cursor {
	const unsigned char *p, *end;
	bool swap;		/* the file's byte order is not little-endian's */
	char *err;
	size_t errlen;
	bool failed;
};

static inline void cursor_fail(struct cursor *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline void cursor_fail(struct cursor *c, const char *fmt, ...)
{
	va_list ap;

	if (c->failed)
		return;
	c->failed = true;
	va_start(ap, fmt);
	vsnprintf(c->err, c->errlen, fmt, ap);
	va_end(ap);
}

static inline bool take(struct cursor *c, size_t n, const unsigned char **out)
{
	if (c->failed)
		return false;
	if ((size_t)(c->end - c->p) < n) {
		cursor_fail(c, "unexpected end of file");
		return false;
	}
	*out = c->p;
	c->p += n;
	return true;
}

/* An @n-byte unsigned integer (0 after a failure). */
static inline uint64_t get_uint(struct cursor *c, unsigned int n)
{
	const unsigned char *b;
	uint64_t v = 0;
	unsigned int i;

	if (!take(c, n, &b))
		return 0;
	for (i = 0; i < n; i++) {
		unsigned int k = c->swap ? i : n - 1 - i;

		v = v << 8 | b[k];
	}
	return v;
}

#endif /* GPROF_GMON_CURSOR_H */
