// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The unprivileged backend: every thread of the process has a clock of its
 * own CPU time that sends it a real-time signal once per period; the
 * handler files the interrupted PC with the shared mapping, exactly as
 * kmod/table.c does.
 *
 * The clock is a perf task-clock counter (user mode only) when the kernel
 * lets the process monitor itself (perf_event_paranoid <= 2), with its
 * overflow delivered as our signal to the thread it counts (O_ASYNC,
 * F_SETSIG, F_SETOWN_EX F_OWNER_TID): an hrtimer, so it samples at the
 * rate asked.  Otherwise, or with SPROFIL_SIGNAL_TIMER=itimer, it is a
 * POSIX timer on the thread's CPU-time clock, which the kernel expires
 * only on its tick: the period is then raised to one tick, and reported
 * so, rather than crediting the periods it cannot see to one PC.
 *
 * Another event (sprofil_event(), SPROFIL_EVENT) is a perf counter of
 * that event per thread, its overflows sent the same way: a page fault
 * is charged to the faulting instruction (user mode only, the regs of a
 * user fault being the user's).  Without perf counters on itself there
 * is no such event: the start fails, it never samples CPU time instead.
 * An event of kernel mode is refused (sp_event_signalled()): a context
 * switch's signal wakes the sleeping thread, which sleeps again, a
 * switch per sample: a run of 10 sleeps was counted 20,000 switches.
 *
 * Why per-thread timers: a process-wide ITIMER_PROF coalesces the
 * expirations of several busy threads into one pending SIGPROF and loses
 * samples.  Why not SIGPROF: the application may use SIGPROF and
 * ITIMER_PROF itself.  Why a real-time signal: each timer queues its own
 * signal and reports the periods it missed in si_overrun, which we credit.
 *
 * The handler takes no lock and allocates nothing.  It counts itself in
 * sp_inflight while it may touch a map; whoever unpublishes a map waits for
 * that count to drop to zero before freeing it or returning, so once
 * sprofil() returns no handler writes into the previous buffers.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include <sprofil/callers.h>
#include <sprofil/events.h>
#include <sprofil/mapping.h>

#include "backend.h"
#include "bucket.h"
#include "common/settings.h"
#include "signal_internal.h"
#include "unwind_load.h"

/* Perf event descriptors the handler can recognize: 0 .. SP_MAX_FD - 1. */
#define SP_MAX_FD	65536

/* A prepared region set with its counters, as published to the handler. */
struct sp_map {
	struct spm_map map;
	uintptr_t *base;		/* bucket array of each map region */
	uint64_t *size;			/* and its size in bytes */
	_Atomic bool *off;		/* its memory is going away */
	uintptr_t overflow;		/* overflow bin's bucket, or 0 */
	_Atomic bool overflow_off;
	_Atomic uint64_t samples;
	_Atomic uint64_t misses;
	_Atomic uint64_t saturated;
	/* The caller table (hdr NULL: no chains), its own view of it. */
	struct spc_table callers;
	bool per_thread;		/* SPROFIL_THREADS */
	uint64_t callers_bytes;
	_Atomic bool callers_off;	/* its memory is going away */
};

/* How threads are clocked, chosen at the first start. */
enum sp_clock { SP_CLOCK_UNSET, SP_CLOCK_PERF, SP_CLOCK_TIMER };

struct sp_thread {
	pid_t tid;
	int fd;				/* perf event, or -1 */
	timer_t timer;			/* else its POSIX timer */
	/*
	 * Its CPU time (sp_thread_cpu_ns()) when its start routine was
	 * entered, or 0: its set-up before that is the library's.
	 */
	uint64_t routine_ns;
};

/*
 * Tags our timers' signals, so that the handler recognizes even those of a
 * timer deleted while its signal was queued.
 */
static char sp_cookie;

static _Atomic(struct sp_map *) sp_map;
static atomic_uint sp_inflight;
/* Process whose timers these are, 0 when stopped (tells a vfork child). */
static atomic_int sp_pid;
/* Which descriptors are our perf events, for the handler. */
static _Atomic bool sp_fd_ours[SP_MAX_FD];
/*
 * CPU time that exited threads ran since their last sample, in ns, summed
 * over the life of the process: each multiple of the period it passes is
 * one sample (sp_credit_exit()).
 */
static _Atomic uint64_t sp_carry_ns;

/* Everything below is under sp_lock. */
static pthread_mutex_t sp_lock = PTHREAD_MUTEX_INITIALIZER;
static int sp_signo;
static enum sp_clock sp_clock;
static struct sigaction sp_prev;	/* handler we replaced */
static bool sp_running;
/* In ns for the clock, in events for a counted event. */
static uint64_t sp_period;
static struct sp_event sp_ev;		/* what the counters count */
static struct sp_thread *sp_threads;
static size_t sp_nthreads, sp_capacity;
static struct sprofil_status sp_last;	/* counters of the last session */

static void sp_chain(int sig, siginfo_t *si, void *uc)
{
	if (sp_prev.sa_flags & SA_SIGINFO)
		sp_prev.sa_sigaction(sig, si, uc);
	else if (sp_prev.sa_handler != SIG_DFL &&
		 sp_prev.sa_handler != SIG_IGN)
		sp_prev.sa_handler(sig);
}

/* kmod/table.c sprofil_table_count(). */
static void sp_count(struct sp_map *m, __u64 pc, __u32 n)
{
	uintptr_t bucket = 0;
	long r = spm_lookup(&m->map, pc);
	__u32 lost;

	atomic_fetch_add_explicit(&m->samples, n, memory_order_relaxed);
	if (r >= 0 && !atomic_load_explicit(&m->off[r], memory_order_relaxed)) {
		bucket = m->base[r] + (spm_region_bucket(&m->map,
							 &m->map.region[r], pc)
				       << m->map.shift);
	} else {
		atomic_fetch_add_explicit(&m->misses, n, memory_order_relaxed);
		if (!atomic_load_explicit(&m->overflow_off,
					  memory_order_relaxed))
			bucket = m->overflow;
	}
	if (!bucket)
		return;
	lost = sp_bucket_add(bucket, m->map.shift, n);
	atomic_fetch_add_explicit(&m->saturated, lost, memory_order_relaxed);
}

/*
 * Files @n samples at @pc into the published map, if any, and their
 * chain, walked from @uc (NULL: unknown), into its caller table.
 */
static void sp_file(__u64 pc, __u32 n, const ucontext_t *uc)
{
	struct sp_map *m;

	/*
	 * Sequentially consistent, with the store of sp_map in sp_publish():
	 * either we see the new map, or the publisher sees us in flight.
	 */
	atomic_fetch_add(&sp_inflight, 1);
	m = atomic_load(&sp_map);
	if (m) {
		sp_count(m, pc, n);
		if (m->callers.hdr &&
		    !atomic_load_explicit(&m->callers_off,
					  memory_order_relaxed))
			sp_callers_file(&m->callers, &m->map, uc, pc, n,
					m->per_thread);
	}
	atomic_fetch_sub(&sp_inflight, 1);
}

static bool sp_our_event(int fd)
{
	return fd >= 0 && fd < SP_MAX_FD &&
	       atomic_load_explicit(&sp_fd_ours[fd], memory_order_relaxed);
}

static void sp_handler(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	__u32 n;

	/* si_overrun: periods the timer missed before this one was queued. */
	if (si->si_code == SI_TIMER && si->si_value.sival_ptr == &sp_cookie)
		n = 1 + (__u32)si->si_overrun;
	/*
	 * A perf overflow: one user-mode period (kernel-mode ones raise
	 * nothing, exclude_kernel).
	 */
	else if (si->si_code == POLL_IN && sp_our_event(si->si_fd))
		n = 1;
	else {
		sp_chain(sig, si, ctx);
		return;
	}
	sp_file((__u64)uc->uc_mcontext.gregs[REG_RIP], n, uc);
}

static void sp_map_free(struct sp_map *m)
{
	free(m->map.region);
	free(m->map.segment);
	free(m->map.stack);
	free(m->base);
	free(m->size);
	free(m->off);
	free(m);
}

/*
 * Publishes @m (or NULL) under sp_lock and frees the old map once no
 * handler uses it, keeping its counters for status().
 */
static void sp_publish(struct sp_map *m)
{
	struct sp_map *old = atomic_exchange(&sp_map, m);

	while (atomic_load(&sp_inflight))
		sched_yield();
	if (!old)
		return;
	sp_last.samples = atomic_load(&old->samples);
	sp_last.misses = atomic_load(&old->misses);
	sp_last.saturated = atomic_load(&old->saturated);
	sp_map_free(old);
}

/* The filer's view of the front end's (checked, formatted) table. */
static int sp_callers_view(struct sp_map *m, const struct sp_callers *c)
{
	__u32 nodes;

	if (!c)
		return 0;
	if (spc_geometry(c->bytes, c->depth, &nodes))
		return -EINVAL;
	m->callers.hdr = c->table;
	m->callers.node = (struct spc_node *)(m->callers.hdr + 1);
	m->callers.mask = nodes - 1;
	m->callers.depth = c->depth;
	m->callers_bytes = c->bytes;
	return 0;
}

static int sp_map_new(const struct sprofil_region *r, unsigned int n,
		      unsigned int flags, const struct sp_callers *callers,
		      struct sp_map **out)
{
	struct sp_map *m = calloc(1, sizeof(*m));
	unsigned int i;
	int err;

	if (!m)
		return -ENOMEM;
	err = sp_callers_view(m, callers);
	if (err)
		goto fail;
	m->per_thread = callers && (flags & SPROFIL_THREADS);
	/* One spare entry, so that n == 0 asks malloc for something. */
	m->map.region = malloc((n + 1) * sizeof(*m->map.region));
	m->map.segment = malloc((SPM_MAX_SEGMENTS(n) + 1) *
				sizeof(*m->map.segment));
	m->map.stack = malloc((n + 1) * sizeof(*m->map.stack));
	m->base = malloc((n + 1) * sizeof(*m->base));
	m->size = malloc((n + 1) * sizeof(*m->size));
	m->off = calloc(n + 1, sizeof(*m->off));
	if (!m->map.region || !m->map.segment || !m->map.stack || !m->base ||
	    !m->size || !m->off) {
		err = -ENOMEM;
		goto fail;
	}
	err = spm_prepare(&m->map, r, n, flags);
	if (err)
		goto fail;
	for (i = 0; i < m->map.nregions; i++) {
		m->base[i] = (uintptr_t)r[m->map.region[i].id].base;
		m->size[i] = r[m->map.region[i].id].size;
	}
	if (m->map.overflow >= 0)
		m->overflow = (uintptr_t)r[m->map.overflow].base;
	*out = m;
	return 0;
fail:
	sp_map_free(m);
	return err;
}

/* SIGRTMIN + 7, or SPROFIL_SIGNAL; fixed once the handler is installed. */
static int sp_pick_signal(void)
{
	const char *env = sp_setting("SPROFIL_SIGNAL");
	char *end;
	long sig;

	if (sp_signo)
		return sp_signo;
	if (!env || !*env)
		return SIGRTMIN + 7;
	errno = 0;
	sig = strtol(env, &end, 10);
	if (errno || *end || sig < 1 || sig > SIGRTMAX || sig == SIGKILL ||
	    sig == SIGSTOP)
		return -EINVAL;
	return (int)sig;
}

/*
 * Installed once, for the life of the process: a signal of ours may still
 * be queued after every timer is gone, and the default action of a
 * real-time signal is to terminate.
 */
static int sp_install_handler(void)
{
	struct sigaction sa = { 0 };
	int sig = sp_pick_signal();

	if (sig < 0)
		return sig;
	if (sp_signo)
		return 0;
	/* Saved before ours goes in: the handler may chain at once. */
	if (sigaction(sig, NULL, &sp_prev))
		return -errno;
	sa.sa_sigaction = sp_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL))
		return -errno;
	sp_signo = sig;
	return 0;
}

