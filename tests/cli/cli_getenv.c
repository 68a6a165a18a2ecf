// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A program that defines getenv() itself, as bash does, and exports it
 * (built with -rdynamic), so that it is the getenv() every library in
 * the process calls.  This one knows no variable at all, as bash's knows
 * none after a setenv() before main() set up its table.  It then sets
 * SPROFIL_BACKEND and SPROFIL_HZ itself, which must change nothing in
 * the library, and forks a child that burns in child_work while it
 * burns in parent_work.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli_burn.h"

char *getenv(const char *name)
{
	(void)name;
	return NULL;
}

__attribute__((noinline)) unsigned long parent_work(void)
{
	return cli_burn_ms(200);
}

__attribute__((noinline)) unsigned long child_work(void)
{
	return cli_burn_ms(200);
}

int main(void)
{
	int status;
	pid_t pid;

	if (setenv("SPROFIL_BACKEND", "bpf", 1) || setenv("SPROFIL_HZ", "10", 1))
		return 2;
	pid = fork();
	if (pid < 0)
		return 2;
	if (!pid)
		_exit(child_work() == 42);
	parent_work();
	if (waitpid(pid, &status, 0) != pid || status)
		return 1;
	return 0;
}
