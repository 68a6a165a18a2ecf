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

#include "analyze/analyze.h"

/* The bin width of the first record, in 2-byte units (GNU's scale). */
double hist_first_scale(struct profile *prof)
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
bool hist_flat_included(struct profile *prof, const struct sym *s)
{
	return sym_lookup(&prof->syms[INCL_FLAT], s->addr) ||
	       (!prof->syms[INCL_FLAT].len &&
		!sym_lookup(&prof->syms[EXCL_FLAT], s->addr));
}

static void credit(struct profile *prof, struct sym *s, double ticks)
{
	if (hist_flat_included(prof, s))
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
	double scale = hist_first_scale(prof);
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
	double scale = hist_first_scale(prof);

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