static struct itimerspec sp_interval(uint64_t period)
{
	struct itimerspec its;

	its.it_interval.tv_sec = (time_t)(period / 1000000000u);
	its.it_interval.tv_nsec = (long)(period % 1000000000u);
	its.it_value = its.it_interval;
	return its;
}

static ssize_t sp_find_thread(pid_t tid)
{
	size_t i;

	for (i = 0; i < sp_nthreads; i++)
		if (sp_threads[i].tid == tid)
			return (ssize_t)i;
	return -1;
}

static void sp_drop_thread(size_t i)
{
	int fd = sp_threads[i].fd;

	if (fd >= 0) {
		atomic_store(&sp_fd_ours[fd], false);
		close(fd);
	} else {
		timer_delete(sp_threads[i].timer);
	}
	sp_threads[i] = sp_threads[--sp_nthreads];
}

static int sp_perf_event_open(pid_t tid, uint64_t period)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.sample_period = period,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.remove_on_exec = 1,
	};

	if (sp_event_counted(&sp_ev)) {
		sp_event_attr(&sp_ev, &attr);
		attr.sample_period = period;
		attr.remove_on_exec = 1;
	}
	return (int)syscall(SYS_perf_event_open, &attr, tid, -1, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

/*
 * SPROFIL_SIGNAL_TIMER=itimer forces the POSIX timers; otherwise a perf
 * counter when this process may open one on itself.
 */
static enum sp_clock sp_pick_clock(void)
{
	const char *env = sp_setting("SPROFIL_SIGNAL_TIMER");
	int fd;

	if (env && !strcmp(env, "itimer"))
		return SP_CLOCK_TIMER;
	fd = sp_perf_event_open(0, SPROFIL_MAX_PERIOD_NS);
	if (fd < 0)
		return SP_CLOCK_TIMER;
	close(fd);
	return SP_CLOCK_PERF;
}

/*
 * Thread @tid's perf counter, its overflows sent to it as our signal.
 * -ESRCH: the thread is gone.
 */
static int sp_open_event(pid_t tid, uint64_t period)
{
	struct f_owner_ex owner = { .type = F_OWNER_TID, .pid = tid };
	int fd = sp_perf_event_open(tid, period), err;

	if (fd < 0)
		return -errno;
	if (fd >= SP_MAX_FD) {
		close(fd);
		return -EMFILE;
	}
	atomic_store(&sp_fd_ours[fd], true);
	if (fcntl(fd, F_SETOWN_EX, &owner) || fcntl(fd, F_SETSIG, sp_signo) ||
	    fcntl(fd, F_SETFL, O_ASYNC) ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		err = -errno;
		atomic_store(&sp_fd_ours[fd], false);
		close(fd);
		return err;
	}
	return fd;
}

/*
 * Gives thread @tid a timer on its CPU clock, armed with sp_period.  The
 * calling thread uses CLOCK_THREAD_CPUTIME_ID; another one the kernel's
 * per-thread clock id, CPUCLOCK_PERTHREAD | CPUCLOCK_SCHED, as glibc's
 * pthread_getcpuclockid() encodes it.  -ESRCH: the thread is gone.
 */
static int sp_add_thread(pid_t tid)
{
	struct itimerspec its = sp_interval(sp_period);
	struct sigevent sev = { 0 };
	struct sp_thread *t;
	clockid_t clock = CLOCK_THREAD_CPUTIME_ID;
	ssize_t old = sp_find_thread(tid);
	timer_t timer;

	/* A tid is reused: a thread that died unseen held it before. */
	if (old >= 0)
		sp_drop_thread((size_t)old);
	if (sp_nthreads == sp_capacity) {
		size_t cap = sp_capacity ? 2 * sp_capacity : 16;

		t = realloc(sp_threads, cap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		sp_threads = t;
		sp_capacity = cap;
	}
	if (sp_clock == SP_CLOCK_PERF) {
		int fd = sp_open_event(tid, sp_period);

		if (fd < 0)
			return fd;
		sp_threads[sp_nthreads].tid = tid;
		sp_threads[sp_nthreads].fd = fd;
		sp_threads[sp_nthreads].routine_ns = 0;
		sp_nthreads++;
		return 0;
	}
	if (tid != gettid())
		clock = (clockid_t)((~(unsigned int)tid << 3) | 6);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = sp_signo;
	sev.sigev_value.sival_ptr = &sp_cookie;
	sev._sigev_un._tid = tid;
	if (timer_create(clock, &sev, &timer))
		/* The clock of a thread that exited is an invalid clock. */
		return errno == EINVAL && tid != gettid() ? -ESRCH : -errno;
	if (timer_settime(timer, 0, &its, NULL)) {
		int err = -errno;

		timer_delete(timer);
		return err;
	}
	sp_threads[sp_nthreads].tid = tid;
	sp_threads[sp_nthreads].fd = -1;
	sp_threads[sp_nthreads].timer = timer;
	sp_threads[sp_nthreads].routine_ns = 0;
	sp_nthreads++;
	return 0;
}

static void sp_delete_timers(void)
{
	while (sp_nthreads)
		sp_drop_thread(sp_nthreads - 1);
}

/* Timers for every thread of the process, all or none. */
static int sp_arm_all(void)
{
	DIR *dir = opendir("/proc/self/task");
	struct dirent *d;
	int err = 0;

	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		err = sp_add_thread((pid_t)atoi(d->d_name));
		if (err == -ESRCH)
			err = 0;
		if (err)
			break;
	}
	closedir(dir);
	if (err)
		sp_delete_timers();
	return err;
}

/* Gives thread @i's clock the period sp_period. */
static int sp_rearm_one(size_t i)
{
	struct itimerspec its = sp_interval(sp_period);
	uint64_t period = sp_period;

	if (sp_threads[i].fd < 0)
		return timer_settime(sp_threads[i].timer, 0, &its, NULL);
	/* A counter outlives its thread: ask whether the thread does. */
	if (syscall(SYS_tgkill, getpid(), sp_threads[i].tid, 0))
		return -1;
	return ioctl(sp_threads[i].fd, PERF_EVENT_IOC_PERIOD, &period);
}

/* Re-arms every clock with sp_period; drops those of dead threads. */
static int sp_rearm(void)
{
	size_t i = 0;

	while (i < sp_nthreads) {
		if (!sp_rearm_one(i))
			i++;
		else if (errno == ESRCH)
			sp_drop_thread(i);
		else
			return -errno;
	}
	return 0;
}

/* Whether the signal can count @ev without causing what it counts. */
static bool sp_event_signalled(const struct sp_event *ev)
{
	return !spe_event(ev->type) || !spe_event(ev->type)->kernel;
}

static int sig_probe(const char **why)
{
	struct sigevent sev = { 0 };
	int sig = sp_pick_signal();
	timer_t timer;

	static char reason[256];
	const struct sp_event *ev = sp_event_next();
	const char *timers = sp_setting("SPROFIL_SIGNAL_TIMER");
	int err;

	if (sig < 0) {
		*why = "SPROFIL_SIGNAL is not a signal number";
		return sig;
	}
	if (sp_event_counted(ev)) {
		if (!sp_event_signalled(ev)) {
			snprintf(reason, sizeof(reason),
				 "its signal cannot count %s: waking a sleeping thread, it causes one per sample (the bpf backend counts them)",
				 spe_event(ev->type)->name);
			*why = reason;
			return -EOPNOTSUPP;
		}
		if (timers && !strcmp(timers, "itimer")) {
			*why = "SPROFIL_SIGNAL_TIMER=itimer samples CPU time only";
			return -EOPNOTSUPP;
		}
		err = sp_event_check(ev, false, reason, sizeof(reason));
		if (err) {
			*why = reason;
			return err;
		}
	}
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = sig;
	sev._sigev_un._tid = gettid();
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &timer)) {
		*why = "no POSIX timer on the thread CPU-time clock";
		return -errno;
	}
	timer_delete(timer);
	return 0;
}

