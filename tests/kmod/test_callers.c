// SPDX-License-Identifier: GPL-2.0
/*
 * SPROFIL_CALLERS in the module: the chains it walks and files.
 *
 *  - four callers of one callee doing 40/30/20/10 % of the work, in four
 *    threads and in one: each caller's share of the samples, read from
 *    the table (the counts of the chains through it), is within 2 points
 *    of its share of the CPU time, measured per caller with the thread
 *    CPU clock (under qemu TCG equal work is not equal time);
 *  - one set of chains filed identically by the module and by the shared
 *    header in userland: a known call structure ends in an assembly loop
 *    whose two instructions each own a 2-byte bucket, so the histogram
 *    gives the exact samples per pc; the test walks its own stack with
 *    spc_walk() and files [pc, its callers...] with spc_file(), and the
 *    two tables must hold the same chains with the same counts, for a
 *    whole-text region, a depth of 2, and regions that leave a frame in
 *    unknown code;
 *  - a full table: lost samples counted, every sample either filed at its
 *    exact pc (checked bucket by bucket against the histogram) or counted
 *    lost or busy, never filed elsewhere.
 *
 * Built with -fno-omit-frame-pointer (tests.mk).
 */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/types.h>

static int user_read_frame(void *ctx, __u64 fp, __u64 rec[2]);
static int user_text_known(void *ctx, __u64 pc);
static int user_read_code(void *ctx, __u64 addr, __u8 code[8]);
#define SPC_READ_FRAME(ctx, fp, rec)	user_read_frame(ctx, fp, rec)
#define SPC_TEXT_KNOWN(ctx, pc)		user_text_known(ctx, pc)
#define SPC_READ_CODE(ctx, addr, code)	user_read_code(ctx, addr, code)

#include <sprofil/mapping.h>
#include "kmod_test.h"
#include "kt_callers.h"

#define PERIOD_NS	1000000ULL
#define NCALLERS	4

static int fd = -1;
static uint64_t callee_per_sec;

/* ---- the callee and its four callers (kept apart: noipa, no ICF) ---- */

__attribute__((noipa)) uint64_t kc_caller_0(uint64_t n)
{
	return kt_callee(n) + 10;
}

__attribute__((noipa)) uint64_t kc_caller_1(uint64_t n)
{
	return kt_callee(n) + 11;
}

__attribute__((noipa)) uint64_t kc_caller_2(uint64_t n)
{
	return kt_callee(n) + 12;
}

__attribute__((noipa)) uint64_t kc_caller_3(uint64_t n)
{
	return kt_callee(n) + 13;
}

static uint64_t (*const callers[NCALLERS])(uint64_t) = {
	kc_caller_0, kc_caller_1, kc_caller_2, kc_caller_3,
};
static const double weight[NCALLERS] = { 0.4, 0.3, 0.2, 0.1 };

static int group_setup(void **state)
{
	double t0, dt;
	uint64_t n = 1000000;

	(void)state;
	fd = kt_open();
	for (;;) {
		t0 = wl_thread_seconds();
		kt_callee(n);
		dt = wl_thread_seconds() - t0;
		if (dt > 0.2)
			break;
		n *= 2;
	}
	callee_per_sec = n / dt;
	return 0;
}

static int test_teardown(void **state)
{
	(void)state;
	kt_stop(fd);
	return 0;
}

/* One region over the executable's text, 2-byte buckets. */
struct text_region {
	struct sprofil_region r;
	uint16_t *buf;
	size_t nbuckets;
};

static void text_region_init(struct text_region *tr)
{
	uintptr_t start;
	size_t size;

	kt_exec_text(&start, &size);
	tr->nbuckets = size / 2;
	tr->buf = calloc(tr->nbuckets, 2);
	assert_non_null(tr->buf);
	tr->r = kt_region(tr->buf, tr->nbuckets * 2, start, SPM_SCALE_ONE);
}

/* ---- 40/30/20/10 ---- */

struct split {
	struct wl_func f[NCALLERS];
	uint64_t samples[NCALLERS];
	uint64_t total;
};

