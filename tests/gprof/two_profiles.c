// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Profiles of different programs held at once (run-model): every
 * (EXECUTABLE, PROFILE) pair named is read into a profile of its own
 * before any is analyzed, then all are analyzed, then each one's report
 * is printed as `gprof -b EXECUTABLE PROFILE` prints it.  Whatever one
 * profile left in state another one sees would change the other's
 * report, which run-model compares with the analyzer's on each alone.
 */
#include <stdio.h>
#include <stdlib.h>

#include "pipeline/pipeline.h"

struct one {
	struct gprof_options opt;
	struct profile prof;
	struct sym **cg;
	int style;
};

int main(int argc, char **argv)
{
	struct one *p;
	int i, n = (argc - 1) / 2;

	if (argc < 3 || (argc - 1) % 2) {
		fprintf(stderr, "usage: %s EXECUTABLE PROFILE [EXECUTABLE PROFILE]...\n",
			argv[0]);
		return 2;
	}
	p = xcalloc(n, sizeof(*p));
	sym_id_add_defaults();
	for (i = 0; i < n; i++) {
		gprof_options_init(&p[i].opt);
		p[i].opt.a_out_name = argv[1 + 2 * i];
		p[i].opt.print_descriptions = false;	/* -b */
		profile_init(&p[i].prof);
		if (profile_read(&p[i].prof, &p[i].opt,
				 (const char *const *)&argv[2 + 2 * i], 1)) {
			fprintf(stderr, "%s: %s\n", argv[0], p[i].prof.error);
			return 1;
		}
	}
	for (i = 0; i < n; i++) {
		bool counted;

		if (profile_prepare(&p[i].prof, &p[i].opt, &counted)) {
			fprintf(stderr, "%s: %s\n", argv[0], p[i].prof.error);
			return 1;
		}
		p[i].style = report_style(&p[i].prof, &p[i].opt);
		p[i].cg = profile_analyze(&p[i].prof, &p[i].opt, counted);
	}
	for (i = 0; i < n; i++) {
		int r = report_print(&p[i].prof, &p[i].opt, p[i].style,
				     p[i].cg);

		free(p[i].cg);
		if (r) {
			fprintf(stderr, "%s: %s\n", argv[0], p[i].prof.error);
			return 1;
		}
	}
	for (i = 0; i < n; i++)
		profile_free(&p[i].prof);
	sym_id_free();
	free(p);
	if (fflush(stdout) || ferror(stdout))
		return 1;
	return 0;
}
