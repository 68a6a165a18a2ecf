// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The front end of libsprofil: profil() and sprofil() with glibc's
 * signatures, the choice of backend, and the fork rule.
 *
 * Each call is turned into the kernel ABI's region array and handed to
 * one backend, chosen once per process from SPROFIL_BACKEND.  The last
 * successful configuration is kept so that a fork child can start again
 * on its own copy of the buffers: through the library, profiling "remains
 * on in child and parent both after a fork", as the classic man pages
 * promise, while the kernel itself never profiles a child.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sprofil.h>
#include <sprofil/callers.h>
#include "backends/backend.h"
#include "common/fork.h"
#include "common/settings.h"
#include "pg/gmon_callers.h"
#include "pg/pages_in_use.h"

static pthread_mutex_t sp_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t sp_once = PTHREAD_ONCE_INIT;
static const struct sp_backend *sp_backend;	/* chosen, or NULL */

/* The running configuration, to start again in a fork child. */
static struct {
	struct sprofil_region *regions;
	unsigned int n;
	unsigned int flags;
	uint64_t period_ns;		/* as asked, 0 = default */
	struct sp_callers callers;	/* table NULL: no chains */
	struct sp_event event;
	bool on;
} sp_running;

/* What the next starts sample: SPROFIL_EVENT, or sprofil_event()'s. */
static struct sp_event sp_event_next_ev;

/* The caller table sprofil_callers() registered for the next starts. */
static struct sp_callers sp_callers_next;

uint64_t sp_default_period_ns(unsigned int flags)
{
	struct timespec res;
	uint64_t tick = 4000000;	/* HZ=250, if the clock cannot tell */

	/* A coarse clock advances once per tick: its resolution is one. */
	if (!clock_getres(CLOCK_MONOTONIC_COARSE, &res) && !res.tv_sec &&
	    res.tv_nsec > 0)
		tick = res.tv_nsec;
	return flags & SPROFIL_FAST ? tick / SPROFIL_FAST_DIVISOR : tick;
}

int sp_period_ns(unsigned int flags, uint64_t wanted, uint64_t *period)
{
	uint64_t p = wanted ? wanted : sp_default_period_ns(flags);

	if (p > SPROFIL_MAX_PERIOD_NS)
		return -EINVAL;
	*period = p < SPROFIL_MIN_PERIOD_NS ? SPROFIL_MIN_PERIOD_NS : p;
	return 0;
}

/* The period SPROFIL_HZ asks for, or 0 for the backend's default. */
static uint64_t wanted_period_ns(void)
{
	const char *hz = sp_setting("SPROFIL_HZ");
	static bool warned;
	char *end;
	unsigned long v;

	if (!hz || !*hz)
		return 0;
	errno = 0;
	v = strtoul(hz, &end, 10);
	if (errno || *end || v == 0 || v > 1000000000ul) {
		if (!warned)
			fprintf(stderr, "libsprofil: SPROFIL_HZ=%s is not a rate in Hz; using the default period\n",
				hz);
		warned = true;
		return 0;
	}
	return 1000000000ull / v;
}

static const struct sp_backend *backend_named(const char *name)
{
	for (size_t i = 0; i < SP_NBACKENDS; i++)
		if (!strcmp(name, sp_all_backends[i]->name))
			return sp_all_backends[i];
	return NULL;
}

/* SPROFIL_DEBUG set and not "0": say what auto tried and chose. */
static bool debug_wanted(void)
{
	const char *d = sp_setting("SPROFIL_DEBUG");

	return d && *d && strcmp(d, "0");
}

/*
 * SPROFIL_BACKEND=auto (the default) takes the module when /dev/sprofil
 * opens, else BPF when this process may load it, else the signal
 * backend.  Falling back is what auto is for, so it goes unsaid, or
 * every unprivileged run would print a line about BPF; SPROFIL_DEBUG=1
 * says why each backend was passed over and which one runs.  A backend
 * asked for by name that cannot run is an error, said once, not a
 * silent fallback.
 */
