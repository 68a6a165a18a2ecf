// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The shapes of the caller-sample tests (run-callers): the tests write
 * profiles of this program by hand (mkgmon), with chains through these
 * functions, so it is built but never run for them.  It still runs, and
 * its work is what the names say.
 */
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned long sink;

/* One callee, four callers doing 40/30/20/10 % of the work through it. */
NOINLINE void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

NOINLINE void caller_a(void) { spin(40000); }
NOINLINE void caller_b(void) { spin(30000); }
NOINLINE void caller_c(void) { spin(20000); }
NOINLINE void caller_d(void) { spin(10000); }

/* A callee whose cost per call depends on its caller. */
NOINLINE void work(unsigned long n) { spin(n); }
NOINLINE void cheap(void) { for (int i = 0; i < 9; i++) work(10); }
NOINLINE void dear(void) { work(90000); }

/* Self recursion, mutual recursion, recursion through a pointer. */
NOINLINE unsigned long fact(unsigned long n)
{
	spin(100);
	return n < 2 ? 1 : n * fact(n - 1);
}

NOINLINE int odd(unsigned int n);
NOINLINE int even(unsigned int n) { spin(100); return n ? odd(n - 1) : 1; }
NOINLINE int odd(unsigned int n) { spin(100); return n ? even(n - 1) : 0; }

static unsigned long (*volatile walk_ptr)(unsigned long);
NOINLINE unsigned long walk(unsigned long n)
{
	spin(100);
	return n ? walk_ptr(n - 1) + 1 : 0;
}

int main(void)
{
	caller_a();
	caller_b();
	caller_c();
	caller_d();
	cheap();
	dear();
	walk_ptr = walk;
	printf("%lu %d %lu\n", fact(5), even(6), walk(4));
	return 0;
}
