// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Caller sampling on the bpf backend (docs/callers.md), as root on the
 * host:
 *  - one synthetic set of chains filed through <sprofil/callers.h> in
 *    userland and through the BPF program's own filing code
 *    (bpf_prog_test_run() of sp_file_test): the same nodes in the same
 *    slots, the same counters, with room and in a full table, and in a
 *    process's second tree after its first (the program's cache of
 *    nodes found knows the tree by its generation); and the program's
 *    tree merged into a table of another size (callers_merge.c): the
 *    same chains with the same counts;
 *  - four callers of one callee doing 40/30/20/10 % of the work, in
 *    four threads and in one thread: each caller's measured share of the
 *    callee's samples within 2 points of its share of the CPU time;
 *  - a full table: the samples that could not be filed are counted, and
 *    every other sample is in the table exactly once;
 *  - the table made read-only while sampling: merged first, then no
 *    more chains (no fault);
 *  - a chain through code without frame pointers (qsort() calling back
 *    into the program): cut there and counted as truncated, no fault;
 *  - recursion: every frame of a 20-deep self recursion once per sample,
 *    a depth limit below it cutting every such chain, and 127 frames of
 *    one function filed without loss.
 *
 * Built with frame pointers and no sibling calls, so that each caller
 * keeps its frame (tests/bpf/tests.mk).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <sprofil.h>

#include "backends/callers_merge.h"
#include "sprofil_skel_load.h"
#include "workload.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
/* Exported (-rdynamic), so that wl_func_extent() finds their extent. */
#define NOINLINE __attribute__((noinline, noclone, visibility("default")))

/* ---- reading a table ---- */

struct table {
	struct spc_table t;
	void *mem;
	size_t bytes;
};

static struct table table_new(__u32 nodes, __u32 depth)
{
	struct table tb;
	__u32 got;

	tb.bytes = spc_table_bytes(nodes);
	tb.mem = calloc(1, tb.bytes);
	assert_non_null(tb.mem);
	assert_int_equal(spc_geometry(tb.bytes, depth, &got), 0);
	assert_int_equal(got, nodes);
	tb.t.hdr = tb.mem;
	tb.t.hdr->magic = SPC_MAGIC;
	tb.t.hdr->nodes = nodes;
	tb.t.hdr->depth = depth;
	tb.t.node = (struct spc_node *)(tb.t.hdr + 1);
	tb.t.mask = nodes - 1;
	tb.t.depth = depth;
	return tb;
}

/* One counted node's chain, outermost frame first, and its count. */
struct rec {
	__u64 pc[SPROFIL_MAX_DEPTH + 1];
	__u32 len;
	__u32 count;
	int cut;		/* hangs under SPC_PC_TRUNCATED */
};

/* The chain of node @i, root first (the cut node left out). */
static void chain_of(const struct spc_table *t, __u32 i, struct rec *r)
{
	__u64 up[SPROFIL_MAX_DEPTH + 2];
	__u32 n = 0, p;

	for (;;) {
		assert_true(n < N(up));
		up[n++] = t->node[i].pc;
		p = t->node[i].parent;
		if (p == SPC_ROOT)
			break;
		assert_true(p >= SPC_PARENT_BIAS && p - SPC_PARENT_BIAS <= t->mask);
		i = p - SPC_PARENT_BIAS;
	}
	r->cut = up[n - 1] == SPC_PC_TRUNCATED && t->node[i].parent == SPC_ROOT;
	if (r->cut)
		n--;
	r->len = n;
	for (p = 0; p < n; p++)
		r->pc[p] = up[n - 1 - p];
}

static int rec_cmp(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->cut != y->cut)
		return x->cut - y->cut;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(x->pc, y->pc, x->len * sizeof(x->pc[0]));
}

/* Every counted node of @t as a sorted array; *n gets its length. */
static struct rec *records(const struct spc_table *t, size_t *n)
{
	struct rec *r = NULL;
	size_t k = 0;
	__u32 i;

