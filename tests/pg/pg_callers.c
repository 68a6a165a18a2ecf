// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Caller chains of the -pg runtime: four callers of one callee doing
 * 40/30/20/10 % of the work, in four threads ("threads") or interleaved
 * in one ("one"); built with -DPG_CALLERS_MOD (pg-callers-mod) it also
 * calls libpgmod.so, a -pg library, which calls back into the program
 * ("module"); built with -DPG_CALLERS_FP and without -pg (pg-callers-fp:
 * frame pointers, no mcount) it profiles itself with smonitor() and a
 * caller table, so its call graph comes from the chains alone.  It
 * prints what the test needs to read the chains: each
 * function's link-time extent in its module, and the CPU time each
 * caller really took.
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pg_burn.h"
#ifdef PG_CALLERS_FP
#include <sprofil.h>
#include <sprofil/callers.h>
#endif

#define NCALLERS 4

volatile uint64_t sink;

PG_FUNC uint64_t pg_spin(double seconds)
{
	return burn(seconds);
}

PG_FUNC uint64_t caller_a(double s)
{
	return pg_spin(s) + 1;
}

PG_FUNC uint64_t caller_b(double s)
{
	return pg_spin(s) + 2;
}

PG_FUNC uint64_t caller_c(double s)
{
	return pg_spin(s) + 3;
}

PG_FUNC uint64_t caller_d(double s)
{
	return pg_spin(s) + 4;
}

static uint64_t (*const fn[NCALLERS])(double) = {
	caller_a, caller_b, caller_c, caller_d,
};
static const char *const name[NCALLERS] = {
	"caller_a", "caller_b", "caller_c", "caller_d",
};
static const double weight[NCALLERS] = { 0.4, 0.3, 0.2, 0.1 };
static double total = 2.0, cpu[NCALLERS];

/* "span NAME MODULE START END": link-time, MODULE "exe" or a path. */
static void span(const char *what, void *f)
{
	const ElfW(Sym) *sym = NULL;
	struct link_map *lm = NULL;
	Dl_info info;

	if (!dladdr1(f, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym ||
	    !dladdr1(f, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm) {
		fprintf(stderr, "no symbol for %s (link with -rdynamic)\n",
			what);
		exit(1);
	}
	printf("span %s %s %#lx %#lx\n", what, *lm->l_name ? lm->l_name : "exe",
	       (unsigned long)((uintptr_t)info.dli_saddr - lm->l_addr),
	       (unsigned long)((uintptr_t)info.dli_saddr - lm->l_addr +
			       sym->st_size));
}

static void *worker(void *arg)
{
	int k = (int)(intptr_t)arg;
	double t0 = pg_thread_seconds();

	sink += fn[k](total * weight[k]);
	cpu[k] = pg_thread_seconds() - t0;
	return NULL;
}

#ifdef PG_CALLERS_MOD
void pgmod_hot(void (*back)(void));

PG_FUNC void cb_back(void)
{
	sink += burn(0.3);
}
#endif

#ifdef PG_CALLERS_FP
extern char __executable_start[], etext[];
static uint16_t fp_hist[1 << 16];
/* 4,096 nodes of 16 bytes and the 64-byte header. */
static uint64_t fp_table[(64 + 16 * 4096) / sizeof(uint64_t)];

/* The whole run, sampled with chains, into gmon.out at the end. */
static void fp_start(void)
{
	struct text_region r = {
		.text_start = (unsigned long)__executable_start,
		.text_end = (unsigned long)etext,
		.name = "pg-callers-fp",
	};

	if (sprofil_callers(fp_table, sizeof(fp_table), 64)) {
		perror("sprofil_callers");
		exit(1);
	}
	smonitor(&r, 1, fp_hist, sizeof(fp_hist), 0, PROF_USHORT);
}

static void fp_stop(void)
{
	smonitor(0, 0, 0, 0, 0, 0);
}
#else
static void fp_start(void)
{
}

static void fp_stop(void)
{
}
#endif

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "threads";
	pthread_t t[NCALLERS];
	char *end;

	if (argc > 2) {
		total = strtod(argv[2], &end);
		if (*end || total <= 0)
			return 2;
	}
	for (int k = 0; k < NCALLERS; k++)
		span(name[k], (void *)fn[k]);
	span("pg_spin", (void *)pg_spin);
	fp_start();
	if (!strcmp(mode, "threads")) {
		for (int k = 0; k < NCALLERS; k++)
			if (pthread_create(&t[k], NULL, worker,
					   (void *)(intptr_t)k))
				return 1;
		for (int k = 0; k < NCALLERS; k++)
			pthread_join(t[k], NULL);
	} else if (!strcmp(mode, "one")) {
		/* Ten interleaved rounds, each caller's CPU summed. */
		for (int r = 0; r < 10; r++) {
			for (int k = 0; k < NCALLERS; k++) {
				double t0 = pg_thread_seconds();

				sink += fn[k](total * weight[k] / 10);
				cpu[k] += pg_thread_seconds() - t0;
			}
		}
#ifdef PG_CALLERS_MOD
	} else if (!strcmp(mode, "module")) {
		span("cb_back", (void *)cb_back);
		span("pgmod_hot", (void *)pgmod_hot);
		span("main", (void *)main);
		pgmod_hot(cb_back);
#endif
	} else {
		return 2;
	}
	fp_stop();
	for (int k = 0; k < NCALLERS; k++)
		printf("cpu %s %.6f\n", name[k], cpu[k]);
	return 0;
}
