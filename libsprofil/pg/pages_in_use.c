// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sp_pages_read() (pages_in_use.h): one pread() of /proc/self/pagemap,
 * eight bytes a page, whose bits 63 (present) and 62 (swapped) any
 * process may read of itself (Documentation/admin-guide/mm/pagemap.rst).
 * mincore() would not do: it calls a swapped-out page absent, and its
 * counts would be lost.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include "pages_in_use.h"

#define PM_PRESENT	(1ull << 63)
#define PM_SWAPPED	(1ull << 62)
/* Entries read per pread(). */
#define PM_BATCH	512

void sp_pages_read(struct sp_pages *p, const void *base, size_t len)
{
	uint64_t entry[PM_BATCH];
	size_t i, k, want;
	ssize_t got;
	int fd;

	p->page = (size_t)sysconf(_SC_PAGESIZE);
	p->first = (uintptr_t)base & ~(uintptr_t)(p->page - 1);
	p->npages = len ? ((uintptr_t)base + len - p->first + p->page - 1) /
			  p->page : 0;
	p->used = NULL;
	if (!p->npages)
		return;
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	p->used = malloc(p->npages);
	for (i = 0; p->used && i < p->npages; i += k) {
		want = p->npages - i < PM_BATCH ? p->npages - i : PM_BATCH;
		got = pread(fd, entry, want * sizeof(entry[0]),
			    (off_t)((p->first / p->page + i) * sizeof(entry[0])));
		if (got <= 0 || got % sizeof(entry[0])) {
			free(p->used);
			p->used = NULL;
			break;
		}
		k = (size_t)got / sizeof(entry[0]);
		for (size_t j = 0; j < k; j++)
			p->used[i + j] = !!(entry[j] & (PM_PRESENT | PM_SWAPPED));
	}
	close(fd);
}

void sp_pages_free(struct sp_pages *p)
{
	free(p->used);
	p->used = NULL;
}
