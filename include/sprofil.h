/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libsprofil: PC-sampling profiling of the calling process.
 *
 * profil() and sprofil() keep glibc's signatures and struct prof (from
 * <sys/profil.h>, included here), so programs written for glibc build and
 * run unchanged when linked with -lsprofil.  Sampling is done by the
 * backend SPROFIL_BACKEND names (docs/backends.md):
 *   kmod    the kernel module's /dev/sprofil (in-kernel, every thread);
 *   bpf     a BPF program on per-thread perf counters (in-kernel, every
 *           thread; needs CAP_BPF and CAP_PERFMON, or root); the buffers
 *           are brought up to date every 20 ms by a library thread
 *           (sprofil_info()'s stale_us), by sprofil_flush() and by the
 *           calls below that say so;
 *   signal  per-thread perf counters (or, where perf_event_paranoid
 *           forbids them, CPU-time timers at the tick rate) and a
 *           real-time signal (no privilege);
 *   auto    kmod when /dev/sprofil opens, else bpf when permitted, else
 *           signal (the default).
 * SPROFIL_HZ=<n> sets the sampling rate of every backend (default: one
 * kernel tick; PROF_FAST: four per tick).  SPROFIL_EVENT=<name> (with
 * SPROFIL_EVENT_PERIOD=<n>) or sprofil_event() samples on another event
 * than CPU time, page faults say (below).
 *
 * Every function sets errno on failure; through the library, profiling
 * stays on in both parent and child after fork() (each counting into its
 * own copy of the buffers) and is off after exec.
 */
#ifndef SPROFIL_H
#define SPROFIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/profil.h>
#include <sys/time.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Classic profil(2): samples into one buffer of 16-bit buckets, bucket of
 * pc = ((pc - offset) / 2) * scale / 65536.  Scale 0 or 1 (or a NULL
 * buffer) turns profiling off; a bufsiz of 0 makes it ineffective (off).
 * Any scale is accepted, as glibc accepts it (above 0x10000 a bucket covers
 * less than two bytes).  Errors as sprofil().
 */
int profil(unsigned short *buf, size_t bufsiz, size_t offset,
	   unsigned int scale);

/*
 * sprofil(2): samples into @profcnt regions (any order; on overlap the
 * larger pr_off wins; pr_off 0 with pr_scale 2 is the overflow bin);
 * flags PROF_USHORT or PROF_UINT, and PROF_FAST, and PROF_THREADS (with a
 * caller table from sprofil_callers(), else EINVAL: each chain is filed
 * under its thread's top node, for per-thread profiles); profcnt 0
 * stops.  A new call replaces the region set at once.  @tvp, if not NULL, receives the
 * true sampling period.  Errors: EINVAL (flags, scale, sizes, profcnt),
 * EFAULT (unwritable buffer), ENOMEM (memory-lock limit, kmod backend;
 * more than 2^27 buckets in all, or no memory for the counters, bpf).
 */
int sprofil(struct prof *profp, int profcnt, struct timeval *tvp,
	    unsigned int flags);

/* libsprofil's own sprofil() flag, the module's SPROFIL_THREADS. */
#define PROF_THREADS	0x8

/*
 * What the active (or, before any start, the chosen) backend reports; the
 * counters of the last start stay readable after it stops.
 */
struct sprofil_info {
	const char *backend;	/* "kmod", "bpf" or "signal" */
	uint64_t period_ns;	/* sampling period while enabled, else 0;
				 * in events with sprofil_event()
				 */
	uint64_t samples;	/* samples taken since the last start */
	uint64_t misses;	/* samples that fell in no region */
	uint64_t saturated;	/* increments lost to full buckets */
	unsigned int enabled;	/* 1 while sampling */
	unsigned int nregions;	/* regions in use (not the overflow bin) */
	unsigned int regions_off; /* regions whose buffer went away */
	/*
	 * How far the buffers may lag the samples, in microseconds: 0 when
	 * they are written as samples arrive (kmod, signal); on bpf the
	 * interval of its folding thread (SPROFIL_BPF_FOLD_MS), or
	 * SPROFIL_STALE_ON_DEMAND when they are brought up to date only by
	 * sprofil_flush() and the calls that say so.  It fills the struct's
	 * tail padding: the struct keeps its size and layout.
	 */
	uint32_t stale_us;
};

#define SPROFIL_STALE_ON_DEMAND	UINT32_MAX

/*
 * Fills @info for the calling process, on every backend; on bpf it first
 * brings the buffers up to date, as sprofil_flush() does.
 * Errors: ENODEV if no backend can run here (the reason is on stderr).
 */
int sprofil_info(struct sprofil_info *info);

/*
 * Brings the buffers up to date with every sample taken so far.  Only the
 * bpf backend needs it (it counts in the kernel and copies into the
 * buffers every stale_us, on stop, on a new sprofil(), on sprofil_info(),
 * before fork, at exit and here); on kmod and signal the buffers are always current and
 * it does nothing.  Errors: ENODEV if no backend can run here.
 */
int sprofil_flush(void);

/*
 * Caller sampling (docs/callers.md): registers @table, @bytes of the
 * caller's writable memory, as the caller table of the next sprofil() and
 * profil() starts, chains of at most @depth frames (1 to
 * SPROFIL_MAX_DEPTH).  Each sample then also files the sampled thread's
 * user call chain, walked through its frame pointers, into the table, a
 * calling context tree laid out as include/sprofil/callers.h defines it.
 * The table is formatted here: header written (magic, nodes, depth),
 * counters and nodes zeroed.  It takes effect at the next start; a
 * running session keeps its table until then.  NULL turns chain
 * recording off for the next starts.  Profiling a program built with
 * -fno-omit-frame-pointer gives complete chains.  Errors: EINVAL (depth
 * out of range, or room for fewer than 16 nodes), EFAULT (the table is
 * not writable memory); then nothing changes, not even the table.
 */
int sprofil_callers(void *table, size_t bytes, unsigned int depth);

/*
 * Sampling on an event other than CPU time (docs/backends.md has which
 * backend counts which): @name as perf spells it, "cpu-clock" (or NULL,
 * the default), "page-faults", "minor-faults", "major-faults",
 * "context-switches", "cycles", "instructions", "cache-misses",
 * "branch-misses"; a sample every @period events (0: 1; 0 with
 * cpu-clock, whose rate is SPROFIL_HZ's).  It takes effect at the next
 * sprofil() or profil() start, as the environment's SPROFIL_EVENT and
 * SPROFIL_EVENT_PERIOD do at the first.  Each sample is filed at the
 * user PC of the thread the event happened in (a page fault: its
 * faulting instruction; a context switch: where the thread returns to
 * user mode), and counts @period events.  With an event, sprofil()'s
 * @tvp receives zero and sprofil_info()'s period_ns is the period in
 * events.  A start that cannot count the event fails, never sampling
 * CPU time instead: ENOENT (a PMU event on a machine without a PMU),
 * EACCES (perf_event_paranoid forbids it), EOPNOTSUPP (the backend
 * cannot count it: kmod counts CPU time only).  profil() and sprofil()
 * callers that do not call this keep sampling CPU time.  Errors: EINVAL
 * (no such event, or a period with cpu-clock).
 */
int sprofil_event(const char *name, uint64_t period);

/* A load module's text, as HP-UX's smonitor(3C) takes it. */
struct text_region {
	unsigned long text_start;	/* first text address */
	unsigned long text_end;		/* one past the last */
	char *name;			/* load module, as the loader names it */
};

/*
 * HP-UX smonitor(3C): profiles @nregions text regions into one caller
 * @buffer of @bufsize bytes, split among them in proportion to their text
 * size, with PROF_USHORT or PROF_UINT buckets per @flags; @nfunc is
 * unused.  The buffer is not initialised.  A repeated call first dumps
 * what the previous one collected; smonitor(0, 0, 0, 0, 0, 0) stops and
 * dumps.  No dump overwrites a file this process wrote: a later one goes
 * to the next free "<name>.<n>" (gmon.out, gmon.out.1, ...).  In a -pg
 * program each dump also holds the call arcs counted since the previous
 * one; the -pg runtime's own sampling stops (its samples are discarded),
 * and at exit it writes only the arcs counted after the last dump, if
 * any, to the next free name.  Errors: reported on stderr (it returns
 * nothing), with errno.
 */
void smonitor(struct text_region *regions, int nregions, void *buffer,
	      size_t bufsize, int nfunc, unsigned int flags);

/*
 * SysV monitor(3C): profiles [lowpc, highpc) into @buffer (@bufsize
 * 16-bit words); monitor(0, 0, 0, 0, 0) stops and writes the profile.
 * @nfunc is unused.  Errors: reported on stderr, with errno.
 */
void monitor(void (*lowpc)(void), void (*highpc)(void),
	     unsigned short *buffer, size_t bufsize, size_t nfunc);

/*
 * The gcc -pg runtime (gcrt1.o calls the first two): profiles [lowpc,
 * highpc) and counts calls; _mcleanup() stops and writes gmon.out;
 * moncontrol(0) pauses both, moncontrol(1) resumes.  Errors: on stderr.
 */
void monstartup(unsigned long lowpc, unsigned long highpc);
void _mcleanup(void);
void moncontrol(int mode);

#ifdef __cplusplus
}
#endif

#endif /* SPROFIL_H */
