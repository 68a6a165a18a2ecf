// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the reader read, filed into the symbols: call arcs (cg_tally()),
 * basic-block counts (tag 2 records) as GNU's bb_read_rec files them,
 * and callers records merged into the caller tree (callers_parse(),
 * which also chooses --thread's threads).  The reader only keeps them
 * (read/gmon_read.c), so that what the symspecs, -l and --thread make
 * of them is the analysis's.
 */
#include <stdio.h>
#include <stdlib.h>

#include <sprofil/gmon_codec.h>

#include "analyze/analyze.h"

/* ---- basic-block records ---- */

void bb_record(struct profile *prof, const struct gprof_options *opt,
	       uint64_t addr, uint64_t count)
{
	static bool warned;
	struct sym *s;
	int i;

	/* Block counts only mean something per line (-l). */
	if (!opt->line_granularity) {
		if (!warned) {
			warned = true;
			fprintf(stderr,
				"%s: warning: ignoring basic-block exec counts (use -l or --line)\n",
				opt->whoami);
		}
		return;
	}
	s = sym_lookup(&prof->symtab, addr);
	if (!s)
		return;
	/* A block already seen adds up; beyond NBBS blocks are dropped. */
	if (!s->bb)
		s->bb = xcalloc(1, sizeof(*s->bb));
	for (i = 0; i < NBBS; i++) {
		if (!s->bb->addr[i] || s->bb->addr[i] == addr) {
			s->bb->addr[i] = addr;
			s->bb->calls[i] += count;
			return;
		}
	}
}

/* Forgets the callers records kept, from @i on. */
static void read_callers_free(struct profile *prof, size_t i)
{
	for (; i < prof->nread_callers; i++) {
		free(prof->read_callers[i].rec);
		free(prof->read_callers[i].map);
	}
	prof->nread_callers = 0;
}

int profile_tally(struct profile *prof, const struct gprof_options *opt)
{
	size_t i;

	for (i = 0; i < prof->nread_arcs; i++)
		cg_tally(prof, prof->read_arcs[i].from_pc,
			 prof->read_arcs[i].self_pc, prof->read_arcs[i].count);
	prof->nread_arcs = 0;
	for (i = 0; i < prof->nread_bbs; i++)
		bb_record(prof, opt, prof->read_bbs[i].addr,
			  prof->read_bbs[i].count);
	prof->nread_bbs = 0;
	for (i = 0; i < prof->nread_callers; i++) {
		struct read_callers *r = &prof->read_callers[i];
		char err[512] = "";
		struct gmf_cursor c = {
			.p = r->rec, .end = r->rec + r->len, .swap = r->swap,
			.err = err, .errlen = sizeof(err),
		};

		callers_parse(prof, opt, &c, r->map, r->nmap);
		free(r->rec);
		free(r->map);
		if (c.failed) {
			const char *file = r->file;

			read_callers_free(prof, i + 1);
			return profile_error(prof, "%s: %s", file, err);
		}
	}
	prof->nread_callers = 0;
	return 0;
}

void profile_tally_forget(struct profile *prof)
{
	read_callers_free(prof, 0);
	free(prof->read_callers);
	free(prof->read_arcs);
	free(prof->read_bbs);
	prof->read_callers = NULL;
	prof->read_arcs = NULL;
	prof->read_bbs = NULL;
	prof->read_callers_cap = 0;
	prof->nread_arcs = prof->read_arcs_cap = 0;
	prof->nread_bbs = prof->read_bbs_cap = 0;
}