static void choose_backend(void)
{
	const char *name = sp_setting("SPROFIL_BACKEND");
	const struct sp_backend *b;
	const char *why = NULL;
	bool debug = debug_wanted();
	size_t i;

	if (name && *name && strcmp(name, "auto")) {
		b = backend_named(name);
		if (!b) {
			fprintf(stderr, "libsprofil: SPROFIL_BACKEND=%s is not one of auto, kmod, bpf, signal; using auto\n",
				name);
		} else if (b->probe(&why)) {
			fprintf(stderr, "libsprofil: backend %s cannot run: %s\n",
				name, why);
			return;
		} else {
			__atomic_store_n(&sp_backend, b, __ATOMIC_RELEASE);
			return;
		}
	}
	for (i = 0; i < SP_NBACKENDS; i++) {
		b = sp_all_backends[i];
		if (!b->probe(&why)) {
			/* Release: fork handlers read it outside sp_once. */
			__atomic_store_n(&sp_backend, b, __ATOMIC_RELEASE);
			if (debug)
				fprintf(stderr, "libsprofil: auto: using backend %s\n",
					b->name);
			return;
		}
		if (debug)
			fprintf(stderr, "libsprofil: auto: backend %s cannot run: %s\n",
				b->name, why);
	}
	fprintf(stderr, "libsprofil: no sampling backend can run: %s\n", why);
}

/*
 * fork.c: sp_lock in its place in the lock order.  Buffers a backend
 * fills late are brought up to date first, so that the child's copies
 * hold everything counted before the fork.
 */
void sp_front_fork_prepare(void)
{
	const struct sp_backend *b;

	pthread_mutex_lock(&sp_lock);
	/* Another thread may be choosing it in init_once() right now. */
	b = __atomic_load_n(&sp_backend, __ATOMIC_ACQUIRE);
	if (b && b->flush && sp_running.on)
		b->flush();
}

void sp_front_fork_parent(void)
{
	pthread_mutex_unlock(&sp_lock);
}

/*
 * The backend is chosen under sp_lock, which fork's prepare handler
 * takes: fork() copies the descriptor table before the memory
 * (copy_process()), so a child forked while another thread's probe
 * opened /dev/sprofil could find the descriptor's number in kmod_fd but
 * no such descriptor, and failed every call with EBADF.  No probe forks
 * or takes sp_lock.
 */
static void init_once(void)
{
	sp_fork_handlers_register();
	pthread_mutex_lock(&sp_lock);
	/* Before the probes, which test whether it can be counted. */
	sp_event_from_settings(&sp_event_next_ev);
	choose_backend();
	pthread_mutex_unlock(&sp_lock);
}

static const struct sp_backend *backend(void)
{
	pthread_once(&sp_once, init_once);
	return sp_backend;
}

/* Keeps a copy of a successful configuration (called with sp_lock). */
static void remember(const struct sprofil_region *r, unsigned int n,
		     unsigned int flags, uint64_t period_ns,
		     const struct sp_callers *callers,
		     const struct sp_event *ev)
{
	struct sprofil_region *copy = malloc(n * sizeof(*r));

	free(sp_running.regions);
	sp_running.regions = copy;
	sp_running.on = copy != NULL;
	if (!copy) {
		/* Profiling runs; only the fork child would miss out. */
		fprintf(stderr, "libsprofil: out of memory: a fork child will not be profiled\n");
		return;
	}
	memcpy(copy, r, n * sizeof(*r));
	sp_running.n = n;
	sp_running.flags = flags;
	sp_running.period_ns = period_ns;
	sp_running.callers = callers ? *callers : (struct sp_callers){ 0 };
	sp_running.event = *ev;
}

/* The table to pass to a start, or NULL. */
static const struct sp_callers *callers_of(const struct sp_callers *c)
{
	return c->table ? c : NULL;
}


/*
 * memset(@p, 0, @len) that stores only to the pages holding a nonzero
 * byte: a fresh table is all zero pages, which the kernel commits only
 * on a store, and the signal backend then commits a page per node used.
 * Pages never written are not even read (pages_in_use.h): reading one
 * faults in the zero page, 512 faults for a fresh 2 MB table in every
 * process of a recorded tree.
 */
