// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Far more distinct call arcs than a table sized from the text holds:
 * sweep() has NSITES indirect call sites, and each calls every one of
 * NFUNCS functions, so every (site, function) pair is an arc of its own
 * (a distinct from-pc, self-pc pair): 204,800 arcs, each called ROUNDS
 * times.  The text is a few hundred KB; glibc's table (and libsprofil's
 * before it grew) holds a fraction of that.
 *
 * Built twice: pg-manyarcs has it all in the executable; with
 * PG_ARCS_LIB it is libpgarcs.so (no main), which pg-arclib calls, so
 * that the arcs are in a -pg shared library.
 *
 * "pg-manyarcs <n>" runs pgarcs_run() in n threads at once, so that they
 * race to add the same arcs; "pg-manyarcs <n> <sig>" also sends itself
 * signal <sig> (SPROFIL_SIGDUMP's) every 10 ms while they do, so that
 * the table is dumped and reset while arcs are being added.
 *
 * An indirect call site per (site, function) pair keeps the binary small:
 * 400 loops over 512 functions instead of 204,800 direct calls.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "pg_burn.h"
#include "pg_manyarcs.h"

volatile uint64_t sink;

/*
 * Distinct bodies (the octal constant 0##n) and noipa: no function may be
 * folded into another, or two callees would be one self-pc.
 */
#define F(n)	static PG_FUNC void pgarc_##n(int site) \
	{ __atomic_fetch_add(&sink, site + 0##n, __ATOMIC_RELAXED); }
#define F8(p)	F(p##0) F(p##1) F(p##2) F(p##3) F(p##4) F(p##5) F(p##6) F(p##7)
#define F64(p)	F8(p##0) F8(p##1) F8(p##2) F8(p##3) \
		F8(p##4) F8(p##5) F8(p##6) F8(p##7)
F64(0) F64(1) F64(2) F64(3) F64(4) F64(5) F64(6) F64(7)
#undef F

#define F(n)	pgarc_##n,
static void (*const fns[PGARCS_NFUNCS])(int) = {
	F64(0) F64(1) F64(2) F64(3) F64(4) F64(5) F64(6) F64(7)
};

/*
 * One call site per loop; the site number passed along makes each loop's
 * code differ, so gcc cannot merge two loops into one call instruction.
 * Sites 100 .. 499.
 */
#define S(k)	for (i = 0; i < PGARCS_NFUNCS; i++) fns[i](k);
#define S10(k)	S(k##0) S(k##1) S(k##2) S(k##3) S(k##4) \
		S(k##5) S(k##6) S(k##7) S(k##8) S(k##9)
#define S100(k)	S10(k##0) S10(k##1) S10(k##2) S10(k##3) S10(k##4) \
		S10(k##5) S10(k##6) S10(k##7) S10(k##8) S10(k##9)

static PG_FUNC void sweep(void)
{
	int i;

	S100(1) S100(2) S100(3) S100(4)
}

/*
 * Three call sites of sweep(), each called once, at any optimization
 * level: -O2 unrolls a loop into this, but -O1 (the sanitizer builds)
 * keeps it, and its one site would make an arc called PGARCS_ROUNDS
 * times, which the driver would count as one of sweep()'s.
 */
_Static_assert(PGARCS_ROUNDS == 3, "pgarcs_run() has one site per sweep");

PG_FUNC void pgarcs_run(void)
{
	sweep();
	sweep();
	sweep();
}

#ifndef PG_ARCS_LIB
static int running;

static PG_FUNC void *racer(void *arg)
{
	pgarcs_run();
	__atomic_fetch_sub(&running, 1, __ATOMIC_RELEASE);
	return arg;
}

int main(int argc, char **argv)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	int n = argc > 1 ? atoi(argv[1]) : 0, sig = 0, dumps = 0;
	pthread_t t[16];

	if (argc > 2)
		sig = atoi(argv[2]);
	if (n < 1 || n > 16) {
		pgarcs_run();
		n = 1;
	} else {
		running = n;
		for (int i = 0; i < n; i++)
			if (pthread_create(&t[i], NULL, racer, NULL))
				return 1;
		while (sig && __atomic_load_n(&running, __ATOMIC_ACQUIRE)) {
			raise(sig);
			dumps++;
			nanosleep(&tick, NULL);
		}
		for (int i = 0; i < n; i++)
			pthread_join(t[i], NULL);
	}
	printf("pg-manyarcs: %d calls over %d arcs, %d thread(s), %d signal(s)\n",
	       n * PGARCS_CALLS, PGARCS_ARCS, n, dumps);
	return 0;
}
#endif
