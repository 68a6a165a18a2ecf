// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sp_own_thread_create() (own_threads.h).
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include "own_threads.h"

/* Set while this thread creates one of the library's own threads. */
static _Thread_local bool sp_creating;

struct sp_own_start {
	void *(*fn)(void *);
	void *arg;
	bool waited;			/* the creator waits for the name */
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
	/* A waiting creator frees @s once it wakes; else it is ours. */
	if (s->waited)
		sem_post(&s->named);
	else
		free(s);
	return fn(arg);
}

int sp_own_thread_create(const pthread_attr_t *attr, void *(*fn)(void *),
			 void *arg, const char *what, bool wait_named)
{
	struct sp_own_start *s = calloc(1, sizeof(*s));
	pthread_t t;
	int err;

	if (!s)
		return ENOMEM;
	s->fn = fn;
	s->arg = arg;
	s->waited = wait_named;
	snprintf(s->name, sizeof(s->name), "%s%s", SP_OWN_THREAD, what);
	if (wait_named && sem_init(&s->named, 0, 0)) {
		err = errno;
		free(s);
		return err;
	}
	sp_creating = true;
	err = pthread_create(&t, attr, sp_own_thread, s);
	sp_creating = false;
	if (!wait_named) {
		if (err)
			free(s);
		return err;
	}
	if (!err)
		while (sem_wait(&s->named) && errno == EINTR)
			;
	sem_destroy(&s->named);
	free(s);
	return err;
}

bool sp_own_thread_creating(void)
{
	return sp_creating;
}
