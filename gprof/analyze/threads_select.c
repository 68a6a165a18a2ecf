// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The analysis of per-thread profiles (read/threads.c reads them):
 * which threads --thread chooses, the flat profile of that choice, and
 * the tree of every thread's chains under its thread's node that -s
 * writes back.
 *
 * The flat profile of a --thread selection cannot come from the files'
 * histograms, which are the process's: it is rebuilt from the selected
 * threads' sampled pcs (the chains' innermost frames) into the same
 * buckets, so that its functions are found as the process's are.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sprofil/callers.h>

#include "analyze/analyze.h"
#include "read/threads.h"

bool thread_is_selected(struct profile *prof, const struct gprof_options *opt,
			uint32_t t)
{
	const char *sel = opt->thread_selection;
	char *end;
	unsigned long tid;

	if (!sel)
		return true;
	errno = 0;
	tid = strtoul(sel, &end, 10);
	if (*sel >= '0' && *sel <= '9' && !*end && !errno)
		return prof->threads[t].tid == tid;
	return !strcmp(prof->threads[t].name, sel);
}

/*
 * Copies merged node @node's path into @t below @root (CALLER_NONE: at
 * the top), reusing the copies @out already maps; returns @node's copy.
 * @path: room for a path, as deep as the merged tree.
 */
static uint32_t copy_path(const struct profile *prof, struct caller_tree *t,
			  uint32_t *out, uint32_t *path, uint32_t node,
			  uint32_t root)
{
	uint32_t j, n = 0, parent = root;

	for (j = node; j != CALLER_NONE && out[j] == UINT32_MAX;
	     j = prof->callers.node[j].parent)
		path[n++] = j;
	if (j != CALLER_NONE)
		parent = out[j];
	while (n--) {
		const struct caller_node *c = &prof->callers.node[path[n]];

		parent = caller_tree_add(t, parent, c->module, c->pc);
		out[path[n]] = parent;
	}
	return out[node];
}

/*
 * The merged tree's samples that no thread's leaf holds (chains under no
 * thread's node: a record without threads summed with one that has
 * them) are copied at the top, as they were read; @out and @path are
 * threads_tree()'s, @out all unset.
 */
static void no_thread_chains(struct profile *prof, struct caller_tree *t,
			     uint32_t *out,
			     uint32_t *path)
{
	uint64_t *rest = xcalloc(prof->callers.len ? prof->callers.len : 1,
				 sizeof(*rest));
	size_t i, k;
	uint32_t copy;

	for (i = 0; i < prof->callers.len; i++)
		rest[i] = prof->callers.node[i].count;
	for (k = 0; k < prof->nleaves; k++)
		if (prof->leaves[k].node != CALLER_NONE)
			rest[prof->leaves[k].node] -= prof->leaves[k].count;
	for (i = 0; i < prof->callers.len; i++) {
		if (!rest[i])
			continue;
		/* Not in one expression: copying may move t->node. */
		copy = copy_path(prof, t, out, path, (uint32_t)i,
				 CALLER_NONE);
		t->node[copy].count += rest[i];
	}
	free(rest);
}

/*
 * Thread by thread, each leaf's path of merged nodes is copied below the
 * thread's node; @out maps a merged node to its copy for the thread
 * being copied (reset after it, through the leaves' paths).
 */