static void sp_stop_locked(void);

static int sig_start(const struct sprofil_region *r, unsigned int n,
		     unsigned int flags, uint64_t *period_ns,
		     const struct sp_callers *callers,
		     const struct sp_event *ev)
{
	uint64_t old_period = sp_period, period;
	struct sp_map *m;
	int err;

	struct sp_event old_ev = sp_ev;
	bool counted = sp_event_counted(ev), same;
	char why[256];

	/* Its timers and handler are this process's: no other's. */
	if (sp_target())
		return -EOPNOTSUPP;
	if (ev->type == SP_EVENT_BAD || !spe_event(ev->type))
		return -EINVAL;
	if (!sp_event_signalled(ev))
		return -EOPNOTSUPP;
	err = counted ? 0 : sp_period_ns(flags, *period_ns, &period);
	if (err)
		return err;
	if (counted)
		period = ev->period;
	pthread_mutex_lock(&sp_lock);
	if (sp_clock == SP_CLOCK_UNSET)
		sp_clock = sp_pick_clock();
	pthread_mutex_unlock(&sp_lock);
	/* An event needs perf counters: no timer counts it. */
	if (counted && sp_clock == SP_CLOCK_TIMER)
		return -EOPNOTSUPP;
	if (counted && old_ev.type != ev->type) {
		err = sp_event_check(ev, false, why, sizeof(why));
		if (err)
			return err;
	}
	/* Timers expire on the tick: a shorter period would be a fiction. */
	if (sp_clock == SP_CLOCK_TIMER && period < sp_default_period_ns(0))
		period = sp_default_period_ns(0);
	err = sp_map_new(r, n, flags, callers, &m);
	if (err)
		return err;
	err = sp_check_buffers_and_table(r, n, callers);
	if (err)
		goto fail;
	pthread_mutex_lock(&sp_lock);
	/* Before any sample: the main thread takes them on its first. */
	if (callers) {
		sp_callers_main_stack();
		sp_unwind_load();
	}
	err = sp_install_handler();
	if (err)
		goto unlock;
	same = sp_ev.type == ev->type;
	sp_period = period;
	/* Another event: other counters, every thread's at once. */
	if (sp_running && !same)
		sp_delete_timers();
	sp_ev = *ev;
	if (!sp_running || !same)
		err = sp_arm_all();
	else if (period != old_period)
		err = sp_rearm();
	if (err) {
		sp_period = old_period;
		sp_ev = old_ev;
		if (sp_running && !same && sp_arm_all())
			sp_stop_locked();
		else if (sp_running)
			sp_rearm();
		goto unlock;
	}
	sp_running = true;
	atomic_store(&sp_pid, getpid());
	sp_publish(m);
	pthread_mutex_unlock(&sp_lock);
	*period_ns = period;
	return 0;
unlock:
	pthread_mutex_unlock(&sp_lock);
fail:
	sp_map_free(m);
	return err;
}

