/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The interface every sampling backend of libsprofil implements.  The
 * front end (profil.c) turns profil()/sprofil() calls into region arrays
 * of the kernel ABI's form and hands them to the chosen backend; each
 * backend files PCs with the shared mapping (include/sprofil/mapping.h),
 * so a PC lands in the same bucket whichever backend counts it.
 *
 * All functions return 0 or a negative errno and are called with the
 * front end's lock held, never from a signal handler.
 */
#ifndef LIBSPROFIL_BACKEND_H
#define LIBSPROFIL_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <linux/sprofil.h>

/*
 * The caller table of a start (docs/callers.md): the caller's buffer of
 * @bytes, chains of at most @depth frames.  The front end has checked the
 * geometry (spc_geometry()) and formatted the header.
 */
struct sp_callers {
	void *table;
	uint64_t bytes;
	uint32_t depth;
};

/*
 * What a session samples: an event of include/sprofil/events.h
 * (SPROFIL_EVENT_*), and for every one but the clock its period in
 * events (the clock's is the start's period_ns).  SP_EVENT_BAD:
 * SPROFIL_EVENT named none, and every start fails with EINVAL rather
 * than sample CPU time instead.
 */
struct sp_event {
	uint32_t type;
	uint64_t period;
};

#define SP_EVENT_BAD	UINT32_MAX

static inline bool sp_event_counted(const struct sp_event *ev)
{
	return ev->type != SPROFIL_EVENT_CPU_CLOCK;
}

/* common/event.c: @name (NULL: the clock) and @period as an event. */
int sp_event_parse(const char *name, uint64_t period, struct sp_event *ev);
/* SPROFIL_EVENT and SPROFIL_EVENT_PERIOD; a bad one said on stderr. */
void sp_event_from_settings(struct sp_event *ev);
struct perf_event_attr;
/* The perf counter of @ev, disabled, user mode unless it is kernel's. */
void sp_event_attr(const struct sp_event *ev, struct perf_event_attr *attr);
/*
 * Whether a counter of @ev opens on this thread (@kernel: counting in
 * kernel mode too, as bpf does): 0, or -errno with the one line that
 * says why in @why (no PMU, perf_event_paranoid).
 */
int sp_event_check(const struct sp_event *ev, bool kernel, char *why,
		   size_t size);
/*
 * The event the next starts sample (api/profil.c), for the probes; the
 * clock when SPROFIL_EVENT named none (the starts then fail).
 */
const struct sp_event *sp_event_next(void);
/* The event of the running or last session, for the profile's writer. */
void sp_front_event(struct sp_event *ev);

struct sp_backend {
	const char *name;
	/* Whether it can run here; on failure *why says why, one line. */
	int (*probe)(const char **why);
	/*
	 * Starts, or atomically replaces, sampling of every thread of the
	 * process into @n regions (validated by the backend: same errnos as
	 * the kernel module).  *period_ns: in, the wanted period (0: one
	 * kernel tick, or a quarter of one with SPROFIL_FAST); out, the
	 * period really used.  With @callers (else NULL) each sample's call
	 * chain is also filed there (include/sprofil/callers.h).  @ev: what
	 * is sampled; for a counted event *period_ns is ignored and set to
	 * its period in events.  A backend that cannot count @ev refuses it
	 * with -EOPNOTSUPP, one the kernel refuses with perf_event_open's
	 * errno (ENOENT: no PMU).  On failure nothing changes.
	 */
	int (*start)(const struct sprofil_region *r, unsigned int n,
		     unsigned int flags, uint64_t *period_ns,
		     const struct sp_callers *callers,
		     const struct sp_event *ev);
	/* Stops sampling; the counters stay readable through status. */
	int (*stop)(void);
	/* Fills the counters of the latest start (st->size is set). */
	int (*status)(struct sprofil_status *st);
	/*
	 * Brings the caller's buffers up to date with what was sampled; NULL
	 * for backends that write them as they sample.
	 */
	int (*flush)(void);
	/*
	 * How late, in microseconds, the buffers may be behind the samples
	 * (SPROFIL_STALE_ON_DEMAND: until the next flush); NULL for backends
	 * that write them as they sample.
	 */
	uint32_t (*stale_us)(void);
	/*
	 * Called first thing in a fork child: drops the parent's state that
	 * the child inherited without owning it (timers, fds), so that the
	 * front end can start again in the child.
	 */
	void (*forget)(void);

	/*
	 * The process's events, which the interposers tell every backend,
	 * chosen or not, sampling or not (sp_backends_*() below); NULL where
	 * a backend needs none (the module sees them in the kernel).  Called
	 * without the front end's lock, from any thread of the program.
	 */
	/*
	 * In a new thread, before its start routine (threads.c): its
	 * sampling (a timer, a counter of its own), where its call chains
	 * may be read.  On failure the thread runs unsampled.
	 */
	void (*thread_started)(void);
	/*
	 * In a thread about to exit (threads.c): credits the CPU time it ran
	 * since its last sample, which no sample will close, to a
	 * process-wide carry that files a sample at @pc (its start routine)
	 * each time it completes a period; then drops the thread's timer or
	 * counter.
	 */
	void (*thread_exiting)(uintptr_t pc);
	/*
	 * Before [start, start + len) is unmapped, made read-only or dropped
	 * (memory.c): what the regions whose buffer is there counted goes in
	 * while it can, then they are turned off, as the module's mmu
	 * notifier does; on return nothing stores there any more.
	 */
	void (*memory_changing)(uintptr_t start, size_t len);
	/*
	 * Just before an exec (exec.c), perhaps in a vfork child: stops what
	 * would kill the new program (a sampling signal already queued).
	 * Returns true if it did; after_failed_exec() must then follow if
	 * the exec returns, and resumes sampling as it was, errno kept.
	 */
	bool (*before_exec)(void);
	void (*after_failed_exec)(void);
};

