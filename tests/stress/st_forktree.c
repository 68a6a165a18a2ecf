// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A fork tree: st-forktree DEPTH FANOUT.  Every process of the tree
 * keeps a thread calling bg_work() (so fork happens while another thread
 * is inside mcount), calls node_work() a number of times of its own,
 * asks itself for a SPROFIL_SIGDUMP dump (when the variable is set) just
 * before forking its children, so dumps and forks overlap, then waits
 * for its children.  It prints
 *
 *   node <pid> <node_work calls>
 *
 * and exits; a child profiles into its own copy and writes its own file
 * (gmon.out.<pid>, GMON_OUT_PREFIX.<pid>), which must hold exactly its
 * own calls, with those of its dumps.  The driver kills a tree that
 * does not finish in time: a hang is a failure.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "st_pg.h"

/* Per thread: the threads share no data (ThreadSanitizer runs this). */
static _Thread_local volatile uint64_t sink;
static atomic_int bg_stop;

PG_FUNC void node_work(void)
{
	sink += burn(0.0003);
}

PG_FUNC void bg_work(void)
{
	sink++;
}

static void *bg_thread(void *arg)
{
	(void)arg;
	for (unsigned int i = 0; !atomic_load(&bg_stop); i++) {
		bg_work();
		if (i % 256 == 0)
			usleep(200);
	}
	return NULL;
}

/*
 * The background thread runs on a stack of its own, never on one glibc
 * reuses.  In a child, glibc hands out the stacks of the parent's threads
 * again, so a new thread can have the pthread_t of one of them; gcc 12's
 * ThreadSanitizer still holds those threads as running (it keeps a fork
 * child's copy of its thread table) and aborts the pthread_join() of
 * such a thread with "dup thread with used id" (docs/stress.md).  An
 * mmap'd stack is a fresh address in every process of the tree.
 */
#define BG_STACK (1 << 20)

static int start_bg(pthread_t *bg, void **stack)
{
	pthread_attr_t attr;
	int err;

	*stack = mmap(NULL, BG_STACK, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (*stack == MAP_FAILED) {
		perror("st-forktree: mmap");
		return 1;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstack(&attr, *stack, BG_STACK);
	err = pthread_create(bg, &attr, bg_thread, NULL);
	pthread_attr_destroy(&attr);
	if (err) {
		dprintf(2, "st-forktree: pthread_create failed\n");
		munmap(*stack, BG_STACK);
		return 1;
	}
	return 0;
}

/* Runs one node at @level; @calls differs from node to node. */
static int node(int level, int depth, int fanout, int calls)
{
	pid_t kids[16];
	pthread_t bg;
	void *stack;
	int bad = 0, n = 0;

	atomic_store(&bg_stop, 0);
	if (start_bg(&bg, &stack))
		return 1;
	for (int i = 0; i < calls; i++)
		node_work();
	if (getenv("SPROFIL_SIGDUMP"))
		raise(SIGUSR1);
	for (; level < depth && n < fanout; n++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("st-forktree: fork");
			bad = 1;
			break;
		}
		if (pid == 0) {
			/* The child: only this thread came along. */
			exit(node(level + 1, depth, fanout,
				  calls + 1 + n + 10 * level));
		}
		kids[n] = pid;
	}
	atomic_store(&bg_stop, 1);
	pthread_join(bg, NULL);
	munmap(stack, BG_STACK);
	for (int i = 0; i < n; i++) {
		int st;

		if (waitpid(kids[i], &st, 0) != kids[i] || !WIFEXITED(st) ||
		    WEXITSTATUS(st)) {
			dprintf(2, "st-forktree: child %d failed (status %#x)\n",
				(int)kids[i], st);
			bad = 1;
		}
	}
	dprintf(1, "node %d %d\n", (int)getpid(), calls);
	return bad;
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 3;
	int fanout = argc > 2 ? atoi(argv[2]) : 3;

	if (fanout > 16)
		fanout = 16;
	st_describe("node_work", (void *)node_work);
	return node(0, depth, fanout, 40);
}
