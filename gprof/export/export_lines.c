// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Costs by source line for the exports (callgrind's cost lines, pprof's
 * locations): the histogram's bins split byte by byte over the lines of
 * their addresses, as -l splits them over its line symbols, so that a
 * line's share is what -l's flat profile gives it.
 */
#include <stdlib.h>

#include "read/dwarf_lines.h"
#include "export/export.h"

void export_share_add(struct shares *t, size_t sym, size_t callee,
		      struct source_file *file, int line, uint64_t addr,
		      double weight)
{
	if (t->len == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 1024;
		t->v = xreallocarray(t->v, t->cap, sizeof(*t->v));
	}
	t->v[t->len++] = (struct line_share){ sym, callee, file, line, addr,
					      weight };
}

static int cmp_share(const void *a, const void *b)
{
	const struct line_share *x = a, *y = b;

	if (x->sym != y->sym)
		return x->sym < y->sym ? -1 : 1;
	if (x->callee != y->callee)
		return x->callee < y->callee ? -1 : 1;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

void export_shares_merge(struct shares *t)
{
	size_t i, n = 0;

	if (!t->len)
		return;
	qsort(t->v, t->len, sizeof(*t->v), cmp_share);
	for (i = 1; i < t->len; i++) {
		if (!cmp_share(&t->v[n], &t->v[i])) {
			t->v[n].weight += t->v[i].weight;
			if (t->v[i].addr < t->v[n].addr)
				t->v[n].addr = t->v[i].addr;
		} else {
			t->v[++n] = t->v[i];
		}
	}
	t->len = n + 1;
}

size_t export_shares_find(const struct shares *t, size_t sym, size_t callee)
{
	size_t lo = 0, hi = t->len;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct line_share *x = &t->v[mid];

		if (x->sym < sym || (x->sym == sym && x->callee < callee))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool export_line_of(struct profile *prof, const struct gprof_options *opt,
		    unsigned int m,
		    uint64_t link, struct source_file **file,
		    int *line)
{
	struct dmod *d = m < prof->nmodules && !prof->modules[m].absolute ?
			 dmod_get(prof, opt, m) : NULL;

	return d && dmod_line(prof, d, link, file, line);
}

/*
 * The symbol whose samples byte @a is, as hist.c credits them: the last
 * symbol at or below it, up to the next symbol of its module (gaps
 * past st_size included, as GNU ignores them), else up to its end.
 */
static struct sym *owner(struct profile *prof, uint64_t a)
{
	size_t j = hist_sym_at(prof, a);
	struct sym *s = prof->symtab.len ? &prof->symtab.base[j] : NULL;

	if (!s || s->addr > a)
		return NULL;
	if (j + 1 < prof->symtab.len &&
	    prof->symtab.base[j + 1].module == s->module)
		return s;
	return a <= s->end_addr ? s : NULL;
}

/*
 * GNU's bins are credited in 2-byte units (hist.c's assign_gnu works on
 * addr / 2), so a unit goes where its odd byte does: to the last symbol
 * or line starting at or below it.  sprofil's buckets, byte by byte.
 */
void export_self_shares(struct profile *prof, const struct gprof_options *opt,
			struct shares *t)
{
	unsigned int r;

	for (r = 0; r < prof->num_hist_records; r++) {
		const struct hist_record *h = &prof->hist_records[r];
		unsigned int m = ADDR_MODULE(h->lowpc);
		unsigned int step = h->scale ? 1 : 2;
		uint64_t i, lo, hi, a;
		double unit;

		if (m < prof->nmodules && prof->modules[m].overhead)
			continue;
		for (i = 0; i < h->num_bins; i++) {
			if (!h->sample[i])
				continue;
			hist_bin_bounds(prof, h, i, &lo, &hi);
			/* hist.c's share of a unit: 1 / GNU's bin width. */
			unit = h->scale ? 1.0 / (hi - lo) : 1 / h->bin_scale;
			for (a = lo + step - 1; a < hi; a += step) {
				struct sym *s = owner(prof, a);
				struct source_file *file = NULL;
				int line = 0;

				if (!s || !shown(prof, opt, s))
					continue;
				if (!export_line_of(prof, opt, m, ADDR_LINK(a),
						    &file,
						    &line))
					file = NULL;
				export_share_add(t, s - prof->symtab.base, 0,
						 file,
						 line, a, h->sample[i] * unit);
			}
		}
	}
	export_shares_merge(t);
}

void export_apportion(const struct line_share *v, size_t n, long long total,
		      long long *out)
{
	double w = 0, *rest = xcalloc(n, sizeof(*rest));
	long long given = 0;
	size_t i;

	for (i = 0; i < n; i++)
		w += v[i].weight;
	for (i = 0; i < n; i++) {
		double exact = w > 0 ? total * v[i].weight / w : 0;

		out[i] = (long long)exact;
		rest[i] = exact - out[i];
		given += out[i];
	}
	while (given < total && n) {
		size_t best = 0;

		for (i = 1; i < n; i++)
			if (rest[i] > rest[best])
				best = i;
		out[best]++;
		rest[best] = -1;
		given++;
	}
	free(rest);
}
