// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --export=folded: Brendan Gregg's folded stacks, the input of
 * flamegraph.pl, inferno and speedscope: one line per distinct chain of
 * frame names, outermost first, ';' between frames, then a space and
 * its samples.  The lines come in the order of the tree (children by
 * name), as stackcollapse's sorted output does; they add up to the
 * profile's samples.  Names: export_stacks.c.
 */
#include <stdlib.h>
#include <string.h>

#include <linux/sprofil.h>

#include "export/export.h"

/* The frames from below the root down to the node being printed. */
static const char *path[SPROFIL_MAX_DEPTH + 3];

static void print_node(const struct stacks *st, uint32_t i, size_t depth,
		       const char *root)
{
	const struct stack_node *n = &st->node[i];
	uint32_t c;
	size_t k;

	if (depth >= sizeof(path) / sizeof(path[0]))
		return;		/* deeper than any record can be */
	if (i)
		path[depth++] = n->name;
	if (n->self && depth) {
		if (root)
			printf("%s;", root);
		for (k = 0; k < depth; k++)
			printf("%s%s", k ? ";" : "", path[k]);
		printf(" %llu\n", (unsigned long long)n->self);
	}
	for (c = n->first_child; c != CALLER_NONE; c = st->node[c].next_sibling)
		print_node(st, c, depth, root);
}

void export_folded_rooted(struct profile *prof,
			  const struct gprof_options *opt, const char *root)
{
	struct stacks st;

	if (stacks_build(prof, opt, &st, "folded"))
		print_node(&st, 0, 0, root);
	stacks_free(&st);
}

int export_folded(struct profile *prof, const struct gprof_options *opt)
{
	export_folded_rooted(prof, opt, NULL);
	return 0;
}
