// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The bpf backend: the kernel samples, as with the module, but through a
 * BPF program (bpf/sprofil.bpf.c) on one perf task-clock counter per
 * thread, for machines that load no module and let a privileged user
 * load BPF (CAP_BPF and CAP_PERFMON, or root).
 *
 * The program cannot store into the caller's buffers from its hard-IRQ
 * context, so it counts into a hash of 64-bit counters, one per bucket
 * hit (backend_bpf_counters.c); the fold moves their growth into the
 * buffers, saturating as the module does, on stop, on a new region set,
 * on sprofil_info() and sprofil_flush(), before fork (so the child's
 * copy is complete), before a buffer's memory changes, and at exit.
 * Counters only grow and the fold keeps what it saw, so no sample is
 * lost or counted twice while the program keeps running.  With a caller
 * table, the program also files
 * each sample's call chain into a tree of its own, which the same fold
 * merges into the caller's table (backend_bpf_fold.c, docs/callers.md).
 *
 * Why per-thread task-clock counters (inherit + inherit_thread), not a
 * per-CPU clock filtered by process: they count the process's own CPU
 * time as the module's do, cost nothing on CPUs the process is not
 * running on, need no CPU hotplug handling, and fork children do not
 * inherit them.  The per-CPU way is kept behind SPROFIL_BPF_EVENTS=cpu
 * for bench/bench_lib.c to measure against (bench/RESULTS.md).
 *
 * One program samples every process (backend_bpf_program.c): each
 * session registers its own maps in it under the process's id (its
 * state with two region sets, its counters, its calling context tree),
 * and a new set replaces the old by flipping an index once every thread
 * is covered.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sprofil/events.h>


#include <sprofil.h>
#include <sprofil/mapping.h>

#include "backend.h"
#include "backend_bpf_session.h"
#include "common/settings.h"
#include "sprofil_load.h"

/* 2^27 counters (1 GiB of map) at most; beyond, ENOMEM. */
#define SB_MAX_BUCKETS	(1ull << 27)

/*
 * Recursive: destroying a session unmaps memory, which comes back here
 * through libsprofil's munmap (sb_memory_changing()).
 */
pthread_mutex_t sb_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
struct sb_session *sb_sess;
atomic_bool sb_on;
static struct sprofil_status sb_last;		/* counters of the last set */
static bool sb_exit_hook;
/* Whether the current session is a per-thread one (own_counters). */
static atomic_bool sb_own_counters;

/* Exited threads' unsampled CPU time, ns (sb_thread_exiting()). */
static uint64_t sb_carry_ns;

/* Raw munmap: ours would call back into sb_memory_changing(). */
void sb_unmap(volatile void *p, size_t len)
{
	if (p)
		syscall(SYS_munmap, (void *)p, len);
}

static void sb_set_free(struct sb_set *set)
{
	if (!set)
		return;
	free(set->map.region);
	free(set->map.segment);
	free(set->map.stack);
	free(set->region);
	free(set->cxlate);
	free(set);
}

static void sb_free(struct sb_session *s)
{
	int i;

	if (!s)
		return;
	sb_close_events(s);
	for (i = 0; i < SPB_INNER_MAPS; i++)
		if (s->inner_fd[i] >= 0)
			close(s->inner_fd[i]);
	sb_unwind_close(s);
	/* Not in a fork child: the registration is the parent's. */
	if (s->registered && s->tgid == (__u32)sb_tgid())
		spb_proc_unregister(s->prog, s->tgid);
	sb_unmap(s->proc, s->proc_bytes);
	sb_seen_free(&s->seen);
	sb_unmap(s->cnodes, s->cnodes_bytes);
	sb_unmap(s->cdirty, s->cdirty_bytes);
	sb_set_free(s->set);
	free(s->fd);
	free(s->tid);
	free(s);
}

static void sb_status_of(struct sb_session *s, struct sb_set *set,
			 struct sprofil_status *st)
{
	st->samples = __atomic_load_n(&s->proc->samples[set->k],
				      __ATOMIC_RELAXED);
	st->misses = sb_misses(s, set);
	st->saturated = set->saturated;
}
/*
 * Retires @set, no longer current: everything it counted goes into its
 * buffers and its counters into sb_last.  A sample that read the old
 * index just before the switch may still land in its half afterwards;
 * the half is cleared before its next use.
 */
