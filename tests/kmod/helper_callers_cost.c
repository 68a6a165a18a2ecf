// SPDX-License-Identifier: GPL-2.0
/*
 * Not a test: measures what caller sampling adds to the module's
 * per-sample cost, for docs/callers.md.  One thread runs at the bottom of
 * a recursion D frames deep (D = 4, 16, 64), sampled every 100 us, with
 * the histogram only and with the histogram and chains (callers_depth
 * SPROFIL_MAX_DEPTH, so the whole chain is walked).  The module itself
 * times each sample's filing (its measure_cost parameter, local_clock()
 * around the bucket count and around the chain's walk and filing), which
 * a loaded host's stalls of the VM disturb far less than wall time.
 *
 * Usage: helper_callers_cost [seconds of work per run]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sprofil/mapping.h>
#include "kmod_test.h"
#include "kt_callers.h"

#define PERIOD_NS	100000ULL

/* A real recursion: the asm keeps gcc from turning it into a loop. */
__attribute__((noipa)) uint64_t kcc_recurse(unsigned int d, uint64_t n)
{
	uint64_t r;

	if (d <= 1)
		r = kt_callee(n);
	else
		r = kcc_recurse(d - 1, n);
	__asm__ volatile("" : "+r"(r));
	return r + 1;
}

struct cost {
	unsigned long long samples, count_ns, chain_ns, frames;
};

static void read_cost(struct cost *c)
{
	FILE *f = fopen("/sys/module/sprofil/parameters/cost", "r");

	if (!f || fscanf(f, "%llu %llu %llu %llu", &c->samples, &c->count_ns,
			 &c->chain_ns, &c->frames) != 4) {
		fprintf(stderr, "cannot read the module's cost parameter\n");
		exit(1);
	}
	fclose(f);
}

static void set_measure(int on)
{
	FILE *f = fopen("/sys/module/sprofil/parameters/measure_cost", "w");

	if (!f || fprintf(f, "%d\n", on) < 0 || fclose(f)) {
		fprintf(stderr, "cannot set measure_cost (root only)\n");
		exit(1);
	}
}

/* Filing costs of the work at @depth, with or without @t. */
static void run(int fd, unsigned int depth, uint64_t n,
		struct sprofil_region *r, struct kt_table *t, struct cost *d)
{
	uint64_t period = PERIOD_NS;
	struct cost a, b;

	read_cost(&a);
	if (kt_start_callers(fd, r, 1, SPROFIL_USHORT, &period, t)) {
		perror("start");
		exit(1);
	}
	kcc_recurse(depth, n);
	kt_stop(fd);
	read_cost(&b);
	d->samples = b.samples - a.samples;
	d->count_ns = b.count_ns - a.count_ns;
	d->chain_ns = b.chain_ns - a.chain_ns;
	d->frames = b.frames - a.frames;
}

static double per(unsigned long long ns, unsigned long long samples)
{
	return samples ? (double)ns / samples : 0;
}

int main(int argc, char **argv)
{
	static const unsigned int depths[] = { 4, 16, 64 };
	double seconds = argc > 1 ? atof(argv[1]) : 1.0;
	int fd = kt_open();
	uintptr_t start;
	size_t size;
	uint16_t *buf;
	struct sprofil_region r;
	struct kt_table t;
	uint64_t n = 1000000;
	struct timespec t0, t1;

	kt_exec_text(&start, &size);
	buf = calloc(size / 2, 2);
	r = kt_region(buf, size / 2 * 2, start, SPM_SCALE_ONE);
	if (kt_table_init(&t, 1 << 20, SPROFIL_MAX_DEPTH))
		return 1;
	for (;;) {
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
		kt_callee(n);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
		if (t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9 >
		    0.1)
			break;
		n *= 2;
	}
	n = n * 10 * seconds;
	set_measure(1);
	printf("# caller sampling cost in the module: period %llu ns, table of %u nodes (%llu bytes)\n",
	       PERIOD_NS, t.nodes,
	       (unsigned long long)spc_table_bytes(t.nodes));
	for (size_t i = 0; i < sizeof(depths) / sizeof(*depths); i++) {
		struct cost h, c;
		uint32_t used = 0;

		run(fd, depths[i], n, &r, NULL, &h);
		run(fd, depths[i], n, &r, &t, &c);
		for (uint32_t j = 0; j < t.nodes; j++)
			used += t.spc.node[j].parent != SPC_FREE;
		printf("# depth %2u: histogram only %.0f ns/sample (%llu samples); with chains %.0f + %.0f ns/sample (%.1f frames, %llu samples): x%.2f; nodes used %u (%u bytes)\n",
		       depths[i], per(h.count_ns, h.samples), h.samples,
		       per(c.count_ns, c.samples), per(c.chain_ns, c.samples),
		       (double)c.frames / (c.samples ? c.samples : 1),
		       c.samples,
		       per(c.count_ns + c.chain_ns, c.samples) /
		       per(h.count_ns + h.chain_ns, h.samples),
		       used, (unsigned int)(used * sizeof(struct spc_node)));
	}
	set_measure(0);
	kt_table_free(&t);
	free(buf);
	return 0;
}
