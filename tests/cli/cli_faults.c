// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One function that faults on fresh pages, one that burns CPU: sampled
 * on page faults, touch_pages() leads with about the pages it touched
 * (printed on stdout); on CPU time, burn() leads.  Sized by CPU time:
 * argv[1] ms of burning, argv[2] pages touched; with argv[3], that many
 * rounds of both, a tenth of a second apart (for record -p).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli_burn.h"

/* One write per page of a fresh mapping: one minor fault each. */
static __attribute__((noipa)) unsigned long touch_pages(size_t pages)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t i, len = pages * (size_t)page;
	char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (buf == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	/* One fault per 4 KiB page, not one per 2 MiB huge page. */
	if (madvise(buf, len, MADV_NOHUGEPAGE))
		perror("madvise");
	for (i = 0; i < len; i += (size_t)page)
		((volatile char *)buf)[i] = 1;
	munmap(buf, len);
	return pages;
}

static __attribute__((noipa)) unsigned long burn(long ms)
{
	return cli_burn_ms(ms);
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 300;
	size_t pages = argc > 2 ? (size_t)atol(argv[2]) : 20000;
	long rounds = argc > 3 ? atol(argv[3]) : 1, i;
	unsigned long touched = 0;

	for (i = 0; i < rounds; i++) {
		if (i)
			usleep(100000);
		burn(ms);
		touched += touch_pages(pages);
	}
	printf("%lu\n", touched);
	return 0;
}
