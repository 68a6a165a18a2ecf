// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * SPROFIL_SIGDUMP=<signal> (hiprof's -sigdump): each time the -pg process
 * gets that signal it writes the profile so far, to a file of its own
 * ("<name>.1", "<name>.2", ...: sp_gmon_path_seq()), and starts again
 * from zero, so a dump holds only the work done since the one before.
 *
 * Writing a profile allocates, formats and does file I/O, none of which
 * is async-signal-safe, so the handler only writes one byte to a pipe; a
 * dump thread reads it and calls gmon.c.  The thread is created without
 * our pthread_create wrapper (threads.c): it gets no sampling timer, so
 * its own CPU is not charged to the program, and as libsprofil is never
 * built with -pg it counts no arcs either.  Any other interposer of
 * pthread_create (a sanitizer's runtime) still sees it: ThreadSanitizer
 * kills a thread it does not know in its first instrumented function.
 * It blocks every signal, so the sampling signal and the dump signal go
 * to the threads doing the work.
 *
 * Under `sprofil record` (record.c) the same thread also writes the
 * profile of a process that SIGHUP, SIGINT or SIGTERM ends, where the
 * program left them to their default action: a ^C would otherwise lose
 * the whole run.  The handler sends the signal's number down the pipe;
 * the thread writes the profile, restores the default action and
 * raises the signal again in itself, so the process still dies of it,
 * with the status its parent expects.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/fork.h"
#include "pg/gmon.h"
#include "common/settings.h"
#include "common/own_threads.h"

static int sd_signal;			/* 0: SPROFIL_SIGDUMP unset or bad */
static int sd_pipe[2] = { -1, -1 };	/* the handler writes to [1] */
static unsigned int sd_seq;		/* the last dump's number */
static bool sd_fatal;			/* the record handlers are set */

static void sd_fatal_restore(void);

/* "10", "USR1" or "SIGUSR1"; 0 for anything else. */
static int sd_parse(const char *s)
{
	const char *name;
	char *end;
	long n;
	int sig;

	if (s[0] >= '0' && s[0] <= '9') {
		errno = 0;
		n = strtol(s, &end, 10);
		return errno || *end || n < 1 || n >= NSIG ? 0 : (int)n;
	}
	if (!strncasecmp(s, "SIG", 3))
		s += 3;
	for (sig = 1; sig < NSIG; sig++) {
		name = sigabbrev_np(sig);
		if (name && !strcasecmp(s, name))
			return sig;
	}
	return 0;
}

/* Async-signal-safe: one byte per signal, one dump per byte. */
static void sd_handler(int sig)
{
	int saved = errno;
	char c = 0;
	ssize_t n;

	(void)sig;
	/* A full pipe holds enough requests already: drop this one. */
	n = write(sd_pipe[1], &c, 1);
	(void)n;
	errno = saved;
}

typedef int (*sd_sigaction_fn)(int, const struct sigaction *,
			       struct sigaction *);
static sd_sigaction_fn real_sigaction;
/* glibc's other name for sigaction(), exported by libc.so and libc.a. */
extern int __sigaction(int sig, const struct sigaction *act,
		       struct sigaction *old);

/*
 * Async-signal-safe: the signal's number, for sd_die(), and then this
 * thread waits for the death it asked for.  Returning would let it run
 * on (a sleep() cut short, an exit racing with the signal) where the
 * signal's default action stops it at once.
 */
static void sd_fatal_handler(int sig)
{
	char c = (char)sig;
	ssize_t n;

	n = write(sd_pipe[1], &c, 1);
	if (n != 1) {
		/* No dump thread to ask: die now, unprofiled, as asked. */
		struct sigaction dfl = { .sa_handler = SIG_DFL };
		sigset_t one;

		real_sigaction(sig, &dfl, NULL);
		sigemptyset(&one);
		sigaddset(&one, sig);
		sigprocmask(SIG_UNBLOCK, &one, NULL);
		raise(sig);
	}
	for (;;)
		pause();
}

/*
 * sigaction(), wrapped so that the program never sees the handler above:
 * where it left a signal to its default action, it is told SIG_DFL, as
 * without the collector.  Python, for one, installs its
 * KeyboardInterrupt handler only where SIGINT's action is SIG_DFL.
 * Looked up at load time: sigaction() may be called in a signal handler.
 */
/*
 * Also from the collector's constructor, which may run before ours, and
 * from a sanitizer's runtime while it starts, before it can run
 * instrumented code (ThreadSanitizer installs its handlers through this
 * wrapper from its initializer, and died in the wrapper's function-entry
 * hook): neither function is instrumented.
 */
#define SD_NO_TSAN __attribute__((no_sanitize("thread")))

/*
 * libc_next.h's rule, written out: its inline function would be
 * instrumented, and ThreadSanitizer's initializer calls this.
 */
SD_NO_TSAN static sd_sigaction_fn sd_real_sigaction(void)
{
	if (!real_sigaction)
		real_sigaction = (sd_sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
	if (!real_sigaction)
		real_sigaction = __sigaction;
	return real_sigaction;
}

__attribute__((constructor)) static void sd_sigaction_init(void)
{
	sd_real_sigaction();
}

SD_NO_TSAN int sigaction(int sig, const struct sigaction *act,
			 struct sigaction *old)
{
	int ret;

	if (!sd_real_sigaction()) {
		errno = ENOSYS;
		return -1;
	}
	ret = real_sigaction(sig, act, old);
	if (!ret && old && old->sa_handler == sd_fatal_handler) {
		memset(old, 0, sizeof(*old));
		old->sa_handler = SIG_DFL;
	}
	return ret;
}

/* The dump thread: the profile, then death by @sig as if unhandled. */
static void sd_die(int sig)
{
	sigset_t one;

	sp_gmon_before_exec();
	signal(sig, SIG_DFL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	raise(sig);
}

static void *sd_thread(void *unused)
{
	ssize_t n;
	char c;

	(void)unused;
	for (;;) {
		n = read(sd_pipe[0], &c, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return NULL;
		if (c) {
			sd_die(c);
			continue;
		}
		/* Numbered even when the write fails: names stay in order. */
		sp_gmon_dump_reset(++sd_seq);
	}
}

/*
 * The pipe and the thread of this process; 0 or a positive errno.  In a
 * fork child (@in_child) the thread is not waited for (own_threads.h).
 */
static int sd_spawn(bool in_child)
{
	sigset_t all, old;
	pthread_attr_t attr;
	int err;

	/* Not inherited by an exec'd image, which has its own, if any. */
	if (pipe2(sd_pipe, O_CLOEXEC))
		return errno;
	/* A flood of signals must never block the handler. */
	fcntl(sd_pipe[1], F_SETFL, O_NONBLOCK);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = sp_own_thread_create(&attr, sd_thread, NULL, "sigdump",
				   !in_child);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (err) {
		close(sd_pipe[0]);
		close(sd_pipe[1]);
		sd_pipe[0] = sd_pipe[1] = -1;
	}
	return err;
}

/*
 * The dump thread does not survive fork and the pipe would be shared
 * with the parent: a child gets its own of both, and numbers its dumps
 * (gmon.out.<pid>.<n>) from 1.
 */
void sp_sigdump_fork_child(void)
{
	int err;

	if (!sd_signal && !sd_fatal)
		return;
	close(sd_pipe[0]);
	close(sd_pipe[1]);
	sd_seq = 0;
	err = sd_spawn(true);
	if (err) {
		fprintf(stderr, "libsprofil: SPROFIL_SIGDUMP: no dump thread in the child: %s\n",
			strerror(err));
		/* No reader: the signal must not fill a pipe nobody reads. */
		if (sd_signal)
			signal(sd_signal, SIG_IGN);
		sd_fatal_restore();
	}
}

static const int sd_fatal_signals[] = { SIGHUP, SIGINT, SIGTERM };

/* The default actions back (no dump thread to write the profile). */
static void sd_fatal_restore(void)
{
	size_t i;

	for (i = 0; sd_fatal && i < sizeof(sd_fatal_signals) / sizeof(int); i++)
		if (sd_fatal_signals[i] != sd_signal)
			signal(sd_fatal_signals[i], SIG_DFL);
	sd_fatal = false;
}

/*
 * `sprofil record`: SIGHUP, SIGINT and SIGTERM, where their action is
 * the default one, write the profile before the process dies of them.
 * The thread must exist first (sd_spawn()).
 */
static void sd_fatal_start(void)
{
	struct sigaction sa, old;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sd_fatal_handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sd_fatal_signals) / sizeof(int); i++) {
		int sig = sd_fatal_signals[i];

		if (sig == sd_signal || !sd_real_sigaction() ||
		    real_sigaction(sig, NULL, &old) ||
		    old.sa_handler != SIG_DFL)
			continue;
		if (!sigaction(sig, &sa, NULL))
			sd_fatal = true;
	}
}

void sp_sigdump_start(void)
{
	static bool done;
	struct sigaction sa;
	const char *env;
	int sig, err = 0;

	if (done)
		return;
	done = true;
	env = sp_setting_secure("SPROFIL_SIGDUMP");
	if (!env || !*env) {
		if (sp_recording() && !(err = sd_spawn(false)))
			sd_fatal_start();
		else if (sp_recording())
			fprintf(stderr, "libsprofil: no dump thread: a process killed by a signal writes no profile: %s\n",
				strerror(err));
		return;
	}
	sig = sd_parse(env);
	if (!sig || sig == SIGKILL || sig == SIGSTOP) {
		fprintf(stderr, "libsprofil: SPROFIL_SIGDUMP=%s: not a signal that can be caught; ignored\n",
			env);
		return;
	}
	err = sd_spawn(false);
	if (err) {
		fprintf(stderr, "libsprofil: SPROFIL_SIGDUMP: cannot start the dump thread: %s\n",
			strerror(err));
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sd_handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL)) {
		fprintf(stderr, "libsprofil: SPROFIL_SIGDUMP=%s: %s; ignored\n",
			env, strerror(errno));
		return;
	}
	sd_signal = sig;
	if (sp_recording())
		sd_fatal_start();
}