extern const struct sp_backend sp_backend_kmod;
extern const struct sp_backend sp_backend_bpf;
extern const struct sp_backend sp_backend_signal;

/*
 * Sampling from outside (api/outside.c, docs/record.md): the sessions
 * started from now on sample process @pid, every thread it has and
 * creates, instead of this process; 0 goes back to this process.
 * Before the first sprofil() only.  The kmod backend hands the module
 * an open /proc/PID/mem (SPROFIL_TARGET), the bpf backend opens its
 * events on the target's threads; the signal backend samples inside
 * its own process only and refuses a start with -EOPNOTSUPP.
 */
void sp_set_target(pid_t pid);
pid_t sp_target(void);

/* Every backend, in the order SPROFIL_BACKEND=auto tries them. */
#define SP_NBACKENDS	3
extern const struct sp_backend *const sp_all_backends[SP_NBACKENDS];

/*
 * The interposers' calls: each event to every backend that takes it.
 * Inline, so that they run as plain as their caller: threads.c calls
 * them before ThreadSanitizer has set the thread up.
 *
 * A thread is set up backwards through the table, so that the bpf
 * backend's reading of its CPU time at the start routine comes after
 * the signal backend's stack bounds, which it takes whatever runs.
 */
static inline void sp_backends_thread_started(void)
{
	for (unsigned int i = SP_NBACKENDS; i--;)
		if (sp_all_backends[i]->thread_started)
			sp_all_backends[i]->thread_started();
}

static inline void sp_backends_thread_exiting(uintptr_t pc)
{
	for (unsigned int i = 0; i < SP_NBACKENDS; i++)
		if (sp_all_backends[i]->thread_exiting)
			sp_all_backends[i]->thread_exiting(pc);
}

static inline void sp_backends_memory_changing(uintptr_t start, size_t len)
{
	for (unsigned int i = 0; i < SP_NBACKENDS; i++)
		if (sp_all_backends[i]->memory_changing)
			sp_all_backends[i]->memory_changing(start, len);
}

/* A mask of the backends to call sp_backends_after_failed_exec() on. */
static inline unsigned int sp_backends_before_exec(void)
{
	unsigned int held = 0;

	for (unsigned int i = 0; i < SP_NBACKENDS; i++)
		if (sp_all_backends[i]->before_exec &&
		    sp_all_backends[i]->before_exec())
			held |= 1u << i;
	return held;
}

static inline void sp_backends_after_failed_exec(unsigned int held)
{
	for (unsigned int i = 0; i < SP_NBACKENDS; i++)
		if (held & 1u << i)
			sp_all_backends[i]->after_failed_exec();
}

/* The default period when the caller gives none: one tick, in ns. */
uint64_t sp_default_period_ns(unsigned int flags);

/*
 * The period a userland-driven backend uses for @wanted ns (0: the
 * default), as the module chooses it: raised to SPROFIL_MIN_PERIOD_NS,
 * -EINVAL above SPROFIL_MAX_PERIOD_NS.
 */
int sp_period_ns(unsigned int flags, uint64_t wanted, uint64_t *period);

/* A line of /proc/self/maps, "lo-hi perms offset dev inode [path]". */
struct sp_mapping {
	uintptr_t lo, hi;
	bool writable, file;
};

bool sp_parse_mapping(const char *line, struct sp_mapping *m);

/*
 * Whether the buffers of @n entries (regions and the overflow bin) are
 * writable memory of this process, without changing them: 0 or -EFAULT.
 * For the backends that store into them from userland.
 */
int sp_check_buffers(const struct sprofil_region *r, unsigned int n);

/*
 * sp_check_buffers() of @n regions and, with @callers, its table too, in
 * one reading of the mappings: 0, -EFAULT or -ENOMEM.
 */
int sp_check_buffers_and_table(const struct sprofil_region *r,
			       unsigned int n,
			       const struct sp_callers *callers);

/* The calling thread's CPU time in ns, or 0 if its clock cannot be read. */
static inline uint64_t sp_own_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The CPU time an exiting thread ran in its unfinished period, which no
 * sample will close, for the exit carry of the userland-driven backends
 * (docs/backends.md): the elapsed part @tail of that period, but none of
 * it before the thread's start routine was entered, at CPU time
 * @routine_ns (0 if unknown).  The set-up of a thread's sampling is the
 * library's system time, not the program's: on a loaded machine enough
 * of it to credit a thread of 1 ms with 1.3.  @now: its CPU time.
 */
static inline uint64_t sp_unfinished_ns(uint64_t now, uint64_t tail,
					uint64_t routine_ns)
{
	if (now < routine_ns)
		return 0;
	return tail < now - routine_ns ? tail : now - routine_ns;
}

#endif /* LIBSPROFIL_BACKEND_H */
