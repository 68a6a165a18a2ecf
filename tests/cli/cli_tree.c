// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A fork + exec tree: the parent burns in parent_work, a forked child
 * in child_work, and a second child execs cli-leaf (leaf_work), as
 * `cli-tree PATH-OF-CLI-LEAF`.  Each process must get its own profile.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli_burn.h"

__attribute__((noinline)) unsigned long parent_work(void)
{
	return cli_burn_ms(500);
}

__attribute__((noinline)) unsigned long child_work(void)
{
	return cli_burn_ms(400);
}

int main(int argc, char **argv)
{
	pid_t a, b;
	int status, bad = 0;

	if (argc < 2)
		return 2;
	a = fork();
	if (!a)
		exit(child_work() == 42);
	b = fork();
	if (!b) {
		execl(argv[1], "cli-leaf", (char *)NULL);
		perror(argv[1]);
		_exit(127);
	}
	parent_work();
	if (waitpid(a, &status, 0) != a || status)
		bad = 1;
	if (waitpid(b, &status, 0) != b || status)
		bad = 1;
	return bad;
}
