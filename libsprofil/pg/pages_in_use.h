/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which pages of a buffer of the process's own anonymous memory were ever
 * written: the others still read as zero, so a pass over a histogram or a
 * caller table at dump time can skip them instead of faulting each one in
 * (a caller table is 2 MB, a histogram of cc1's text 4 MB; a short
 * process writes a few pages of them).
 */
#ifndef LIBSPROFIL_PAGES_IN_USE_H
#define LIBSPROFIL_PAGES_IN_USE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Pages of a buffer, each known written (or swapped out) or never. */
struct sp_pages {
	uintptr_t first;		/* address of the first page */
	size_t npages;
	size_t page;			/* the page size */
	uint8_t *used;			/* per page; NULL: assume all used */
};

/*
 * The pages of [base, base + len), from /proc/self/pagemap (present or
 * swapped: either may hold data).  Where the map cannot be read (no
 * /proc, no memory), every page counts as used: never less than the
 * truth.  Free with sp_pages_free().
 */
void sp_pages_read(struct sp_pages *p, const void *base, size_t len);
void sp_pages_free(struct sp_pages *p);

/* Whether the page holding @addr may hold data. */
static inline bool sp_page_used(const struct sp_pages *p, uintptr_t addr)
{
	size_t i = (addr - p->first) / p->page;

	return !p->used || i >= p->npages || p->used[i];
}

#endif /* LIBSPROFIL_PAGES_IN_USE_H */
