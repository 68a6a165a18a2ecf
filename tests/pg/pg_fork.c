// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Three processes, each with its own work in its own function:
 *
 *   parent: pre_work() x7, fork A, parent_work() x300, fork B, wait
 *   A:      a_work() x100
 *   B:      b_work() x200
 *
 * Each process prints "<role> <pid>" as it exits so the test knows whose
 * file is whose.  A child starts a profile of its own, so A's file has no
 * pre_work and B's none of the parent's work before B was forked.
 * Every work call burns 2 ms of CPU so that each file has time to show.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "pg_burn.h"

volatile uint64_t sink;

static PG_FUNC void pre_work(void)
{
	sink += burn(0.001);
}

static PG_FUNC void parent_work(void)
{
	sink += burn(0.002);
}

static PG_FUNC void a_work(void)
{
	sink += burn(0.002);
}

static PG_FUNC void b_work(void)
{
	sink += burn(0.002);
}

/* Runs @work @n times in a new child, which exits through exit(). */
static pid_t spawn_child(const char *role, void (*work)(void), int n)
{
	pid_t pid = fork();

	if (pid < 0) {
		perror("fork");
		exit(1);
	}
	if (pid == 0) {
		for (int i = 0; i < n; i++)
			work();
		/* Unbuffered: a buffered stdout would be copied by fork. */
		dprintf(1, "%s %d\n", role, (int)getpid());
		exit(0);
	}
	return pid;
}

static int reap(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st)) {
		dprintf(2, "child %d failed (status %#x)\n", (int)pid, st);
		return 1;
	}
	return 0;
}

int main(void)
{
	pid_t a, b;
	int bad;

	for (int i = 0; i < 7; i++)
		pre_work();
	a = spawn_child("a", a_work, 100);
	for (int i = 0; i < 300; i++)
		parent_work();
	b = spawn_child("b", b_work, 200);
	bad = reap(a) + reap(b);
	dprintf(1, "parent %d\n", (int)getpid());
	return bad;
}