	for (i = 0; i <= t->mask; i++) {
		if (!t->node[i].count)
			continue;
		r = realloc(r, (k + 1) * sizeof(*r));
		assert_non_null(r);
		chain_of(t, i, &r[k]);
		r[k].count = t->node[i].count;
		k++;
	}
	qsort(r, k, sizeof(*r), rec_cmp);
	*n = k;
	return r;
}

static __u64 counted(const struct spc_table *t)
{
	__u64 sum = 0;
	__u32 i;

	for (i = 0; i <= t->mask; i++)
		sum += t->node[i].count;
	return sum;
}

/* ---- 1. one synthetic set of chains, filed identically ---- */

static uint64_t next_random(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 11;
}

struct synth {
	struct spb_test_chain chain[SPB_TEST_CHAINS];
	__u64 frame[SPB_TEST_FRAMES];
	__u32 nchains;
};

/*
 * Chains over a pool of 48 return addresses, so that they share
 * prefixes, of every length from 1 to SPROFIL_MAX_DEPTH, a quarter cut,
 * each counted 1 to 4 times; some repeated whole.
 */
static void synth_make(struct synth *s, uint64_t seed)
{
	__u32 used = 0, i, j, len;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < SPB_TEST_CHAINS; i++) {
		struct spb_test_chain *c = &s->chain[i];

		if (i > 8 && next_random(&seed) % 8 == 0) {
			*c = s->chain[next_random(&seed) % i];
			c->n = 1 + next_random(&seed) % 4;
			s->nchains++;
			continue;
		}
		len = i % 37 == 5 || i % 50 == 3 ? SPROFIL_MAX_DEPTH :
		      1 + next_random(&seed) % 40;
		if (used + len > SPB_TEST_FRAMES)
			break;
		c->first = used;
		c->len = len;
		c->truncated = next_random(&seed) % 4 == 0;
		c->n = 1 + next_random(&seed) % 4;
		for (j = 0; j < len; j++) {
			/* Outer frames from a small pool: shared prefixes. */
			__u64 pool = j + 1 == len ? 6 : 48;

			s->frame[used + j] = 0x400000 + 0x40 * (j * 7 +
					     next_random(&seed) % pool);
			/* Deep recursion: one return address, 127 times. */
			if (i % 50 == 3 && j)
				s->frame[used + j] = 0x401000 + i;
		}
		used += len;
		s->nchains++;
	}
}

static void synth_file_header(const struct synth *s, struct table *tb)
{
	__u32 i;

	for (i = 0; i < s->nchains; i++)
		spc_file(&tb->t, &s->frame[s->chain[i].first], s->chain[i].len,
			 s->chain[i].truncated, s->chain[i].n, 0);
}

/*
 * The program's tree after filing @s with sp_file_test, copied out; with
 * @trees 2, filed first into a tree that a second one, registered
 * after it by the same process, then replaces: the program's cache of
 * nodes found (sp_cfound) must find none of the first tree's nodes in
 * the second, which is filed from empty as the first was.
 */
