// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The bpf backend: the kernel samples, as with the module, but through a
 * BPF program (bpf/sprofil.bpf.c) on one perf task-clock counter per
 * thread, for machines that load no module and let a privileged user
 * load BPF (CAP_BPF and CAP_PERFMON, or root).
 *
 * The program cannot store into the caller's buffers from its hard-IRQ
 * context, so it counts into a mappable array of 64-bit counters, one per
 * bucket; this file folds them into the buffers, saturating as the module
 * does, on stop, on a new region set, on sprofil_info() and
 * sprofil_flush(), before fork (so the child's copy is complete), before
 * a buffer's memory changes, and at exit.  Counters are taken with an
 * atomic exchange, so no sample is lost or counted twice while the
 * program keeps running.
 *
 * Why per-thread task-clock counters (inherit + inherit_thread), not a
 * per-CPU clock filtered by process: they count the process's own CPU
 * time as the module's do, cost nothing on CPUs the process is not
 * running on, need no CPU hotplug handling, and fork children do not
 * inherit them.  The per-CPU way is kept behind SPROFIL_BPF_EVENTS=cpu
 * for bench/bench_lib.c to measure against (bench/RESULTS.md).
 *
 * Every start loads its own copy of the program, with the region set in
 * its read-only data: the lookup then reads frozen tables, and a new set
 * replaces the old by flipping two flags once every thread is covered.
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
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <sprofil.h>
#include <sprofil/mapping.h>

#include "backend.h"
#include "backend_bpf.h"
#include "sprofil_load.h"

/* 2^27 counters (1 GiB of map) at most; beyond, ENOMEM. */
#define SB_MAX_BUCKETS	(1ull << 27)
/* Bound on rescans of /proc/self/task while threads keep appearing. */
#define SB_SCAN_ROUNDS	64

/* One region as the fold sees it, in the order of spm_prepare(). */
struct sb_region {
	uintptr_t base;			/* the caller's bucket array */
	uint64_t size;			/* its bytes */
	uint64_t nbuckets;
	uint32_t first;			/* index of its first counter */
	bool off;			/* its memory went away */
};

/* The state of one start: a loaded program, its counters, its events. */
struct sb_session {
	struct sprofil_bpf *skel;
	volatile uint64_t *counts;	/* the mapped counter array */
	size_t counts_bytes;
	uint32_t shift;
	uint32_t nregions;
	struct sb_region *region;
	uintptr_t overflow;		/* overflow bin's bucket, or 0 */
	bool overflow_off;
	uint64_t misses_filed;		/* misses already in the overflow bin */
	uint64_t misses_off;		/* samples of regions turned off */
	uint64_t saturated;
	uint64_t period;
	int *fd;			/* perf events, one per thread found */
	pid_t *tid;
	size_t nfd, capacity;
};

/*
 * Recursive: destroying a session unmaps memory, which comes back here
 * through libsprofil's munmap (sp_bpf_memory_changing()).
 */
static pthread_mutex_t sb_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static _Atomic(struct sb_session *) sb_cur;	/* sampling, or NULL */
static struct sprofil_status sb_last;		/* counters of the last one */
static bool sb_exit_hook;

/* libbpf's messages go to stderr unless told; ours are one line each. */
static int sb_quiet(enum libbpf_print_level level, const char *fmt,
		    va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static int sb_perf_event_open(struct perf_event_attr *attr, pid_t tid)
{
	return (int)syscall(SYS_perf_event_open, attr, tid, -1, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

/*
 * The counter of one thread: task-clock, so samples follow its CPU time;
 * inherited by the threads it creates but not by fork children; removed
 * by exec.  Kernel-mode periods are seen (and not counted) so that the
 * program can tell how many periods of CPU time a user-mode sample closes.
 * Created disabled: it must have the program before it fires.
 */
static int sb_open_event(pid_t tid, uint64_t period)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.sample_period = period,
		.disabled = 1,
		.inherit = 1,
		.inherit_thread = 1,
		.remove_on_exec = 1,
		.exclude_hv = 1,
	};

	return sb_perf_event_open(&attr, tid);
}

/* Raw munmap: ours would call back into sp_bpf_memory_changing(). */
static void sb_unmap(volatile void *p, size_t len)
{
	if (p)
		syscall(SYS_munmap, (void *)p, len);
}

/* Closes the events, after which the program runs no more for them. */
static void sb_close_events(struct sb_session *s)
{
	while (s->nfd)
		close(s->fd[--s->nfd]);
}

static void sb_free(struct sb_session *s)
{
	if (!s)
		return;
	sb_close_events(s);
	sb_unmap(s->counts, s->counts_bytes);
	sprofil_bpf__destroy(s->skel);
	free(s->region);
	free(s->fd);
	free(s->tid);
	free(s);
}

/* Adds @n to the bucket at @bucket; returns the increments it lost. */
static uint64_t sb_bucket_add(uintptr_t bucket, uint32_t shift, uint64_t n)
{
	uint32_t max = spm_bucket_max(shift), old, next, add;

	add = n > max ? max : (uint32_t)n;
	if (shift == 1) {
		old = *(uint16_t *)bucket;
		next = spm_saturating_add(old, add, max);
		*(uint16_t *)bucket = (uint16_t)next;
	} else {
		old = *(uint32_t *)bucket;
		next = spm_saturating_add(old, add, max);
		*(uint32_t *)bucket = next;
	}
	return n - (next - old);
}

/* Moves region @i's counters into its buffer (or to the misses). */
static void sb_fold_region(struct sb_session *s, uint32_t i)
{
	struct sb_region *r = &s->region[i];
	volatile uint64_t *c = s->counts + r->first;
	uint64_t b, v;

	for (b = 0; b < r->nbuckets; b++) {
		if (!c[b])
			continue;
		v = __atomic_exchange_n(&c[b], 0, __ATOMIC_RELAXED);
		if (r->off)
			s->misses_off += v;
		else
			s->saturated += sb_bucket_add(r->base + (b << s->shift),
						      s->shift, v);
	}
}

/* Files the misses not yet filed into the overflow bin. */
static void sb_fold_misses(struct sb_session *s)
{
	uint64_t misses = s->skel->bss->sp_misses + s->misses_off;

	if (s->overflow && !s->overflow_off)
		s->saturated += sb_bucket_add(s->overflow, s->shift,
					      misses - s->misses_filed);
	s->misses_filed = misses;
}

static void sb_fold(struct sb_session *s)
{
	uint32_t i;

	for (i = 0; i < s->nregions; i++)
		sb_fold_region(s, i);
	sb_fold_misses(s);
}

static void sb_status_of(struct sb_session *s, struct sprofil_status *st)
{
	st->samples = s->skel->bss->sp_samples;
	st->misses = s->skel->bss->sp_misses + s->misses_off;
	st->saturated = s->saturated;
}

/* Ends session @s: no more samples, everything folded, counters kept. */
static void sb_end(struct sb_session *s)
{
	s->skel->bss->sp_on = 0;
	sb_close_events(s);
	sb_fold(s);
	memset(&sb_last, 0, sizeof(sb_last));
	sb_status_of(s, &sb_last);
	sb_free(s);
}

/* Room for one more event. */
static int sb_grow(struct sb_session *s)
{
	size_t cap = s->capacity ? 2 * s->capacity : 16;
	int *fds;
	pid_t *tids;

	if (s->nfd < s->capacity)
		return 0;
	fds = realloc(s->fd, cap * sizeof(*fds));
	if (!fds)
		return -ENOMEM;
	s->fd = fds;
	tids = realloc(s->tid, cap * sizeof(*tids));
	if (!tids)
		return -ENOMEM;
	s->tid = tids;
	s->capacity = cap;
	return 0;
}

static ssize_t sb_find_tid(const struct sb_session *s, pid_t tid)
{
	size_t i;

	for (i = 0; i < s->nfd; i++)
		if (s->tid[i] == tid)
			return (ssize_t)i;
	return -1;
}

/*
 * Gives thread @tid its counter with the program attached, and tells the
 * program so (a counter it also inherited must stay silent).
 */
static int sb_cover_thread(struct sb_session *s, pid_t tid, int prog_fd)
{
	int owned = bpf_map__fd(s->skel->maps.sp_owned);
	__u32 key = (__u32)tid;
	__u8 one = 1;
	int fd, err;

	err = sb_grow(s);
	if (err)
		return err;
	fd = sb_open_event(tid, s->period);
	if (fd < 0)
		return -errno;
	/* A full table only costs the rare double count it prevents. */
	bpf_map_update_elem(owned, &key, &one, BPF_ANY);
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog_fd) ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		err = -errno;
		close(fd);
		return err;
	}
	s->fd[s->nfd] = fd;
	s->tid[s->nfd] = tid;
	s->nfd++;
	return 0;
}

