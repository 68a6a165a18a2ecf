/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-thread profiles (threads.c): the threads of the profile files'
 * tag-5 records and of their callers records' thread nodes
 * (include/sprofil/gmon_format.h), what each one was sampled for, and
 * the selection --thread=TID|NAME makes.  The callers tree the rest of
 * the analyzer sees has no thread nodes: the chains of the selected
 * threads (of all, without --thread) are merged into it.
 */
#ifndef GPROF_THREADS_H
#define GPROF_THREADS_H

#include <stdbool.h>
#include <stdint.h>

struct gmf_cursor;
struct caller_tree;
struct gprof_options;
struct profile;

#define THREAD_NONE UINT32_MAX

/* A chain's innermost frame and its thread (the --threads table's). */
struct thread_leaf {
	uint32_t thread;
	uint32_t module;	/* CALLER_ABSOLUTE: in no module */
	uint64_t pc;		/* link-time in module */
	uint64_t count;
	uint32_t node;		/* the merged caller node, or CALLER_NONE */
};

/* qsort order of struct thread_leaf by thread. */
int cmp_leaf_thread(const void *a, const void *b);

struct thread_prof {
	uint32_t tid;
	char name[17];		/* the last non-empty name recorded */
	bool cpu_known;
	uint64_t cpu_ns;	/* CPU time recorded, summed over reuses */
	uint64_t samples;	/* samples of its chains */
	uint64_t truncated;	/* of them, cut short */
	bool selected;		/* by --thread, or all without it */
};

/* Merges the tag-5 record under @c; a problem fails @c with one line. */
void threads_parse(struct profile *prof, struct gmf_cursor *c);

/* The thread of id @tid, added (with no name) if new. */
uint32_t thread_find_add(struct profile *prof, uint32_t tid);


/*
 * Notes @count samples whose chain ends at (@module, @pc) in thread @t,
 * @cut when the chain was cut short; @node, the merged caller node that
 * holds them (CALLER_NONE when @t was not selected).
 */
void thread_leaf(struct profile *prof, uint32_t t, uint32_t module, uint64_t pc,
		 uint64_t count,
		 bool cut, uint32_t node);

/*
 * The samples by thread, for the exports: @k from 0 to thread_leaves(),
 * each a merged caller node (or CALLER_NONE), a thread and a count.
 */
size_t thread_leaves(struct profile *prof);
void thread_leaf_at(struct profile *prof, size_t k, uint32_t *node, uint32_t *t,
		    uint64_t *count);



/* Forgets the threads of @prof (profile_free()). */
void threads_reset(struct profile *prof);

#endif /* GPROF_THREADS_H */
