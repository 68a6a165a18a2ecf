// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What a caller chain adds to a sample in the signal backend: the walk
 * (spc_walk() with the signal backend's hooks: bounds-checked loads
 * inside the thread's stack, text known by spm_lookup() over the
 * executable's text) and the filing (spc_file()), at depths 4, 16 and
 * 64, in steady state (the chain's nodes already in the table), and the
 * table's memory.  Not the signal's delivery: that is the backend's
 * per-sample cost with or without chains (bench_lib).
 *
 *   bench_callers_walk [-n iterations]
 *
 * Built with frame pointers, as a program profiled with chains is.
 */
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sprofil/mapping.h>

static inline int bench_read_frame(__u64 fp, __u64 rec[2])
{
	const __u64 *p = (const __u64 *)(uintptr_t)fp;

	rec[0] = p[0];
	rec[1] = p[1];
	return 0;
}

#define SPC_READ_FRAME(ctx, fp, rec)	bench_read_frame((fp), (rec))
#define SPC_TEXT_KNOWN(ctx, pc) \
	(spm_lookup((const struct spm_map *)(ctx), (pc)) >= 0)
#include <sprofil/callers.h>

static struct spm_map map;
static struct spc_table table;
static uintptr_t stack_end;
static long iterations = 1000000;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Walks and files this frame's chain @n times; ns per sample. */
__attribute__((noipa)) static double measure(long n, __u32 depth,
					     __u32 *len_out, int *cut_out)
{
	__u64 chain[SPROFIL_MAX_DEPTH], sp;
	__u64 fp = (__u64)(uintptr_t)__builtin_frame_address(0);
	__u64 pc = (__u64)(uintptr_t)&&here;
	double t0;
	__u32 len = 0;
	int cut = 0;

	__asm__ volatile("mov %%rsp, %0" : "=r"(sp));
here:
	t0 = now();
	for (long i = 0; i < n; i++) {
		cut = spc_walk(&map, pc, fp, sp, stack_end, depth, chain,
			       &len);
		spc_file(&table, chain, len, cut, 1, 0);
	}
	*len_out = len;
	*cut_out = cut;
	return (now() - t0) * 1e9 / n;
}

/* @d frames of recursion, then the measurement. */
__attribute__((noipa)) static double nest(int d, __u32 depth, __u32 *len,
					  int *cut)
{
	double r;

	if (!d)
		return measure(iterations, depth, len, cut);
	r = nest(d - 1, depth, len, cut);
	__asm__ volatile("" : "+x"(r));
	return r;
}

static int find_text(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct sprofil_region *r = arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			r->offset = info->dlpi_addr + ph->p_vaddr;
			r->size = ph->p_memsz & ~1ull;
			return 1;	/* the executable comes first */
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const __u32 depths[] = { 4, 16, 64 };
	struct sprofil_region text = { .scale = 2 };
	pthread_attr_t attr;
	void *addr;
	size_t size;
	__u32 nodes = 1u << 16, got, len;
	int cut;

	if (argc == 3 && !strcmp(argv[1], "-n"))
		iterations = atol(argv[2]);
	/* The executable's text as the one region, as the -pg runtime has. */
	dl_iterate_phdr(find_text, &text);
	text.base = (uintptr_t)calloc(text.size, 1);
	map.region = calloc(2, sizeof(*map.region));
	map.segment = calloc(SPM_MAX_SEGMENTS(1) + 1, sizeof(*map.segment));
	map.stack = calloc(2, sizeof(*map.stack));
	if (!text.base || !map.region || !map.segment || !map.stack ||
	    spm_prepare(&map, &text, 1, 0))
		return 1;
	table.hdr = calloc(1, spc_table_bytes(nodes));
	if (!table.hdr || spc_geometry(spc_table_bytes(nodes), 64, &got))
		return 1;
	table.node = (struct spc_node *)(table.hdr + 1);
	table.mask = got - 1;
	pthread_getattr_np(pthread_self(), &attr);
	pthread_attr_getstack(&attr, &addr, &size);
	stack_end = (uintptr_t)addr + size;
	printf("# walk + filing per sample, steady state, %ld samples each\n",
	       iterations);
	printf("%-6s %-6s %-6s %s\n", "depth", "frames", "cut", "ns/sample");
	for (size_t k = 0; k < sizeof(depths) / sizeof(depths[0]); k++) {
		double ns;

		table.depth = depths[k];
		/* Deep enough that the depth, not main, ends the walk. */
		ns = nest((int)depths[k] + 2, depths[k], &len, &cut);
		printf("%-6u %-6u %-6d %.1f\n", depths[k], len, cut, ns);
	}
	{
		__u64 used = 0;

		for (__u32 i = 0; i <= table.mask; i++)
			used += table.node[i].parent != SPC_FREE;
		printf("# table: %llu nodes used of %u, %llu bytes for these chains (16 per node)\n",
		       (unsigned long long)used, got,
		       (unsigned long long)used * 16);
	}
	return 0;
}
