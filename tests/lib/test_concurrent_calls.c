// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * profil(), sprofil(), sprofil_info() and sprofil_flush() called from
 * several threads at once, each with its own buffer, while the threads
 * also work and one of them forks: the calls are serialized inside the
 * library, so none fails, none hangs (alarm() bounds the test), and at
 * the end one last configuration samples as if it were the only one.
 *
 * Under AddressSanitizer the forks wait for a quiet moment.  Its runtime
 * takes none of its locks around fork() before LLVM 18 (llvm-project
 * #75290; GCC 12's libasan is older): a child forked while another thread
 * held its allocator's lock (in malloc) or its thread registry's (while
 * starting or ending) waits for that lock forever, and the child
 * allocates and starts threads: libsprofil's fork handler starts its
 * sampling again, and its sprofil() loads the BPF program again when the
 * fork came while a worker was choosing the backend (gdb showed such
 * children stuck in malloc, docs/stress.md).  glibc's malloc and thread
 * list are fork-safe, so the normal build forks in the middle of the
 * calls, as a program may.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <sprofil.h>
#include "lib_test.h"

#define NTHREADS	4
#define ROUNDS		24
/* fork_while_the_backend_is_chosen(): processes, forks in each. */
#define RACE_PROCESSES	30
#define RACE_FORKS	64

#if defined(__SANITIZE_ADDRESS__)
#define FORK_ONLY_WHEN_QUIET	true
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FORK_ONLY_WHEN_QUIET	true
#endif
#endif
#ifndef FORK_ONLY_WHEN_QUIET
#define FORK_ONLY_WHEN_QUIET	false
#endif

static uint64_t chunk;

/*
 * FORK_ONLY_WHEN_QUIET: a call holds the gate shared, a fork exclusive
 * (writers first, or four callers would starve it); the forks start once
 * every worker runs and are over before any ends.
 */
static pthread_rwlock_t gate;
static atomic_int started;
static atomic_bool forks_done;

/* profil()'s stop with a NULL buffer, which glibc declares nonnull. */
static int (*const volatile profil_unchecked)(unsigned short *, size_t,
					      size_t, unsigned int) = profil;

struct worker {
	pthread_t thread;
	int index;
	struct prof p, q;		/* its buffers, freed at the end */
	int failures;			/* calls that returned an error */
	char what[128];			/* the first one */
};

static void failed(struct worker *w, const char *call)
{
	if (!w->failures++)
		snprintf(w->what, sizeof(w->what), "%s: %s", call,
			 strerror(errno));
}

static void call_begin(void)
{
	if (FORK_ONLY_WHEN_QUIET)
		pthread_rwlock_rdlock(&gate);
}

static void call_end(void)
{
	if (FORK_ONLY_WHEN_QUIET)
		pthread_rwlock_unlock(&gate);
}

static void *worker(void *arg)
{
	struct worker *w = arg;
	struct prof *p = &w->p, *q = &w->q;
	struct sprofil_info info;
	struct timespec tick = { 0, 1000000 };

	atomic_fetch_add(&started, 1);
	for (int i = 0; i < ROUNDS; i++) {
		call_begin();
		switch ((i + w->index) % 4) {
		case 0:
			if (sprofil(p, 1, NULL, PROF_UINT))
				failed(w, "sprofil");
			break;
		case 1:
			if (profil(q->pr_base, q->pr_size, q->pr_off,
				   0x10000))
				failed(w, "profil");
			break;
		case 2:
			if (sprofil_flush())
				failed(w, "sprofil_flush");
			break;
		default:
			if (sprofil_info(&info))
				failed(w, "sprofil_info");
			break;
		}
		call_end();
		wl_work_a(chunk);
		call_begin();
		if (i % 16 == 15 && profil_unchecked(NULL, 0, 0, 0))
			failed(w, "profil(NULL)");
		call_end();
	}
	while (FORK_ONLY_WHEN_QUIET && !atomic_load(&forks_done))
		nanosleep(&tick, NULL);
	return NULL;
}

/* fork(), once no other thread is in a call, starting or ending. */
static pid_t fork_in_the_middle(void)
{
	struct timespec tick = { 0, 1000000 };
	pid_t pid;

	if (!FORK_ONLY_WHEN_QUIET)
		return fork();
	while (atomic_load(&started) < NTHREADS)
		nanosleep(&tick, NULL);
	pthread_rwlock_wrlock(&gate);
	pid = fork();
	if (pid)
		pthread_rwlock_unlock(&gate);
	return pid;
}

static int group_setup(void **state)
{
	pthread_rwlockattr_t attr;

	(void)state;
	chunk = wl_calibrate(0.001);
	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr,
			PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&gate, &attr);
	pthread_rwlockattr_destroy(&attr);
	return 0;
}