static void sb_retire(struct sb_session *s, struct sb_set *set)
{
	sb_fold(s, set);
	memset(&sb_last, 0, sizeof(sb_last));
	sb_status_of(s, set, &sb_last);
	sb_set_free(set);
}


/*
 * Retires session @s, whose maps a new session's have just replaced in
 * the program: everything it counted folded, its counters kept, its
 * events closed (unless the new session took them).  Freed by the
 * caller.
 */
static void sb_retire_session(struct sb_session *s)
{
	sb_close_events(s);
	if (s->set)
		sb_retire(s, s->set);
	s->set = NULL;
	s->registered = false;
}

/* Whether @s's events count as a session for @set at @period would. */
static bool sb_same_events(const struct sb_session *s,
			   const struct sb_set *set, uint64_t period,
			   uint32_t event)
{
	return s->period == period && s->event == event &&
	       s->percpu == sb_percpu() &&
	       s->own_counters == set->per_thread;
}

/* Moves @from's events, with the program attached, to @to. */
static void sb_take_events(struct sb_session *to, struct sb_session *from)
{
	free(to->fd);
	free(to->tid);
	to->fd = from->fd;
	to->tid = from->tid;
	to->nfd = from->nfd;
	to->capacity = from->capacity;
	from->fd = NULL;
	from->tid = NULL;
	from->nfd = 0;
	from->capacity = 0;
}

/*
 * SPROFIL_BPF_WALK=stack: chains from bpf_get_stack() instead of the
 * program's own walk, for bench/ to compare (docs/callers.md).
 */
static bool sb_walk_stack(void)
{
	const char *e = sp_setting("SPROFIL_BPF_WALK");

	return e && !strcmp(e, "stack");
}

/*
 * This process's inner maps for the program (sb_program()), with @half
 * counters per set and a calling context tree of @cnodes nodes (0: no
 * chains), mapped into @s; not registered yet (sb_register()).
 */
int sb_load(struct sb_session *s, uint64_t half, uint32_t cnodes)
{
	struct spb_proc_maps m = { 0 };
	int err;

	err = sb_program(&s->prog);
	if (err)
		return err;
	s->half = half;
	err = spb_proc_create(half ? 2 * half : 1, cnodes ? cnodes : 1,
			      cnodes ? sb_cchunks(cnodes) : 1, &m);
	memcpy(s->inner_fd, m.fd, sizeof(s->inner_fd));
	s->proc = m.proc;
	s->proc_bytes = sizeof(*m.proc);
	s->cnodes = m.cnodes;
	s->cnodes_bytes = m.cnodes_bytes;
	s->cdirty = m.cdirty;
	s->cdirty_bytes = m.cdirty_bytes;
	if (err)
		return err;
	s->proc->percpu = s->percpu;
	s->proc->uregs = spe_event(s->event) && spe_event(s->event)->kernel;
	s->proc->half = (uint32_t)half;
	s->cnodes_n = cnodes;
	s->proc->cmask = cnodes ? cnodes - 1 : 0;
	s->proc->cwalk = sb_walk_stack();
	return 0;
}

/*
 * Puts @s's maps in the program as this process's, in place of any
 * other session's: from then on the program counts into them (once
 * their state says so).
 */
static int sb_register(struct sb_session *s)
{
	struct spb_proc_maps m = { .proc = s->proc };
	int err;

	memcpy(m.fd, s->inner_fd, sizeof(m.fd));
	err = spb_proc_register(s->prog, (__u32)sb_tgid(), &m);
	s->tgid = m.tgid;
	s->registered = !err;
	return err;
}

/*
 * The caller table of @set, checked as the module checks it: EINVAL for
 * its geometry, EFAULT when it is not writable memory of the process.
 */