/* Under sp_lock. */
static void sp_stop_locked(void)
{
	sp_delete_timers();
	sp_running = false;
	atomic_store(&sp_pid, 0);
	sp_publish(NULL);
}

static int sig_stop(void)
{
	pthread_mutex_lock(&sp_lock);
	if (sp_running)
		sp_stop_locked();
	pthread_mutex_unlock(&sp_lock);
	return 0;
}

static int sig_status(struct sprofil_status *st)
{
	struct sp_map *m;

	pthread_mutex_lock(&sp_lock);
	m = atomic_load(&sp_map);
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	/* As the module reports it: period and regions only while on. */
	if (m) {
		st->state = SPROFIL_STATE_ENABLED;
		st->samples = atomic_load(&m->samples);
		st->misses = atomic_load(&m->misses);
		st->saturated = atomic_load(&m->saturated);
		st->nregions = m->map.nregions;
		for (unsigned int i = 0; i < m->map.nregions; i++)
			st->regions_off += atomic_load(&m->off[i]);
		st->period_ns = sp_period;
	} else {
		st->samples = sp_last.samples;
		st->misses = sp_last.misses;
		st->saturated = sp_last.saturated;
	}
	pthread_mutex_unlock(&sp_lock);
	return 0;
}

/*
 * In a fork child only this thread exists, no timer was inherited and the
 * counters' descriptors are copies of the parent's; the carry of exited
 * threads' time is the parent's.  The lock may have been held by a thread that is not here, and so may a
 * slot of sp_inflight.  The handler stays installed.
 */