static void synth_file_bpf(const struct synth *s, __u32 nodes, int trees,
			   struct table *out)
{
	struct sprofil_bpf *skel = NULL;
	struct spb_proc_maps pm[2] = { 0 };
	struct spb_program prog;
	__u32 n = s->nchains;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &n,
		    .ctx_size_in = sizeof(n));
	int err, k;

	err = spb_load(&skel, true);
	if (err)
		print_message("# load: %s\n", strerror(-err));
	assert_int_equal(err, 0);
	spb_program_of(skel, &prog);
	memcpy(skel->bss->sp_test_chain, s->chain, sizeof(s->chain));
	memcpy(skel->bss->sp_test_frame, s->frame, sizeof(s->frame));
	for (k = 0; k < trees; k++) {
		assert_int_equal(spb_proc_create(1, nodes, 1, &pm[k]), 0);
		assert_int_equal(spb_proc_register(&prog, (__u32)getpid(),
						   &pm[k]), 0);
		pm[k].proc->cmask = nodes - 1;
		pm[k].proc->cdepth = SPROFIL_MAX_DEPTH;
		err = bpf_prog_test_run_opts(
			bpf_program__fd(skel->progs.sp_file_test), &opts);
		if (err)
			print_message("# test_run: %s\n", strerror(errno));
		assert_int_equal(err, 0);
		assert_int_equal(opts.retval, 0);
	}
	k = trees - 1;
	*out = table_new(nodes, SPROFIL_MAX_DEPTH);
	memcpy(out->t.node, pm[k].cnodes, nodes * sizeof(*pm[k].cnodes));
	out->t.hdr->samples = pm[k].proc->chdr.samples;
	out->t.hdr->truncated = pm[k].proc->chdr.truncated;
	out->t.hdr->lost = pm[k].proc->chdr.lost;
	out->t.hdr->busy = pm[k].proc->chdr.busy;
	for (k = 0; k < trees; k++)
		spb_proc_release(&pm[k]);
	sprofil_bpf__destroy(skel);
}

static void expect_same_records(const char *what, const struct spc_table *a,
				const struct spc_table *b)
{
	size_t na, nb, i;
	struct rec *ra = records(a, &na), *rb = records(b, &nb);

	print_message("# %s: %zu and %zu counted contexts\n", what, na, nb);
	assert_int_equal(na, nb);
	for (i = 0; i < na; i++) {
		assert_int_equal(rec_cmp(&ra[i], &rb[i]), 0);
		assert_int_equal(ra[i].count, rb[i].count);
	}
	free(ra);
	free(rb);
}

static void synthetic_chains_in(__u32 nodes, int full, int trees)
{
	static struct synth s;
	struct table hdr_tb = table_new(nodes, SPROFIL_MAX_DEPTH), bpf_tb,
		     merged = table_new(nodes * 2, SPROFIL_MAX_DEPTH);
	__u32 *xlate = calloc(nodes, sizeof(*xlate));
	struct spc_header *h, *b;

	assert_non_null(xlate);
	synth_make(&s, 7);
	synth_file_header(&s, &hdr_tb);
	synth_file_bpf(&s, nodes, trees, &bpf_tb);
	h = hdr_tb.t.hdr;
	b = bpf_tb.t.hdr;
	print_message("# %u chains into %u nodes (tree %d of the process): header: %llu samples (%llu cut), %llu lost; bpf: %llu (%llu cut), %llu lost\n",
		      s.nchains, nodes, trees, (unsigned long long)h->samples,
		      (unsigned long long)h->truncated,
		      (unsigned long long)h->lost,
		      (unsigned long long)b->samples,
		      (unsigned long long)b->truncated,
		      (unsigned long long)b->lost);
	/* The same filing: every node in the same slot. */
	assert_memory_equal(hdr_tb.t.node, bpf_tb.t.node,
			    nodes * sizeof(struct spc_node));
	assert_int_equal(h->samples, b->samples);
	assert_int_equal(h->truncated, b->truncated);
	assert_int_equal(h->lost, b->lost);
	assert_int_equal(h->busy, b->busy);
	assert_int_equal(counted(&hdr_tb.t), h->samples);
	if (full)
		assert_true(h->lost > 0);
	else
		assert_int_equal(h->lost, 0);
	/* Merged into a table twice as big: the same chains and counts. */
	assert_int_equal(spc_merge_table(&merged.t, &bpf_tb.t, xlate), 0);
	expect_same_records("merged", &hdr_tb.t, &merged.t);
	assert_int_equal(merged.t.hdr->samples, h->samples);
	assert_int_equal(merged.t.hdr->truncated, h->truncated);
	assert_int_equal(merged.t.hdr->lost, h->lost);
	/* Again, through the nodes remembered: everything doubles. */
	assert_int_equal(spc_merge_table(&merged.t, &bpf_tb.t, xlate), 0);
	assert_int_equal(merged.t.hdr->samples, 2 * h->samples);
	assert_int_equal(counted(&merged.t), 2 * h->samples);
	free(xlate);
	free(hdr_tb.mem);
	free(bpf_tb.mem);
	free(merged.mem);
}

