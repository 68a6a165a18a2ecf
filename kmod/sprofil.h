/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces of sprofil.ko.
 *
 * A session belongs to one mm (one process) and lives from the first
 * START until the mm goes away (exit or exec) or the module is unloaded.
 * It is started by the process itself, or from outside by another one
 * (SPROFIL_TARGET) through an open /dev/sprofil, which then holds it.
 * It holds:
 *  - the region table: the prepared mapping plus the pinned, vmapped user
 *    buffers (the bucket arrays, and the caller table with
 *    SPROFIL_CALLERS), published with RCU so the sampling handler never
 *    waits and a new START replaces the whole set at once;
 *  - one perf task-clock counter per thread, whose overflow handler files
 *    the sampled user PC into the table;
 *  - per-CPU statistics for the status ioctl.
 */
#ifndef SPROFIL_KMOD_H
#define SPROFIL_KMOD_H

#include <linux/mmu_notifier.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <sprofil/callers.h>
#include <sprofil/mapping.h>

/*
 * Every allocation a user triggers is charged to the caller's memory
 * cgroup and fails with ENOMEM at its limit rather than OOM-killing.
 */
#define SPROFIL_GFP	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL)

/* Disjoint user pages [first, first + npages), pinned once and vmapped. */
struct sprofil_run {
	u64 first;		/* user page number */
	unsigned long npages;
	unsigned long pinned;	/* pages pinned so far */
	struct page **pages;	/* into sprofil_table.pages */
	void *vaddr;		/* vmap() of pages */
};

/* One user buffer, inside one run. */
struct sprofil_buffer {
	u64 base;		/* user address */
	u64 size;		/* bytes */
	struct page **pages;	/* into its run's pages */
	unsigned long npages;
	void *buckets;		/* base as mapped by the run's vmap() */
	bool off;		/* no longer the user's writable memory */
};

struct sprofil_unwind;

/* An immutable region set; only buffer[].off changes once published. */
struct sprofil_table {
	struct spm_map map;
	/*
	 * The buffers' owner (the START's caller), charged pinned_vm and
	 * kept by the table's mmgrab, and the sampled mm, whose stacks
	 * chains.c walks: another process's with SPROFIL_TARGET.
	 */
	struct mm_struct *mm;
	struct mm_struct *sampled;
	struct user_struct *user;	/* charged locked_vm, or NULL */
	unsigned long charged;		/* pages charged (pinned_vm, user) */
	struct page **pages;		/* every pinned page, run by run */
	struct sprofil_run *run;
	u32 nruns;
	struct sprofil_buffer overflow;	/* npages == 0 when absent */
	/*
	 * The caller table (npages == 0 without SPROFIL_CALLERS) and the
	 * filer's view of it: its geometry comes from START's arguments and
	 * is never read back from the user's buffer.
	 */
	struct sprofil_buffer callers;
	struct spc_table spc;
	bool per_thread;		/* SPROFIL_THREADS */
	struct sprofil_unwind *unwind;	/* the modules' unwind tables */
	struct sprofil_buffer buffer[];	/* parallel to map.region[] */
};

struct sprofil_stats {
	u64 samples;
	u64 misses;
	u64 saturated;
};

/* A thread whose counter we created (not inherited at clone). */
struct sprofil_thread {
	struct task_struct *task;
	struct perf_event *event;
	atomic64_t child_seen;	/* event->child_count already carried */
};

/* The counters of one START, swapped as a whole: see sampler.c. */
struct sprofil_threads {
	struct xarray xa;		/* tid -> struct sprofil_thread */
	struct perf_event_attr attr;
	/* Periods taken by inherited counters; see leftover.c. */
	atomic64_t inherited_periods;
	/* Exited threads' unsampled CPU time, and its user part: leftover.c */
	atomic64_t carried_ns;
	atomic64_t carried_periods;	/* filed from carried_ns */
	atomic64_t ticks_user;		/* pooled, weighted tick time */
	atomic64_t ticks_system;
};