static int count_callers(void *arg, const struct kt_chain *c)
{
	struct split *sp = arg;

	sp->total += c->count;
	for (int k = 0; k < NCALLERS; k++)
		if (kt_chain_has(c, sp->f[k].start, sp->f[k].size))
			sp->samples[k] += c->count;
	return 0;
}

struct spinner {
	pthread_t tid;
	int k;
	double seconds;
	pthread_barrier_t *go;
	pthread_barrier_t *after;	/* the second pair's start, or NULL */
	double cpu;
};

static double thread_user(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
}

/*
 * Each thread waits on @go, then on @after if it has one, spins for its
 * share of CPU time and measures the user part: only periods that end in
 * user mode are sampled.
 */
static void *spinner_main(void *arg)
{
	struct spinner *w = arg;
	uint64_t chunk = callee_per_sec / 50;
	double t0, u0;

	pthread_barrier_wait(w->go);
	if (w->after)
		pthread_barrier_wait(w->after);
	t0 = wl_thread_seconds();
	u0 = thread_user();
	while (wl_thread_seconds() - t0 < w->seconds)
		callers[w->k](chunk);
	w->cpu = thread_user() - u0;
	return NULL;
}

/*
 * Checks the table's accounting against the module's status, then the
 * callers' shares of the table against @cpu, the time measured in each
 * (CPU time per call in one thread, user time per thread in four).
 * Returns 1 without judging the shares if the sampler itself lost time:
 * under qemu TCG on a loaded host a stalled vCPU can cost a thread 20-40%
 * of its periods (test_threads shows the same without caller tables),
 * unevenly between threads, and the shares then measure the host.
 */
static int check_split(const char *what, const struct kt_table *t,
		       const double cpu[NCALLERS])
{
	struct spc_header *h = t->spc.hdr;
	struct split sp;
	struct sprofil_status st;
	uint64_t in_callers = 0;
	double cpu_total = 0, ratio;
	int k;

	memset(&sp, 0, sizeof(sp));
	for (k = 0; k < NCALLERS; k++) {
		sp.f[k] = wl_func_extent(callers[k]);
		cpu_total += cpu[k];
	}
	assert_int_equal(kt_status(fd, &st), 0);
	assert_int_equal(kt_table_chains(t, count_callers, &sp), 0);
	for (k = 0; k < NCALLERS; k++)
		in_callers += sp.samples[k];
	ratio = in_callers * (PERIOD_NS / 1e9) / cpu_total;
	print_message("# %s: status samples=%llu; table samples=%llu truncated=%llu lost=%llu busy=%llu; in the callers %llu, samples*period/their time=%.4f\n",
		      what, (unsigned long long)st.samples,
		      (unsigned long long)h->samples,
		      (unsigned long long)h->truncated,
		      (unsigned long long)h->lost,
		      (unsigned long long)h->busy,
		      (unsigned long long)in_callers, ratio);
	for (k = 0; k < NCALLERS; k++)
		print_message("#   kc_caller_%d: %llu samples = %.2f%%; its time %.3f s = %.2f%% (nominal %.0f)\n",
			      k, (unsigned long long)sp.samples[k],
			      100.0 * sp.samples[k] / in_callers, cpu[k],
			      100.0 * cpu[k] / cpu_total, 100 * weight[k]);
	/* Every user sample is filed or counted as not filed. */
	assert_int_equal(h->samples + h->lost + h->busy, st.samples);
	assert_int_equal(h->lost, 0);
	assert_int_equal(sp.total, h->samples);
	/* 3000 nominal; a floor well below, should chains go missing. */
	assert_true(in_callers >= 1000);
	if (fabs(ratio - 1) > 0.05) {
		print_message("#   the sampler lost %.0f%% of the periods: the VM was starved; run again\n",
			      100 * (1 - ratio));
		return 1;
	}
	for (k = 0; k < NCALLERS; k++)
		assert_true(fabs(100.0 * sp.samples[k] / in_callers -
				 100.0 * cpu[k] / cpu_total) <= 2.0);
	return 0;
}

/* Up to this many runs, until one is not starved (see check_split()). */
#define SPLIT_RUNS	3

