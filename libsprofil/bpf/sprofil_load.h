/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Giving a process its place in the loaded program, shared by the
 * library (backend_bpf*.c), the record run's program server
 * (cli/bpf_share.c) and the self-tests (tests/bpf): one program, loaded
 * once (sprofil_skel_load.h), samples every process that registers its
 * inner maps under its process id (sprofil.bpf.c, docs/backends.md "One
 * program for a process tree").  Raw bpf(2) calls only (bpf_syscall.h):
 * no libbpf in the processes that do not load the program.
 */
#ifndef LIBSPROFIL_SPROFIL_LOAD_H
#define LIBSPROFIL_SPROFIL_LOAD_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bpf_syscall.h"
#include "sprofil_bpf.h"

/*
 * What a process needs of a loaded program: the sampler and the maps it
 * registers in, in this order wherever they are handed over.
 */
enum spb_fd_index {
	SPB_FD_SAMPLE,		/* the perf_event program */
	SPB_FD_PROCS,		/* sp_procs */
	SPB_FD_PCOUNTS,
	SPB_FD_PCNODES,
	SPB_FD_PCDIRTY,
	SPB_FD_OWNED,		/* sp_owned */
	SPB_NFDS
};

struct spb_program {
	int fd[SPB_NFDS];
};

/*
 * One process's inner maps: its counters (a hash, read through its
 * descriptor), and mapped shared into it, its state, calling context
 * tree and the tree's chunks' flags.  The descriptors stay open while
 * the maps are in use, in the order of spb_outer[].
 */
#define SPB_INNER_MAPS	4
struct spb_proc_maps {
	__u32 tgid;			/* the key they are registered under */
	int fd[SPB_INNER_MAPS];
	struct spb_proc *proc;
	struct spc_node *cnodes;
	size_t cnodes_bytes;
	volatile uint64_t *cdirty;
	size_t cdirty_bytes;
};

/*
 * A new inner map of @n values of @size bytes with @flags, mapped: its
 * address in *@at, or a negative errno.  The mapping keeps the map; the
 * descriptor is left to the caller (@fd), to register it.
 */
static inline int spb_inner_new(__u32 size, __u64 n, __u32 flags,
				void **at, int *fd)
{
	void *p;

	if (n > 0xffffffffull)
		return -ENOMEM;
	*fd = spb_map_create(BPF_MAP_TYPE_ARRAY, sizeof(__u32), size,
			     (__u32)n, flags);
	if (*fd < 0)
		return -errno;
	p = mmap(NULL, (size_t)(size * n), PROT_READ | PROT_WRITE,
		 MAP_SHARED, *fd, 0);
	if (p == MAP_FAILED) {
		int err = -errno;

		close(*fd);
		*fd = -1;
		return err;
	}
	*at = p;
	return 0;
}

/*
 * Creates a process's inner maps, with room for @counters counters (at
 * most SPB_MAX_COUNTERS buckets are counted), a tree of @cnodes nodes
 * and @cdirty flags (each at least 1), and maps all but the counters;
 * spb_proc_register() then puts them in the program.  On failure, what
 * was made is left in @m for the caller to release.
 */
static inline int spb_proc_create(__u64 counters, __u32 cnodes, __u64 cdirty,
				  struct spb_proc_maps *m)
{
	const __u32 sized = BPF_F_MMAPABLE | BPF_F_INNER_MAP;
	void *p[SPB_INNER_MAPS] = { 0 };
	int err = 0, i;

	for (i = 0; i < SPB_INNER_MAPS; i++)
		m->fd[i] = -1;
	m->cnodes_bytes = (size_t)cnodes * sizeof(struct spc_node);
	m->cdirty_bytes = cdirty * sizeof(__u64);
	m->fd[0] = spb_map_create(BPF_MAP_TYPE_HASH, sizeof(__u32),
				  sizeof(__u64),
				  counters < SPB_MAX_COUNTERS ?
				  (__u32)counters : SPB_MAX_COUNTERS,
				  BPF_F_NO_PREALLOC);
	if (m->fd[0] < 0)
		err = -errno;
	if (!err)
		err = spb_inner_new(sizeof(struct spc_node), cnodes, sized,
				    &p[1], &m->fd[1]);
	if (!err)
		err = spb_inner_new(sizeof(__u64), cdirty, sized, &p[2],
				    &m->fd[2]);
	if (!err)
		err = spb_inner_new(sizeof(struct spb_proc), 1, BPF_F_MMAPABLE,
				    &p[3], &m->fd[3]);
	m->cnodes = p[1];
	m->cdirty = p[2];
	m->proc = p[3];
	return err;
}

/* Closes @m's map descriptors (the mappings keep their maps). */
static inline void spb_proc_close(struct spb_proc_maps *m)
{
	int i;

	for (i = 0; i < SPB_INNER_MAPS; i++) {
		if (m->fd[i] >= 0)
			close(m->fd[i]);
		m->fd[i] = -1;
	}
}

/* The outer maps of @m's inner maps, in the order of its fd[]. */
static const int spb_outer[SPB_INNER_MAPS] = {
	SPB_FD_PCOUNTS, SPB_FD_PCNODES, SPB_FD_PCDIRTY, SPB_FD_PROCS,
};

/*
 * Registers @m in @prog as process @tgid's, replacing what was there:
 * its state last, so that the program never sees a state without its
 * other maps (the state's counting is off until the caller turns it
 * on).  On failure nothing stays registered.
 */
static inline int spb_proc_register(const struct spb_program *prog,
				    __u32 tgid, struct spb_proc_maps *m)
{
	int err = 0, i;

	m->tgid = tgid;
	for (i = 0; !err && i < SPB_INNER_MAPS; i++)
		if (spb_map_update(prog->fd[spb_outer[i]], &tgid, &m->fd[i],
				   BPF_ANY))
			err = -errno;
	if (err)
		for (i = SPB_INNER_MAPS - 1; i >= 0; i--)
			spb_map_delete(prog->fd[spb_outer[i]], &tgid);
	return err;
}

/*
 * Unmaps and closes what spb_proc_create() made in @m (not for
 * libsprofil, whose munmap is its own).
 */
static inline void spb_proc_release(struct spb_proc_maps *m)
{
	spb_proc_close(m);
	if (m->proc)
		munmap(m->proc, sizeof(*m->proc));
	if (m->cnodes)
		munmap(m->cnodes, m->cnodes_bytes);
	if (m->cdirty)
		munmap((void *)m->cdirty, m->cdirty_bytes);
}

/* Takes process @tgid out of @prog: its samples count no more. */
static inline void spb_proc_unregister(const struct spb_program *prog,
				       __u32 tgid)
{
	int i;

	for (i = SPB_INNER_MAPS - 1; i >= 0; i--)
		spb_map_delete(prog->fd[spb_outer[i]], &tgid);
}

/*
 * Fills region set @k (0 or 1; once counting, only the one not in use)
 * of process state @p with @m; the caller sets its first[] counters.
 */
static inline void spb_set_regions(struct spb_proc *p, unsigned int k,
				   const struct spm_map *m)
{
	struct spb_set *set = &p->set[k];

	set->shift = m->shift;
	set->nsegments = m->nsegments;
	if (m->nsegments)
		memcpy(set->segment, m->segment,
		       m->nsegments * sizeof(*m->segment));
	if (m->nregions)
		memcpy(set->region, m->region,
		       m->nregions * sizeof(*m->region));
}

/*
 * The record run's program server (cli/bpf_share.c): the abstract unix
 * socket whose name a run's processes find in SPROFIL_BPF_SHARE, and
 * the one message it answers a connection with: this magic and the
 * SPB_NFDS descriptors, in the order of enum spb_fd_index.
 */
#define SPB_SHARE_ENV		"SPROFIL_BPF_SHARE"
#define SPB_SHARE_MAGIC		0x53504253u	/* "SBPS" */

#endif /* LIBSPROFIL_SPROFIL_LOAD_H */
