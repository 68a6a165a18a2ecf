// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --export=callgrind: KCachegrind / qcachegrind / callgrind_annotate /
 * gprof2dot -f callgrind.  Self cost per function, one "calls=" line per
 * arc with the arc's inclusive cost (estimated, or measured from caller
 * samples), "ob=" the load module.  Costs are integer microseconds.
 */
#include <stdio.h>
#include <stdlib.h>

#include "export.h"

void export_callgrind(void)
{
	long long sum = 0;
	size_t i;

	/* The summary is the total of the self costs written below. */
	for (i = 0; i < symtab.len; i++)
		if (export_shown(&symtab.base[i]))
			sum += export_us(export_self_ticks(&symtab.base[i]));
	printf("# callgrind format\nversion: 1\ncreator: sprofil-gprof\n");
	printf("cmd: %s\npositions: line\nevents: us\n", a_out_name);
	printf("summary: %lld\n\n", sum);
	for (i = 0; i < symtab.len; i++) {
		struct sym *s = &symtab.base[i];
		struct arc *a;
		char *name;

		if (!export_shown(s))
			continue;
		sym_source(s);
		name = export_display_name(s);
		printf("ob=%s\nfl=%s\nfn=%s\n%d %lld\n",
		       export_module_name(s->module),
		       s->file ? s->file->name : "???", name, s->line_num,
		       export_us(export_self_ticks(s)));
		free(name);
		for (a = s->cg.children; a; a = a->next_child) {
			struct sym *c = a->child;

			if (!export_shown(c) || c == s)
				continue;
			sym_source(c);
			name = export_display_name(c);
			printf("cob=%s\ncfl=%s\ncfn=%s\ncalls=%llu %d\n%d %lld\n",
			       export_module_name(c->module),
			       c->file ? c->file->name : "???", name,
			       (unsigned long long)a->count, c->line_num,
			       s->line_num, export_us(a->time + a->child_time));
			free(name);
		}
		putchar('\n');
	}
}
