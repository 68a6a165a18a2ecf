// SPDX-License-Identifier: GPL-2.0-or-later
/* The shared object of the multi-module tests (see mm_main.c). */
static volatile unsigned long sink;

__attribute__((noinline)) void lib_helper(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink ^= i;
}

__attribute__((noinline)) void lib_hot(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
	lib_helper(n);
}
