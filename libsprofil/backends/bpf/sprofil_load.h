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
#include <time.h>
#include <unistd.h>

#include <sprofil/unwind_table.h>

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
	SPB_FD_PUNWIND,		/* sp_punwind */
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

/* The inner maps of a process, in the order of spb_proc_maps.fd[]. */
enum spb_inner {
	SPB_INNER_COUNTS,	/* a hash of bucket index to count */
	SPB_INNER_CNODES,	/* the calling context tree */
	SPB_INNER_CDIRTY,	/* its chunks' flags */
	SPB_INNER_PROC,		/* struct spb_proc, one */
};

/*
 * A new inner map of kind @kind for @n entries: its descriptor, or -1
 * with errno set.  The loaders make the outer maps' templates with it
 * too (n = 1), so that a process's maps always match them.
 */
static inline int spb_inner_map(enum spb_inner kind, __u64 n)
{
	const __u32 sized = BPF_F_MMAPABLE | BPF_F_INNER_MAP;

	if (n > 0xffffffffull || !n) {
		errno = n ? ENOMEM : EINVAL;
		return -1;
	}
	switch (kind) {
	case SPB_INNER_COUNTS:
		return spb_map_create(BPF_MAP_TYPE_HASH, sizeof(__u32),
				      sizeof(__u64), n < SPB_MAX_COUNTERS ?
				      (__u32)n : SPB_MAX_COUNTERS,
				      BPF_F_NO_PREALLOC);
	case SPB_INNER_CNODES:
		return spb_map_create(BPF_MAP_TYPE_ARRAY, sizeof(__u32),
				      sizeof(struct spc_node), (__u32)n, sized);
	case SPB_INNER_CDIRTY:
		return spb_map_create(BPF_MAP_TYPE_ARRAY, sizeof(__u32),
				      sizeof(__u64), (__u32)n, sized);
	case SPB_INNER_PROC:
		return spb_map_create(BPF_MAP_TYPE_ARRAY, sizeof(__u32),
				      sizeof(struct spb_proc), 1,
				      BPF_F_MMAPABLE);
	}
	errno = EINVAL;
	return -1;
}

/*
 * A new inner map of sp_punwind for @n elements of SPB_UELEM bytes
 * (struct spb_uhdr, the modules, the tables): its descriptor, or -1
 * with errno set.  The loaders make the template with it (n = 1).
 */
static inline int spb_unwind_map(__u64 n)
{
	if (n > 0xffffffffull / SPB_UELEM || !n) {
		errno = n ? ENOMEM : EINVAL;
		return -1;
	}
	return spb_map_create(BPF_MAP_TYPE_ARRAY, sizeof(__u32), SPB_UELEM,
			      (__u32)n, BPF_F_MMAPABLE | BPF_F_INNER_MAP);
}

/* One module's table for sp_punwind: checked, and the module's bias. */
struct spb_utable {
	__u64 bias;
	const struct spu_table *t;
};

/* Elements of an inner map of sp_punwind holding @n tables. */
static inline __u64 spb_unwind_elems(const struct spb_utable *tab,
				     unsigned int n)
{
	__u64 words = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		words += (__u64)tab[i].t->hdr->nrules + tab[i].t->npages + 1 +
			 tab[i].t->hdr->nrows;
	return 1 + n + (words + SPB_UWORDS - 1) / SPB_UWORDS;
}

/*
 * The slots of each of the program's two per-CPU caches of walks'
 * findings (sp_urules, sp_cfound; 32 bytes a slot): SPB_CACHE_SLOTS_MAX,
 * halved on many CPUs until both hold at most 2 MiB in all, but not
 * below 256.  A program is loaded per process outside a record run.
 */
static inline __u32 spb_cache_slots(int ncpus)
{
	__u32 n = SPB_CACHE_SLOTS_MAX;

	if (ncpus < 1)
		ncpus = 1;
	while (n > 256 && (__u64)n * 64 * (__u64)ncpus > (2u << 20))
		n /= 2;
	return n;
}

