// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dlopen() and dlclose() the same -pg library argv[1] times, calling
 * into it each time (one call of pgearly_touch() and about 2 ms of CPU in
 * pgearly_burn()), so that the profile must hold one module, one
 * histogram and every cycle's calls and samples.  Not linked with the
 * library: each dlclose() really unloads it.
 *
 * With "move" as argv[2], every other load is pushed to another place:
 * the last page the previous load used is held, so the loader puts the
 * library elsewhere, often one page lower, overlapping its old place
 * (the runtime must not mix up the two loads' addresses).  The number
 * of places it was loaded at is printed.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "pg_burn.h"

/* The end of the module loaded at @bias (its PT_LOADs), or 0. */
struct span {
	uintptr_t bias, end;
};

static int find_end(struct dl_phdr_info *info, size_t size, void *data)
{
	struct span *s = data;

	(void)size;
	if (info->dlpi_addr != s->bias)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD &&
		    info->dlpi_addr + ph->p_vaddr + ph->p_memsz > s->end)
			s->end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	return 1;
}

int main(int argc, char **argv)
{
	int move = argc > 2 && !strcmp(argv[2], "move");
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t places[64];
	int nplaces = 0;
	struct span last = { 0, 0 };
	struct link_map *lm;
	void *hold = MAP_FAILED;
	int cycles = argc > 1 ? atoi(argv[1]) : 100;
	char path[4096], *slash;
	void (*touch)(int);
	void (*work)(double);
	ssize_t n;
	void *h;

	n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	if (n < 0)
		return 1;
	path[n] = '\0';
	slash = strrchr(path, '/');
	strcpy(slash + 1, "libpgearly.so");
	for (int i = 0; i < cycles; i++) {
		if (move && i % 2 && last.end)
			hold = mmap((void *)((last.end - 1) & -(uintptr_t)page),
				    page, PROT_NONE,
				    MAP_PRIVATE | MAP_ANONYMOUS |
				    MAP_FIXED_NOREPLACE, -1, 0);
		h = dlopen(path, RTLD_NOW);
		if (!h) {
			fprintf(stderr, "dlopen: %s\n", dlerror());
			return 1;
		}
		if (hold != MAP_FAILED) {
			munmap(hold, page);
			hold = MAP_FAILED;
		}
		if (dlinfo(h, RTLD_DI_LINKMAP, &lm))
			return 1;
		last.bias = lm->l_addr;
		last.end = 0;
		dl_iterate_phdr(find_end, &last);
		for (n = 0; n < nplaces && places[n] != last.bias; n++)
			;
		if (n == nplaces && nplaces < 64)
			places[nplaces++] = last.bias;
		*(void **)&touch = dlsym(h, "pgearly_touch");
		*(void **)&work = dlsym(h, "pgearly_burn");
		if (!touch || !work)
			return 1;
		touch(i);
		work(0.002);
		if (dlclose(h)) {
			fprintf(stderr, "dlclose: %s\n", dlerror());
			return 1;
		}
	}
	printf("pg-dlloop: %d cycles, %d places\n", cycles, nplaces);
	return 0;
}
