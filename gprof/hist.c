// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Histograms to symbols, and the flat profile.
 *
 * GNU records (uniform bins) are assigned exactly as GNU gprof does it,
 * truncated integer bin edges included, since the flat profile must
 * show GNU's numbers (its 100.16% included).  sprofil's extension
 * records carry the profil mapping itself, so each bucket's exact byte
 * range is known and split between the symbols it overlaps.
 */
#include <stdlib.h>
#include <string.h>

#include <sprofil/events.h>

#include "gprof.h"

/* SI prefixes for the per-call columns, as GNU chooses them. */
static const struct {
	char prefix;
	double scale;
} si_prefixes[] = {
	{ 'T', 1e-12 }, { 'G', 1e-09 }, { 'M', 1e-06 }, { 'K', 1e-03 },
	{ ' ', 1e-00 }, { 'm', 1e+03 }, { 'u', 1e+06 }, { 'n', 1e+09 },
	{ 'p', 1e+12 }, { 'f', 1e+15 }, { 'a', 1e+18 },
};

/* The bin width of the first record, in 2-byte units (GNU's scale). */
static double first_scale(struct profile *prof)
{
	return prof->num_hist_records ? prof->hist_records[0].bin_scale : 0;
}

bool hist_check_address(struct profile *prof, uint64_t addr)
{
	unsigned int i;

	for (i = 0; i < prof->num_hist_records; i++)
		if (prof->hist_records[i].lowpc <= addr &&
		    addr < prof->hist_records[i].highpc)
			return true;
	return false;
}

/* GNU's -p/-P rule: whether @s's time is shown (and counted). */
static bool flat_included(struct profile *prof, const struct sym *s)
{
	return sym_lookup(&prof->syms[INCL_FLAT], s->addr) ||
	       (!prof->syms[INCL_FLAT].len &&
		!sym_lookup(&prof->syms[EXCL_FLAT], s->addr));
}

static void credit(struct profile *prof, struct sym *s, double ticks)
{
	if (flat_included(prof, s))
		s->hist.time += ticks;
	else
		prof->total_time -= ticks;
}

/*
 * Where symbol @j's range ends for sample assignment: where the next
 * symbol of its module starts (GNU ignores gaps), else past its end.
 */
static uint64_t sym_range_end(struct profile *prof, size_t j)
{
	const struct sym *s = &prof->symtab.base[j];

	if (j + 1 < prof->symtab.len &&
	    prof->symtab.base[j + 1].module == s->module)
		return prof->symtab.base[j + 1].addr;
	return s->end_addr + 1;
}

static void assign_gnu(struct profile *prof, const struct hist_record *r)
{
	uint64_t lowpc = r->lowpc / 2;
	double scale = first_scale(prof);
	size_t j, k = 1;
	uint64_t i;

	for (i = 0; i < r->num_bins; i++) {
		uint64_t count = r->sample[i], bin_lo, bin_hi;

		if (!count)
			continue;
		bin_lo = lowpc + (uint64_t)(scale * i);
		bin_hi = lowpc + (uint64_t)(scale * (i + 1));
		prof->total_time += count;
		for (j = k - 1; j < prof->symtab.len; k = ++j) {
			uint64_t sym_lo = prof->symtab.base[j].hist.scaled_addr;
			uint64_t sym_hi = sym_range_end(prof, j) / 2;
			uint64_t overlap;

			if (bin_hi < sym_lo)
				break;
			if (bin_lo >= sym_hi)
				continue;
			overlap = (bin_hi < sym_hi ? bin_hi : sym_hi) -
				  (bin_lo > sym_lo ? bin_lo : sym_lo);
			if (overlap > 0)
				credit(prof, &prof->symtab.base[j],
				       overlap * (double)count / scale);
		}
	}
}

