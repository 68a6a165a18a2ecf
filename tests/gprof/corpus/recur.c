// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The call-graph shapes gprof has special cases for: self recursion
 * (fact, "30+570" a round), mutual recursion (is_even/is_odd, a two-member
 * cycle), a three-member cycle entered from two outside callers
 * (ring_a -> ring_b -> ring_c -> ring_a), one callee shared by a cheap
 * and a costly caller (the "average time per call" split), static
 * functions (the index's "(recur.c)"), and ties: tie_[abcd] get the same
 * number of calls and no time, so only the name orders them.
 *
 * Built four ways (PIE -O1, -no-pie, -mfentry, -O2).  The whole shape
 * runs again until main has spent RUN_MS of CPU, so that any
 * machine gives the reports enough samples (run-pprof needs a function's
 * samples spread over its lines: 70 ms, as 10^8 iterations take on a
 * fast machine, gave 6-8 samples on one line); argv[1] multiplies that
 * time, so two runs summed (GMON_OUT_PREFIX) differ from one.
 */
#include <stdlib.h>
#include "../../cli/cli_burn.h"

#define RUN_MS	400

static volatile unsigned long sink;

/* Two lines of equal work: -l and pprof -lines share spin's samples. */
__attribute__((noinline)) void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		sink += i;
		sink ^= i;
	}
}

unsigned long fact(int n)
{
	spin(3000);
	return n <= 1 ? 1 : n * fact(n - 1);
}

int is_odd(int n);

int is_even(int n)
{
	spin(2000);
	return n == 0 ? 1 : is_odd(n - 1);
}

int is_odd(int n)
{
	spin(5000);
	return n == 0 ? 0 : is_even(n - 1);
}

void ring_b(int n);
void ring_c(int n);

void ring_a(int n)
{
	spin(1000);
	if (n > 0)
		ring_b(n - 1);
}

void ring_b(int n)
{
	spin(4000);
	if (n > 0)
		ring_c(n - 1);
}

void ring_c(int n)
{
	spin(7000);
	if (n > 0)
		ring_a(n - 1);
}

static void enter_ring_once(void)
{
	ring_a(5);
}

static void enter_ring_often(void)
{
	for (int i = 0; i < 8; i++)
		ring_b(10);
}

void shared(void)
{
	spin(8000);
}

static void cheap_caller(void)
{
	shared();
}

static void costly_caller(void)
{
	spin(400000);
	for (int i = 0; i < 10; i++)
		shared();
}

void tie_d(void) { sink++; }
void tie_b(void) { sink++; }
void tie_a(void) { sink++; }
void tie_c(void) { sink++; }

int main(int argc, char **argv)
{
	long end = cli_cpu_ms() + RUN_MS * (argc > 1 ? atol(argv[1]) : 1);

	do {
		for (int i = 0; i < 30; i++) {
			fact(20);
			is_even(50);
			cheap_caller();
			tie_a();
			tie_b();
			tie_c();
			tie_d();
		}
		enter_ring_once();
		enter_ring_often();
		for (int i = 0; i < 5; i++)
			costly_caller();
	} while (cli_cpu_ms() < end);
	return (int)(sink & 0);
}
