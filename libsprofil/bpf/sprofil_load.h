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

/* Before the load: the region set of @m, for this process. */
static inline void spb_set_regions(struct sprofil_bpf *skel,
				   const struct spm_map *m)
{
	skel->rodata->sp_tgid = (__u32)getpid();
	skel->rodata->sp_shift = m->shift;
	skel->rodata->sp_nsegments = m->nsegments;
	if (m->nsegments)
		memcpy(skel->rodata->sp_segment, m->segment,
		       m->nsegments * sizeof(*m->segment));
	if (m->nregions)
		memcpy(skel->rodata->sp_region, m->region,
		       m->nregions * sizeof(*m->region));
}

#endif /* LIBSPROFIL_SPROFIL_LOAD_H */
