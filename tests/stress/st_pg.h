/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Shared by the -pg programs of tests/stress.  Each program tells the
 * driver (test_stress_pg.c) where its counted functions are, as profile
 * files hold them (link-time addresses, module-relative), and how many
 * calls it made; the driver then adds up the arcs of every file the
 * process wrote and wants exactly that many.
 *
 *   fn <name> <link-time start, hex> <size, hex>
 *
 * Lines are written with dprintf(): a buffered stdout would be copied
 * by fork() and written twice.
 */
#ifndef SPROFIL_ST_PG_H
#define SPROFIL_ST_PG_H

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include "pg_burn.h"

/* Prints @fn's "fn" line (the program is linked with -rdynamic). */
static inline void st_describe(const char *name, void *fn)
{
	const ElfW(Sym) *sym = NULL;
	struct link_map *lm = NULL;
	Dl_info info;

	if (!dladdr1(fn, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym ||
	    !dladdr1(fn, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm) {
		dprintf(2, "%s: no symbol for %s (link with -rdynamic)\n",
			program_invocation_short_name, name);
		exit(2);
	}
	dprintf(1, "fn %s 0x%lx 0x%lx\n", name,
		(unsigned long)((uintptr_t)fn - lm->l_addr),
		(unsigned long)sym->st_size);
}

/* Wall-clock seconds, for the programs' time budgets. */
static inline double st_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif /* SPROFIL_ST_PG_H */
