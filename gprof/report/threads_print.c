// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --threads: the table of a per-thread profile's threads (read by
 * read/threads.c), busiest first, with each thread's top function.
 */
#include <stdlib.h>
#include <string.h>

#include "read/threads.h"
#include "report/report.h"

static int cmp_samples(const void *a, const void *b)
{
	const struct thread_prof *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/*
 * The function with most of the samples of the leaves [@k, @end) (one
 * thread's); its count in *@n.  @counts: one per symbol, zero on entry
 * and on return.
 */
static struct sym *top_function(struct profile *prof, size_t k, size_t end,
				uint64_t *n,
				uint64_t *counts)
{
	struct sym *best = NULL, *s;
	size_t i;

	*n = 0;
	for (i = k; i < end; i++) {
		const struct thread_leaf *l = &prof->leaves[i];

		if (l->module == CALLER_ABSOLUTE)
			continue;
		s = sym_lookup(&prof->symtab, MODULE_BASE(l->module) + l->pc);
		if (!s)
			continue;
		counts[s - prof->symtab.base] += l->count;
		if (counts[s - prof->symtab.base] > *n) {
			*n = counts[s - prof->symtab.base];
			best = s;
		}
	}
	for (i = k; i < end; i++) {
		const struct thread_leaf *l = &prof->leaves[i];

		if (l->module != CALLER_ABSOLUTE) {
			s = sym_lookup(&prof->symtab,
				       MODULE_BASE(l->module) + l->pc);
			if (s)
				counts[s - prof->symtab.base] = 0;
		}
	}
	return best;
}

void threads_print(struct profile *prof, const struct gprof_options *opt)
{
	/* Seconds per sample, or an event's count per sample. */
	double period = prof->event_type ? (double)prof->callers.period_ns :
			prof->callers.period_ns / 1e9;
	uint64_t total = 0, cpu_total = 0, *counts;
	struct thread_prof *sorted;
	size_t *first;
	bool cpu_all = true;
	uint32_t i;

	counts = xcalloc(prof->symtab.len ? prof->symtab.len : 1,
			 sizeof(*counts));
	/* Each thread's leaves together: [first[t], first[t + 1]). */
	qsort(prof->leaves, prof->nleaves, sizeof(*prof->leaves),
	      cmp_leaf_thread);
	first = xcalloc(prof->nthreads + 1, sizeof(*first));
	for (size_t k = 0; k < prof->nleaves; k++)
		first[prof->leaves[k].thread + 1]++;
	for (i = 0; i < prof->nthreads; i++)
		first[i + 1] += first[i];
	sorted = xmallocarray(prof->nthreads ? prof->nthreads : 1,
			      sizeof(*sorted));
	memcpy(sorted, prof->threads, prof->nthreads * sizeof(*sorted));
	qsort(sorted, prof->nthreads, sizeof(*sorted), cmp_samples);
	/* An event's period is in events, its column the event's. */
	printf("Per-thread profile: %u threads, each sample %.6g %s.\n\n",
	       prof->nthreads, period,
	       prof->event_type ? prof->hist_dimension : "seconds");
	printf("%10s  %-16s %10s %10s %10s  %s\n", "tid", "name", "samples",
	       prof->event_type ? prof->hist_dimension : "seconds", "cpu sec",
	       "top function (its share of the thread)");
	for (i = 0; i < prof->nthreads; i++) {
		const struct thread_prof *t = &sorted[i];
		uint32_t index = thread_find_add(prof, t->tid);
		struct sym *top;
		uint64_t n;

		total += t->samples;
		printf("%10u  %-16s %10llu %10.2f ", t->tid,
		       t->name[0] ? t->name : "?",
		       (unsigned long long)t->samples, t->samples * period);
		if (t->cpu_known) {
			printf("%10.2f  ", t->cpu_ns / 1e9);
			cpu_total += t->cpu_ns;
		} else {
			printf("%10s  ", "-");
			cpu_all = false;
		}
		top = top_function(prof, first[index], first[index + 1], &n,
				   counts);
		if (top) {
			print_name_only(prof, opt, stdout, top);
			printf(" (%.1f%%)", 100.0 * n / t->samples);
		} else {
			printf("-");
		}
		putchar('\n');
	}
	printf("%10s  %-16s %10llu %10.2f ", "", "all threads",
	       (unsigned long long)total, total * period);
	if (cpu_all && prof->nthreads)
		printf("%10.2f\n", cpu_total / 1e9);
	else
		printf("%10s\n", "-");
	if (prof->callers.lost || prof->callers.busy)
		printf("\n%llu more samples could not be filed (the caller table was full or busy): they are in no thread's count.\n",
		       (unsigned long long)(prof->callers.lost +
					    prof->callers.busy));
	if (prof->callers.dropped_chains)
		printf("\n%llu samples of %llu malformed caller chains were dropped when read: they are in no thread's count.\n",
		       (unsigned long long)prof->callers.dropped,
		       (unsigned long long)prof->callers.dropped_chains);
	free(sorted);
	free(counts);
	free(first);
}