/*
 * Covers every thread of the process.  A thread cloned during the scan by
 * one already covered inherits its counter, but one cloned by a thread
 * not yet covered, or before its creator's counter was enabled, has none
 * that counts: hence the rescans, until one finds nothing new.
 */
static int sb_cover_all(struct sb_session *s)
{
	int prog_fd = bpf_program__fd(s->skel->progs.sp_sample);
	struct dirent *d;
	bool found = true;
	int round, err = 0;
	DIR *dir;
	pid_t tid;

	for (round = 0; found && round < SB_SCAN_ROUNDS; round++) {
		dir = opendir("/proc/self/task");
		if (!dir)
			return -errno;
		found = false;
		while (!err && (d = readdir(dir))) {
			if (d->d_name[0] == '.')
				continue;
			tid = (pid_t)atoi(d->d_name);
			if (sb_find_tid(s, tid) >= 0)
				continue;
			found = true;
			err = sb_cover_thread(s, tid, prog_fd);
			/* It exited meanwhile. */
			if (err == -ESRCH)
				err = 0;
		}
		closedir(dir);
		if (err)
			return err;
	}
	return found ? -EAGAIN : 0;
}

/*
 * SPROFIL_BPF_EVENTS=cpu: a cpu-clock counter on every CPU instead, the
 * program keeping this process's samples (one period each: the clock
 * runs whoever is on the CPU).  For measurement only: it samples wall
 * time while the process runs, costs every CPU an interrupt per period
 * whatever runs there, and misses CPUs that come online later.
 */