static void synthetic_chains_filed_identically(void **state)
{
	(void)state;
	synthetic_chains_in(1 << 15, 0, 1);
}

/* Its second tree, after the first: no node cached of the first. */
static void synthetic_chains_filed_again_in_a_new_tree(void **state)
{
	(void)state;
	synthetic_chains_in(1 << 15, 0, 2);
}

static void synthetic_chains_in_a_full_table(void **state)
{
	(void)state;
	synthetic_chains_in(256, 1, 1);
}

/* A merged chain whose source is not a tree is lost, not followed. */
static void merge_refuses_a_looping_source(void **state)
{
	struct table src = table_new(16, 8), dst = table_new(16, 8);
	struct spc_merge m = {
		.dst = &dst.t, .src = src.t.node, .src_mask = 15,
	};

	(void)state;
	src.t.node[3] = (struct spc_node){ 0x1000, 5 + SPC_PARENT_BIAS, 2 };
	src.t.node[5] = (struct spc_node){ 0x2000, 3 + SPC_PARENT_BIAS, 0 };
	src.t.node[7] = (struct spc_node){ 0x3000, 99, 1 };
	assert_int_equal(spc_merge_node(&m, 3, 2), -EINVAL);
	assert_int_equal(spc_merge_node(&m, 7, 1), -EINVAL);
	assert_int_equal(dst.t.hdr->lost, 3);
	assert_int_equal(dst.t.hdr->samples, 0);
	assert_int_equal(counted(&dst.t), 0);
	free(src.mem);
	free(dst.mem);
}

/* ---- the workloads, each keeping its frame ---- */

static volatile uint64_t sink;

NOINLINE void spin_done(uint64_t x)
{
	sink += x;
}

/*
 * Not a leaf: GCC 12 sets up no frame in a leaf function even with
 * -mno-omit-leaf-frame-pointer, and a sample there would skip its
 * caller (docs/callers.md).
 */
NOINLINE uint64_t spin(uint64_t n)
{
	uint64_t x = n, i;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1;
	spin_done(x);
	return x;
}

#define CALLER(name)						\
	NOINLINE uint64_t name(uint64_t n)		\
	{							\
		uint64_t r = spin(n);				\
								\
		__asm__ volatile("" ::: "memory");		\
		return r + 1;					\
	}
CALLER(caller_a)
CALLER(caller_b)
CALLER(caller_c)
CALLER(caller_d)

static uint64_t (*const callers_fn[4])(uint64_t) = {
	caller_a, caller_b, caller_c, caller_d,
};
static const double share[4] = { 0.4, 0.3, 0.2, 0.1 };

/* The profile: this executable's text, and a caller table. */
extern char __executable_start[], etext[];

struct profile {
	void *buf;
	size_t size;
	void *table;
	size_t bytes;
};

static void profile_start(struct profile *p, __u32 nodes, __u32 depth)
{
	struct prof pr;

	p->size = (size_t)(etext - __executable_start + 8) & ~(size_t)3;
	p->buf = calloc(1, p->size);
	p->bytes = spc_table_bytes(nodes);
	p->table = calloc(1, p->bytes);
	assert_non_null(p->buf);
	assert_non_null(p->table);
	pr.pr_base = p->buf;
	pr.pr_size = p->size;
	pr.pr_off = (uintptr_t)__executable_start;
	pr.pr_scale = 0x10000;
	assert_int_equal(sprofil_callers(p->table, p->bytes, depth), 0);
	if (sprofil(&pr, 1, NULL, PROF_UINT))
		fail_msg("sprofil: %s", strerror(errno));
}

