/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The bpf backend's state, shared by its loader (backend_bpf.c) and its
 * fold (backend_bpf_fold.c): the loaded program with its counters and
 * events, and the region set counting in it.  Everything here is under
 * sb_lock.
 */
#ifndef LIBSPROFIL_BACKEND_BPF_SESSION_H
#define LIBSPROFIL_BACKEND_BPF_SESSION_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <sprofil/mapping.h>

#include "callers_merge.h"
#include "sprofil_load.h"

/*
 * What the fold saw of each counter of the process's hash
 * (backend_bpf_counters.c): an open-addressed table of key + 1 (0:
 * free) and value, a power of two of slots.
 */
struct sb_seen {
	uint32_t *key;
	uint64_t *value;
	size_t cap, n;
};

void sb_seen_free(struct sb_seen *t);

/* One region as the fold sees it, in the order of spm_prepare(). */
struct sb_region {
	uintptr_t base;			/* the caller's bucket array */
	uint64_t size;			/* its bytes */
	uint64_t nbuckets;
	uint32_t first;			/* index of its first counter */
	bool off;			/* its memory went away */
};

/*
 * One region set: what one start asked for, counted in one of the
 * program's two sets (k) and one half of its counters.
 */
struct sb_set {
	struct spm_map map;		/* to file exited threads' time */
	uint32_t k;
	uint64_t nbuckets;
	struct sb_region *region;	/* map.nregions of them */
	uintptr_t overflow;		/* overflow bin's bucket, or 0 */
	bool overflow_off;
	uint64_t misses_filed;		/* misses already in the overflow bin */
	uint64_t misses_off;		/* samples of regions turned off */
	uint64_t saturated;
	/* The caller's table (docs/callers.md); callers.hdr NULL: none. */
	struct spc_table callers;
	bool per_thread;		/* SPROFIL_THREADS */
	__u32 *cxlate;			/* where each program node went */
};

/*
 * A loaded program with its counters and, while sampling, its events and
 * current set.  It outlives stops and new region sets: only a longer
 * period, more buckets than a half holds or another kind of event need a
 * new one.
 */
struct sb_session {
	const struct spb_program *prog;	/* sb_program() */
	/* This process's place in it: its state and counters, mapped. */
	__u32 tgid;
	bool registered;
	int inner_fd[SPB_INNER_MAPS];	/* [0]: the counters */
	struct spb_proc *proc;
	size_t proc_bytes;
	/* What the fold saw of each counter, and where it left the ring. */
	struct sb_seen seen;
	uint32_t ring_tail;
	uint32_t half_used;		/* bit k: a set counted in half k */
	uint64_t half;			/* counters per set */
	uint64_t period;		/* ns, or events: event's */
	uint32_t event;			/* SPROFIL_EVENT_* */
	bool percpu;
	/*
	 * Per-thread chains (SPROFIL_THREADS): no inherited counters, each
	 * thread has its own (backend_bpf.c, sb_thread_started()).
	 */
	bool own_counters;
	/*
	 * The program's calling context tree (sp_cnodes), mapped, with its
	 * chunks' flags; cnodes_n 0 when it records no chains.  The tree's
	 * lost and busy counters already added to a caller's table.
	 */
	struct spc_node *cnodes;
	size_t cnodes_bytes;
	uint32_t cnodes_n;
	volatile uint64_t *cdirty;
	size_t cdirty_bytes;
	uint64_t clost_seen, cbusy_seen;
	struct sb_set *set;		/* counting, or NULL when stopped */
	/*
	 * Its unwind tables in the program (backend_bpf_unwind.c): the
	 * map registered, -1 for none; which tables it holds; its bytes.
	 */
	int unwind_fd;
	uint64_t unwind_sig;
	uint64_t unwind_bytes;
	int *fd;			/* perf events, one per thread found */
	pid_t *tid;
	size_t nfd, capacity;
};

extern pthread_mutex_t sb_lock;
extern struct sb_session *sb_sess;		/* loaded, or NULL */
extern atomic_bool sb_on;			/* sb_sess has a set */

/* Adds @n to the bucket at @bucket; returns the increments it lost. */
uint64_t sb_bucket_add(uintptr_t bucket, uint32_t shift, uint64_t n);
/*
 * backend_bpf_counters.c: moves the growth of region @i's counters into
 * its buffer (or to the misses); of every counter of @set; of the
 * counters the program named in its ring since the last pass (the
 * folding thread's, cheaper, not exact: the others are).
 */
