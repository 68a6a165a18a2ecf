/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Filling the program's read-only tables, shared by its loader
 * (backend_bpf.c) and the lookup self-test (tests/bpf): both must hand
 * the program exactly what spm_prepare() built.
 */
#ifndef LIBSPROFIL_SPROFIL_LOAD_H
#define LIBSPROFIL_SPROFIL_LOAD_H

#include <string.h>
#include <unistd.h>

#include "sprofil_bpf.h"
#include "sprofil.skel.h"

/* Before the load: the program samples this process. */
static inline void spb_set_process(struct sprofil_bpf *skel)
{
	skel->rodata->sp_tgid = (__u32)getpid();
}

/*
 * Fills region set @k (0 or 1; after the load, only the one not in use)
 * with @m; the caller sets its first[] counters.
 */
static inline void spb_set_regions(struct sprofil_bpf *skel, unsigned int k,
				   const struct spm_map *m)
{
	struct spb_set *set = &skel->bss->sp_set[k];

	set->shift = m->shift;
	set->nsegments = m->nsegments;
	if (m->nsegments)
		memcpy(set->segment, m->segment,
		       m->nsegments * sizeof(*m->segment));
	if (m->nregions)
		memcpy(set->region, m->region,
		       m->nregions * sizeof(*m->region));
}

#endif /* LIBSPROFIL_SPROFIL_LOAD_H */
