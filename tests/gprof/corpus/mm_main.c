// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Multi-module tests: the executable named in the hand-made sprofil
 * extension files (tests/gprof/run-multimod).  Never run; only its
 * symbols matter.  mm_lib.c is the shared object next to it.
 */
void lib_hot(unsigned long n);

static volatile unsigned long sink;

__attribute__((noinline)) void app_work(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

__attribute__((noinline)) void app_call(unsigned long n)
{
	lib_hot(n);
	app_work(n);
}

int main(int argc, char **argv)
{
	(void)argv;
	app_call((unsigned long)argc);
	return 0;
}