bool threads_tree(struct profile *prof, struct caller_tree *t)
{
	uint32_t *out, *path, th, top, j, copy;
	size_t k, first = 0;

	if (!prof->nthreads || !prof->per_thread_records)
		return false;
	memset(t, 0, sizeof(*t));
	t->truncated_top = CALLER_NONE;
	caller_tree_counts_copy(t, &prof->callers);
	out = xmallocarray(prof->callers.len ? prof->callers.len : 1,
			   sizeof(*out));
	memset(out, 0xff,
	       (prof->callers.len ? prof->callers.len : 1) * sizeof(*out));
	path = xmallocarray(prof->callers.len ? prof->callers.len : 1,
			    sizeof(*path));
	qsort(prof->leaves, prof->nleaves, sizeof(*prof->leaves),
	      cmp_leaf_thread);
	for (th = 0; th < prof->nthreads; th++) {
		size_t end = first;

		while (end < prof->nleaves && prof->leaves[end].thread == th)
			end++;
		if (!prof->threads[th].selected || first == end) {
			first = end;
			continue;
		}
		top = caller_tree_add(t, CALLER_NONE, CALLER_ABSOLUTE,
			       spc_thread_pc(prof->threads[th].tid));
		for (k = first; k < end; k++) {
			if (prof->leaves[k].node == CALLER_NONE)
				continue;
			copy = copy_path(prof, t, out, path,
					 prof->leaves[k].node, top);
			t->node[copy].count += prof->leaves[k].count;
		}
		/* The copies of this thread's paths are not the next one's. */
		for (k = first; k < end; k++)
			for (j = prof->leaves[k].node; j != CALLER_NONE &&
			     out[j] != UINT32_MAX; j =
				     prof->callers.node[j].parent)
				out[j] = UINT32_MAX;
		first = end;
	}
	no_thread_chains(prof, t, out, path);
	free(out);
	free(path);
	return true;
}

/* The histogram record holding unified address @a, or NULL. */
static struct hist_record *record_of(struct profile *prof, uint64_t a)
{
	unsigned int i;

	for (i = 0; i < prof->num_hist_records; i++)
		if (a >= prof->hist_records[i].lowpc &&
		    a < prof->hist_records[i].highpc)
			return &prof->hist_records[i];
	return NULL;
}

/* The bucket of @a in @r, as the sampler filed it (mapping.h). */
static uint64_t bucket_of(const struct hist_record *r, uint64_t a)
{
	uint64_t off = a - r->lowpc, i;

	if (r->scale)
		i = (uint64_t)(((unsigned __int128)(off / r->bucket_size) *
				r->scale) >> 16);
	else
		i = (uint64_t)((unsigned __int128)off * r->num_bins /
			       (r->highpc - r->lowpc));
	return i < r->num_bins ? i : r->num_bins - 1;
}

/* The selected threads' sampled pcs as the only histogram counts. */
static void rebuild_histograms(struct profile *prof)
{
	unsigned int i;
	size_t k;

	for (i = 0; i < prof->num_hist_records; i++)
		memset(prof->hist_records[i].sample, 0,
		       prof->hist_records[i].num_bins * sizeof(uint32_t));
	for (k = 0; k < prof->nleaves; k++) {
		const struct thread_leaf *l = &prof->leaves[k];
		struct hist_record *r;
		uint32_t *b;

		if (!prof->threads[l->thread].selected ||
		    l->module == CALLER_ABSOLUTE)
			continue;
		r = record_of(prof, MODULE_BASE(l->module) + l->pc);
		if (!r)
			continue;
		b = &r->sample[bucket_of(r, MODULE_BASE(l->module) + l->pc)];
		*b = *b > UINT32_MAX - l->count ? UINT32_MAX :
		     *b + (uint32_t)l->count;
	}
}

int threads_apply_selection(struct profile *prof,
			    const struct gprof_options *opt)
{
	uint32_t t, chosen = 0;

	for (t = 0; t < prof->nthreads; t++) {
		prof->threads[t].selected = thread_is_selected(prof, opt, t);
		chosen += prof->threads[t].selected;
	}
	if (!opt->threads_report && !opt->thread_selection)
		return 0;
	if (!prof->per_thread_records && !prof->nthreads)
		return profile_error(prof, "%s: the profile has no per-thread data (record it with `sprofil record --threads')",
				     opt->threads_report ?
				     "--threads" : "--thread");
	if (!opt->thread_selection)
		return 0;
	if (!chosen)
		return profile_error(prof, "--thread=%s: no thread of that id or name in the profile (sprofil report --threads lists them)",
				     opt->thread_selection);
	rebuild_histograms(prof);
	return 0;
}
