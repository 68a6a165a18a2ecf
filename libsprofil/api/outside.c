// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Sampling another process from outside (docs/record.md, "Static
 * programs and attaching"): what `sprofil record` does for a statically
 * linked program, which has no loader to preload the collector into,
 * and for `record -p PID`, a process already running, on the kmod or the
 * bpf backend (sp_set_target(), backends/backend.h).  The module samples
 * the process whose /proc/PID/mem we hand it, every thread of it, into
 * our pinned buffers; the bpf backend opens its perf events on the
 * target's threads (inherited by the threads they create) and the shared
 * program counts into maps registered under the target's pid.  The
 * buffers the counts land in, and the caller table, are ours; the
 * target's memory is never written, and when we stop, the session ends
 * and the target runs on as before.
 *
 * The regions are the target's modules as /proc/PID/maps shows them
 * when sampling starts (outside_maps.c); one profile file, in the
 * format of every other (docs/gmon-format.md), names them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/profil.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sprofil.h>
#include <sprofil/callers.h>
#include <sprofil/gmon_format.h>

#include "api/outside.h"
#include "backends/backend.h"
#include "backends/unwind_load.h"
#include "common/settings.h"
#include "pg/gmon.h"
#include "pg/gmon_callers.h"

/* Buckets per module at most, as the -pg runtime's (gmon.c). */
#define OS_MAX_BUCKETS	(2ul << 20)
/* The caller table and its depth, as the -pg runtime's. */
#define OS_CALLER_NODES	(1u << 17)
#define OS_DEPTH	64
/* A GNU gmon.out of more arcs than this is not read whole. */
#define OS_MAX_ARCS	(1u << 24)

/*
 * The call arcs of a GNU gmon.out (tag 1 records), into a malloc()ed
 * *@arcs.  Returns their number, or -1 when @path is not a
 * GNU gmon.out we can read (said on stderr; the profile goes on
 * without them).
 */
static ssize_t os_read_arcs(const char *path, struct sp_arc **arcs)
{
	unsigned char head[GMF_HEADER_SIZE], rec[40];
	uint32_t version;
	struct sp_arc *a = NULL, *grown;
	size_t n = 0, cap = 0;
	uint32_t nbins;
	int tag;
	FILE *f = fopen(path, "re");

	*arcs = NULL;
	if (!f)
		return errno == ENOENT ? 0 : -1;
	if (fread(head, 1, sizeof(head), f) != sizeof(head) ||
	    memcmp(head, GMF_COOKIE, 4))
		goto bad;
	memcpy(&version, head + 4, 4);
	if (version != GMF_GNU_VERSION)
		goto bad;
	while ((tag = getc(f)) != EOF) {
		switch (tag) {
		case GMF_GNU_TAG_TIME_HIST:
			/* low, high, nbins, rate, dimension, abbreviation */
			if (fread(rec, 1, 40, f) != 40)
				goto bad;
			memcpy(&nbins, rec + 16, 4);
			if (fseek(f, (long)nbins * 2, SEEK_CUR))
				goto bad;
			break;
		case GMF_GNU_TAG_CG_ARC:
			if (fread(rec, 1, 20, f) != 20 || n >= OS_MAX_ARCS)
				goto bad;
			if (n == cap) {
				cap = cap ? 2 * cap : 256;
				grown = realloc(a, cap * sizeof(*a));
				if (!grown)
					goto bad;
				a = grown;
			}
			memcpy(&a[n].from, rec, 8);
			memcpy(&a[n].self, rec + 8, 8);
			a[n].count = 0;
			memcpy(&a[n].count, rec + 16, 4);
			n++;
			break;
		default:
			/* Basic-block counts, or not GNU: not ours to read. */
			goto bad;
		}
	}
	fclose(f);
	*arcs = a;
	return (ssize_t)n;
bad:
	fprintf(stderr, "libsprofil: %s: not a GNU gmon.out this can read: the program's call counts are left out\n",
		path);
	fclose(f);
	free(a);
	return -1;
}

static bool os_in(const struct sp_target_module *m, uintptr_t pc)
{
	return pc >= m->low && pc < m->high;
}

/*
 * glibc writes a PIE's arcs at link-time addresses (its load bias taken
 * off, since 2.27), a static-pie's too: those are put back at the
 * runtime addresses of the executable, where the writer looks for them.
 */
static void os_arcs_runtime(struct sp_arc *arcs, size_t n,
			    const struct sp_target_module *mods, size_t nmods)
{
	const struct sp_target_module *exe = NULL;
	size_t i;

	for (i = 0; i < nmods && !exe; i++)
		if (mods[i].main)
			exe = &mods[i];
	if (!exe || !exe->bias)
		return;
	for (i = 0; i < n; i++) {
		if (!os_in(exe, arcs[i].from) &&
		    os_in(exe, arcs[i].from + exe->bias))
			arcs[i].from += exe->bias;
		if (!os_in(exe, arcs[i].self) &&
		    os_in(exe, arcs[i].self + exe->bias))
			arcs[i].self += exe->bias;
	}
}

