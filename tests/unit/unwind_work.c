// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The workload of tests/unit/test_unwind_oracle.c, built -O2
 * -fomit-frame-pointer -fno-optimize-sibling-calls (tests/unit/unwind.mk):
 * no frame records anywhere, every call a real frame.  Chains: callers
 * c1..c4 -> mid -> work (a frameless leaf); a qsort() comparator, so
 * chains cross libc and come back; a function with a variable-length
 * array, whose CFA is fp-based; a recursion; and uw_trap, whose first
 * instruction is ud2, so that a stop lands exactly on a function's entry
 * (the walk must look that pc up as it is, not as a return address).
 */
#include <stdlib.h>
#include <string.h>

#include "unwind_work.h"

volatile int uw_stop;
static volatile unsigned long sink;

/* A leaf with no stack: its CFA is sp + 8 throughout. */
__attribute__((noinline)) unsigned long uw_work(unsigned long n)
{
	unsigned long x = n, i;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

/* Saves registers and keeps locals: sp-based rows with pushes. */
__attribute__((noinline)) unsigned long uw_mid(unsigned long n)
{
	unsigned long buf[8], s = 0;
	int i;

	for (i = 0; i < 8; i++)
		buf[i] = uw_work(n + (unsigned long)i);
	for (i = 0; i < 8; i++)
		s += buf[i] ^ (s >> 3);
	return s;
}

__attribute__((noinline)) unsigned long uw_c1(unsigned long n)
{
	return uw_mid(n) + 1;
}

__attribute__((noinline)) unsigned long uw_c2(unsigned long n)
{
	return uw_mid(2 * n) + 2;
}

__attribute__((noinline)) unsigned long uw_c3(unsigned long n)
{
	return uw_c1(n) + uw_mid(3 * n) + 3;
}

__attribute__((noinline)) unsigned long uw_c4(unsigned long n)
{
	return uw_c2(n) + uw_c3(n) + 4;
}

/* A variable-length array: gcc keeps a frame pointer, the CFA is fp + 16. */
__attribute__((noinline)) unsigned long uw_vla(unsigned long n)
{
	volatile unsigned long a[n % 64 + 1];
	unsigned long i;

	for (i = 0; i <= n % 64; i++)
		a[i] = uw_work(n + i);
	return a[n % 64];
}

__attribute__((noinline)) unsigned long uw_rec(unsigned long depth,
					      unsigned long n)
{
	if (!depth)
		return uw_mid(n);
	return uw_rec(depth - 1, n) + depth;
}

static int cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	sink += uw_work(64);
	return x < y ? -1 : x > y;
}

/* libc's qsort calls back: chains cross a module without frame pointers. */
__attribute__((noinline)) unsigned long uw_sort(unsigned long n)
{
	unsigned long v[256];
	int i;

	for (i = 0; i < 256; i++)
		v[i] = (unsigned long)i * 2654435761u % 1009 + n;
	qsort(v, 256, sizeof(v[0]), cmp);
	return v[0];
}

/* ud2, then return: the test's SIGILL handler steps over the ud2. */
asm(".text\n"
    ".globl uw_trap\n"
    ".type uw_trap, @function\n"
    ".p2align 4\n"
    "uw_trap:\n"
    ".cfi_startproc\n"
    "ud2\n"
    "ret\n"
    ".cfi_endproc\n"
    ".size uw_trap, .-uw_trap\n");

void uw_run(void)
{
	unsigned long n = 200;

	while (!uw_stop) {
		if (!(n & 31))
			uw_trap();
		sink += uw_c1(n) + uw_c2(n) + uw_c3(n) + uw_c4(n);
		sink += uw_vla(n++);
		sink += uw_rec(12, n);
		sink += uw_sort(n);
	}
}