/*
 * Four threads, two at a time on the VM's two vCPUs: callers 0 and 3
 * (40 + 10 %), then 1 and 2 (30 + 20 %), 4.5 s of CPU in all.  Under
 * qemu TCG threads spend 10-30 % of their CPU time in the kernel,
 * unevenly, and only user-mode periods are sampled, so each thread's
 * user time is the truth; it is tick-based (4 ms), hence the longer run
 * and the fewer threads at once, which spend less time in the kernel.
 */
static int split_threads_once(struct text_region *tr)
{
	static const int second[NCALLERS] = { 0, 1, 1, 0 };
	struct spinner w[NCALLERS];
	pthread_barrier_t go, after;
	struct kt_table t;
	uint64_t period = PERIOD_NS;
	double cpu[NCALLERS];
	int k, starved;

	assert_int_equal(kt_table_init(&t, 1 << 20, 64), 0);
	pthread_barrier_init(&go, NULL, NCALLERS + 1);
	pthread_barrier_init(&after, NULL, 3);
	for (k = 0; k < NCALLERS; k++) {
		w[k] = (struct spinner){ .k = k, .seconds = 4.5 * weight[k],
					 .go = &go,
					 .after = second[k] ? &after : NULL };
		assert_int_equal(pthread_create(&w[k].tid, NULL, spinner_main,
						&w[k]), 0);
	}
	assert_int_equal(kt_start_callers(fd, &tr->r, 1, SPROFIL_USHORT,
					  &period, &t), 0);
	pthread_barrier_wait(&go);
	for (k = 0; k < NCALLERS; k++)
		if (!second[k])
			pthread_join(w[k].tid, NULL);
	pthread_barrier_wait(&after);
	for (k = 0; k < NCALLERS; k++) {
		if (second[k])
			pthread_join(w[k].tid, NULL);
		cpu[k] = w[k].cpu;
	}
	assert_int_equal(kt_stop(fd), 0);
	starved = check_split("threads", &t, cpu);
	pthread_barrier_destroy(&go);
	pthread_barrier_destroy(&after);
	kt_table_free(&t);
	return starved;
}

static void test_split_threads(void **state)
{
	struct text_region tr;
	int run = 0;

	(void)state;
	text_region_init(&tr);
	while (split_threads_once(&tr))
		if (++run == SPLIT_RUNS)
			fail_msg("starved in all %d runs", SPLIT_RUNS);
	free(tr.buf);
}

static int split_one_thread_once(struct text_region *tr)
{
	struct kt_table t;
	uint64_t period = PERIOD_NS, unit = callee_per_sec / 50;
	double cpu[NCALLERS] = { 0 }, sum = 0, t0, dt;
	int k, starved;

	assert_int_equal(kt_table_init(&t, 1 << 20, 64), 0);
	assert_int_equal(kt_start_callers(fd, &tr->r, 1, SPROFIL_USHORT,
					  &period, &t), 0);
	/* Rounds of 4, 3, 2 and 1 units of 20 ms, about 3 s of CPU. */
	while (sum < 3.0) {
		for (k = 0; k < NCALLERS; k++) {
			t0 = wl_thread_seconds();
			callers[k](unit * (NCALLERS - k));
			dt = wl_thread_seconds() - t0;
			cpu[k] += dt;
			sum += dt;
		}
	}
	assert_int_equal(kt_stop(fd), 0);
	starved = check_split("one thread", &t, cpu);
	kt_table_free(&t);
	return starved;
}

static void test_split_one_thread(void **state)
{
	struct text_region tr;
	int run = 0;

	(void)state;
	text_region_init(&tr);
	while (split_one_thread_once(&tr))
		if (++run == SPLIT_RUNS)
			fail_msg("starved in all %d runs", SPLIT_RUNS);
	free(tr.buf);
}

/* ---- one set of chains, filed by the module and by the header ---- */

/*
 * kc_leaf(n): a frame of its own, then a loop of two instructions, each
 * starting on an even address of its own 2-byte bucket (sub is 4 bytes,
 * jnz 2), so a bucket's count is the samples at that exact pc.  Stores
 * its return address for the test.
 */
