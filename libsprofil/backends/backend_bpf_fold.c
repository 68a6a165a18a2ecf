// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The bpf backend's fold: moves what the BPF program counted into the
 * caller's buffers (the buckets through backend_bpf_counters.c, the
 * misses, the calling context tree), saturating as the module does; and
 * the thread that does so every SPROFIL_BPF_FOLD_MS, so that the
 * buffers are near-live (docs/backends.md).  Called with sb_lock held, except the thread, which
 * takes it.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sprofil.h>

#include "backend_bpf_session.h"
#include "bucket.h"
#include "common/own_threads.h"
#include "common/settings.h"

/* Default interval of the folding thread (SPROFIL_BPF_FOLD_MS). */
#define SB_FOLD_MS	20

/*
 * Adds @n to the bucket at @bucket; returns the increments it lost.
 * Atomically: a SPROFIL_SIGDUMP dump takes the counts meanwhile (bucket.h).
 */
uint64_t sb_bucket_add(uintptr_t bucket, uint32_t shift, uint64_t n)
{
	uint32_t max = spm_bucket_max(shift);

	if (n > max)
		return n - max + sp_bucket_add(bucket, shift, max);
	return sp_bucket_add(bucket, shift, (uint32_t)n);
}

/*
 * The program's misses, and the samples whose bucket found no room in
 * the process's counters (sprofil.bpf.c): in no bucket either.
 */
uint64_t sb_misses(struct sb_session *s, struct sb_set *set)
{
	return __atomic_load_n(&s->proc->misses[set->k], __ATOMIC_RELAXED) +
	       __atomic_load_n(&s->proc->lost[set->k], __ATOMIC_RELAXED) +
	       set->misses_off;
}

/* Files the misses not yet filed into the overflow bin. */
void sb_fold_misses(struct sb_session *s, struct sb_set *set)
{
	uint64_t misses = sb_misses(s, set);

	if (set->overflow && !set->overflow_off)
		set->saturated += sb_bucket_add(set->overflow, set->map.shift,
						misses - set->misses_filed);
	set->misses_filed = misses;
}

void sb_fold(struct sb_session *s, struct sb_set *set)
{
	sb_fold_counters(s, set);
	sb_fold_misses(s, set);
	sb_fold_callers(s, set);
}

/*
 * Takes the count of every counted node of the tree in a flagged chunk
 * with an atomic exchange and merges it with @m (NULL: drops it).  A
 * sample filed meanwhile stays for the next pass, whose flag it sets
 * again: the flag is cleared before the counts are read.
 */
static void sb_take_cnodes(struct sb_session *s, const struct spc_merge *m)
{
	uint64_t chunk, nchunks = sb_cchunks(s->cnodes_n);
	uint32_t i, end, n;

	for (chunk = 0; chunk < nchunks; chunk++) {
		/* Acquire: the counts are read after their flag. */
		if (!__atomic_load_n(&s->cdirty[chunk], __ATOMIC_ACQUIRE))
			continue;
		__atomic_store_n(&s->cdirty[chunk], 0, __ATOMIC_SEQ_CST);
		i = (uint32_t)(chunk << SPB_CNODE_CHUNK_SHIFT);
		end = i + (1u << SPB_CNODE_CHUNK_SHIFT);
		for (; i < end && i < s->cnodes_n; i++) {
			if (!__atomic_load_n(&s->cnodes[i].count,
					     __ATOMIC_RELAXED))
				continue;
			n = __atomic_exchange_n(&s->cnodes[i].count, 0,
						__ATOMIC_ACQ_REL);
			if (m)
				spc_merge_node(m, i, n);
		}
	}
}

/*
 * The tree's lost and busy counters grow by atomic adds in the program:
 * what they gained since the last fold goes to @hdr (NULL: dropped).
 */
static void sb_take_ccounters(struct sb_session *s, struct spc_header *hdr)
{
	struct spc_header *ch = &s->proc->chdr;
	uint64_t lost = __atomic_load_n(&ch->lost, __ATOMIC_RELAXED);
	uint64_t busy = __atomic_load_n(&ch->busy, __ATOMIC_RELAXED);

	if (hdr) {
		spc_add64(&hdr->lost, lost - s->clost_seen);
		spc_add64(&hdr->busy, busy - s->cbusy_seen);
	}
	s->clost_seen = lost;
	s->cbusy_seen = busy;
}

void sb_fold_callers(struct sb_session *s, struct sb_set *set)
{
	struct spc_merge m = {
		.dst = &set->callers,
		.src = s->cnodes,
		.src_mask = s->cnodes_n - 1,
		.xlate = set->cxlate,
	};

	if (!set->callers.hdr || !s->cnodes_n)
		return;
	sb_take_cnodes(s, &m);
	sb_take_ccounters(s, set->callers.hdr);
}

/*
 * Before a set starts with no set counting: a sample that passed the
 * program's checks as the last set stopped may have counted after its
 * last fold.  It belonged to no running profile; it goes, as late
 * bucket counts go in sb_clear_half().
 */