/* Stops; the table is folded.  Returns the samples the backend took. */
static uint64_t profile_stop(struct profile *p)
{
	struct sprofil_info i;
	struct spc_header *h = p->table;

	assert_int_equal(sprofil(NULL, 0, NULL, 0), 0);
	assert_int_equal(sprofil_info(&i), 0);
	assert_string_equal(i.backend, "bpf");
	assert_int_equal(sprofil_callers(NULL, 0, 0), 0);
	print_message("# %llu samples; table: %llu filed (%llu cut), %llu lost, %llu busy\n",
		      (unsigned long long)i.samples,
		      (unsigned long long)h->samples,
		      (unsigned long long)h->truncated,
		      (unsigned long long)h->lost,
		      (unsigned long long)h->busy);
	/* Every sample exactly once: filed, or counted as not filed. */
	assert_int_equal(h->samples + h->lost + h->busy, i.samples);
	return i.samples;
}

static void profile_free(struct profile *p)
{
	free(p->buf);
	free(p->table);
}

static struct spc_table table_of(const struct profile *p)
{
	struct spc_table t = {
		.hdr = p->table,
		.node = (struct spc_node *)((struct spc_header *)p->table + 1),
		.mask = ((struct spc_header *)p->table)->nodes - 1,
		.depth = ((struct spc_header *)p->table)->depth,
	};

	return t;
}

static int in_func(void *fn, __u64 pc)
{
	struct wl_func f = wl_func_extent(fn);

	return pc >= f.start && pc < f.start + f.size;
}

/* Frames of @r (the leaf included) inside function @fn. */
static __u32 frames_in(const struct rec *r, void *fn)
{
	__u32 k, n = 0;

	for (k = 0; k < r->len; k++)
		n += in_func(fn, r->pc[k]);
	return n;
}

/* ---- 2. four callers, 40/30/20/10 % ---- */

static uint64_t chunk;
static double cpu_of[4];

static void *caller_thread(void *arg)
{
	long i = (long)arg;

	cpu_of[i] = wl_spin_cpu(callers_fn[i], chunk, 2.0 * share[i]);
	return NULL;
}

static void expect_shares(const struct profile *p, const char *how)
{
	struct spc_table t = table_of(p);
	double got[4] = { 0 }, all = 0, cpu = 0;
	size_t n, k;
	struct rec *r = records(&t, &n);
	int i;

	for (k = 0; k < n; k++) {
		if (!in_func(spin, r[k].pc[r[k].len - 1]))
			continue;
		for (i = 0; i < 4; i++)
			if (frames_in(&r[k], callers_fn[i])) {
				got[i] += r[k].count;
				all += r[k].count;
			}
	}
	for (i = 0; i < 4; i++)
		cpu += cpu_of[i];
	assert_true(all > 1000);
	for (i = 0; i < 4; i++) {
		print_message("# %s: caller %c: %.1f %% of spin's samples, %.1f %% of the CPU time\n",
			      how, 'a' + i, 100 * got[i] / all,
			      100 * cpu_of[i] / cpu);
		assert_true(got[i] / all - cpu_of[i] / cpu < 0.02 &&
			    cpu_of[i] / cpu - got[i] / all < 0.02);
	}
	free(r);
}

static void four_callers_in_four_threads(void **state)
{
	struct profile p;
	pthread_t th[4];
	long i;

	(void)state;
	chunk = wl_calibrate(0.002);
	profile_start(&p, 1 << 14, 64);
	for (i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&th[i], NULL, caller_thread,
						(void *)i), 0);
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	profile_stop(&p);
	expect_shares(&p, "4 threads");
	profile_free(&p);
}