static bool sb_percpu(void)
{
	const char *e = getenv("SPROFIL_BPF_EVENTS");

	return e && !strcmp(e, "cpu");
}

static int sb_cover_cpus(struct sb_session *s)
{
	int prog_fd = bpf_program__fd(s->skel->progs.sp_sample);
	long cpu, ncpu = sysconf(_SC_NPROCESSORS_CONF);
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = s->period,
		.disabled = 1,
		.exclude_hv = 1,
	};
	int fd, err;

	for (cpu = 0; cpu < ncpu; cpu++) {
		err = sb_grow(s);
		if (err)
			return err;
		fd = (int)syscall(SYS_perf_event_open, &attr, -1, (int)cpu, -1,
				  PERF_FLAG_FD_CLOEXEC);
		/* An offline CPU has nothing to sample. */
		if (fd < 0 && errno == ENODEV)
			continue;
		if (fd < 0)
			return -errno;
		s->fd[s->nfd] = fd;
		s->tid[s->nfd++] = -1;
		if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog_fd) ||
		    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
			return -errno;
	}
	return 0;
}

/* Loads the program with the region set of @m and maps its counters. */
static int sb_load(struct sb_session *s, const struct spm_map *m,
		   uint64_t nbuckets)
{
	libbpf_print_fn_t prev = libbpf_set_print(sb_quiet);
	struct sprofil_bpf *skel;
	int err;

	skel = sprofil_bpf__open();
	if (!skel) {
		err = -errno;
		goto out;
	}
	s->skel = skel;
	spb_set_regions(skel, m);
	skel->rodata->sp_percpu = sb_percpu();
	for (uint32_t i = 0; i < m->nregions; i++)
		skel->rodata->sp_first[i] = s->region[i].first;
	/* The self-test program is the tests' business (and wants 5.17). */
	bpf_program__set_autoload(skel->progs.sp_lookup_test, false);
	err = bpf_map__set_max_entries(skel->maps.sp_counts,
				       nbuckets ? (uint32_t)nbuckets : 1);
	if (err)
		goto out;
	err = sprofil_bpf__load(skel);
	if (err)
		goto out;
	s->counts_bytes = (nbuckets ? nbuckets : 1) * sizeof(uint64_t);
	s->counts = mmap(NULL, s->counts_bytes, PROT_READ | PROT_WRITE,
			 MAP_SHARED, bpf_map__fd(skel->maps.sp_counts), 0);
	if (s->counts == MAP_FAILED) {
		s->counts = NULL;
		err = -errno;
	}
out:
	libbpf_set_print(prev);
	return err;
}

