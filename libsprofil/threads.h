/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The library's own threads that must not be treated as the program's
 * (threads.c): no sampling timer, no exit credit.
 */
#ifndef LIBSPROFIL_THREADS_H
#define LIBSPROFIL_THREADS_H

#include <pthread.h>

/*
 * pthread_create() without libsprofil's wrapper: @fn runs as it is, but
 * any other interposer of pthread_create still sees the thread.
 */
int sp_thread_create_unwrapped(pthread_t *thread, const pthread_attr_t *attr,
			       void *(*fn)(void *), void *arg);

/*
 * One of libsprofil's own threads, unwrapped, named "sprofil-@what" by
 * itself before this returns: a dump from then on leaves it out of the
 * threads record (thread_table.h), and no thread writes another's
 * /proc/self/task/TID/comm (docs/record.md says what that cost).
 */
int sp_own_thread_create(const pthread_attr_t *attr, void *(*fn)(void *),
			 void *arg, const char *what);

#endif /* LIBSPROFIL_THREADS_H */
