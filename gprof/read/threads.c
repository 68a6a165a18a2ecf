// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Per-thread profiles (threads.h).  A per-thread profile files each
 * chain under a top node of its thread (pc SPC_PC_THREAD + thread id);
 * the analysis (analyze/caller_tree.c) merges those chains, counts each
 * here, and merges only the selected threads' chains into the tree the
 * reports use (analyze/threads_select.c chooses them).  The threads'
 * names and CPU times come from the tag-5 records, read here.
 */
#include <stdlib.h>
#include <string.h>

#include <sprofil/callers.h>
#include <sprofil/gmon_codec.h>
#include <sprofil/gmon_format.h>

#include "read/read.h"
#include "read/threads.h"

/* One chain's end: the sampled pc, its thread and count. */
uint32_t thread_find_add(struct profile *prof, uint32_t tid)
{
	uint32_t t;

	for (t = 0; t < prof->nthreads; t++)
		if (prof->threads[t].tid == tid)
			return t;
	if (prof->nthreads == prof->threads_cap) {
		prof->threads_cap = prof->threads_cap ?
			2 * prof->threads_cap : 16;
		prof->threads = xreallocarray(prof->threads, prof->threads_cap,
					      sizeof(*prof->threads));
	}
	memset(&prof->threads[prof->nthreads], 0, sizeof(*prof->threads));
	prof->threads[prof->nthreads].tid = tid;
	return prof->nthreads++;
}

void threads_parse(struct profile *prof, struct gmf_cursor *c)
{
	uint64_t n = gmf_threads_begin(c), i;
	struct gmf_thread th;

	for (i = 0; i < n && gmf_thread_get(c, &th); i++) {
		const unsigned char *name = th.name;
		struct thread_prof *t;
		uint32_t index;

		/* Not in one expression: the array may move. */
		index = thread_find_add(prof, th.tid);
		t = &prof->threads[index];
		/* A name is the kernel's comm: printable, at most 15 bytes. */
		if (name[0] && memchr(name, '\0', 16)) {
			size_t k, len = strlen((const char *)name);

			for (k = 0; k < len; k++)
				t->name[k] = name[k] >= ' ' && name[k] < 0x7f ?
					     (char)name[k] : '?';
			t->name[len] = '\0';
		}
		if (th.flags & GMF_THREAD_CPU) {
			t->cpu_known = true;
			t->cpu_ns = t->cpu_ns > UINT64_MAX - th.cpu_ns ?
				    UINT64_MAX : t->cpu_ns + th.cpu_ns;
		}
	}
}

void thread_leaf(struct profile *prof, uint32_t t, uint32_t module, uint64_t pc,
		 uint64_t count,
		 bool cut, uint32_t node)
{
	struct thread_prof *th = &prof->threads[t];

	th->samples = th->samples > UINT64_MAX - count ? UINT64_MAX :
		      th->samples + count;
	if (cut)
		th->truncated += count;
	if (prof->nleaves == prof->leaves_cap) {
		prof->leaves_cap = prof->leaves_cap ?
			2 * prof->leaves_cap : 1024;
		prof->leaves =
			xreallocarray(prof->leaves, prof->leaves_cap,
				      sizeof(*prof->leaves));
	}
	prof->leaves[prof->nleaves++] = (struct thread_leaf){ t, module, pc,
		count, node };
	prof->per_thread_records = 1;
}

size_t thread_leaves(struct profile *prof)
{
	return prof->nleaves;
}

void thread_leaf_at(struct profile *prof, size_t k, uint32_t *node, uint32_t *t,
		    uint64_t *count)
{
	*node = prof->leaves[k].node;
	*t = prof->leaves[k].thread;
	*count = prof->leaves[k].count;
}

int cmp_leaf_thread(const void *a, const void *b)
{
	const struct thread_leaf *x = a, *y = b;

	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

void threads_reset(struct profile *prof)
{
	free(prof->threads);
	prof->threads = NULL;
	prof->nthreads = prof->threads_cap = 0;
	free(prof->leaves);
	prof->leaves = NULL;
	prof->nleaves = prof->leaves_cap = 0;
	prof->per_thread_records = 0;
}