static void four_callers_in_one_thread(void **state)
{
	struct profile p;
	double t;
	int round, i;

	(void)state;
	chunk = wl_calibrate(0.0005);
	memset(cpu_of, 0, sizeof(cpu_of));
	profile_start(&p, 1 << 14, 64);
	for (round = 0; round < 400; round++)
		for (i = 0; i < 4; i++) {
			t = wl_thread_seconds();
			callers_fn[i]((uint64_t)(chunk * share[i] * 10));
			cpu_of[i] += wl_thread_seconds() - t;
		}
	profile_stop(&p);
	expect_shares(&p, "1 thread");
	profile_free(&p);
}

/* ---- 5. recursion ---- */

NOINLINE uint64_t recurse(int depth, uint64_t n)
{
	uint64_t r = depth ? recurse(depth - 1, n) : spin(n);

	__asm__ volatile("" ::: "memory");
	return r + 1;
}

#define REC_DEPTH 20

/* Per sample in spin, recurse's frames; *deepest the most seen. */
static void recursion_frames(const struct profile *p, uint64_t *exact,
			     uint64_t *all, uint64_t *cut, __u32 *deepest)
{
	struct spc_table t = table_of(p);
	size_t n, k;
	struct rec *r = records(&t, &n);
	__u32 f;

	*exact = *all = *cut = 0;
	*deepest = 0;
	for (k = 0; k < n; k++) {
		if (!in_func(spin, r[k].pc[r[k].len - 1]))
			continue;
		f = frames_in(&r[k], recurse);
		*all += r[k].count;
		*exact += f == REC_DEPTH + 1 ? r[k].count : 0;
		*cut += r[k].cut ? r[k].count : 0;
		if (f > *deepest)
			*deepest = f;
	}
	free(r);
}

static void self_recursion_counted_once_per_frame(void **state)
{
	uint64_t exact, all, cut, c = wl_calibrate(0.3);
	struct profile p;
	__u32 deepest;

	(void)state;
	profile_start(&p, 1 << 14, 64);
	recurse(REC_DEPTH, c);
	profile_stop(&p);
	recursion_frames(&p, &exact, &all, &cut, &deepest);
	print_message("# depth 64: %llu of %llu samples in spin with all %d frames of recurse, at most %u seen\n",
		      (unsigned long long)exact, (unsigned long long)all,
		      REC_DEPTH + 1, deepest);
	assert_true(all > 100);
	/* Only a sample in spin's prologue misses the innermost one. */
	assert_true(exact >= all * 95 / 100);
	assert_int_equal(deepest, REC_DEPTH + 1);
	profile_free(&p);

	/* Eight frames kept: every such chain is cut. */
	profile_start(&p, 1 << 14, 8);
	recurse(REC_DEPTH, c);
	profile_stop(&p);
	recursion_frames(&p, &exact, &all, &cut, &deepest);
	print_message("# depth 8: %llu of %llu samples in spin cut, at most %u frames of recurse\n",
		      (unsigned long long)cut, (unsigned long long)all,
		      deepest);
	assert_true(all > 100);
	assert_int_equal(cut, all);
	assert_int_equal(deepest, 7);
	profile_free(&p);
}

/* 127 calls of one function: every frame filed, nothing lost. */
static void deep_recursion_fits(void **state)
{
	uint64_t exact, all, cut, c = wl_calibrate(0.2);
	struct profile p;
	__u32 deepest;

	(void)state;
	profile_start(&p, 1 << 14, SPROFIL_MAX_DEPTH);
	recurse(140, c);
	profile_stop(&p);
	recursion_frames(&p, &exact, &all, &cut, &deepest);
	print_message("# depth %d: %llu samples in spin, %llu cut, at most %u frames of recurse; %llu lost\n",
		      SPROFIL_MAX_DEPTH, (unsigned long long)all,
		      (unsigned long long)cut, deepest,
		      (unsigned long long)((struct spc_header *)p.table)->lost);
	assert_true(all > 100);
	assert_int_equal(((struct spc_header *)p.table)->lost, 0);
	assert_int_equal(cut, all);
	assert_int_equal(deepest, SPROFIL_MAX_DEPTH - 1);
	profile_free(&p);
}