static int sb_set_callers(struct sb_set *set, const struct sp_callers *c)
{
	struct sprofil_region table = { .scale = 2 };
	uint32_t nodes;
	int err;

	if (!c)
		return 0;
	if (!c->table)
		return -EFAULT;
	err = spc_geometry(c->bytes, c->depth, &nodes);
	if (err)
		return err;
	table.base = (uintptr_t)c->table;
	table.size = spc_table_bytes(nodes);
	err = sp_check_buffers(&table, 1);
	if (err)
		return err;
	set->cxlate = calloc(nodes, sizeof(*set->cxlate));
	if (!set->cxlate)
		return -ENOMEM;
	set->callers.hdr = c->table;
	set->callers.node = (struct spc_node *)(set->callers.hdr + 1);
	set->callers.mask = nodes - 1;
	set->callers.depth = c->depth;
	return 0;
}

/* Nodes of @set's caller table, 0 without one. */
static uint32_t sb_set_cnodes(const struct sb_set *set)
{
	return set->callers.hdr ? set->callers.mask + 1 : 0;
}

/*
 * A region set for @n entries and the caller table @callers (or NULL),
 * validated, not yet in any session.
 */
static int sb_set_new(const struct sprofil_region *r, unsigned int n,
		      unsigned int flags, const struct sp_callers *callers,
		      struct sb_set **out)
{
	struct sb_set *set = calloc(1, sizeof(*set));
	struct spm_map *m;
	uint64_t nbuckets = 0;
	uint32_t i;
	int err = -ENOMEM;

	if (!set)
		return -ENOMEM;
	m = &set->map;
	/* One spare entry, so that n == 0 asks malloc for something. */
	m->region = malloc((n + 1) * sizeof(*m->region));
	m->segment = malloc((SPM_MAX_SEGMENTS(n) + 1) * sizeof(*m->segment));
	m->stack = malloc((n + 1) * sizeof(*m->stack));
	set->region = calloc(n + 1, sizeof(*set->region));
	if (!m->region || !m->segment || !m->stack || !set->region)
		goto fail;
	err = spm_prepare(m, r, n, flags);
	if (err)
		goto fail;
	for (i = 0; i < m->nregions; i++) {
		set->region[i].base = (uintptr_t)r[m->region[i].id].base;
		set->region[i].size = r[m->region[i].id].size;
		set->region[i].nbuckets = m->region[i].nbuckets;
		set->region[i].first = (uint32_t)nbuckets;
		nbuckets += m->region[i].nbuckets;
		if (nbuckets > SB_MAX_BUCKETS) {
			err = -ENOMEM;
			goto fail;
		}
	}
	set->nbuckets = nbuckets;
	if (m->overflow >= 0)
		set->overflow = (uintptr_t)r[m->overflow].base;
	err = sp_check_buffers(r, n);
	if (!err)
		err = sb_set_callers(set, callers);
	if (err)
		goto fail;
	set->per_thread = callers && (flags & SPROFIL_THREADS);
	*out = set;
	return 0;
fail:
	sb_set_free(set);
	return err;
}

/*
 * Makes @set the one counting in @s: written into the program's idle set,
 * whose half of the counters and totals are cleared first, then switched
 * to between two samples.  The set it replaces is retired.
 */
static void sb_install(struct sb_session *s, struct sb_set *set)
{
	struct spb_proc *proc = s->proc;
	struct sb_set *old = s->set;
	uint32_t k = old ? old->k ^ 1 : 0, i;

	set->k = k;
	/* A half no set counted in yet holds nothing to clear. */
	if (s->half_used & (1u << k))
		sb_clear_half(s, k);
	s->half_used |= 1u << k;
	if (!old)
		sb_clear_callers(s);
	/*
	 * Same caller table: the nodes already merged need not be found
	 * again.  The old set's last fold, in sb_retire(), merges without.
	 */
	if (old && old->callers.hdr == set->callers.hdr && old->cxlate &&
	    sb_set_cnodes(old) == sb_set_cnodes(set)) {
		free(set->cxlate);
		set->cxlate = old->cxlate;
		old->cxlate = NULL;
	}
	__atomic_store_n(&proc->cthreads, set->per_thread, __ATOMIC_SEQ_CST);
	__atomic_store_n(&proc->cdepth,
			 set->callers.hdr ? set->callers.depth : 0,
			 __ATOMIC_SEQ_CST);
	__atomic_store_n(&proc->samples[k], 0, __ATOMIC_RELAXED);
	__atomic_store_n(&proc->misses[k], 0, __ATOMIC_RELAXED);
	spb_set_regions(s->proc, k, &set->map);
	for (i = 0; i < set->map.nregions; i++)
		proc->set[k].first[i] = set->region[i].first;
	__atomic_store_n(&proc->cur, k, __ATOMIC_SEQ_CST);
	__atomic_store_n(&proc->on, 1, __ATOMIC_SEQ_CST);
	s->set = set;
	if (old)
		sb_retire(s, old);
}