/*
 * A generation for a process's new tables (struct spb_uhdr) or tree
 * (struct spb_proc's cgen): the monotonic clock in ns, above the last
 * one given.  The program's caches of rules and nodes found are by
 * process id and generation, so a process's next map and a later
 * process of the same id must both get a greater one.
 */
static inline __u64 spb_gen(void)
{
	static __u64 last;
	struct timespec ts;
	__u64 gen, was = __atomic_load_n(&last, __ATOMIC_RELAXED);

	clock_gettime(CLOCK_MONOTONIC, &ts);
	do {
		gen = (__u64)ts.tv_sec * 1000000000ull + (__u64)ts.tv_nsec;
		if (gen <= was)
			gen = was + 1;
	} while (!__atomic_compare_exchange_n(&last, &was, gen, false,
					      __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return gen;
}

/*
 * Writes @n (at most SPB_UMODS) tables into @mem, a mapped inner map of
 * sp_punwind of spb_unwind_elems() elements (struct spb_uhdr, the
 * modules, the tables' words: sprofil_bpf.h), under a new generation.
 */
static inline void spb_unwind_fill(void *mem, const struct spb_utable *tab,
				   unsigned int n)
{
	struct spb_uhdr *h = mem;
	struct spb_umod *m = (struct spb_umod *)(h + 1);
	__u32 *word = mem;
	__u64 w = (1 + (__u64)n) * SPB_UWORDS;
	unsigned int i;

	h->nmods = n;
	h->gen = spb_gen();
	for (i = 0; i < n; i++) {
		const struct spu_table *t = tab[i].t;

		m[i].lo = tab[i].bias + t->hdr->base;
		m[i].hi = m[i].lo + t->hdr->span;
		m[i].base = m[i].lo;
		m[i].nrules = t->hdr->nrules;
		m[i].npages = t->npages;
		m[i].span = t->hdr->span;
		m[i].rule = (__u32)w;
		memcpy(word + w, t->rule, t->hdr->nrules * sizeof(*t->rule));
		w += t->hdr->nrules;
		m[i].page = (__u32)w;
		memcpy(word + w, t->page, (t->npages + 1) * sizeof(*t->page));
		w += t->npages + 1;
		m[i].row = (__u32)w;
		memcpy(word + w, t->row, t->hdr->nrows * sizeof(*t->row));
		w += t->hdr->nrows;
	}
}

/* Maps @bytes of inner map @fd shared, read-write: 0 or a negative errno. */
static inline int spb_inner_mmap(int fd, size_t bytes, void **at)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		return -errno;
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
	const __u64 n[SPB_INNER_MAPS] = { counters, cnodes, cdirty, 1 };
	void *p = NULL;
	int err = 0, i;

	for (i = 0; i < SPB_INNER_MAPS; i++)
		m->fd[i] = -1;
	m->cnodes_bytes = (size_t)cnodes * sizeof(struct spc_node);
	m->cdirty_bytes = cdirty * sizeof(__u64);
	for (i = 0; !err && i < SPB_INNER_MAPS; i++) {
		m->fd[i] = spb_inner_map((enum spb_inner)i, n[i]);
		if (m->fd[i] < 0)
			err = -errno;
	}
	if (!err)
		err = spb_inner_mmap(m->fd[SPB_INNER_CNODES], m->cnodes_bytes, &p);
	m->cnodes = p;
	p = NULL;
	if (!err)
		err = spb_inner_mmap(m->fd[SPB_INNER_CDIRTY], m->cdirty_bytes, &p);
	m->cdirty = p;
	p = NULL;
	if (!err)
		err = spb_inner_mmap(m->fd[SPB_INNER_PROC], sizeof(*m->proc), &p);
	m->proc = p;
	if (!err)
		m->proc->cgen = spb_gen();
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
	int i, saved = errno;

	spb_map_delete(prog->fd[SPB_FD_PUNWIND], &tgid);
	for (i = SPB_INNER_MAPS - 1; i >= 0; i--)
		spb_map_delete(prog->fd[spb_outer[i]], &tgid);
	errno = saved;
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