size_t hist_sym_at(struct profile *prof, uint64_t addr)
{
	size_t lo = 0, hi = prof->symtab.len;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (prof->symtab.base[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : 0;
}

/* Bucket i holds the bytes whose ((off / size) * scale) >> 16 is i. */
static uint64_t bucket_start(const struct hist_record *r, uint64_t i)
{
	unsigned __int128 units = ((unsigned __int128)i << 16) + r->scale - 1;

	return r->lowpc + (uint64_t)(units / r->scale) * r->bucket_size;
}

void hist_bin_bounds(struct profile *prof, const struct hist_record *r,
		     uint64_t i, uint64_t *lo,
		     uint64_t *hi)
{
	double scale = first_scale(prof);

	if (!r->scale) {
		/* GNU's bins, in 2-byte units from lowpc / 2. */
		*lo = 2 * (r->lowpc / 2 + (uint64_t)(scale * i));
		*hi = 2 * (r->lowpc / 2 + (uint64_t)(scale * (i + 1)));
		return;
	}
	*lo = bucket_start(r, i);
	*hi = bucket_start(r, i + 1);
	if (*hi > r->highpc)
		*hi = r->highpc;
}

static void assign_exact(struct profile *prof, const struct hist_record *r)
{
	uint64_t i;

	for (i = 0; i < r->num_bins; i++) {
		uint64_t count = r->sample[i], lo, hi;
		size_t j;

		if (!count)
			continue;
		hist_bin_bounds(prof, r, i, &lo, &hi);
		prof->total_time += count;
		if (hi <= lo)
			continue;
		for (j = hist_sym_at(prof, lo); j < prof->symtab.len; j++) {
			struct sym *s = &prof->symtab.base[j];
			uint64_t s_hi = sym_range_end(prof, j), a, b;

			if (s->addr >= hi)
				break;
			a = lo > s->addr ? lo : s->addr;
			b = hi < s_hi ? hi : s_hi;
			if (b > a)
				credit(prof, s,
				       (double)count * (b - a) / (hi - lo));
		}
	}
}

/*
 * The samples of a histogram of the profiler's own code (extension
 * records only) go to overhead_time, not to any function nor to the
 * total the percentages are of: they are not the program's time.
 */
static bool assign_overhead(struct profile *prof, const struct hist_record *r)
{
	unsigned int m = ADDR_MODULE(r->lowpc);
	uint64_t i;

	if (!r->scale || m >= prof->nmodules || !prof->modules[m].overhead)
		return false;
	for (i = 0; i < r->num_bins; i++) {
		prof->overhead_time += r->sample[i];
		prof->modules[m].time += r->sample[i];
	}
	return true;
}

void hist_assign_samples(struct profile *prof)
{
	unsigned int i;
	size_t j;

	for (j = 0; j < prof->symtab.len; j++)
		prof->symtab.base[j].hist.scaled_addr =
			prof->symtab.base[j].addr / 2;
	for (i = 0; i < prof->num_hist_records; i++) {
		if (assign_overhead(prof, &prof->hist_records[i]))
			continue;
		if (prof->hist_records[i].scale)
			assign_exact(prof, &prof->hist_records[i]);
		else
			assign_gnu(prof, &prof->hist_records[i]);
	}
	for (j = 0; j < prof->symtab.len; j++)
		prof->modules[prof->symtab.base[j].module].time +=
			prof->symtab.base[j].hist.time;
}

static void flat_blurb(struct profile *prof)
{
	fputs(
"\n"
" %         share of the program's run time spent in this function\n"
"            itself (its self seconds over all sampled seconds).\n"
"\n"
"cumulative  running sum of self seconds down the table.\n"
" seconds\n"
"\n"
"self        seconds of samples that fell in this function itself,\n"
"seconds     the key the table is sorted by.\n"
"\n"
"calls       times the function was called, when it was compiled\n"
"            with -pg; blank when unknown.\n"
"\n"
"self        self time per call, in the unit shown.\n"
"ms/call\n"
"\n"
"total       self time plus the time of its callees, per call.\n"
"ms/call\n"
"\n"
"name        the function; ties in time are ordered by calls, then\n"
"            alphabetically.  An index in brackets points into the\n"
"            call graph.\n", stdout);
	if (prof->multi_module)
		fputs("\n"
"mod         the load module holding the function: an index into the\n"
"            table of modules at the end of the report.\n", stdout);
	fputs("\n"
"Each sample counts as one sampling period of CPU time; a number not\n"
"much larger than that period is noise.\n", stdout);
}

static void print_header(struct profile *prof, const struct gprof_options *opt,
			 char prefix)
{
	const struct spe_event *e;
	char unit[16];

	snprintf(unit, sizeof(unit), "%c%c/call", prefix,
		 prof->hist_dimension_abbrev);
	if (opt->bsd_style_output) {
		printf("\ngranularity: each sample hit covers %ld byte(s)",
		       (long)first_scale(prof) * 2L);
		if (prof->total_time > 0.0)
			printf(" for %.2f%% of %.2f %s\n\n",
			       100.0 / prof->total_time,
				       prof->total_time / prof->hz,
			       prof->hist_dimension);
	} else if (prof->event_type) {
		/* A count of events: "Each sample counts as 1 page fault." */
		e = spe_event(prof->event_type);
		printf("\nEach sample counts as %llu %s.\n",
		       (unsigned long long)prof->event_period,
		       prof->event_period == 1 ? e->unit : e->units);
	} else {
		printf("\nEach sample counts as %g %s.\n", 1.0 / prof->hz,
		       prof->hist_dimension);
	}
	overhead_print(prof);
	if (prof->total_time <= 0.0) {
		printf(" no time accumulated\n\n");
		/* Every numerator is zero then; avoid dividing by it. */
		prof->total_time = 1.0;
	}
	printf("%5.5s %10.10s %8.8s %8.8s %8.8s %8.8s  %s%-8.8s\n",
	       "%  ", "cumulative", "self  ", "", "self  ", "total ",
	       prof->multi_module ? "     " : "", "");
	printf("%5.5s %9.9s  %8.8s %8.8s %8.8s %8.8s  %s%-8.8s\n",
	       "time", prof->hist_dimension, prof->hist_dimension, "calls", unit, unit,
	       prof->multi_module ? " mod " : "", "name");
}

static double accum_time;

static void print_line(struct profile *prof, const struct gprof_options *opt,
		       struct sym *s,
		       double scale)
{
	if (opt->ignore_zeros && s->ncalls == 0 && s->hist.time == 0)
		return;
	accum_time += s->hist.time;
	printf(opt->bsd_style_output ? "%5.1f %10.2f %8.2f" :
	       "%6.2f %9.2f %8.2f",
	       prof->total_time > 0.0 ? 100 * s->hist.time / prof->total_time :
		       0.0,
	       accum_time / prof->hz, s->hist.time / prof->hz);
	if (s->ncalls)
		printf(" %8lu %8.2f %8.2f  ", (unsigned long)s->ncalls,
		       scale * s->hist.time / prof->hz / s->ncalls,
		       scale * (s->hist.time + s->cg.child_time) / prof->hz /
		       s->ncalls);
	else
		printf(" %8.8s %8.8s %8.8s  ", "", "", "");
	if (prof->multi_module)
		printf("%4u ", s->module);
	if (opt->bsd_style_output)
		print_name(prof, opt, stdout, s);
	else
		print_name_only(prof, opt, stdout, s);
	putchar('\n');
}

/* Self time down, then calls down, then name (GNU's cmp_time). */
static int cmp_time(const void *lp, const void *rp)
{
	const struct sym *l = *(struct sym *const *)lp;
	const struct sym *r = *(struct sym *const *)rp;
	double d = r->hist.time - l->hist.time;
	int c;

	if (d > 0.0)
		return 1;
	if (d < 0.0)
		return -1;
	if (r->ncalls != l->ncalls)
		return r->ncalls > l->ncalls ? 1 : -1;
	c = strcmp(l->name, r->name);
	if (c)
		return c;
	/* GNU's (merge) sort is stable: keep the address order. */
	return l < r ? -1 : l > r;
}

void hist_print(struct profile *prof, const struct gprof_options *opt)
{
	struct sym **sorted;
	unsigned int log_scale = 0;
	double top_time = 0.0;
	bool top = false;
	size_t i, n;

	if (prof->first_output)
		prof->first_output = false;
	else
		printf("\f\n");
	accum_time = 0.0;
	if (opt->bsd_style_output) {
		if (opt->print_descriptions) {
			printf("\n\n\nflat profile:\n");
			flat_blurb(prof);
		}
	} else {
		printf("Flat profile:\n");
	}

	/*
	 * Only symbols that can be printed are sorted: with 200,000
	 * functions of which a few thousand ran, sorting the rest by name
	 * would cost more than everything else.  The order of the printed
	 * ones is the same, the key being total.
	 */
	sorted = xmalloc(prof->symtab.len * sizeof(*sorted));
	for (i = n = 0; i < prof->symtab.len; i++)
		if (!opt->ignore_zeros || prof->symtab.base[i].ncalls ||
		    prof->symtab.base[i].hist.time != 0)
			sorted[n++] = &prof->symtab.base[i];
	qsort(sorted, n, sizeof(*sorted), cmp_time);

	if (opt->bsd_style_output) {
		log_scale = 5;	/* milliseconds, BSD's unit */
	} else {
		for (i = 0; i < n; i++) {
			struct sym *s = sorted[i];
			double t;

			if (!s->ncalls)
				continue;
			t = (s->hist.time + s->cg.child_time) / s->ncalls;
			if (t > top_time) {
				top_time = t;
				top = true;
			}
		}
		if (top && top_time > 0.0) {
			top_time /= prof->hz;
			for (log_scale = 0; log_scale < 11; log_scale++) {
				double v = si_prefixes[log_scale].scale *
					   top_time;

				if (v >= 1.0 && v < 1000.0)
					break;
			}
			/* GNU reads one past its table here; stay inside. */
			if (log_scale == 11)
				log_scale = 10;
		}
	}
	print_header(prof, opt, si_prefixes[log_scale].prefix);
	for (i = 0; i < n; i++)
		if (flat_included(prof, sorted[i]))
			print_line(prof, opt, sorted[i],
				   si_prefixes[log_scale].scale);
	free(sorted);
	if (opt->print_descriptions && !opt->bsd_style_output)
		flat_blurb(prof);
}