static void sig_forget(void)
{
	pthread_mutex_init(&sp_lock, NULL);
	atomic_store(&sp_inflight, 0);
	atomic_store(&sp_pid, 0);
	atomic_store(&sp_carry_ns, 0);
	sp_callers_forget_stack();
	sp_publish(NULL);
	/* Copies of the parent's counters: closing them leaves those be. */
	for (size_t i = 0; i < sp_nthreads; i++) {
		if (sp_threads[i].fd >= 0) {
			atomic_store(&sp_fd_ours[sp_threads[i].fd], false);
			close(sp_threads[i].fd);
		}
	}
	free(sp_threads);
	sp_threads = NULL;
	sp_nthreads = 0;
	sp_capacity = 0;
	sp_running = false;
}

/*
 * The calling thread @i's CPU time on the clock its sampling runs on:
 * its counter's count since it was enabled, or its CPU clock; 0 if it
 * cannot be read.
 */
static uint64_t sp_thread_cpu_ns(size_t i)
{
	uint64_t count;

	if (sp_threads[i].fd >= 0)
		return read(sp_threads[i].fd, &count, sizeof(count)) ==
		       sizeof(count) ? count : 0;
	return sp_own_cpu_ns();
}

/*
 * A new thread: where its chains may be read, whenever it is sampled;
 * and, if signal sampling is on, its timer.  On failure it runs
 * unsampled.
 */