/* ---- 3. a full table ---- */

static void full_table_counts_the_lost(void **state)
{
	uint64_t c = wl_calibrate(0.01), samples;
	struct spc_table t;
	struct profile p;
	int round, d;

	(void)state;
	/* 16 nodes; recursions of 1 to 24 make far more contexts. */
	profile_start(&p, SPC_MIN_NODES, 64);
	for (round = 0; round < 2; round++)
		for (d = 1; d <= 24; d++)
			recurse(d, c);
	samples = profile_stop(&p);
	t = table_of(&p);
	assert_true(t.hdr->lost > 0);
	assert_true(t.hdr->samples > 0);
	/* What was filed is exact: one count per sample, no more. */
	assert_int_equal(counted(&t), t.hdr->samples);
	assert_true(t.hdr->samples + t.hdr->lost + t.hdr->busy == samples);
	profile_free(&p);
}

/* ---- 4. through qsort() ---- */

static uint64_t cmp_work;

NOINLINE int burn_compare(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	spin(cmp_work);
	return (x > y) - (x < y);
}

static void chain_through_qsort_is_cut(void **state)
{
	uint64_t in_cmp = 0, cut = 0, beyond = 0;
	int v[256], i, k;
	struct spc_table t;
	struct profile p;
	struct rec *r;
	size_t n, j;

	(void)state;
	cmp_work = wl_calibrate(0.0003);
	profile_start(&p, 1 << 14, 64);
	for (k = 0; k < 2; k++) {
		for (i = 0; i < (int)N(v); i++)
			v[i] = (i * 7919 + k) % 1009;
		qsort(v, N(v), sizeof(v[0]), burn_compare);
	}
	profile_stop(&p);
	t = table_of(&p);
	r = records(&t, &n);
	for (j = 0; j < n; j++) {
		if (!frames_in(&r[j], burn_compare))
			continue;
		in_cmp += r[j].count;
		cut += r[j].cut ? r[j].count : 0;
		/* Nothing beyond qsort's frame: compare's caller is libc. */
		if (!in_func(burn_compare, r[j].pc[0]) &&
		    (r[j].len < 2 || !in_func(burn_compare, r[j].pc[1])))
			beyond += r[j].count;
	}
	print_message("# %llu samples below the comparison function, %llu cut, %llu with frames beyond qsort\n",
		      (unsigned long long)in_cmp, (unsigned long long)cut,
		      (unsigned long long)beyond);
	assert_true(in_cmp > 100);
	assert_int_equal(cut, in_cmp);
	assert_int_equal(beyond, 0);
	free(r);
	profile_free(&p);
}

/* ---- bad tables: an errno, and the running profile unchanged ---- */