__asm__(".text\n"
	".globl kc_leaf\n"
	".type kc_leaf, @function\n"
	".p2align 4\n"
	"kc_leaf:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	mov 8(%rbp), %rax\n"
	"	mov %rax, kc_leaf_ra(%rip)\n"
	"	.p2align 4\n"
	".globl kc_leaf_loop\n"
	"kc_leaf_loop:\n"
	"	.byte 0x48, 0x83, 0xef, 0x01\n"	/* sub $1, %rdi */
	"	.byte 0x75, 0xfa\n"			/* jnz kc_leaf_loop */
	"	pop %rbp\n"
	"	ret\n"
	".size kc_leaf, .-kc_leaf\n");

void kc_leaf(uint64_t n);
extern const char kc_leaf_loop[];
uint64_t kc_leaf_ra;

/* What the userland walk needs: the session's regions, mapped. */
struct user_walk {
	struct spm_map map;
	struct spm_region region[4];
	struct spm_segment segment[SPM_MAX_SEGMENTS(4)];
	__u32 stack[4];
};

static int user_read_frame(void *ctx, __u64 fp, __u64 rec[2])
{
	struct iovec local = { rec, 16 }, remote = { (void *)(uintptr_t)fp, 16 };

	(void)ctx;
	/* Never faults: the walk may meet any address, as the module's. */
	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != 16;
}

static int user_read_code(void *ctx, __u64 addr, __u8 code[8])
{
	struct iovec local = { code, 8 }, remote = { (void *)(uintptr_t)addr, 8 };

	(void)ctx;
	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != 8;
}

static int user_text_known(void *ctx, __u64 pc)
{
	struct user_walk *uw = ctx;

	return spm_lookup(&uw->map, pc) >= 0;
}

/* The chain the module should see above kc_leaf's loop. */
struct synth {
	struct user_walk *uw;
	uint32_t depth;
	__u64 tail[SPROFIL_MAX_DEPTH];
	uint32_t len;
	int cut;
	int calls;
	int differs;	/* a call saw another tail than the first */
};

/*
 * Runs the leaf, then walks its own stack as the module walked it from
 * the leaf's frame: the leaf's record holds this frame's pointer and the
 * return address into here, the rest is the same records.
 */
__attribute__((noipa)) int kc_mid(uint64_t n, struct synth *sy)
{
	__u64 fp = (uintptr_t)__builtin_frame_address(0);
	__u64 tail[SPROFIL_MAX_DEPTH];
	uint32_t len = 1;
	int cut;

	kc_leaf(n);
	tail[0] = kc_leaf_ra;
	if (!user_text_known(sy->uw, kc_leaf_ra))
		cut = fp != 0;
	else
		cut = spc_walk(sy->uw, kc_leaf_ra, fp, fp, 0, sy->depth - 1,
			       tail, &len);
	if (sy->calls++ == 0) {
		memcpy(sy->tail, tail, len * sizeof(*tail));
		sy->len = len;
		sy->cut = cut;
	} else if (len != sy->len || cut != sy->cut ||
		   memcmp(tail, sy->tail, len * sizeof(*tail))) {
		sy->differs = 1;
	}
	return len;
}

__attribute__((noipa)) int kc_top(uint64_t n, struct synth *sy)
{
	return kc_mid(n, sy) + 1;
}

struct chain_list {
	struct kt_chain *c;
	size_t n, cap;
	uintptr_t leaf[2];
};

static int collect_leaf(void *arg, const struct kt_chain *c)
{
	struct chain_list *l = arg;

	if (c->pc[0] != l->leaf[0] && c->pc[0] != l->leaf[1])
		return 0;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		l->c = realloc(l->c, l->cap * sizeof(*l->c));
		assert_non_null(l->c);
	}
	l->c[l->n++] = *c;
	return 0;
}

static int cmp_chain(const void *a, const void *b)
{
	const struct kt_chain *x = a, *y = b;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	if (x->truncated != y->truncated)
		return x->truncated - y->truncated;
	for (uint32_t i = 0; i < x->len; i++)
		if (x->pc[i] != y->pc[i])
			return x->pc[i] < y->pc[i] ? -1 : 1;
	return x->count < y->count ? -1 : x->count > y->count;
}