static void sig_thread_started(void)
{
	ssize_t i;
	int err = 0;

	sp_callers_thread_stack();
	if (!atomic_load(&sp_pid))
		return;
	pthread_mutex_lock(&sp_lock);
	if (sp_running)
		err = sp_add_thread(gettid());
	/* Last: what follows is the thread's own work. */
	if (sp_running && !err) {
		i = sp_find_thread(gettid());
		if (i >= 0)
			sp_threads[i].routine_ns = sp_thread_cpu_ns((size_t)i);
	}
	pthread_mutex_unlock(&sp_lock);
}

/*
 * The CPU time the exiting thread @i ran in its current period, which no
 * sample will close: the elapsed part of its timer's interval, or of its
 * counter's period (the counter counts from when it was enabled), less
 * its set-up (sp_unfinished_ns()).
 */
static uint64_t sp_unsampled_ns(size_t i)
{
	struct itimerspec its;
	uint64_t now = sp_thread_cpu_ns(i), tail, left;

	if (sp_threads[i].fd >= 0) {
		tail = now % sp_period;
	} else {
		if (timer_gettime(sp_threads[i].timer, &its))
			return 0;
		left = (uint64_t)its.it_value.tv_sec * 1000000000u +
		       (uint64_t)its.it_value.tv_nsec;
		tail = left < sp_period ? sp_period - left : 0;
	}
	return sp_unfinished_ns(now, tail, sp_threads[i].routine_ns);
}

