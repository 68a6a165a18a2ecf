// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Built with -O2 so that GCC makes local clones: a partial inlining
 * (split_me.part.0), an IPA-SRA clone (isra_me...isra.0), a constant
 * propagated clone (cprop.constprop.0) and a cold split (step.cold).
 * GNU gprof drops every local name with a dot except .constprop.N and
 * .clone.N, charging their samples and calls to the symbol before them;
 * ours must do the same to match it byte for byte.
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;
unsigned long table[64];

struct pair {
	unsigned long a, b;
};

/* The early exit is inlined into u1..u3, the heavy rest split out. */
static unsigned long split_me(unsigned long n)
{
	if (n < 4)
		return n;
	for (unsigned long i = 0; i < n; i++) {
		sink += i * n;
		table[i & 63] += sink;
		if (sink == 12345)
			fprintf(stderr, "%lu %lu %lu\n", i, table[3], table[7]);
		if (table[i & 7] == 99)
			printf("%lu %lu\n", table[1], table[9]);
	}
	return sink;
}

unsigned long u1(unsigned long n)
{
	return split_me(n) + 1;
}

unsigned long u2(unsigned long n)
{
	return split_me(n) + 2;
}

unsigned long u3(unsigned long n)
{
	return split_me(n * 3) + 3;
}

/* Only p->a is used: IPA-SRA passes it by value. */
static __attribute__((noinline)) unsigned long isra_me(struct pair *p)
{
	unsigned long s = 0;

	for (unsigned long i = 0; i < p->a; i++)
		s += i ^ sink;
	return s;
}

/* Always called with k == 3. */
static __attribute__((noinline)) unsigned long cprop(unsigned long n,
						      unsigned long k)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * k;
	return sink;
}

static __attribute__((cold, noinline)) void complain(const char *m,
						     unsigned long v)
{
	fprintf(stderr, "%s %lu\n", m, v);
}

/* The block calling the cold function goes to step.cold. */
__attribute__((noinline)) unsigned long step(unsigned long i)
{
	if (i == 123456789) {
		complain("odd", i);
		complain("very odd", i + sink);
		return 7;
	}
	sink += i;
	return sink;
}

int main(int argc, char **argv)
{
	struct pair p = { 2000000, (unsigned long)argc };
	unsigned long n = argc > 5 ? strtoul(argv[1], NULL, 0) : 600000;

	for (int r = 0; r < 20; r++) {
		sink += u1(n + r) + u2(n) + u3(n);
		sink += isra_me(&p);
		sink += cprop(n, 3);
		sink += cprop(n / 2, 3);
		for (unsigned long i = 0; i < 20000; i++)
			sink += step(i);
	}
	return (int)(sink & 0);
}