static void sp_zero_unless_zero(void *p, size_t len)
{
	static const char zero[4096];
	struct sp_pages pages;
	char *c = p;
	size_t n;

	sp_pages_read(&pages, p, len);
	for (; len; c += n, len -= n) {
		/* A chunk never straddles two pages (of 4 KiB or more). */
		n = sizeof(zero) - (uintptr_t)c % sizeof(zero);
		if (n > len)
			n = len;
		if (sp_page_used(&pages, (uintptr_t)c) && memcmp(c, zero, n))
			memset(c, 0, n);
	}
	sp_pages_free(&pages);
}

/*
 * In the child of fork() only the forking thread exists and the kernel
 * does not profile it: drop what belonged to the parent and start again
 * on the same addresses, which now hold the child's copies.
 */
void sp_front_fork_child(void)
{
	uint64_t period;
	int err;

	pthread_mutex_unlock(&sp_lock);
	if (!sp_backend)
		return;
	sp_backend->forget();
	if (!sp_running.on)
		return;
	period = sp_running.period_ns;
	/* The child's copy of the caller table goes on from the parent's. */
	err = sp_backend->start(sp_running.regions, sp_running.n,
				sp_running.flags, &period,
				callers_of(&sp_running.callers),
				&sp_running.event);
	if (err)
		fprintf(stderr, "libsprofil: cannot profile the fork child: %s\n",
			strerror(-err));
}

static int fail(int err)
{
	errno = err;
	return -1;
}

static int stop(void)
{
	const struct sp_backend *b = backend();
	int err;

	if (!b)
		return fail(ENODEV);
	pthread_mutex_lock(&sp_lock);
	err = b->stop();
	if (!err)
		sp_running.on = false;
	pthread_mutex_unlock(&sp_lock);
	return err ? fail(-err) : 0;
}

_Static_assert(PROF_THREADS == SPROFIL_THREADS, "one flag, one value");

int sprofil(struct prof *profp, int profcnt, struct timeval *tvp,
	    unsigned int flags)
{
	const struct sp_backend *b;
	const struct sp_callers *callers;
	struct sprofil_region *r;
	struct sp_event ev;
	uint64_t asked, period;
	int i, err;

	if (profcnt < 0 || profcnt > SPROFIL_MAX_REGIONS ||
	    (flags & ~(SPROFIL_UINT | SPROFIL_FAST | SPROFIL_THREADS)))
		return fail(EINVAL);
	if (profcnt == 0)
		return stop();
	if (!profp)
		return fail(EFAULT);
	b = backend();
	if (!b)
		return fail(ENODEV);
	r = calloc(profcnt, sizeof(*r));
	if (!r)
		return fail(ENOMEM);
	for (i = 0; i < profcnt; i++) {
		if (profp[i].pr_scale > UINT32_MAX) {
			free(r);
			return fail(EINVAL);
		}
		r[i].base = (uintptr_t)profp[i].pr_base;
		r[i].size = profp[i].pr_size;
		r[i].offset = profp[i].pr_off;
		r[i].scale = profp[i].pr_scale;
	}
	pthread_mutex_lock(&sp_lock);
	asked = wanted_period_ns();
	period = asked;
	callers = callers_of(&sp_callers_next);
	ev = sp_event_next_ev;
	/* Per-thread trees are a way of filing chains: none, no threads. */
	err = (flags & SPROFIL_THREADS) && !callers ? -EINVAL :
	      ev.type == SP_EVENT_BAD ? -EINVAL :
	      b->start(r, profcnt, flags, &period, callers, &ev);
	if (!err)
		remember(r, profcnt, flags, asked, callers, &ev);
	pthread_mutex_unlock(&sp_lock);
	free(r);
	if (err)
		return fail(-err);
	/* A period of events is no time: none. */
	if (tvp && sp_event_counted(&ev))
		*tvp = (struct timeval){ 0 };
	else if (tvp) {
		tvp->tv_sec = period / 1000000000ull;
		tvp->tv_usec = period % 1000000000ull / 1000;
	}
	return 0;
}

int sprofil_event(const char *name, uint64_t period)
{
	struct sp_event ev;

	if (sp_event_parse(name, period, &ev))
		return fail(EINVAL);
	/* The settings' event is read first, then replaced. */
	backend();
	pthread_mutex_lock(&sp_lock);
	sp_event_next_ev = ev;
	pthread_mutex_unlock(&sp_lock);
	return 0;
}

