// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sp_own_thread_create() (own_threads.h).
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include "own_threads.h"

/* Set while this thread creates one of the library's own threads. */
static _Thread_local bool sp_creating;

struct sp_own_start {
	void *(*fn)(void *);
	void *arg;
	char name[16];			/* the kernel's comm: 15 bytes */
	sem_t named;
};

static void *sp_own_thread(void *p)
{
	struct sp_own_start *s = p;
	void *(*fn)(void *) = s->fn;
	void *arg = s->arg;

	/* Its own name is a prctl(); another thread's is a /proc write. */
	pthread_setname_np(pthread_self(), s->name);
	/* @s is the creator's, and gone once it wakes. */
	sem_post(&s->named);
	return fn(arg);
}

int sp_own_thread_create(const pthread_attr_t *attr, void *(*fn)(void *),
			 void *arg, const char *what)
{
	struct sp_own_start s = { .fn = fn, .arg = arg };
	pthread_t t;
	int err;

	snprintf(s.name, sizeof(s.name), "%s%s", SP_OWN_THREAD, what);
	if (sem_init(&s.named, 0, 0))
		return errno;
	sp_creating = true;
	err = pthread_create(&t, attr, sp_own_thread, &s);
	sp_creating = false;
	if (!err)
		while (sem_wait(&s.named) && errno == EINTR)
			;
	sem_destroy(&s.named);
	return err;
}

bool sp_own_thread_creating(void)
{
	return sp_creating;
}