/*
 * A loaded program for @period, with room for @nbuckets per set and a
 * calling context tree of @cnodes nodes.
 */
static int sb_session_new(uint64_t period, uint32_t event,
			  uint64_t nbuckets, uint32_t cnodes,
			  struct sb_session **out)
{
	struct sb_session *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	memset(s->inner_fd, -1, sizeof(s->inner_fd));
	s->unwind_fd = -1;
	s->period = period;
	s->event = event;
	s->percpu = sb_percpu();
	err = sb_load(s, nbuckets, cnodes);
	if (err) {
		sb_free(s);
		return err;
	}
	*out = s;
	return 0;
}

/* Whether @s can count @set at @period without a new program. */
static bool sb_fits(const struct sb_session *s, const struct sb_set *set,
		    uint64_t period, uint32_t event)
{
	return s && s->period == period && s->event == event &&
	       s->percpu == sb_percpu() &&
	       s->own_counters == set->per_thread &&
	       set->nbuckets <= s->half &&
	       (!set->callers.hdr || s->cnodes_n == sb_set_cnodes(set));
}

/* Gives every thread (or CPU) of the process an event with the program. */
static int sb_cover(struct sb_session *s)
{
	return s->percpu ? sb_cover_cpus(s) : sb_cover_all(s);
}

static int bpf_flush(void)
{
	pthread_mutex_lock(&sb_lock);
	if (sb_sess && sb_sess->set)
		sb_fold(sb_sess, sb_sess->set);
	pthread_mutex_unlock(&sb_lock);
	return 0;
}

/* Whatever is pending goes into the buffers before the process ends. */
static void sb_at_exit(void)
{
	bpf_flush();
}


/*
 * Where the program files the profiler's own work (sp_own_pc): a pc of
 * libsprofil's text, so that the analyzer counts it as its overhead
 * whatever code ran (libbpf, libelf, libc), as it counts its own code's;
 * 0, when that text is in none of @set's regions, leaves it out
 * (sprofil() of the program's text alone: no miss for the program).
 */
static __attribute__((noinline)) void sb_own_work(void)
{
	__asm__ volatile("");
}

static uint64_t sb_own_pc(const struct sb_set *set)
{
	uint64_t pc = (uintptr_t)&sb_own_work;

	/* From outside, our text is none of the target's. */
	if (sp_target())
		return 0;
	return spm_lookup(&set->map, pc) < 0 ? 0 : pc;
}

/*
 * The unwind tables for a start with chains; without them (a map the
 * kernel refuses) the chains stop where frame pointers do, as before,
 * which is said once.
 */
static void sb_unwind_start(struct sb_session *s)
{
	static bool said;
	int err = sb_unwind_update(s);

	if (err && !said) {
		said = true;
		fprintf(stderr, "libsprofil: bpf: the unwind tables cannot go into the program: %s; chains stop where frame pointers do\n",
			strerror(-err));
	}
}

/*
 * Makes new session @s (its maps created) this process's in the program
 * in place of @old (or none), for @set at @period.  There is one
 * registration per process, so the old session stops counting first:
 * its events go over to the new one when they count the same way (a
 * bigger set, a new tree), after a switch between two samples;
 * otherwise the threads get new events while neither session counts,
 * and the old events are closed before the new set counts, so that no
 * period is counted twice.  On failure the old session counts again.
 */
