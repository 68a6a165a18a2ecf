/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The threads a per-thread profile (PROF_THREADS, SPROFIL_THREADS=1)
 * names: each thread's id, name and CPU time, written beside the chains
 * as the threads record (tag 5 of docs/gmon-format.md).  The chains say
 * which thread each sample was of; only the process knows the names, and
 * a thread that exits takes its name and CPU time with it, so each one
 * is noted as it exits and the live ones are read at the dump.
 */
#ifndef LIBSPROFIL_THREAD_TABLE_H
#define LIBSPROFIL_THREAD_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "common/own_threads.h"


struct sp_thread_rec {
	uint32_t tid;
	uint32_t flags;			/* GMF_THREAD_* */
	uint64_t cpu_ns;		/* with GMF_THREAD_CPU */
	char name[16];			/* NUL-padded, as the kernel's comm */
};

/* Whether chains are filed per thread: SPROFIL_THREADS=1. */
bool sp_per_thread(void);

/*
 * Sampling started: the main thread's CPU time so far (the collector's
 * start-up) is left out of its time, once per process.
 */
void sp_thread_table_sampling(void);

/*
 * Notes the calling thread, which is exiting, when chains are filed per
 * thread (threads.c, from its cleanup handler).
 */
void sp_thread_table_exiting(void);

/*
 * The threads to name in a dump: the exited ones noted, then every live
 * thread of the process (from /proc/self/task).  Returns a malloc'ed
 * array of *@n records, or NULL with *@n 0 (none, or no memory).
 */
struct sp_thread_rec *sp_thread_table_snapshot(size_t *n);

/* The lock across fork (fork.c); the child has none of them. */
void sp_thread_table_fork_prepare(void);
void sp_thread_table_fork_parent(void);
void sp_thread_table_fork_child(void);

#endif /* LIBSPROFIL_THREAD_TABLE_H */