/* A session for @n entries, loaded but not yet sampling. */
static int sb_session_new(const struct sprofil_region *r, unsigned int n,
			  unsigned int flags, uint64_t period,
			  struct sb_session **out)
{
	struct sb_session *s = calloc(1, sizeof(*s));
	struct spm_map m = { 0 };
	uint64_t nbuckets = 0;
	uint32_t i;
	int err = -ENOMEM;

	if (!s)
		return -ENOMEM;
	s->period = period;
	/* One spare entry, so that n == 0 asks malloc for something. */
	m.region = malloc((n + 1) * sizeof(*m.region));
	m.segment = malloc((SPM_MAX_SEGMENTS(n) + 1) * sizeof(*m.segment));
	m.stack = malloc((n + 1) * sizeof(*m.stack));
	s->region = calloc(n + 1, sizeof(*s->region));
	if (!m.region || !m.segment || !m.stack || !s->region)
		goto fail;
	err = spm_prepare(&m, r, n, flags);
	if (err)
		goto fail;
	s->shift = m.shift;
	s->nregions = m.nregions;
	for (i = 0; i < m.nregions; i++) {
		s->region[i].base = (uintptr_t)r[m.region[i].id].base;
		s->region[i].size = r[m.region[i].id].size;
		s->region[i].nbuckets = m.region[i].nbuckets;
		s->region[i].first = (uint32_t)nbuckets;
		nbuckets += m.region[i].nbuckets;
		if (nbuckets > SB_MAX_BUCKETS) {
			err = -ENOMEM;
			goto fail;
		}
	}
	if (m.overflow >= 0)
		s->overflow = (uintptr_t)r[m.overflow].base;
	err = sp_check_buffers(r, n);
	if (err)
		goto fail;
	err = sb_load(s, &m, nbuckets);
	if (err)
		goto fail;
	*out = s;
	goto done;
fail:
	sb_free(s);
done:
	free(m.region);
	free(m.segment);
	free(m.stack);
	return err;
}

static int bpf_flush(void)
{
	struct sb_session *s;

	pthread_mutex_lock(&sb_lock);
	s = atomic_load(&sb_cur);
	if (s)
		sb_fold(s);
	pthread_mutex_unlock(&sb_lock);
	return 0;
}

/* Whatever is pending goes into the buffers before the process ends. */
static void sb_at_exit(void)
{
	bpf_flush();
}

