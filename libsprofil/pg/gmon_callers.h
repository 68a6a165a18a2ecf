/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The caller table as a profile dump writes it (tag 4 of
 * docs/gmon-format.md): its nodes read out of the live table, parents
 * first, the counts taken or copied, and only the calling contexts that
 * hold samples.
 */
#ifndef LIBSPROFIL_GMON_CALLERS_H
#define LIBSPROFIL_GMON_CALLERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sp_callers;

/* One node, runtime address; @parent an index in the same array. */
struct sp_cnode {
	uint64_t pc;
	uint32_t parent;		/* SP_CNODE_TOP: an outermost frame */
	uint64_t count;
};

#define SP_CNODE_TOP	UINT32_MAX

struct sp_callers_data {
	struct sp_cnode *node;		/* every node after its parent */
	size_t n;
	uint32_t depth;
	uint64_t samples;		/* the sum of the counts */
	uint64_t truncated;		/* of them, under the truncated top */
	uint64_t lost, busy;		/* the table's counters */
	size_t nodes;			/* slots of the table */
};

/*
 * Reads the table @c (its geometry from @c, never from the buffer) into
 * @d; with @take, each count and counter is taken to zero atomically, so
 * that a sample filed meanwhile is in this read or the next, never both.
 * Returns 0 or -ENOMEM.
 */
int sp_callers_collect(const struct sp_callers *c, bool take,
		       struct sp_callers_data *d);
void sp_callers_data_free(struct sp_callers_data *d);

/*
 * Takes every count and counter of the table @c to zero, keeping its
 * nodes (a fork child's profile starts from zero).
 */
void sp_callers_reset(const struct sp_callers *c);

/*
 * A dump's chains: the table of the latest start read into @d, the
 * counts taken with @take; "libsprofil: N caller samples lost" said on
 * stderr when the table was full.  Returns 1 with @d filled (free it
 * with sp_callers_data_free()), 0 when no table is in use or on error
 * (said on stderr: the dump goes on without chains).
 */
int sp_callers_for_dump(bool take, struct sp_callers_data *d);

/*
 * profil.c: the caller table of the latest start, or of the next one if
 * none started; returns 1 and fills @c, or 0 when there is none.
 */
int sp_front_callers(struct sp_callers *c);

#endif /* LIBSPROFIL_GMON_CALLERS_H */