/*
 * Adds @ns of an exiting thread's unsampled CPU time to the process-wide
 * carry and files one sample at @pc for each period the carry completes.
 * The count is the difference of two floors of one running total, so no
 * lock is needed and no nanosecond is counted twice.
 */
static void sp_credit_exit(uint64_t ns, uintptr_t pc)
{
	uint64_t before = atomic_fetch_add(&sp_carry_ns, ns);
	uint64_t n = (before + ns) / sp_period - before / sp_period;

	/* Its chain at exit is not the one it ran: filed as truncated. */
	if (n)
		sp_file((__u64)pc, (__u32)n, NULL);
}

static void sig_thread_exiting(uintptr_t pc)
{
	ssize_t i;

	if (!atomic_load(&sp_pid))
		return;
	pthread_mutex_lock(&sp_lock);
	i = sp_find_thread(gettid());
	if (i >= 0) {
		/* A counted event's unfinished period is no event. */
		if (sp_running && !sp_event_counted(&sp_ev))
			sp_credit_exit(sp_unsampled_ns((size_t)i), pc);
		sp_drop_thread((size_t)i);
	}
	pthread_mutex_unlock(&sp_lock);
}

/*
 * Just before an exec: if signal sampling is on in this process, deletes
 * every timer and drains the signals they already queued, so that the new
 * program is not killed by one of them.  Between this and
 * sig_after_failed_exec(), the backend's lock is held.
 */