static void print_chain(const char *who, const struct kt_chain *c)
{
	print_message("#   %s: count %u%s:", who, c->count,
		      c->truncated ? " truncated" : "");
	for (uint32_t i = 0; i < c->len && i < 8; i++)
		print_message(" %#llx", (unsigned long long)c->pc[i]);
	print_message("%s\n", c->len > 8 ? " ..." : "");
}

/*
 * Profiles kc_top -> kc_mid -> kc_leaf for 1 s of CPU with @r (whose
 * first entry is the 2-byte-bucket histogram over kc_leaf) and @depth,
 * then files the same samples in userland and compares.
 */
static void synth_case(const char *what, struct sprofil_region *r,
		       unsigned int nr, uint16_t *hist, uint32_t depth)
{
	uintptr_t loop = (uintptr_t)kc_leaf_loop;
	struct chain_list kl = { .leaf = { loop, loop + 4 } };
	struct chain_list ul = { .leaf = { loop, loop + 4 } };
	struct user_walk uw;
	struct synth sy = { .uw = &uw, .depth = depth };
	struct kt_table kt, ut;
	uint64_t period = PERIOD_NS, n = callee_per_sec / 20;
	double t0;
	size_t i;

	memset(&uw, 0, sizeof(uw));
	uw.map.region = uw.region;
	uw.map.segment = uw.segment;
	uw.map.stack = uw.stack;
	assert_true(nr <= 4);
	assert_int_equal(spm_prepare(&uw.map, r, nr, SPROFIL_USHORT), 0);
	assert_int_equal(kt_table_init(&kt, 1 << 20, depth), 0);
	assert_int_equal(kt_table_init(&ut, 1 << 20, depth), 0);
	memset(hist, 0, r[0].size);
	assert_int_equal(kt_start_callers(fd, r, nr, SPROFIL_USHORT, &period,
					  &kt), 0);
	t0 = wl_thread_seconds();
	while (wl_thread_seconds() - t0 < 1.0)
		kc_top(n, &sy);
	assert_int_equal(kt_stop(fd), 0);
	assert_false(sy.differs);

	/* The userland filing: [pc, tail...] once per sample at pc. */
	for (i = 0; i < 2; i++) {
		__u64 chain[SPROFIL_MAX_DEPTH];
		uint64_t count = hist[(kl.leaf[i] - r[0].offset) / 2];

		chain[0] = kl.leaf[i];
		memcpy(chain + 1, sy.tail, sy.len * sizeof(*chain));
		if (count)
			assert_int_equal(spc_file(&ut.spc, chain, sy.len + 1,
						  sy.cut, count, 0), 0);
	}
	assert_int_equal(kt_table_chains(&kt, collect_leaf, &kl), 0);
	assert_int_equal(kt_table_chains(&ut, collect_leaf, &ul), 0);
	qsort(kl.c, kl.n, sizeof(*kl.c), cmp_chain);
	qsort(ul.c, ul.n, sizeof(*ul.c), cmp_chain);
	print_message("# %s: depth %u, expected chain of %u frames%s; module filed %zu chains at the loop, userland %zu\n",
		      what, depth, sy.len + 1, sy.cut ? " (truncated)" : "",
		      kl.n, ul.n);
	for (i = 0; i < kl.n; i++)
		print_chain("module", &kl.c[i]);
	for (i = 0; i < ul.n; i++)
		print_chain("header", &ul.c[i]);
	/*
	 * Samples at the loop, so the comparison is not vacuous.  Under qemu
	 * TCG interrupts are taken between translated blocks, so only the
	 * loop's first pc may be sampled.
	 */
	assert_true(ul.n >= 1);
	assert_true(ul.c[0].count + (ul.n > 1 ? ul.c[1].count : 0) >= 100);
	assert_int_equal(kl.n, ul.n);
	for (i = 0; i < kl.n; i++)
		assert_int_equal(cmp_chain(&kl.c[i], &ul.c[i]), 0);
	assert_int_equal(kt.spc.hdr->lost, 0);
	free(kl.c);
	free(ul.c);
	kt_table_free(&kt);
	kt_table_free(&ut);
}

