/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libsprofil's own threads (the sigdump and bpf fold threads): not the
 * program's, so the pthread_create() interposer steps aside for them (no
 * sampling set-up, no exit credit) and the threads record leaves them
 * out by their name's prefix.
 */
#ifndef LIBSPROFIL_OWN_THREADS_H
#define LIBSPROFIL_OWN_THREADS_H

#include <pthread.h>
#include <stdbool.h>

/* The name prefix of libsprofil's own threads. */
#define SP_OWN_THREAD	"sprofil-"

/*
 * Starts one of libsprofil's own threads, named "sprofil-@what" by
 * itself (no thread writes another's /proc/self/task/TID/comm:
 * docs/record.md says what that cost); with @wait_named, before this
 * returns, so that a dump from then on leaves it out of the threads
 * record.  Not in a fork child: there a lock another thread held at the
 * fork (a sanitizer runtime's, which has no fork handlers) can keep the
 * new thread from ever running (pg-sigfork under ASan hung so).
 * Through the global pthread_create, so that an interposer loaded
 * before us (the sanitizers' runtimes, which must see every thread that
 * runs instrumented code) still sees the thread; only ours steps aside.
 * 0 or a positive errno.
 */
int sp_own_thread_create(const pthread_attr_t *attr, void *(*fn)(void *),
			 void *arg, const char *what, bool wait_named);

/* Whether the calling thread is in sp_own_thread_create()'s create. */
bool sp_own_thread_creating(void);

#endif /* LIBSPROFIL_OWN_THREADS_H */