static int bpf_probe(const char **why)
{
	static char reason[160];
	struct sb_session s = { 0 };
	struct spm_map m = { 0 };
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.sample_period = 1000000000,
		.disabled = 1,
		.exclude_hv = 1,
	};
	int err, fd;

	/*
	 * A one-entry map first: refused at once where BPF is not
	 * permitted, before libbpf parses the kernel's BTF for the load.
	 */
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, sizeof(__u32),
			    sizeof(__u32), 1, NULL);
	err = fd < 0 ? -errno : 0;
	if (fd >= 0)
		close(fd);
	/* Then loading the real program (no regions): the one true test. */
	if (!err)
		err = sb_load(&s, &m, 0);
	sb_unmap(s.counts, s.counts_bytes);
	sprofil_bpf__destroy(s.skel);
	if (err) {
		snprintf(reason, sizeof(reason),
			 err == -EPERM || err == -EACCES ?
			 "BPF is not permitted (needs CAP_BPF and CAP_PERFMON, or root): %s" :
			 "cannot load its BPF program: %s",
			 strerror(-err));
		*why = reason;
		return -ENODEV;
	}
	fd = sb_perf_event_open(&attr, 0);
	if (fd < 0) {
		snprintf(reason, sizeof(reason),
			 "no perf task-clock counter with kernel periods (needs CAP_PERFMON or perf_event_paranoid <= 1): %s",
			 strerror(errno));
		*why = reason;
		return -ENODEV;
	}
	close(fd);
	return 0;
}

static int bpf_start(const struct sprofil_region *r, unsigned int n,
		     unsigned int flags, uint64_t *period_ns)
{
	struct sb_session *s, *old;
	uint64_t period;
	int err;

	err = sp_period_ns(flags, *period_ns, &period);
	if (err)
		return err;
	err = sb_session_new(r, n, flags, period, &s);
	if (err)
		return err;
	err = sb_percpu() ? sb_cover_cpus(s) : sb_cover_all(s);
	if (err) {
		sb_free(s);
		return err;
	}
	pthread_mutex_lock(&sb_lock);
	if (!sb_exit_hook && !atexit(sb_at_exit))
		sb_exit_hook = true;
	old = atomic_exchange(&sb_cur, s);
	/* The switch: one set stops counting, the other starts. */
	if (old)
		old->skel->bss->sp_on = 0;
	s->skel->bss->sp_on = 1;
	if (old)
		sb_end(old);
	pthread_mutex_unlock(&sb_lock);
	*period_ns = period;
	return 0;
}

static int bpf_stop(void)
{
	struct sb_session *s;

	pthread_mutex_lock(&sb_lock);
	s = atomic_exchange(&sb_cur, NULL);
	if (s)
		sb_end(s);
	pthread_mutex_unlock(&sb_lock);
	return 0;
}

static int bpf_status(struct sprofil_status *st)
{
	struct sb_session *s;
	uint32_t i;

	pthread_mutex_lock(&sb_lock);
	s = atomic_load(&sb_cur);
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	if (s) {
		sb_fold(s);
		sb_status_of(s, st);
		st->state = SPROFIL_STATE_ENABLED;
		st->period_ns = s->period;
		st->nregions = s->nregions;
		for (i = 0; i < s->nregions; i++)
			st->regions_off += s->region[i].off;
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
	struct sb_session *s = atomic_exchange(&sb_cur, NULL);
	pthread_mutex_t fresh = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

	sb_lock = fresh;
	memset(&sb_last, 0, sizeof(sb_last));
	sb_free(s);
}

const struct sp_backend sp_backend_bpf = {
	.name = "bpf",
	.probe = bpf_probe,
	.start = bpf_start,
	.stop = bpf_stop,
	.status = bpf_status,
	.flush = bpf_flush,
	.forget = bpf_forget,
};

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
void sp_bpf_memory_changing(uintptr_t start, size_t len)
{
	struct sb_session *s;
	uint32_t i;

	if (!atomic_load(&sb_cur))
		return;
	pthread_mutex_lock(&sb_lock);
	s = atomic_load(&sb_cur);
	for (i = 0; s && i < s->nregions; i++) {
		if (s->region[i].off || !sb_overlaps(start, len,
						     s->region[i].base,
						     s->region[i].size))
			continue;
		sb_fold_region(s, i);
		s->region[i].off = true;
	}
	if (s && s->overflow && !s->overflow_off &&
	    sb_overlaps(start, len, s->overflow, 1u << s->shift)) {
		sb_fold_misses(s);
		s->overflow_off = true;
	}
	pthread_mutex_unlock(&sb_lock);
}
