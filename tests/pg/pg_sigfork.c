// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * SPROFIL_SIGDUMP and fork() at the same time: one thread raises the
 * dump signal argv[1] times while the main thread forks as often.  A dump
 * takes the runtime's locks in one order; fork's prepare handlers must
 * take them in the same one, or the two deadlock.  Each child is waited
 * for 5 s at most; alarm() bounds the whole run (90 s, for qemu TCG), so
 * a deadlock ends in SIGALRM, not in a hung test.  Exit 0: every fork
 * and dump completed.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "pg_burn.h"

void pgearly_touch(int i);

static int rounds = 200;

static PG_FUNC void *signaller(void *unused)
{
	struct timespec pause = { 0, 100000 };

	(void)unused;
	for (int i = 0; i < rounds; i++) {
		kill(getpid(), SIGUSR1);
		nanosleep(&pause, NULL);
	}
	return NULL;
}

/* Reaps @pid within 5 s, else kills it: 0 if it exited 0. */
static PG_FUNC int reap(pid_t pid)
{
	struct timespec tick = { 0, 1000000 };
	int status;

	for (int i = 0; i < 5000; i++) {
		pid_t got = waitpid(pid, &status, WNOHANG);

		if (got == pid)
			return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : 1;
		if (got < 0 && errno != EINTR)
			return 1;
		nanosleep(&tick, NULL);
	}
	fprintf(stderr, "pg-sigfork: child %d hung\n", (int)pid);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return 1;
}

int main(int argc, char **argv)
{
	pthread_t t;
	int bad = 0;

	if (argc > 1)
		rounds = atoi(argv[1]);
	alarm(90);
	pgearly_touch(1);
	if (pthread_create(&t, NULL, signaller, NULL))
		return 3;
	for (int i = 0; i < rounds; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("pg-sigfork: fork");
			return 3;
		}
		if (!pid)
			_exit(0);
		bad += reap(pid);
	}
	pthread_join(t, NULL);
	if (bad)
		fprintf(stderr, "pg-sigfork: %d children failed\n", bad);
	return bad ? 1 : 0;
}
