// SPDX-License-Identifier: GPL-2.0
/*
 * Not a test: measures what caller sampling adds to the module's
 * per-sample cost, for docs/callers.md.  One thread runs a fixed amount
 * of work at the bottom of a recursion D frames deep (D = 4, 16, 64),
 * sampled every 100 us: without profiling, with the histogram only, and
 * with the histogram and chains (callers_depth SPROFIL_MAX_DEPTH, so the
 * whole chain is walked).  The extra wall time over the samples taken
 * is the cost per sample; the best of several interleaved runs is kept,
 * since a VM's noise only ever adds time.
 *
 * Usage: helper_callers_cost [reps]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sprofil/mapping.h>
#include "kmod_test.h"
#include "kt_callers.h"

#define PERIOD_NS	100000ULL

__attribute__((noipa)) uint64_t kcc_spin(uint64_t n)
{
	uint64_t x = n;

	/* A frame record, so the walk sees this leaf's caller. */
	__asm__ volatile("" : : "r"(__builtin_frame_address(0)));
	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

/* A real recursion: the asm keeps gcc from turning it into a loop. */
__attribute__((noipa)) uint64_t kcc_recurse(unsigned int d, uint64_t n)
{
	uint64_t r;

	if (d <= 1)
		r = kcc_spin(n);
	else
		r = kcc_recurse(d - 1, n);
	__asm__ volatile("" : "+r"(r));
	return r + 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

enum mode { M_NONE, M_HIST, M_CHAINS, M_MODES };

/* Wall seconds of the work in @mode; *samples: samples taken. */
static double run(int fd, enum mode m, unsigned int depth, uint64_t n,
		  struct sprofil_region *r, struct kt_table *t,
		  uint64_t *samples)
{
	struct sprofil_status st;
	uint64_t period = PERIOD_NS;
	double t0, dt;

	*samples = 0;
	if (m != M_NONE && kt_start_callers(fd, r, 1, SPROFIL_USHORT, &period,
					    m == M_CHAINS ? t : NULL)) {
		perror("start");
		exit(1);
	}
	t0 = now();
	kcc_recurse(depth, n);
	dt = now() - t0;
	if (m != M_NONE) {
		kt_stop(fd);
		kt_status(fd, &st);
		*samples = st.samples;
	}
	return dt;
}

int main(int argc, char **argv)
{
	static const unsigned int depths[] = { 4, 16, 64 };
	int reps = argc > 1 ? atoi(argv[1]) : 5, fd = kt_open();
	uintptr_t start;
	size_t size;
	uint16_t *buf;
	struct sprofil_region r;
	struct kt_table t;
	uint64_t n = 1000000, samples;
	double dt;

	kt_exec_text(&start, &size);
	buf = calloc(size / 2, 2);
	r = kt_region(buf, size / 2 * 2, start, SPM_SCALE_ONE);
	if (kt_table_init(&t, 1 << 20, SPROFIL_MAX_DEPTH))
		return 1;
	/* About 1 s of work. */
	while ((dt = run(fd, M_NONE, 4, n, &r, &t, &samples)) < 1.0)
		n *= 2;
	printf("# caller sampling cost: %llu iterations, period %llu ns, best of %d\n",
	       (unsigned long long)n, PERIOD_NS, reps);
	printf("# table: %u nodes, %llu bytes\n", t.nodes,
	       (unsigned long long)spc_table_bytes(t.nodes));
	for (size_t d = 0; d < sizeof(depths) / sizeof(*depths); d++) {
		double best[M_MODES] = { 1e9, 1e9, 1e9 };
		uint64_t smp[M_MODES] = { 0 };
		uint32_t used = 0;

		for (int i = 0; i < reps; i++)
			for (int m = 0; m < M_MODES; m++) {
				dt = run(fd, m, depths[d], n, &r, &t,
					 &samples);
				if (dt < best[m]) {
					best[m] = dt;
					smp[m] = samples;
				}
			}
		for (uint32_t i = 0; i < t.nodes; i++)
			used += t.spc.node[i].parent != SPC_FREE;
		printf("# depth %2u: none %.4f s, histogram %.4f s (%llu samples, %.2f us/sample), with chains %.4f s (%llu samples, %.2f us/sample); chains add %.2f us/sample, x%.2f; nodes used %u\n",
		       depths[d], best[M_NONE], best[M_HIST],
		       (unsigned long long)smp[M_HIST],
		       1e6 * (best[M_HIST] - best[M_NONE]) / smp[M_HIST],
		       best[M_CHAINS], (unsigned long long)smp[M_CHAINS],
		       1e6 * (best[M_CHAINS] - best[M_NONE]) / smp[M_CHAINS],
		       1e6 * ((best[M_CHAINS] - best[M_NONE]) / smp[M_CHAINS] -
			      (best[M_HIST] - best[M_NONE]) / smp[M_HIST]),
		       (best[M_CHAINS] - best[M_NONE]) /
		       (best[M_HIST] - best[M_NONE]) *
		       smp[M_HIST] / smp[M_CHAINS],
		       used);
	}
	kt_table_free(&t);
	free(buf);
	return 0;
}