static void bad_tables_are_refused(void **state)
{
	static uint32_t buf[4096];
	struct prof pr = {
		.pr_base = buf, .pr_size = sizeof(buf),
		.pr_off = (uintptr_t)__executable_start, .pr_scale = 0x10000,
	};
	static char small[1024];
	struct sprofil_info i0, i1;
	size_t bytes = 1 << 16;
	char *ro = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)state;
	assert_true(ro != MAP_FAILED);
	errno = 0;
	assert_int_equal(sprofil_callers(small, sizeof(small), 0), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(sprofil_callers(small, 64, 8), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(sprofil_callers(small, sizeof(small),
					 SPROFIL_MAX_DEPTH + 1), -1);
	assert_int_equal(errno, EINVAL);

	/* A profile runs; then a table the process can no longer write. */
	assert_int_equal(sprofil(&pr, 1, NULL, PROF_UINT), 0);
	assert_int_equal(sprofil_info(&i0), 0);
	assert_int_equal(sprofil_callers(ro, bytes, 8), 0);
	assert_int_equal(mprotect(ro, bytes, PROT_READ), 0);
	errno = 0;
	assert_int_equal(sprofil(&pr, 1, NULL, PROF_UINT), -1);
	assert_int_equal(errno, EFAULT);
	assert_int_equal(sprofil_callers(NULL, 0, 0), 0);
	spin(wl_calibrate(0.05));
	assert_int_equal(sprofil_info(&i1), 0);
	print_message("# after EFAULT: enabled %d, %u region(s), samples %llu -> %llu\n",
		      i1.enabled, i1.nregions,
		      (unsigned long long)i0.samples,
		      (unsigned long long)i1.samples);
	assert_true(i1.enabled && i1.nregions == 1);
	assert_true(i1.samples > i0.samples);
	assert_int_equal(sprofil(NULL, 0, NULL, 0), 0);
	munmap(ro, bytes);
}

/*
 * The table made read-only while sampling: what was counted is merged
 * first, then chains stop (a fold writing there would fault).
 */
static void table_made_read_only_stops_chains(void **state)
{
	static uint32_t buf[8192];
	struct prof pr = {
		.pr_base = buf, .pr_size = sizeof(buf),
		.pr_off = (uintptr_t)__executable_start, .pr_scale = 0x10000,
	};
	size_t bytes = spc_table_bytes(1 << 12);
	struct spc_header *h = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t c = wl_calibrate(0.2), before;
	struct sprofil_info i;

	(void)state;
	assert_true(h != MAP_FAILED);
	assert_int_equal(sprofil_callers(h, bytes, 32), 0);
	assert_int_equal(sprofil(&pr, 1, NULL, PROF_UINT), 0);
	recurse(3, c);
	assert_int_equal(mprotect(h, bytes, PROT_READ), 0);
	before = h->samples;
	recurse(3, c);
	assert_int_equal(sprofil_flush(), 0);
	assert_int_equal(sprofil(NULL, 0, NULL, 0), 0);
	assert_int_equal(sprofil_info(&i), 0);
	assert_int_equal(sprofil_callers(NULL, 0, 0), 0);
	print_message("# %llu samples; %llu filed before the table went read-only, %llu after\n",
		      (unsigned long long)i.samples,
		      (unsigned long long)before,
		      (unsigned long long)(h->samples - before));
	assert_true(before > 100);
	assert_int_equal(h->samples, before);
	assert_true(i.samples > before + 100);
	munmap(h, bytes);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(synthetic_chains_filed_identically),
		cmocka_unit_test(synthetic_chains_filed_again_in_a_new_tree),
		cmocka_unit_test(synthetic_chains_in_a_full_table),
		cmocka_unit_test(merge_refuses_a_looping_source),
		cmocka_unit_test(four_callers_in_four_threads),
		cmocka_unit_test(four_callers_in_one_thread),
		cmocka_unit_test(self_recursion_counted_once_per_frame),
		cmocka_unit_test(deep_recursion_fits),
		cmocka_unit_test(full_table_counts_the_lost),
		cmocka_unit_test(chain_through_qsort_is_cut),
		cmocka_unit_test(bad_tables_are_refused),
		cmocka_unit_test(table_made_read_only_stops_chains),
	};

	(void)argc;
	/* libsprofil reads them when it loads: set, the program runs again. */
	if (!getenv("SPROFIL_BACKEND") || !getenv("SPROFIL_HZ")) {
		setenv("SPROFIL_BACKEND", "bpf", 0);
		setenv("SPROFIL_HZ", "10000", 0);
		execv("/proc/self/exe", argv);
		perror("test_bpf_callers: cannot run itself again");
		return 1;
	}
	/* One test or a pattern of them, e.g. in a VM under qemu TCG. */
	if (getenv("SPROFIL_TEST_FILTER"))
		cmocka_set_test_filter(getenv("SPROFIL_TEST_FILTER"));
	return cmocka_run_group_tests_name("bpf callers", tests, NULL, NULL);
}
