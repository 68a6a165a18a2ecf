// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The table of load modules that ends a multi-module report (HP-UX's
 * MSLP reports had one): each module's index, as the "mod" column of the
 * flat profile and the call graph shows it, its share of the samples and
 * of the calls, and for a module whose symbols could not be read, why.
 * Unreadable modules are also named on stderr, once, so a script that
 * only reads the report's numbers still learns that some are missing.
 */
#include <string.h>

#include "gprof.h"

static void warn_unread(void)
{
	unsigned int m;

	for (m = 1; m < nmodules; m++)
		if (modules[m].why)
			fprintf(stderr, "%s: module %u (%s) not read: %s\n",
				whoami, m, modules[m].recorded,
				modules[m].why);
}

void modules_print(void)
{
	double total = 0;
	unsigned int m;
	size_t i;

	warn_unread();
	for (m = 0; m < nmodules; m++) {
		modules[m].calls = 0;
		total += modules[m].time;
	}
	for (i = 0; i < symtab.len; i++)
		modules[symtab.base[i].module].calls += symtab.base[i].ncalls;

	if (first_output)
		first_output = false;
	else
		printf("\f\n");
	printf("Load modules:\n\n");
	printf("  mod   %% time   seconds       calls  name\n");
	for (m = 0; m < nmodules; m++) {
		const struct module *mod = &modules[m];

		printf("%5u  %7.2f %9.2f %11llu  %s", m,
		       total > 0 ? 100 * mod->time / total : 0.0,
		       hz > 0 ? mod->time / hz : 0.0,
		       (unsigned long long)mod->calls,
		       mod->path ? mod->path : mod->recorded);
		if (mod->why)
			printf(" (not read: %s)", mod->why);
		putchar('\n');
	}
	if (print_descriptions)
		printf("\n"
"mod is the index shown in the mod column of the flat profile and the\n"
"call graph.  %% time and seconds are the samples that fell in the\n"
"module (in its functions, or anywhere in a module that could not be\n"
"read); calls are the calls into its functions that were counted.\n");
}
