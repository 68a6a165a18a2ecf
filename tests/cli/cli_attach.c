// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The target of `record -p`: burns CPU in attach_work, in slices of
 * CPU time, until the file STOP exists (at most a minute of CPU), then
 * says "attach: done" and exits with status 3, so that a test sees it
 * finish as it would unprofiled.
 */
#include <stdio.h>
#include <unistd.h>
#include "cli_burn.h"

__attribute__((noinline)) unsigned long attach_work(void)
{
	return cli_burn_ms(20);
}

int main(int argc, char **argv)
{
	unsigned long r = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: cli-attach STOP\n");
		return 2;
	}
	while (access(argv[1], F_OK) && cli_cpu_ms() < 60000)
		r += attach_work();
	printf("attach: done%s\n", r ? "" : ".");
	return 3;
}