void sb_fold_region(struct sb_session *s, struct sb_set *set, uint32_t i);
void sb_fold_counters(struct sb_session *s, struct sb_set *set);
void sb_fold_recent(struct sb_session *s, struct sb_set *set);
/* Samples of @set that fell in no region so far. */
uint64_t sb_misses(struct sb_session *s, struct sb_set *set);
/* Files the misses not yet filed into the overflow bin. */
void sb_fold_misses(struct sb_session *s, struct sb_set *set);
/* Everything @set counted so far into its buffers. */
void sb_fold(struct sb_session *s, struct sb_set *set);
/* Clears what late samples of a retired set left in half @k. */
void sb_clear_half(struct sb_session *s, uint32_t k);
/* Merges what the program's tree counted into @set's caller table. */
void sb_fold_callers(struct sb_session *s, struct sb_set *set);
/* Drops what late samples counted in the tree after the last fold. */
void sb_clear_callers(struct sb_session *s);
/* Chunk flags of a tree of @nodes nodes. */
static inline uint64_t sb_cchunks(uint64_t nodes)
{
	return (nodes + (1u << SPB_CNODE_CHUNK_SHIFT) - 1) >>
	       SPB_CNODE_CHUNK_SHIFT;
}

/*
 * The folding thread: started by the first start, before any counter
 * exists (it then folds the current set every SPROFIL_BPF_FOLD_MS, once
 * woken); its thread id, which the program
 * does not sample (0 before it runs); how stale the buffers may be; and,
 * in a fork child, forgetting the parent's thread.
 */
void sb_start_folder(void);
void sb_wake_folder(void);
uint32_t sb_folder_tid(void);
uint32_t sb_stale_us(void);
void sb_fold_forget(void);

/*
 * The program this process samples with, for the life of the process
 * (fork children keep it): received from the record run's server named
 * in SPROFIL_BPF_SHARE, or else loaded here (backend_bpf_program.c).  0
 * or a negative errno.  Under sb_lock.
 */
int sb_program(const struct spb_program **out);
/* Whether this process has it already (no load needed). */
bool sb_program_ready(void);

/*
 * backend_bpf.c's pieces the probe uses (backend_bpf_probe.c): this
 * process's registration in the program with @half counters per set and
 * a tree of @cnodes nodes, mapped into @s (0 or a negative errno); a raw
 * munmap; and perf_event_open for thread @tid.
 */
struct perf_event_attr;
int sb_load(struct sb_session *s, uint64_t half, uint32_t cnodes);
void sb_unmap(volatile void *p, size_t len);
int sb_perf_event_open(struct perf_event_attr *attr, pid_t tid);

/* backend_bpf_events.c: the events that run the program. */
/* The process the sessions sample and register under. */
pid_t sb_tgid(void);
/* SPROFIL_BPF_EVENTS=cpu: per-CPU events, for measurement. */
bool sb_percpu(void);
/*
 * Whether the program can sample @ev: 0, or -EOPNOTSUPP / perf's errno,
 * with the reason in @why if not NULL.
 */
struct sp_event;
int sb_event_supported(const struct sp_event *ev, char *why, size_t size);
/* Every thread of sb_tgid() covered; or every CPU. */
int sb_cover_all(struct sb_session *s);
int sb_cover_cpus(struct sb_session *s);
/* Thread @tid's counter, attached to @prog_fd and enabled. */
int sb_cover_thread(struct sb_session *s, pid_t tid, int prog_fd);
void sb_uncover_thread(struct sb_session *s, pid_t tid);
ssize_t sb_find_tid(const struct sb_session *s, pid_t tid);
void sb_close_events(struct sb_session *s);

/*
 * backend_bpf_unwind.c: puts the unwind tables of the modules loaded now
 * into the program as @s's (registered) process's, in place of its last
 * set, unless the set is the same: 0 or a negative errno (the chains
 * then stop where frame pointers do).  sb_unwind_close() closes @s's
 * map, whose registration goes with the process's.
 */
int sb_unwind_update(struct sb_session *s);
void sb_unwind_close(struct sb_session *s);

/* sp_backend_bpf.probe (backend_bpf_probe.c). */
int sb_probe(const char **why);

#endif /* LIBSPROFIL_BACKEND_BPF_SESSION_H */