const struct sp_event *sp_event_next(void)
{
	static const struct sp_event cpu = { SPROFIL_EVENT_CPU_CLOCK, 0 };

	/* A bad SPROFIL_EVENT is every start's EINVAL, no backend's fault. */
	return sp_event_next_ev.type == SP_EVENT_BAD ? &cpu :
	       &sp_event_next_ev;
}

void sp_front_event(struct sp_event *ev)
{
	/* No lock: a dump at SIGDUMP may run inside a locked call. */
	*ev = sp_running.on || sp_running.regions ? sp_running.event :
		sp_event_next_ev;
}

int sprofil_callers(void *table, size_t bytes, unsigned int depth)
{
	struct sprofil_region whole = {
		.base = (uintptr_t)table, .size = bytes, .scale = 2,
	};
	struct spc_header *hdr = table;
	__u32 nodes;
	int err;

	if (!table) {
		pthread_mutex_lock(&sp_lock);
		sp_callers_next = (struct sp_callers){ 0 };
		pthread_mutex_unlock(&sp_lock);
		return 0;
	}
	if (spc_geometry(bytes, depth, &nodes))
		return fail(EINVAL);
	/* Checked first, so that a bad buffer is refused, not a fault. */
	err = sp_check_buffers(&whole, 1);
	if (err)
		return fail(-err);
	sp_zero_unless_zero(table, spc_table_bytes(nodes));
	hdr->nodes = nodes;
	hdr->depth = depth;
	/* The magic last: a reader sees a formatted table or none. */
	__atomic_store_n(&hdr->magic, SPC_MAGIC, __ATOMIC_RELEASE);
	pthread_mutex_lock(&sp_lock);
	sp_callers_next.table = table;
	sp_callers_next.bytes = bytes;
	sp_callers_next.depth = depth;
	pthread_mutex_unlock(&sp_lock);
	return 0;
}

int sp_front_callers(struct sp_callers *c)
{
	int found;

	pthread_mutex_lock(&sp_lock);
	*c = sp_running.callers.table ? sp_running.callers : sp_callers_next;
	found = c->table != NULL;
	pthread_mutex_unlock(&sp_lock);
	return found;
}

int profil(unsigned short *buf, size_t bufsiz, size_t offset,
	   unsigned int scale)
{
	struct prof p = {
		.pr_base = buf,
		.pr_size = bufsiz & ~(size_t)1,	/* whole buckets only */
		.pr_off = offset,
		.pr_scale = scale,
	};

	/*
	 * Any scale is accepted, as glibc does: above 0x10000 a bucket
	 * covers less than two bytes of text (LTP's profil01 uses 0x20000).
	 * Scale 0 or 1 turns it off; no buffer makes it ineffective.
	 */
	if (!buf || scale < 2 || p.pr_size == 0)
		return stop();
	return sprofil(&p, 1, NULL, PROF_USHORT);
}

int sprofil_flush(void)
{
	const struct sp_backend *b = backend();
	int err = 0;

	if (!b)
		return fail(ENODEV);
	if (!b->flush)
		return 0;
	pthread_mutex_lock(&sp_lock);
	err = b->flush();
	pthread_mutex_unlock(&sp_lock);
	return err ? fail(-err) : 0;
}

int sprofil_info(struct sprofil_info *info)
{
	const struct sp_backend *b = backend();
	struct sprofil_status st = { .size = sizeof(st) };
	int err;

	if (!b)
		return fail(ENODEV);
	pthread_mutex_lock(&sp_lock);
	err = b->status(&st);
	pthread_mutex_unlock(&sp_lock);
	if (err)
		return fail(-err);
	memset(info, 0, sizeof(*info));
	info->backend = b->name;
	info->period_ns = st.period_ns;
	info->samples = st.samples;
	info->misses = st.misses;
	info->saturated = st.saturated;
	info->enabled = !!(st.state & SPROFIL_STATE_ENABLED);
	info->nregions = st.nregions;
	info->regions_off = st.regions_off;
	info->stale_us = b->stale_us ? b->stale_us() : 0;
	return 0;
}