static int sb_switch(struct sb_session *old, struct sb_session *s,
		     const struct sb_set *set, uint64_t period)
{
	bool take = old && old->nfd &&
		    sb_same_events(old, set, period, s->event);
	int err = 0;

	s->own_counters = set->per_thread;
	if (old)
		__atomic_store_n(&old->proc->on, 0, __ATOMIC_SEQ_CST);
	if (take)
		sb_take_events(s, old);
	else
		err = sb_cover(s);
	if (!err)
		err = sb_register(s);
	if (err) {
		if (take)
			sb_take_events(old, s);
		sb_close_events(s);
		if (old && old->set)
			__atomic_store_n(&old->proc->on, 1, __ATOMIC_SEQ_CST);
		return err;
	}
	if (old) {
		sb_retire_session(old);
		sb_free(old);
		sb_sess = NULL;
		atomic_store(&sb_on, false);
	}
	return 0;
}

/*
 * A new region set goes into the loaded program when it fits (same
 * period, room in a half): no reload, no new events, the switch between
 * two samples.  Otherwise a new program, sized with room to spare, gets
 * its own events before the old one is ended.
 */
static int bpf_start(const struct sprofil_region *r, unsigned int n,
		     unsigned int flags, uint64_t *period_ns,
		     const struct sp_callers *callers,
		     const struct sp_event *ev)
{
	struct sb_session *s = NULL, *old;
	struct sb_set *set;
	uint64_t period;
	int err;

	err = sb_event_supported(ev, NULL, 0);
	if (err)
		return err;
	if (sp_event_counted(ev))
		period = ev->period;
	else
		err = sp_period_ns(flags, *period_ns, &period);
	if (err)
		return err;
	err = sb_set_new(r, n, flags, callers, &set);
	if (err)
		return err;
	pthread_mutex_lock(&sb_lock);
	if (!sb_exit_hook && !atexit(sb_at_exit))
		sb_exit_hook = true;
	/*
	 * Before any counter exists, so that it gets one of its own below:
	 * a thread inheriting the counter of one that has its own makes
	 * their perf contexts clones, which perf swaps at context switches,
	 * and the sampled thread would then carry the inherited counter
	 * that the program keeps silent for it.
	 */
	if (!sb_sess || !sb_sess->nfd)
		sb_start_folder();
	old = sb_sess;
	/* A new session's set-up, below, is the profiler's work. */
	if (old)
		old->proc->busy_tid = (uint32_t)syscall(SYS_gettid);
	if (sb_fits(old, set, period, ev->type)) {
		s = old;
		if (!s->nfd)
			err = sb_cover(s);
	} else {
		uint64_t room = set->nbuckets;

		/* Modules come and go: leave room for a few more. */
		if (old && old->half > room / 2)
			room = old->half * 2 < SB_MAX_BUCKETS ?
			       old->half * 2 : SB_MAX_BUCKETS;
		if (room < set->nbuckets)
			room = set->nbuckets;
		err = sb_session_new(period, ev->type, room,
				     sb_set_cnodes(set), &s);
		if (!err)
			err = sb_switch(old, s, set, period);
	}
	/* Unless a new session replaced it (and it is gone). */
	if (old && sb_sess == old)
		old->proc->busy_tid = 0;
	if (err) {
		if (s && s != old)
			sb_free(s);
		else if (s && !s->set)
			sb_close_events(s);
		pthread_mutex_unlock(&sb_lock);
		sb_set_free(set);
		return err;
	}
	s->proc->quiet_tid = sb_folder_tid();
	s->proc->own_pc = sb_own_pc(set);
	if (set->callers.hdr)
		sb_unwind_start(s);
	sb_install(s, set);
	sb_sess = s;
	atomic_store(&sb_own_counters, s->own_counters);
	atomic_store(&sb_on, true);
	sb_wake_folder();
	pthread_mutex_unlock(&sb_lock);
	*period_ns = period;
	return 0;
}

/* Stops counting; the program stays loaded for the next start. */
static int bpf_stop(void)
{
	struct sb_session *s;

	pthread_mutex_lock(&sb_lock);
	s = sb_sess;
	if (s && s->set) {
		s->proc->on = 0;
		sb_close_events(s);
		atomic_store(&sb_on, false);
		sb_retire(s, s->set);
		s->set = NULL;
	}
	pthread_mutex_unlock(&sb_lock);
	return 0;
}