/* The caller table, unless SPROFIL_CALLERS=0 (record's --no-callers). */
static void *os_callers(size_t *bytes)
{
	const char *env = sp_setting("SPROFIL_CALLERS");
	void *table;

	*bytes = spc_table_bytes(OS_CALLER_NODES);
	if (env && !strcmp(env, "0"))
		return NULL;
	table = mmap(NULL, *bytes, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (table == MAP_FAILED)
		return NULL;
	if (sprofil_callers(table, *bytes, OS_DEPTH)) {
		munmap(table, *bytes);
		return NULL;
	}
	return table;
}

/* Waits until @ctl ends: record closes it when the time is up. */
static void os_wait(int ctl)
{
	char buf[64];
	ssize_t got;

	do
		got = read(ctl, buf, sizeof(buf));
	while (got > 0 || (got < 0 && errno == EINTR));
}

/* Writes the profile of what was sampled (sampling stopped). */
static int os_write(const char *path, struct sp_target_module *mods,
		    size_t nmods, struct sp_hist *hist, uint64_t period,
		    const char *pg_file)
{
	struct sp_profile p = { .hist = hist, .nhist = nmods,
				.period_ns = period };
	struct sp_callers_data callers;
	struct sp_arc *arcs = NULL;
	ssize_t narcs = 0;
	int ret;

	if (pg_file) {
		narcs = os_read_arcs(pg_file, &arcs);
		if (narcs < 0)
			narcs = 0;
		os_arcs_runtime(arcs, (size_t)narcs, mods, nmods);
		unlink(pg_file);
	}
	if (sp_callers_for_dump(false, &callers))
		p.callers = &callers;
	sp_gmon_set_target(mods, nmods, path);
	ret = sp_gmon_dump_arcs(&p, arcs, (size_t)narcs);
	if (p.callers)
		sp_callers_data_free(&callers);
	free(arcs);
	return ret ? 1 : 0;
}

int sp_outside_record(pid_t pid, const char *path, int ctl, int ready,
		      const char *pg_file)
{
	struct sp_target_module *mods;
	struct sprofil_info info = { 0 };
	struct sp_hist *hist = NULL;
	struct prof *prof = NULL;
	struct timeval tv;
	size_t nmods = 0, i, cbytes;
	uint64_t used, period;
	uint32_t scale;
	void *table;
	int err, ret = 1;

	err = sp_outside_modules(pid, &mods, &nmods);
	if (err) {
		fprintf(stderr, "sprofil: process %d: cannot read its mappings: %s\n",
			(int)pid, strerror(-err));
		return 1;
	}
	if (!nmods) {
		fprintf(stderr, "sprofil: process %d: no program mapped to sample (a kernel thread?)\n",
			(int)pid);
		sp_outside_modules_free(mods, 0);
		return 1;
	}
	if (nmods > SPROFIL_MAX_REGIONS)
		nmods = SPROFIL_MAX_REGIONS;
	hist = calloc(nmods + 1, sizeof(*hist));
	prof = calloc(nmods + 1, sizeof(*prof));
	if (!hist || !prof)
		goto nomem;
	for (i = 0; i < nmods; i++) {
		if (sp_fit_scale(mods[i].xhigh - mods[i].xlow, OS_MAX_BUCKETS,
				 4, &scale, &used))
			goto nomem;
		hist[i].buckets = sp_buckets_alloc(used, 4);
		if (!hist[i].buckets)
			goto nomem;
		hist[i].low_pc = mods[i].xlow;
		hist[i].nbuckets = used;
		hist[i].bucket_size = 4;
		hist[i].scale = scale;
		prof[i].pr_base = (void *)hist[i].buckets;
		prof[i].pr_size = used * 4;
		prof[i].pr_off = mods[i].xlow;
		prof[i].pr_scale = scale;
	}
	/* The signal backend samples inside its own process only. */
	if (sprofil_info(&info) || !info.backend ||
	    !strcmp(info.backend, "signal")) {
		fprintf(stderr, "sprofil: the %s backend cannot sample another process: it needs kmod or bpf\n",
			info.backend ? info.backend : "chosen");
		table = NULL;
		goto out;
	}
	table = os_callers(&cbytes);
	sp_set_target(pid);
	/* Chains through its frameless code: its modules' unwind tables. */
	sp_unwind_set_target(mods, nmods);
	if (sprofil(prof, (int)nmods, &tv, PROF_UINT)) {
		err = errno;
		fprintf(stderr, "sprofil: process %d: cannot sample it on %s: %s\n",
			(int)pid, info.backend, err == EACCES || err == EPERM ?
			"not allowed to trace it (another user's, or ptrace rules)" :
			strerror(err));
		goto out;
	}
	period = (uint64_t)tv.tv_sec * 1000000000ull +
		 (uint64_t)tv.tv_usec * 1000ull;
	if (!sprofil_info(&info) && info.period_ns)
		period = info.period_ns;
	if (write(ready, "ready\n", 6) != 6) {
		sprofil(NULL, 0, NULL, 0);
		goto out;
	}
	os_wait(ctl);
	/* The target's events close here: it runs on unprofiled. */
	sprofil(NULL, 0, NULL, 0);
	ret = os_write(path, mods, nmods, hist, period, pg_file);
out:
	sp_unwind_set_target(NULL, 0);
	if (table)
		munmap(table, cbytes);
	for (i = 0; i < nmods; i++)
		sp_buckets_free(hist[i].buckets, hist[i].nbuckets, 4);
	free(hist);
	free(prof);
	sp_outside_modules_free(mods, nmods);
	return ret;
nomem:
	fprintf(stderr, "sprofil: process %d: out of memory for its histograms\n",
		(int)pid);
	table = NULL;
	goto out;
}