static void test_synthetic_chains(void **state)
{
	struct wl_func leaf = wl_func_extent(kc_leaf);
	struct wl_func mid = wl_func_extent(kc_mid);
	struct text_region tr;
	struct sprofil_region r[2];
	uint16_t *hist;
	size_t nb = (leaf.size + 1) / 2;

	(void)state;
	assert_int_equal(leaf.start % 2, 0);
	/* The whole text known: the chain runs out of the program. */
	text_region_init(&tr);
	synth_case("whole text", &tr.r, 1, tr.buf, 64);
	/* Cut by the depth after the return address into kc_mid. */
	synth_case("depth 2", &tr.r, 1, tr.buf, 2);
	/* kc_top unknown: its return address ends a truncated chain. */
	hist = calloc(nb, 2);
	assert_non_null(hist);
	r[0] = kt_region(hist, nb * 2, leaf.start, SPM_SCALE_ONE);
	r[1] = kt_region(tr.buf, (mid.size + 1) / 2 * 2, mid.start,
			 SPM_SCALE_ONE);
	synth_case("leaf and mid known", r, 2, hist, 64);
	free(hist);
	free(tr.buf);
}

/* ---- a full table ---- */

/* A real recursion: the asm keeps gcc from turning it into a loop. */
__attribute__((noipa)) uint64_t kc_recurse(unsigned int d, uint64_t n)
{
	uint64_t r;

	if (!d)
		r = kt_callee(n);
	else
		r = kc_recurse(d - 1, n);
	__asm__ volatile("" : "+r"(r));
	return r + d;
}

struct full_check {
	const struct text_region *tr;
	uint64_t *filed;	/* per bucket */
	uint64_t filed_out;	/* leaf outside the region */
	uint64_t total;
};

static int file_by_bucket(void *arg, const struct kt_chain *c)
{
	struct full_check *fc = arg;
	uintptr_t off = fc->tr->r.offset;

	fc->total += c->count;
	if (c->pc[0] >= off && (c->pc[0] - off) / 2 < fc->tr->nbuckets)
		fc->filed[(c->pc[0] - off) / 2] += c->count;
	else
		fc->filed_out += c->count;
	return 0;
}

static void test_full_table(void **state)
{
	struct text_region tr;
	struct kt_table t;
	struct full_check fc = { .tr = &tr };
	struct sprofil_status st;
	uint64_t period = PERIOD_NS, unit = callee_per_sec / 200, hist = 0;
	struct spc_header *h;
	double t0;
	size_t b;

	(void)state;
	text_region_init(&tr);
	fc.filed = calloc(tr.nbuckets, sizeof(*fc.filed));
	assert_non_null(fc.filed);
	/* 16 nodes: a few chains fill it. */
	assert_int_equal(kt_table_init(&t, spc_table_bytes(16), 32), 0);
	assert_int_equal(t.nodes, 16);
	assert_int_equal(kt_start_callers(fd, &tr.r, 1, SPROFIL_USHORT,
					  &period, &t), 0);
	t0 = wl_thread_seconds();
	while (wl_thread_seconds() - t0 < 1.5)
		for (unsigned int d = 0; d < 24; d++)
			kc_recurse(d, unit);
	assert_int_equal(kt_stop(fd), 0);
	assert_int_equal(kt_status(fd, &st), 0);
	h = t.spc.hdr;
	assert_int_equal(kt_table_chains(&t, file_by_bucket, &fc), 0);
	for (b = 0; b < tr.nbuckets; b++) {
		hist += tr.buf[b];
		/* Never filed at another pc than its own. */
		if (fc.filed[b] > tr.buf[b])
			fail_msg("bucket %zu: %llu filed, %u sampled", b,
				 (unsigned long long)fc.filed[b], tr.buf[b]);
		hist -= fc.filed[b];
	}
	print_message("# full table: status samples=%llu misses=%llu; table samples=%llu lost=%llu busy=%llu truncated=%llu; unfiled in the region %llu, filed outside %llu\n",
		      (unsigned long long)st.samples,
		      (unsigned long long)st.misses,
		      (unsigned long long)h->samples,
		      (unsigned long long)h->lost,
		      (unsigned long long)h->busy,
		      (unsigned long long)h->truncated,
		      (unsigned long long)hist,
		      (unsigned long long)fc.filed_out);
	assert_true(h->lost > 0);
	assert_true(h->samples > 0);
	assert_int_equal(fc.total, h->samples);
	assert_int_equal(h->samples + h->lost + h->busy, st.samples);
	assert_true(fc.filed_out <= st.misses);
	/* Every sample not filed is counted lost or busy: exactly. */
	assert_int_equal(hist + st.misses - fc.filed_out, h->lost + h->busy);
	kt_table_free(&t);
	free(fc.filed);
	free(tr.buf);
}