void sb_clear_callers(struct sb_session *s)
{
	if (!s->cnodes_n)
		return;
	sb_take_cnodes(s, NULL);
	sb_take_ccounters(s, NULL);
}


/*
 * The folding thread: wakes every sb_fold_ms while a set counts, and
 * sleeps on sb_wake otherwise.  sb_fold_ms 0: no thread, folds on demand.
 */
static pthread_cond_t sb_wake = PTHREAD_COND_INITIALIZER;
static bool sb_folder;
static unsigned int sb_fold_ms = UINT32_MAX;	/* not read yet */
static uint32_t sb_fold_tid;

/* SPROFIL_BPF_FOLD_MS, once: a number of ms, 0 for no folding thread. */
static unsigned int sb_fold_interval(void)
{
	const char *env;
	char *end;
	unsigned long v;

	if (sb_fold_ms != UINT32_MAX)
		return sb_fold_ms;
	sb_fold_ms = SB_FOLD_MS;
	env = sp_setting("SPROFIL_BPF_FOLD_MS");
	if (env && *env) {
		errno = 0;
		v = strtoul(env, &end, 10);
		if (!errno && !*end && v <= 60000)
			sb_fold_ms = (unsigned int)v;
		else
			fprintf(stderr, "libsprofil: SPROFIL_BPF_FOLD_MS=%s is not a number of ms up to 60000; using %u\n",
				env, SB_FOLD_MS);
	}
	return sb_fold_ms;
}

/*
 * Folds the current set every sb_fold_ms, so that a program reading its
 * buffers as glibc's profil() lets it sees them at most that late.  Its
 * own CPU time is not sampled (sp_quiet_tid).
 */
static void *sb_fold_loop(void *unused)
{
	struct timespec at;

	(void)unused;
	pthread_mutex_lock(&sb_lock);
	sb_fold_tid = (uint32_t)gettid();
	if (sb_sess)
		sb_sess->proc->quiet_tid = sb_fold_tid;
	for (;;) {
		if (!sb_sess || !sb_sess->set) {
			pthread_cond_wait(&sb_wake, &sb_lock);
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &at);
		at.tv_nsec += (long)sb_fold_ms * 1000000;
		at.tv_sec += at.tv_nsec / 1000000000;
		at.tv_nsec %= 1000000000;
		pthread_cond_timedwait(&sb_wake, &sb_lock, &at);
		if (sb_sess && sb_sess->set) {
			sb_fold_recent(sb_sess, sb_sess->set);
			sb_fold_misses(sb_sess, sb_sess->set);
			sb_fold_callers(sb_sess, sb_sess->set);
		}
	}
	return NULL;
}

/*
 * Starts the folding thread once per process (under sb_lock), with every
 * signal blocked: the application's signals are not for it.  Without it
 * the buffers are folded on demand only, as sprofil_info() then says.
 *
 * Created detached rather than detached afterwards: nobody joins it, and
 * in a fork child (sp_front_fork_child() starts it there) glibc may give
 * it the stack, hence the pthread_t, of one of the parent's threads,
 * which ThreadSanitizer (gcc 12's) still counts as running until the
 * fork returns: its pthread_detach() then aborts the child with "dup
 * thread with used id" (docs/stress.md).
 */
void sb_start_folder(void)
{
	pthread_condattr_t ca;
	pthread_attr_t attr;
	sigset_t all, old;

	if (sb_folder || !sb_fold_interval())
		return;
	if (pthread_condattr_init(&ca) ||
	    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) ||
	    pthread_cond_init(&sb_wake, &ca))
		return;
	pthread_condattr_destroy(&ca);
	if (pthread_attr_init(&attr))
		return;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	/*
	 * Not waited for: a session may start in a fork child (own_threads.h);
	 * the thread names itself as it starts folding.
	 */
	if (!sp_own_thread_create(&attr, sb_fold_loop, NULL, "fold", false))
		sb_folder = true;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
}

uint32_t sb_stale_us(void)
{
	uint32_t us;

	pthread_mutex_lock(&sb_lock);
	/* Before the first start: what it will be. */
	if (sb_folder || (!atomic_load(&sb_on) && sb_fold_interval()))
		us = sb_fold_interval() * 1000;
	else
		us = SPROFIL_STALE_ON_DEMAND;
	pthread_mutex_unlock(&sb_lock);
	return us;
}

/* A set was installed: the thread, if waiting for one, starts folding. */
void sb_wake_folder(void)
{
	pthread_cond_signal(&sb_wake);
}

uint32_t sb_folder_tid(void)
{
	return sb_fold_tid;
}

/* In a fork child: the folding thread is the parent's; ours comes later. */
void sb_fold_forget(void)
{
	pthread_cond_t fresh = PTHREAD_COND_INITIALIZER;

	sb_wake = fresh;
	sb_folder = false;
	sb_fold_tid = 0;
}
