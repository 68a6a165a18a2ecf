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

#include "report/report.h"

/*
 * The profiler's own code (libsprofil: sp_mcount, its signal handlers,
 * the collector) is not the program's: its samples are in no function
 * and no percentage, only in this line, so that the cost of profiling
 * is still known.  Printed where a report's totals are stated.
 */
bool overhead_print(struct profile *prof)
{
	unsigned int m;

	if (prof->overhead_time <= 0)
		return false;
	for (m = 0; m < prof->nmodules && !prof->modules[m].overhead; m++)
		;
	printf("profiler overhead (%s): %.0f samples, %.2f %s, %.1f%% of all, left out\n",
	       m < prof->nmodules ? module_basename(&prof->modules[m]) : "?",
	       prof->overhead_time,
		       prof->hz > 0 ? prof->overhead_time / prof->hz : 0.0,
	       prof->hist_dimension,
	       100 * prof->overhead_time /
		       (prof->overhead_time + prof->total_time));
	return true;
}

static void warn_unread(struct profile *prof, const struct gprof_options *opt)
{
	unsigned int m;

	/* The profiler's symbols are not needed: its time is left out. */
	for (m = 1; m < prof->nmodules; m++)
		if (prof->modules[m].why && !prof->modules[m].overhead)
			fprintf(stderr, "%s: module %u (%s) not read: %s\n",
				opt->whoami, m, prof->modules[m].is_vdso ? "[vdso]" :
				prof->modules[m].recorded,
					prof->modules[m].why);
}

void modules_print(struct profile *prof, const struct gprof_options *opt)
{
	double total = 0;
	unsigned int m;
	size_t i;

	warn_unread(prof, opt);
	for (m = 0; m < prof->nmodules; m++) {
		prof->modules[m].calls = 0;
		if (!prof->modules[m].overhead)
			total += prof->modules[m].time;
	}
	for (i = 0; i < prof->symtab.len; i++)
		prof->modules[prof->symtab.base[i].module].calls +=
			prof->symtab.base[i].ncalls;

	if (prof->first_output)
		prof->first_output = false;
	else
		printf("\f\n");
	printf("Load modules:\n\n");
	/* An event's column ("faults") where time's is "seconds". */
	printf("  mod   %% time  %8.8s       calls  name\n",
	       prof->event_type ? prof->hist_dimension : "seconds");
	for (m = 0; m < prof->nmodules; m++) {
		const struct module *mod = &prof->modules[m];

		if (mod->overhead)
			printf("%5u  %7s", m, "-");
		else
			printf("%5u  %7.2f", m,
			       total > 0 ? 100 * mod->time / total : 0.0);
		printf(" %9.2f %11llu  %s", prof->hz > 0 ? mod->time / prof->hz : 0.0,
		       (unsigned long long)mod->calls,
		       mod->path ? mod->path : mod->recorded);
		if (mod->overhead)
			printf(" (profiler overhead, left out)");
		else if (mod->why)
			printf(" (not read: %s)", mod->why);
		else if (mod->debug_path)
			printf(" (symbols: %s)", mod->debug_path);
		putchar('\n');
	}
	overhead_print(prof);
	if (opt->print_descriptions)
		printf("\n"
"mod is the index shown in the mod column of the flat profile and the\n"
"call graph.  %% time and seconds are the samples that fell in the\n"
"module (in its functions, or anywhere in a module that could not be\n"
"read); calls are the calls into its functions that were counted.\n"
"The profiler's own module (libsprofil) is overhead: its samples are\n"
"in no function and no percentage of the report.\n");
}
