// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * HP-UX smonitor(3C): profiling of several text regions (load modules)
 * into one caller buffer, and the monitor session monitor() shares.
 *
 * The buffer is cut into one share per region, in proportion to the text
 * sizes, so that every region gets the same resolution as far as whole
 * buckets allow; each region then gets the finest scale its share
 * affords.  A region is handed to sprofil() with only the buckets its
 * text reaches, so that it covers no more text than asked for and the
 * histograms of adjacent regions do not overlap in the written profile.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sprofil.h>
#include <sprofil/mapping.h>
#include "common/fork.h"
#include "pg/gmon.h"
#include "pg/thread_table.h"
#include "pg/gmon_callers.h"

/* The set the last successful start is sampling into. */
static pthread_mutex_t mon_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sp_hist *mon_hist;
static size_t mon_nhist;
static uint64_t mon_period_ns;

int sp_fit_scale(uint64_t text, uint64_t nbuckets, unsigned int bucket_size,
		 uint32_t *scale, uint64_t *used)
{
	uint32_t shift = bucket_size == 4 ? 2 : 1;
	uint64_t q = (text - 1) >> shift;	/* of the last text byte */
	uint64_t s;

	/* More buckets than sprofil() takes are of no use; and no overflow. */
	if (nbuckets > SPROFIL_MAX_REGION_BYTES >> shift)
		nbuckets = SPROFIL_MAX_REGION_BYTES >> shift;
	/* index(q) = q * s / 2^16 < nbuckets  <=>  s <= (n * 2^16 - 1) / q */
	s = q < nbuckets ? SPM_SCALE_ONE : ((nbuckets << 16) - 1) / q;
	if (s < 2)
		return -EINVAL;
	*scale = s;
	*used = spm_bucket_index(q, 0, s) + 1;
	return 0;
}

/* a * b / c without overflow, for a, b, c below 2^64. */
static uint64_t mul_div(uint64_t a, uint64_t b, uint64_t c)
{
	return (unsigned __int128)a * b / c;
}

static int fail(const char *who, int err, const char *why)
{
	fprintf(stderr, "%s: %s\n", who, why);
	errno = err;
	return -err;
}

/* Stops sampling and writes what the current set counted (mon_lock held). */
static int stop_and_dump(const char *who)
{
	struct sp_profile p = { 0 };
	struct sp_callers_data callers;
	struct sp_arc *arcs;
	ssize_t narcs;
	int err;

	if (!mon_hist)
		return 0;
	if (sprofil(NULL, 0, NULL, 0)) {
		err = errno;
		fprintf(stderr, "%s: cannot stop profiling: %s\n", who,
			strerror(err));
		return -err;
	}
	p.hist = mon_hist;
	p.nhist = mon_nhist;
	p.period_ns = mon_period_ns;
	if (sp_per_thread())
		p.threads = sp_thread_table_snapshot(&p.nthreads);
	/* One profile per process: the -pg runtime's arcs go with it. */
	narcs = sp_gmon_monitor_arcs(&arcs);
	/* And the chains of the session, taken: each in one dump. */
	if (sp_callers_for_dump(true, &callers))
		p.callers = &callers;
	err = sp_gmon_dump_arcs(&p, arcs, narcs > 0 ? narcs : 0);
	if (p.callers)
		sp_callers_data_free(&callers);
	free((void *)p.threads);
	free(arcs);
	free(mon_hist);
	mon_hist = NULL;
	if (err)
		errno = -err;
	return err;
}

/*
 * Turns the regions into histograms over @buffer.  Returns 0 or a
 * negative errno, having said why.
 */
static int plan(const char *who, const struct text_region *regions, int n,
		void *buffer, size_t bufsize, unsigned int flags,
		struct sp_hist *hist)
{
	unsigned int esz = flags & PROF_UINT ? 4 : 2;
	uintptr_t base = ((uintptr_t)buffer + esz - 1) & ~(uintptr_t)(esz - 1);
	uint64_t total = 0, nbuckets, share, used;
	uint32_t scale;
	int i;

