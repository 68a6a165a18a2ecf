// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The gcc -pg runtime: monstartup(), moncontrol() and _mcleanup(), as
 * glibc's gcrt1.o calls them (__monstartup(&__executable_start, &etext)
 * and atexit(_mcleanup) before main), so that a -pg program linked with
 * -lsprofil, or a glibc-built one run with LD_PRELOAD=libsprofil.so,
 * profiles through sprofil() and whichever backend SPROFIL_BACKEND picks.
 *
 * The histogram is one region of 16-bit buckets over [lowpc, highpc), as
 * fine as 4 MiB of buckets allows; the call arcs are counted by mcount.c.
 * Unlike glibc, a forked child keeps profiling, from zero, into its own
 * file, and a process dumps its profile before it execs, since the new
 * image never runs the old one's atexit handlers.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sprofil.h>
#include "gmon.h"

/* At most this many buckets: 4 MiB covers 4 MiB of text at scale 1. */
#define GM_MAX_BUCKETS	(2ul << 20)
/* Arc table size: one arc per 8 bytes of text, and never fewer. */
#define GM_MIN_ARCS	65536ul
#define GM_TEXT_PER_ARC	8
/* The rate glibc writes, for a profile whose sampling could not start. */
#define GM_FALLBACK_PERIOD_NS	10000000ull

static pthread_mutex_t gm_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	bool started;			/* by monstartup, until _mcleanup */
	bool on;			/* moncontrol(1) state */
	bool sampling;			/* sprofil() accepted the region */
	bool atfork;			/* the fork handlers are registered */
	pid_t pid;			/* the process the profile belongs to */
	struct prof prof;
	struct sp_hist hist;
	uint64_t period_ns;
} gm;

/* Starts or stops the histogram (gm_lock held). */
static void gm_sample(bool on)
{
	struct sprofil_info info;

	if (!on) {
		if (gm.sampling && sprofil(NULL, 0, NULL, 0))
			fprintf(stderr, "libsprofil: cannot stop profiling: %s\n",
				strerror(errno));
		gm.sampling = false;
		return;
	}
	if (sprofil(&gm.prof, 1, NULL, PROF_USHORT)) {
		fprintf(stderr, "libsprofil: monstartup: cannot start sampling (call counts only): %s\n",
			strerror(errno));
		return;
	}
	gm.sampling = true;
	if (!sprofil_info(&info) && info.period_ns)
		gm.period_ns = info.period_ns;
}

/* Writes what the profile holds so far (gm_lock held). */
static void gm_dump(void)
{
	struct sp_profile p = {
		.hist = &gm.hist,
		.nhist = 1,
		.period_ns = gm.period_ns,
	};
	struct sp_arc *arcs;
	uint64_t lost;
	size_t limit;
	ssize_t n;

	n = sp_arcs_collect(&arcs, &lost, &limit);
	if (n < 0) {
		fprintf(stderr, "libsprofil: out of memory: the call arcs are not written\n");
		n = 0;
	}
	if (lost)
		fprintf(stderr, "libsprofil: %llu call arcs lost: the arc table (%zu entries) is full\n",
			(unsigned long long)lost, limit);
	sp_gmon_dump_arcs(&p, arcs, n);
	free(arcs);
}

/*
 * No fork may copy gm_lock held.  These handlers are registered after
 * profil.c's (monstartup starts sampling first), so fork takes gm_lock
 * before profil.c's lock, the order _mcleanup() takes them in.
 */
static void gm_prepare(void)
{
	pthread_mutex_lock(&gm_lock);
}

static void gm_parent(void)
{
	pthread_mutex_unlock(&gm_lock);
}

/*
 * The child keeps profiling (profil.c re-arms the sampling) but its file
 * must hold only its own work: start from zero.
 */
static void gm_child(void)
{
	pthread_mutex_unlock(&gm_lock);
	if (!gm.started)
		return;
	gm.pid = getpid();
	memset((void *)gm.hist.buckets, 0, gm.hist.nbuckets * 2);
	sp_arcs_reset();
}