static int bpf_status(struct sprofil_status *st)
{
	struct sb_session *s;
	struct sb_set *set;
	uint32_t i;

	pthread_mutex_lock(&sb_lock);
	s = sb_sess;
	set = s ? s->set : NULL;
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	if (set) {
		sb_fold(s, set);
		sb_status_of(s, set, st);
		st->state = SPROFIL_STATE_ENABLED;
		st->period_ns = s->period;
		st->nregions = set->map.nregions;
		for (i = 0; i < set->map.nregions; i++)
			st->regions_off += set->region[i].off;
	} else {
		st->samples = sb_last.samples;
		st->misses = sb_last.misses;
		st->saturated = sb_last.saturated;
	}
	pthread_mutex_unlock(&sb_lock);
	return 0;
}

/*
 * In a fork child the counters belong to the parent: the counter array is
 * a shared mapping of the parent's map and the events count the parent's
 * threads.  Only our copies go: no fold, no disabling (closing a copy of
 * an fd leaves the parent's event alone).
 */
static void bpf_forget(void)
{
	struct sb_session *s = sb_sess;
	pthread_mutex_t fresh = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;


	sb_sess = NULL;
	atomic_store(&sb_on, false);
	sb_lock = fresh;
	sb_fold_forget();
	sb_carry_ns = 0;
	memset(&sb_last, 0, sizeof(sb_last));
	sb_free(s);
}

static bool sb_overlaps(uintptr_t a, uint64_t alen, uintptr_t b,
			uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

/*
 * [start, start + len) is about to be unmapped, made read-only or
 * dropped: what its regions counted goes in while it still can, then
 * they are turned off (their later samples count as misses), as the
 * module's mmu notifier does.
 */
static void sb_memory_changing(uintptr_t start, size_t len)
{
	struct sb_set *set;
	uint32_t i;

	if (!atomic_load(&sb_on))
		return;
	pthread_mutex_lock(&sb_lock);
	set = sb_sess ? sb_sess->set : NULL;
	for (i = 0; set && i < set->map.nregions; i++) {
		if (set->region[i].off || !sb_overlaps(start, len,
						       set->region[i].base,
						       set->region[i].size))
			continue;
		sb_fold_region(sb_sess, set, i);
		set->region[i].off = true;
	}
	if (set && set->overflow && !set->overflow_off &&
	    sb_overlaps(start, len, set->overflow, 1u << set->map.shift)) {
		sb_fold_misses(sb_sess, set);
		set->overflow_off = true;
	}
	/* The caller table going away: its chains stop being recorded. */
	if (set && set->callers.hdr &&
	    sb_overlaps(start, len, (uintptr_t)set->callers.hdr,
			spc_table_bytes(sb_set_cnodes(set)))) {
		sb_fold_callers(sb_sess, set);
		__atomic_store_n(&sb_sess->proc->cdepth, 0,
				 __ATOMIC_SEQ_CST);
		set->callers.hdr = NULL;
	}
	pthread_mutex_unlock(&sb_lock);
}

/*
 * Files @n samples at @pc into @set from userland, as the program would:
 * the counter of its bucket and the chunk's flag, or the misses.
 */
static void sb_file(struct sb_session *s, struct sb_set *set, uint64_t pc,
		    uint64_t n)
{
	struct spb_proc *proc = s->proc;
	long r = spm_lookup(&set->map, pc);

	__atomic_fetch_add(&proc->samples[set->k], n, __ATOMIC_RELAXED);
	/* Its chain is unknown: filed as cut, at its start routine. */
	if (set->callers.hdr) {
		__u64 chain = pc;

		spc_file(&set->callers, &chain, 1, 1, (uint32_t)n,
			 set->per_thread ?
			 spc_thread_pc((__u32)syscall(SYS_gettid)) : 0);
	}
	if (r < 0) {
		__atomic_fetch_add(&proc->misses[set->k], n,
				   __ATOMIC_RELAXED);
		return;
	}
	/* Straight into the bucket: the counters are the program's. */
	if (set->region[r].off)
		set->misses_off += n;
	else
		set->saturated += sb_bucket_add(set->region[r].base +
			(spm_region_bucket(&set->map, &set->map.region[r], pc)
			 << set->map.shift), set->map.shift, n);
}

/*
 * The calling thread's CPU time when its start routine was entered, after
 * the set-up of its sampling (sb_thread_started()); 0 if unknown.
 */
static __thread uint64_t sb_routine_ns;

/*
 * A default session's new thread counts on the counter it inherited, in
 * a perf event context that is a clone of its creator's, and perf swaps
 * clone contexts whole at a switch between their threads
 * (perf_event_context_sched_out()).  The counters then change threads:
 * totals stay exact, but a thread's unfinished period goes on in another
 * thread, so the carry of a short thread's exit (its CPU time modulo the
 * period) was counted twice (1,500 threads of 1 ms sampled at 1.10 of
 * the process's CPU time on a busy host) and four threads' shares were
 * up to 1.9 points off.  Opening any event on the thread makes its
 * context its own for good (find_get_context() unclones it): a dummy
 * event, opened and closed at once, before the start routine.  A thread
 * made by a raw clone() keeps its clone context: it is still sampled.
 */
static void sb_unclone_context(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	int fd = sb_perf_event_open(&attr, 0);

	if (fd >= 0)
		close(fd);
}

/*
 * Per-thread chains need each sample's periods to be its thread's.  A
 * counter inherited by a new thread makes the two threads' perf contexts
 * clones, which perf swaps whole at a switch between them
 * (perf_event_context_sched_out()) instead of switching counters: the
 * counters then change threads, for good, and one thread's periods were
 * credited to another (a share of four threads 9 % off, one thread
 * counted twice once threads also had counters of their own).  So a
 * per-thread session inherits no counter: each thread the program makes
 * with pthread_create gets its own here, before its start routine; a
 * thread made by a raw clone() is not sampled (docs/backends.md).
 */
static void sb_thread_started(void)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);
	struct sb_session *s;

	if (!atomic_load(&sb_on))
		return;
	if (!atomic_load(&sb_own_counters)) {
		/* A default session: no lock on every thread's start. */
		sb_unclone_context();
	} else {
		pthread_mutex_lock(&sb_lock);
		s = sb_sess;
		if (s && s->set && s->own_counters &&
		    sb_find_tid(s, tid) < 0)
			sb_cover_thread(s, tid,
				s->prog->fd[SPB_FD_SAMPLE]);
		pthread_mutex_unlock(&sb_lock);
	}
	/* Last: what follows is the thread's own work. */
	sb_routine_ns = sp_own_cpu_ns();
}