/* ---- samples carried by exiting threads ---- */

static void *short_thread(void *arg)
{
	(void)arg;
	wl_spin_cpu(kt_callee, callee_per_sec / 10000, 0.002);
	return NULL;
}

struct exit_chains {
	uint64_t pc_only;	/* truncated chains of one frame */
};

static int count_pc_only(void *arg, const struct kt_chain *c)
{
	struct exit_chains *ec = arg;

	if (c->truncated && c->len == 1)
		ec->pc_only += c->count;
	return 0;
}

/*
 * Threads of 2 ms sampled every 10 ms leave their time to be carried
 * and filed at their exit (kmod/leftover.c).  The exit tracepoint fires
 * after the thread dropped its mm, so those samples are filed as
 * truncated chains of the exit pc alone; either way every sample the
 * module counts is accounted for in the table.
 */
static void test_exit_carried(void **state)
{
	struct text_region tr;
	struct kt_table t;
	struct exit_chains ec = { 0 };
	struct sprofil_status st;
	uint64_t period = 10 * PERIOD_NS;
	long before, carried;
	pthread_t tid[2];

	(void)state;
	text_region_init(&tr);
	assert_int_equal(kt_table_init(&t, 1 << 20, 64), 0);
	before = kt_module_param("periods_carried");
	assert_true(before >= 0);
	assert_int_equal(kt_start_callers(fd, &tr.r, 1, SPROFIL_USHORT,
					  &period, &t), 0);
	for (int i = 0; i < 300; i++) {
		for (int j = 0; j < 2; j++)
			assert_int_equal(pthread_create(&tid[j], NULL,
							short_thread, NULL), 0);
		for (int j = 0; j < 2; j++)
			pthread_join(tid[j], NULL);
	}
	assert_int_equal(kt_stop(fd), 0);
	carried = kt_module_param("periods_carried") - before;
	assert_int_equal(kt_status(fd, &st), 0);
	assert_int_equal(kt_table_chains(&t, count_pc_only, &ec), 0);
	print_message("# exit carry: %ld periods carried; status samples=%llu; table samples=%llu truncated=%llu lost=%llu busy=%llu; truncated one-frame chains %llu\n",
		      carried, (unsigned long long)st.samples,
		      (unsigned long long)t.spc.hdr->samples,
		      (unsigned long long)t.spc.hdr->truncated,
		      (unsigned long long)t.spc.hdr->lost,
		      (unsigned long long)t.spc.hdr->busy,
		      (unsigned long long)ec.pc_only);
	assert_true(carried > 0);
	assert_int_equal(t.spc.hdr->samples + t.spc.hdr->lost +
			 t.spc.hdr->busy, st.samples);
	assert_true(ec.pc_only >= (uint64_t)carried);
	kt_table_free(&t);
	free(tr.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_split_threads, test_teardown),
		cmocka_unit_test_teardown(test_split_one_thread,
					  test_teardown),
		cmocka_unit_test_teardown(test_synthetic_chains,
					  test_teardown),
		cmocka_unit_test_teardown(test_full_table, test_teardown),
		cmocka_unit_test_teardown(test_exit_carried, test_teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, NULL);
}