void __monstartup(unsigned long lowpc, unsigned long highpc)
{
	static bool have_arcs;
	uint64_t text, used;
	uint32_t scale;
	size_t limit;
	void *buckets;
	int err;

	pthread_mutex_lock(&gm_lock);
	if (gm.started)
		goto out;		/* glibc too ignores a second call */
	lowpc &= ~3ul;
	highpc = (highpc + 3) & ~3ul;
	if (highpc <= lowpc) {
		fprintf(stderr, "libsprofil: monstartup: empty text range\n");
		goto out;
	}
	text = highpc - lowpc;
	if (sp_fit_scale(text, GM_MAX_BUCKETS, 2, &scale, &used)) {
		fprintf(stderr, "libsprofil: monstartup: the text is too large to profile\n");
		goto out;
	}
	buckets = calloc(used, 2);
	if (!buckets) {
		fprintf(stderr, "libsprofil: monstartup: out of memory\n");
		goto out;
	}
	if (!have_arcs) {
		limit = text / GM_TEXT_PER_ARC;
		err = sp_arcs_init(limit > GM_MIN_ARCS ? limit : GM_MIN_ARCS);
		if (err) {
			fprintf(stderr, "libsprofil: monstartup: no room for the call arcs: %s\n",
				strerror(-err));
			free(buckets);
			goto out;
		}
		have_arcs = true;
	} else {
		/* Profiling again after _mcleanup: nobody counts now. */
		sp_arcs_reset();
	}
	gm.hist.low_pc = lowpc;
	gm.hist.buckets = buckets;
	gm.hist.nbuckets = used;
	gm.hist.bucket_size = 2;
	gm.hist.scale = scale;
	gm.prof.pr_base = buckets;
	gm.prof.pr_size = used * 2;
	gm.prof.pr_off = lowpc;
	gm.prof.pr_scale = scale;
	gm.period_ns = GM_FALLBACK_PERIOD_NS;
	gm.pid = getpid();
	gm_sample(true);
	if (!gm.atfork && !pthread_atfork(gm_prepare, gm_parent, gm_child))
		gm.atfork = true;
	gm.started = true;
	gm.on = true;
	sp_arcs_enable(1);
out:
	pthread_mutex_unlock(&gm_lock);
}

void monstartup(unsigned long lowpc, unsigned long highpc)
	__attribute__((alias("__monstartup")));

void moncontrol(int mode)
{
	pthread_mutex_lock(&gm_lock);
	if (gm.started && !mode != !gm.on) {
		gm.on = mode;
		if (mode) {
			gm_sample(true);
			sp_arcs_enable(1);
		} else {
			sp_arcs_enable(0);
			gm_sample(false);
		}
	}
	pthread_mutex_unlock(&gm_lock);
}

void _mcleanup(void)
{
	pthread_mutex_lock(&gm_lock);
	if (!gm.started)
		goto out;
	sp_arcs_enable(0);
	gm_sample(false);
	gm_dump();
	/*
	 * The histogram goes (sampling has stopped); the arc table stays
	 * mapped, because a thread may still be inside sp_mcount().
	 */
	free((void *)gm.hist.buckets);
	memset(&gm.hist, 0, sizeof(gm.hist));
	gm.started = false;
	gm.on = false;
out:
	pthread_mutex_unlock(&gm_lock);
}

void sp_gmon_before_exec(void)
{
	/*
	 * In a vfork child the memory is the parent's and so is the
	 * profile: it is not ours to write (and malloc is not safe there).
	 */
	if (!__atomic_load_n(&gm.started, __ATOMIC_RELAXED) ||
	    getpid() != gm.pid)
		return;
	/* If the exec fails, profiling goes on and _mcleanup rewrites it. */
	pthread_mutex_lock(&gm_lock);
	if (gm.started)
		gm_dump();
	pthread_mutex_unlock(&gm_lock);
}