/* An open /dev/sprofil: the outside session it started (SPROFIL_TARGET). */
struct sprofil_fd {
	struct mutex lock;		/* its START, STOP and STATUS */
	struct sprofil_session *s;	/* with a notifier reference, or NULL */
};

/*
 * What a session's counters count (SPROFIL_EVENT_*: the clock or a
 * software event) and how much of it makes a sample: ns of CPU time for
 * the clock, events for the others.
 */
struct sprofil_sampling {
	u32 event;
	u64 period;
};

struct sprofil_session {
	struct mmu_notifier mn;
	struct hlist_node node;		/* in the sessions hash */
	struct mutex lock;		/* table and threads writers */
	/* The file sampling this mm from outside, else NULL; under lock. */
	const struct sprofil_fd *holder;
	struct sprofil_table __rcu *table;
	struct sprofil_threads __rcu *threads;	/* see sampler.c */
	struct sprofil_sampling sampling;	/* of the live counters */
	struct sprofil_stats __percpu *stats;
	struct delayed_work recheck;	/* see sprofil_table_recheck() */
	struct rcu_head rcu;		/* the hash is walked under RCU */
};

/* table.c */
struct sprofil_table *sprofil_table_create(const struct sprofil_start *args,
					   const struct sprofil_region *in);
void sprofil_table_destroy(struct sprofil_table *t);
void sprofil_table_count(struct sprofil_table *t, u64 pc, u32 n,
			 struct sprofil_stats *stats);
bool sprofil_table_overlaps(struct sprofil_table *t, unsigned long start,
			    unsigned long end);
void sprofil_table_unmap(struct sprofil_table *t, unsigned long start,
			 unsigned long end);
bool sprofil_table_recheck(struct sprofil_table *t, struct mm_struct *mm);
u32 sprofil_table_regions_off(struct sprofil_table *t);
long sprofil_pinned_pages(void);

/* sampler.c */
void sprofil_sampling_of(const struct sprofil_start *args,
			 struct sprofil_sampling *how);
int sprofil_sampler_start(struct sprofil_session *s,
			  const struct sprofil_sampling *how, bool outside);
bool sprofil_sampler_stop(struct sprofil_session *s);
void sprofil_file_samples(struct sprofil_session *s, struct pt_regs *regs,
			  u32 n);

/* chains.c */
u64 sprofil_cost_clock(void);
void sprofil_file_chain(struct sprofil_table *t, struct pt_regs *regs, u32 n,
			u64 t0);

/* unwind.c */
struct sprofil_unwind;
struct sprofil_unwind *sprofil_unwind_create(const struct sprofil_start *args);
void sprofil_unwind_destroy(struct sprofil_unwind *u);
bool sprofil_unwind_covers(const struct sprofil_unwind *u, u64 pc);
int sprofil_unwind_walk(const struct sprofil_unwind *u, u64 pc, u64 sp,
			u64 fp, u32 depth, u64 *chain, u32 *len);

/* leftover.c */
int sprofil_leftover_init(void);
void sprofil_leftover_exit(void);

/* session.c */
int sprofil_start(const struct sprofil_start *args, u64 *period_ns);
int sprofil_stop(void);
int sprofil_status(struct sprofil_status *st);
void sprofil_outside_init(void);
int sprofil_outside_start(struct sprofil_fd *f, const struct sprofil_start *args,
			  u64 *period_ns);
int sprofil_outside_stop(struct sprofil_fd *f);
int sprofil_outside_status(struct sprofil_fd *f, struct sprofil_status *st);
void sprofil_outside_close(struct sprofil_fd *f);
void sprofil_sessions_destroy(void);
int sprofil_session_count(void);
struct sprofil_session *sprofil_session_lookup_rcu(struct mm_struct *mm);

#endif /* SPROFIL_KMOD_H */