/*
 * Its unfinished period: its CPU time modulo the period (its inherited
 * counter started with it).
 */
static void sb_thread_exiting(uintptr_t pc)
{
	struct sb_session *s;
	uint64_t ns, before, n;

	if (!atomic_load(&sb_on))
		return;
	ns = sp_own_cpu_ns();
	if (!ns)
		return;
	pthread_mutex_lock(&sb_lock);
	s = sb_sess;
	if (s && s->own_counters)
		sb_uncover_thread(s, (pid_t)syscall(SYS_gettid));
	/*
	 * Per-CPU clocks sample wall time: nothing is left at an exit; nor
	 * is a counted event's unfinished period an event.
	 */
	if (s && s->set && !s->percpu && s->event == SPROFIL_EVENT_CPU_CLOCK) {
		before = sb_carry_ns;
		sb_carry_ns += sp_unfinished_ns(ns, ns % s->period,
						sb_routine_ns);
		n = sb_carry_ns / s->period - before / s->period;
		if (n)
			sb_file(s, s->set, pc, n);
	}
	pthread_mutex_unlock(&sb_lock);
}

const struct sp_backend sp_backend_bpf = {
	.name = "bpf",
	.probe = sb_probe,
	.start = bpf_start,
	.stop = bpf_stop,
	.status = bpf_status,
	.flush = bpf_flush,
	.forget = bpf_forget,
	.stale_us = sb_stale_us,
	.thread_started = sb_thread_started,
	.thread_exiting = sb_thread_exiting,
	.memory_changing = sb_memory_changing,
};
