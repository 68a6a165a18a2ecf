// SPDX-License-Identifier: GPL-2.0-or-later
/* argv[1] (100) naps of 2 ms in nap(): one context switch each. */
#include <stdlib.h>
#include <unistd.h>

static __attribute__((noipa)) void nap(void)
{
	usleep(2000);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100, i;

	for (i = 0; i < n; i++)
		nap();
	return 0;
}
