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

#endif /* LIBSPROFIL_THREADS_H */