	if (flags & ~(PROF_UINT | PROF_FAST))
		return fail(who, EINVAL, "flags must be PROF_USHORT or PROF_UINT, with PROF_FAST");
	if (!regions || !buffer)
		return fail(who, EINVAL, "no regions or no buffer");
	for (i = 0; i < n; i++) {
		if (regions[i].text_end <= regions[i].text_start)
			return fail(who, EINVAL, "a region ends before it starts");
		/* Overlapping regions could add up past 2^64. */
		if (__builtin_add_overflow(total, regions[i].text_end -
					   regions[i].text_start, &total))
			return fail(who, EINVAL, "the regions add up to more than the address space");
	}
	/* Buckets must be aligned: the unaligned head of the buffer is lost. */
	nbuckets = base - (uintptr_t)buffer > bufsize ? 0 :
		   (bufsize - (base - (uintptr_t)buffer)) / esz;
	if (nbuckets < (uint64_t)n)
		return fail(who, EINVAL, "the buffer is too small for one bucket per region");
	/* One bucket each, then the rest in proportion to text size. */
	for (i = 0; i < n; i++) {
		uint64_t text = regions[i].text_end - regions[i].text_start;

		share = 1 + mul_div(nbuckets - n, text, total);
		if (sp_fit_scale(text, share, esz, &scale, &used))
			return fail(who, EINVAL, "the buffer is too small for the text (scale below 2)");
		hist[i].low_pc = regions[i].text_start;
		hist[i].buckets = (const void *)base;
		hist[i].nbuckets = used;
		hist[i].bucket_size = esz;
		hist[i].scale = scale;
		base += share * esz;
	}
	return 0;
}

void sp_monitor_start(const char *who, const struct text_region *regions,
		      int nregions, void *buffer, size_t bufsize,
		      unsigned int flags)
{
	struct sprofil_info info;
	struct sp_hist *hist;
	struct prof *prof;
	int i, dumped;

	if (nregions < 1 || nregions > SPROFIL_MAX_REGIONS) {
		fail(who, EINVAL, "the number of regions is out of range");
		return;
	}
	hist = calloc(nregions, sizeof(*hist));
	prof = calloc(nregions, sizeof(*prof));
	if (!hist || !prof) {
		fail(who, ENOMEM, "out of memory");
		goto out;
	}
	if (plan(who, regions, nregions, buffer, bufsize, flags, hist))
		goto out;
	for (i = 0; i < nregions; i++) {
		prof[i].pr_base = (void *)hist[i].buckets;
		prof[i].pr_size = hist[i].nbuckets * hist[i].bucket_size;
		prof[i].pr_off = hist[i].low_pc;
		prof[i].pr_scale = hist[i].scale;
	}

	sp_fork_handlers_register();
	pthread_mutex_lock(&mon_lock);
	/* The previous set is written before its buffer can be reused. */
	dumped = stop_and_dump(who);
	if (sprofil(prof, nregions, NULL, flags)) {
		fprintf(stderr, "%s: cannot start profiling: %s\n", who,
			strerror(errno));
	} else if (sprofil_info(&info)) {
		/* Samples without a period cannot be turned into time. */
		fprintf(stderr, "%s: cannot read the sampling period: %s\n",
			who, strerror(errno));
		sprofil(NULL, 0, NULL, 0);
	} else {
		mon_hist = hist;
		mon_nhist = nregions;
		mon_period_ns = info.period_ns;
		hist = NULL;
		sp_gmon_monitor_started();
		if (dumped)
			errno = -dumped;
	}
	pthread_mutex_unlock(&mon_lock);
out:
	free(hist);
	free(prof);
}

/* fork.c: mon_lock, the outermost lock. */
void sp_monitor_fork_prepare(void)
{
	pthread_mutex_lock(&mon_lock);
}

void sp_monitor_fork_parent(void)
{
	pthread_mutex_unlock(&mon_lock);
}

void sp_monitor_fork_child(void)
{
	pthread_mutex_unlock(&mon_lock);
}

void sp_monitor_stop(const char *who)
{
	pthread_mutex_lock(&mon_lock);
	stop_and_dump(who);
	pthread_mutex_unlock(&mon_lock);
}

void smonitor(struct text_region *regions, int nregions, void *buffer,
	      size_t bufsize, int nfunc, unsigned int flags)
{
	(void)nfunc;
	if (!regions && !nregions && !buffer && !bufsize && !flags)
		sp_monitor_stop("smonitor");
	else
		sp_monitor_start("smonitor", regions, nregions, buffer,
				 bufsize, flags);
}