static void concurrent_calls_are_serialized(void **state)
{
	struct worker w[NTHREADS];
	struct prof last = lt_func_region(wl_work_a, PROF_UINT);
	struct sprofil_info info;
	int status, failures = 0;
	pid_t pid;

	(void)state;
	/* Sanitizer runs stretch every deadline (tests/stress/run-sanitized). */
	alarm(120 * (getenv("STRESS_TIME_SCALE") ?
		     (unsigned int)atoi(getenv("STRESS_TIME_SCALE")) : 1));
	memset(w, 0, sizeof(w));
#ifdef __SANITIZE_THREAD__
	/*
	 * ThreadSanitizer replaces pthread_once with its own guard, which
	 * unlike glibc's knows nothing of fork: a child forked while a
	 * worker runs the library's first-call set-up (choosing and loading
	 * the backend, seconds under TSan) waits for it forever (gdb: the
	 * child in __interceptor_pthread_once on sp_once, guard "running,
	 * waiter").  glibc runs the set-up again in such a child, which the
	 * normal build checks; under TSan it is done before the threads.
	 */
	assert_int_equal(sprofil_info(&info), 0);
#endif
	for (int i = 0; i < NTHREADS; i++) {
		w[i].index = i;
		/* Any thread's buffers may be the ones in use at the end. */
		w[i].p = lt_func_region(wl_work_a, PROF_UINT);
		w[i].q = lt_func_region(wl_work_b, PROF_USHORT);
		assert_int_equal(pthread_create(&w[i].thread, NULL, worker,
						&w[i]), 0);
	}
	/* A fork in the middle of it all: the child must not hang. */
	for (int i = 0; i < 5; i++) {
		pid = fork_in_the_middle();
		assert_true(pid >= 0);
		if (!pid) {
			if (!sprofil(NULL, 0, NULL, 0))
				_exit(0);
			/* Rare on kmod (6.1, 6.1-rt): say why, for the log. */
			fprintf(stderr, "fork child %d: sprofil(NULL): %s\n", i,
				strerror(errno));
			_exit(1);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			print_message("# fork child %d: %s %d\n", i,
				      WIFEXITED(status) ? "exit status" :
				      "killed by signal",
				      WIFEXITED(status) ? WEXITSTATUS(status) :
				      WTERMSIG(status));
		assert_true(WIFEXITED(status) && !WEXITSTATUS(status));
	}
	atomic_store(&forks_done, true);
	for (int i = 0; i < NTHREADS; i++) {
		assert_int_equal(pthread_join(w[i].thread, NULL), 0);
		if (w[i].failures)
			print_message("# thread %d: %d failures, first %s\n",
				      i, w[i].failures, w[i].what);
		failures += w[i].failures;
	}
	assert_int_equal(failures, 0);

	/* The library is in one piece: a last run samples normally. */
	assert_int_equal(sprofil(&last, 1, NULL, PROF_UINT), 0);
	wl_spin_cpu(wl_work_a, chunk, lt_seconds_for(100));
	assert_int_equal(sprofil_flush(), 0);
	info = lt_info();
	lt_print_info("after the threads", &info);
	assert_true(info.enabled);
	assert_true(wl_sum(last.pr_base, PROF_UINT, 0,
			   lt_nbuckets(&last, PROF_UINT)) >= 50);
	assert_int_equal(sprofil(NULL, 0, NULL, 0), 0);
	free(last.pr_base);
	for (int i = 0; i < NTHREADS; i++) {
		free(w[i].p.pr_base);
		free(w[i].q.pr_base);
	}
	alarm(0);
}

/* The first call of the library, from a thread of its own. */
static void *first_call(void *arg)
{
	struct sprofil_info info;

	sprofil_info(&info);
	atomic_store((atomic_bool *)arg, true);
	return NULL;
}

/*
 * A fresh process (this binary exec'd with --fork-race): a thread makes
 * the library's first call, which chooses and opens the backend, while
 * the main thread forks, again and again until that call is over.  Each
 * child must find its library whole.  Exit status: how many did not.
 */
static int fork_race(void)
{
	pid_t pid[RACE_FORKS];
	atomic_bool done = false;
	pthread_t thread;
	int n = 0, status, failed = 0;

	if (pthread_create(&thread, NULL, first_call, &done))
		return 100;
	while (n < RACE_FORKS && !atomic_load(&done)) {
		pid[n] = fork();
		if (!pid[n]) {
			if (sprofil(NULL, 0, NULL, 0)) {
				fprintf(stderr, "fork %d during the first call: sprofil(NULL): %s\n",
					n, strerror(errno));
				_exit(1);
			}
			_exit(0);
		}
		if (pid[n] < 0)
			break;
		n++;
	}
	pthread_join(thread, NULL);
	for (int i = 0; i < n; i++)
		if (waitpid(pid[i], &status, 0) != pid[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			failed++;
	return failed;
}

/*
 * fork() copies the parent's descriptor table before its memory
 * (copy_process()): a child forked while another thread opened the
 * backend's descriptor could see the descriptor's number stored in
 * memory but not the descriptor, and every call of its then failed with
 * EBADF (one run in twenty of concurrent_calls_are_serialized, on kmod
 * under 6.1, 6.1-rt and 6.12).  The backend is now chosen under the lock
 * fork's prepare handler takes.  Fresh processes fork without pause
 * during their first call.  Not under the sanitizers, whose runtimes
 * hang a child forked during that call (above).
 */
static void fork_while_the_backend_is_chosen(void **state)
{
	int processes = RACE_PROCESSES, status, failures = 0;
	pid_t pid;

	(void)state;
	if (FORK_ONLY_WHEN_QUIET || getenv("SPROFIL_TEST_TSAN")) {
		print_message("# SKIP: a fork during the first call hangs under the sanitizers\n");
		skip();
	}
	/*
	 * Under qemu TCG a process takes a second or more to start, and
	 * several on bpf (the verifier): fewer there.  Before the fix ten
	 * processes on kmod had about three children fail.
	 */
	if (getenv("SPROFIL_TEST_TCG"))
		processes = strcmp(lt_info().backend, "kmod") ? 2 : 10;
	for (int i = 0; i < processes; i++) {
		pid = fork();
		assert_true(pid >= 0);
		if (!pid) {
			execl("/proc/self/exe", "fork-race", "--fork-race",
			      (char *)NULL);
			_exit(127);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			print_message("# process %d: status %#x\n", i, status);
			failures++;
		}
	}
	assert_int_equal(failures, 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(concurrent_calls_are_serialized),
		cmocka_unit_test(fork_while_the_backend_is_chosen),
	};

	if (argc == 2 && !strcmp(argv[1], "--fork-race"))
		return fork_race();
	return cmocka_run_group_tests(tests, group_setup, NULL);
}