static bool sig_before_exec(void)
{
	struct timespec zero = { 0 };
	sigset_t set, old;
	int sig;

	/* A vfork child shares our memory but owns none of our timers. */
	if (atomic_load(&sp_pid) != getpid())
		return false;
	pthread_mutex_lock(&sp_lock);
	if (!sp_running) {
		pthread_mutex_unlock(&sp_lock);
		return false;
	}
	/*
	 * execve deletes the timers but keeps the signals they queued, which
	 * would kill the new program: none may arrive between the draining
	 * and the exec, hence the timers go first, with the signal blocked.
	 */
	sigemptyset(&set);
	sigaddset(&set, sp_signo);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	sp_delete_timers();
	do {
		sig = sigtimedwait(&set, NULL, &zero);
	} while (sig == sp_signo || (sig < 0 && errno == EINTR));
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return true;
}

static void sig_after_failed_exec(void)
{
	int err = errno;

	/* Sampling cannot resume without timers: stop it cleanly. */
	if (sp_arm_all())
		sp_stop_locked();
	pthread_mutex_unlock(&sp_lock);
	errno = err;
}

static bool overlaps(uintptr_t a, uint64_t alen, uintptr_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

/*
 * The userland counterpart of the module's mmu notifier: memory.c calls
 * this before [start, start + len) is unmapped, loses write access or is
 * dropped.  Regions whose buffer is there are turned off, and the call
 * returns only when no handler can still be storing into them, so the
 * change never makes a sample fault.  Async-signal-safe and lock-free.
 */
static void sig_memory_changing(uintptr_t start, size_t len)
{
	struct sp_map *m;
	bool hit = false;

	atomic_fetch_add(&sp_inflight, 1);
	m = atomic_load(&sp_map);
	if (m) {
		for (unsigned int i = 0; i < m->map.nregions; i++) {
			if (overlaps(start, len, m->base[i], m->size[i])) {
				atomic_store(&m->off[i], true);
				hit = true;
			}
		}
		if (m->overflow && overlaps(start, len, m->overflow,
					    1u << m->map.shift)) {
			atomic_store(&m->overflow_off, true);
			hit = true;
		}
		if (m->callers.hdr &&
		    overlaps(start, len, (uintptr_t)m->callers.hdr,
			     m->callers_bytes)) {
			atomic_store(&m->callers_off, true);
			hit = true;
		}
	}
	/* The map stays ours until we leave: publishers wait for us. */
	atomic_fetch_sub(&sp_inflight, 1);
	if (hit)
		while (atomic_load(&sp_inflight))
			sched_yield();
}

const struct sp_backend sp_backend_signal = {
	.name = "signal",
	.probe = sig_probe,
	.start = sig_start,
	.stop = sig_stop,
	.status = sig_status,
	.forget = sig_forget,
	.thread_started = sig_thread_started,
	.thread_exiting = sig_thread_exiting,
	.memory_changing = sig_memory_changing,
	.before_exec = sig_before_exec,
	.after_failed_exec = sig_after_failed_exec,
};
