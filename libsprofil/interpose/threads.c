// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Threads created after sampling started need a timer of their own (the
 * signal backend has one per thread, on the thread's CPU clock).  We wrap
 * pthread_create so that the new thread creates it before running the
 * caller's start routine, and deletes it when it exits by any way that
 * runs cleanup handlers: return, pthread_exit or cancellation, crediting
 * first the part of a period the thread ran and no sample closed.  Each
 * backend does its part through its ops (backend.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <threads.h>

#include "backends/backend.h"
#include "common/fork.h"
#include "common/own_threads.h"
#include "pg/thread_table.h"
#include "interpose/libc_next.h"

#if defined(__SANITIZE_ADDRESS__)
#define SP_ASAN	1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SP_ASAN	1
#endif
#endif

#ifdef SP_ASAN
#include <sanitizer/asan_interface.h>
#endif

typedef int (*sp_create_fn)(pthread_t *thread, const pthread_attr_t *attr,
			    void *(*fn)(void *arg), void *arg);

/* A static program's pthread_create (libc_next.h); thrd_create calls it. */
extern int __pthread_create(pthread_t *thread, const pthread_attr_t *attr,
			    void *(*fn)(void *arg), void *arg)
	__attribute__((weak));
SP_LIBC_ANCHOR(thrd_create);

/* thread_start.S: fn(arg) with the frame pointer zero (outermost). */
void *sp_call_outermost(void *(*fn)(void *), void *arg);

struct sp_start {
	void *(*fn)(void *);
	void *arg;
};

/*
 * The time the thread ran since its last sample is credited to its start
 * routine @fn, the one PC known to be the thread's (docs/backends.md).
 */
static void sp_thread_exit(void *fn)
{
	sp_backends_thread_exiting((uintptr_t)fn);
	sp_thread_table_exiting();
}

/*
 * ThreadSanitizer's runtime, when the program has one: our set-up runs
 * before its own for the thread (see below), and pthread_getattr_np()
 * then mallocs through its interceptor in a thread it has not set up,
 * which crashes, as does any instrumented function (the bpf backend's).
 * Under it no backend sets the thread up: the signal backend, whose
 * timers and chains need that, is not run under ThreadSanitizer
 * (docs/stress.md).
 */
extern void __tsan_init(void) __attribute__((weak));

static void *sp_thread_run(void *p)
{
	struct sp_start s = *(struct sp_start *)p;
	void *ret;

	free(p);
	/*
	 * Its timer or counter, and where its caller chains may be read,
	 * whenever it is sampled.  On failure the thread runs unsampled:
	 * better than not at all.
	 */
	if (!__tsan_init)
		sp_backends_thread_started();
	pthread_cleanup_push(sp_thread_exit, (void *)s.fn);
	ret = sp_call_outermost(s.fn, s.arg);
	pthread_cleanup_pop(1);
	return ret;
}

/*
 * AddressSanitizer's pthread_create calls ours (its runtime comes first
 * among the program's libraries), so the new thread runs our set-up
 * before ASan's start routine has cleared the shadow of its stack.  In a
 * fork child glibc gives a new thread the stack of one that the fork left
 * behind, whose shadow still marks that thread's frames as they were at
 * the fork: the instrumented set-up was reported for writing its own
 * locals (tests/lib/test_fork_threads.c).  So the shadow is cleared
 * first, as ASan does a moment later, from code that has none, with no
 * local for an intercepted call to write (pthread_attr_getstack()'s
 * interceptor checked such a write against the stale shadow):
 * __asan_handle_no_return() clears the stack of a thread ASan has not
 * set up yet whole, from the bounds the system gives.
 */
#ifdef SP_ASAN
/*
 * Only a fork child has such stacks, and the clearing costs a thread a
 * pass over its stack's shadow: the others skip it.
 */
static atomic_bool sp_stale_stacks;

void sp_threads_fork_child(void)
{
	atomic_store(&sp_stale_stacks, true);
}

/*
 * __asan_handle_no_return() itself writes a local through an intercepted
 * sigaltstack(), checked against the stale shadow: the frames below ours
 * are cleared first, by hand (shadow exists for every address, so the
 * span may pass the stack's end unharmed).  A libsprofil thread whose
 * loop sat right at the top of its stack left exactly there a local's
 * redzone (the bpf fold thread, test_fork_threads under ASan).
 */
#define SP_STALE_SPAN	(64 * 1024)

__attribute__((no_sanitize_address))
static void sp_clear_stack_shadow(void)
{
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);

	if (!atomic_load(&sp_stale_stacks))
		return;
	__asan_unpoison_memory_region((void *)(here - SP_STALE_SPAN),
				      SP_STALE_SPAN);
	__asan_handle_no_return();
}
#else
void sp_threads_fork_child(void)
{
}

static void sp_clear_stack_shadow(void)
{
}
#endif

__attribute__((no_sanitize_address))
static void *sp_thread_main(void *p)
{
	sp_clear_stack_shadow();
	return sp_thread_run(p);
}

int pthread_create(pthread_t *restrict thread,
		   const pthread_attr_t *restrict attr,
		   void *(*fn)(void *), void *restrict arg)
{
	static _Atomic(sp_create_fn) real;
	sp_create_fn create = atomic_load(&real);
	struct sp_start *s;
	int err;

	if (!create) {
		create = (sp_create_fn)sp_libc_next("pthread_create",
						    __pthread_create);
		if (!create)
			return ENOSYS;
		atomic_store(&real, create);
	}
	if (sp_own_thread_creating())
		return create(thread, attr, fn, arg);
	s = malloc(sizeof(*s));
	/* Out of memory for the wrapper: the thread still gets created. */
	if (!s)
		return create(thread, attr, fn, arg);
	s->fn = fn;
	s->arg = arg;
	err = create(thread, attr, sp_thread_main, s);
	if (err)
		free(s);
	return err;
}
