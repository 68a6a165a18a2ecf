// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Built -O2 -fomit-frame-pointer (tests/cli/tests.mk): four callers do
 * 40/30/20/10 % of one leaf's work through a shared middle function, in
 * rounds of about 20 ms of CPU time (a 8 ms, b 6, c 4, d 2) until RUN_MS
 * is spent.  Each round's length varies at random by up to half: rounds
 * of a fixed length, a multiple of the sampling period, put the samples
 * at the same point of every round (b 27 %, d 12 % in one run).  Without frame pointers the middle's callers are known only
 * from unwind tables: run-cli checks each caller's measured share of
 * the middle within 2 points, under `sprofil record --backend signal`.
 *
 * With an argument ROUNDS (bench/unwind/run) the work is fixed instead:
 * ROUNDS rounds of FIXED_UNIT leaf steps per unit, the same on every
 * run, so that a profiler's cost shows as more CPU time; a run that
 * stops at a CPU time would do less work under a profiler and show none.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "cli_burn.h"

#define RUN_MS	3000
#define UNIT_MS	2
/* About UNIT_MS of leaf steps on a 3 GHz x86-64. */
#define FIXED_UNIT	1500000

static uint64_t per_unit;

/* The callee: a leaf without a frame. */
__attribute__((noipa)) uint64_t leaf(uint64_t n)
{
	uint64_t x = n;

	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

/* The shared middle: its callers are what the test measures. */
__attribute__((noipa)) uint64_t mid(uint64_t n)
{
	uint64_t a = leaf(n / 2), b = leaf(n - n / 2);

	return a ^ (b >> 3);
}

/* No sibling calls: each returns after its callee does. */
__attribute__((noipa)) uint64_t caller_a(uint64_t n)
{
	return mid(n) + 1;
}

__attribute__((noipa)) uint64_t caller_b(uint64_t n)
{
	return mid(n) + 2;
}

__attribute__((noipa)) uint64_t caller_c(uint64_t n)
{
	return mid(n) + 3;
}

__attribute__((noipa)) uint64_t caller_d(uint64_t n)
{
	return mid(n) + 4;
}

int main(int argc, char **argv)
{
	long t0 = cli_cpu_ms(), end, rounds = 0;
	uint64_t sum = 0, n = 1 << 20, r = 88172645463325252ULL, u;
	int i;

	if (argc > 1) {
		rounds = strtol(argv[1], NULL, 10);
		if (rounds <= 0) {
			fprintf(stderr, "usage: cli-unwind [ROUNDS > 0]\n");
			return 2;
		}
		per_unit = FIXED_UNIT;
	}
	/* The leaf's iterations per UNIT_MS on this machine, now. */
	while (!rounds && cli_cpu_ms() - t0 < 50) {
		sum += leaf(n);
		per_unit += n;
	}
	if (!rounds)
		per_unit = per_unit * UNIT_MS / (uint64_t)(cli_cpu_ms() - t0);
	end = cli_cpu_ms() + RUN_MS;
	do {
		r ^= r << 13;
		r ^= r >> 7;
		r ^= r << 17;
		u = per_unit / 2 + r % (per_unit + 1);
		for (i = 0; i < 4; i++)
			sum += caller_a(u);
		for (i = 0; i < 3; i++)
			sum += caller_b(u);
		for (i = 0; i < 2; i++)
			sum += caller_c(u);
		sum += caller_d(u);
	} while (rounds ? --rounds > 0 : cli_cpu_ms() < end);
	printf("%llu\n", (unsigned long long)(sum & 1));
	return 0;
}
