// SPDX-License-Identifier: GPL-2.0
/*
 * The module's unwind walk (kmod/unwind.c) against the header's walk in
 * userland (include/sprofil/unwind_table.h), on the same stacks, with
 * the tables the payload's sprofil-unwind builds of every module loaded
 * (the userland walk is itself compared with libdw's unwinder in
 * tests/unit/test_unwind_oracle.c, the BPF program's in
 * tests/bpf/test_bpf_unwind.c).
 *
 * A thread on a stack of its own calls four callers, built without frame
 * pointers (tests.mk), each through a shared middle function into a
 * leaf that spins with its stack pointer still: every sample the module
 * takes in the leaf's loop has the same stack above it as every other
 * in the same caller.  The leaf publishes its stack and frame pointers
 * and a generation, odd while it spins; the main thread walks the
 * spinning thread's stack in userland from the loop's pc while the
 * generation stays the same, once per caller.  Each chain the module
 * files in the loop must equal its caller's userland chain frame for
 * frame beyond the sampled pc, and end the same way (complete, down to
 * the thread's clone).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <sprofil/mapping.h>
#include <sprofil/unwind_table.h>
#include "kmod_test.h"
#include "kt_callers.h"
#include "unwind_tables.h"

#define PERIOD_NS	1000000ULL
#define DEPTH		64
#define NCALLERS	4
#define MAX_MODULES	32
#define STACK_BYTES	(512 * 1024)
#define WORK_CPU_S	0.8

/* Published by the leaf: its sp and fp, and its generation (odd: in it). */
volatile uint64_t ko_leaf_sp, ko_leaf_fp, ko_leaf_gen;

/* ko_leaf(n): publishes, counts @n down with sp still, publishes again. */
__asm__(".text\n"
	".globl ko_leaf\n"
	".type ko_leaf, @function\n"
	".p2align 4\n"
	"ko_leaf:\n"
	"	.cfi_startproc\n"
	"	mov %rsp, ko_leaf_sp(%rip)\n"
	"	mov %rbp, ko_leaf_fp(%rip)\n"
	"	lock incq ko_leaf_gen(%rip)\n"
	".globl ko_leaf_loop\n"
	"ko_leaf_loop:\n"
	"	sub $1, %rdi\n"
	"	jnz ko_leaf_loop\n"
	".globl ko_leaf_loop_end\n"
	"ko_leaf_loop_end:\n"
	"	lock incq ko_leaf_gen(%rip)\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size ko_leaf, .-ko_leaf\n");

void ko_leaf(uint64_t n);
extern const char ko_leaf_loop[], ko_leaf_loop_end[];

__attribute__((noipa)) uint64_t ko_mid(uint64_t n)
{
	ko_leaf(n);
	return n ^ 1;
}

__attribute__((noipa)) uint64_t ko_caller_a(uint64_t n)
{
	return ko_mid(n) + 1;
}

__attribute__((noipa)) uint64_t ko_caller_b(uint64_t n)
{
	return ko_mid(n) + 2;
}

__attribute__((noipa)) uint64_t ko_caller_c(uint64_t n)
{
	return ko_mid(n) + 3;
}

__attribute__((noipa)) uint64_t ko_caller_d(uint64_t n)
{
	return ko_mid(n) + 4;
}

static uint64_t (*const callers[NCALLERS])(uint64_t) = {
	ko_caller_a, ko_caller_b, ko_caller_c, ko_caller_d,
};

static struct ut_module mods[MAX_MODULES];
static unsigned int nmods;
static char *stack;
static uint64_t loop_per_sec;
static volatile int stop_work;

/* ---- the userland walk, over the same tables ---- */

/* Inside the worker's stack only. */
static int read_word(__u64 addr, __u64 *val)
{
	if (addr < (uintptr_t)stack ||
	    addr > (uintptr_t)stack + STACK_BYTES - 8 || (addr & 7))
		return -1;
	*val = *(const volatile __u64 *)(uintptr_t)addr;
	return 0;
}

#define SPU_FIND_RULE(ctx, addr, rule) \
	((void)(ctx), ut_rule_of(mods, nmods, (addr), (rule)))
#define SPU_READ_WORD(ctx, addr, val)	read_word((addr), (val))
#include <sprofil/unwind_table.h>

/* ---- the workload ---- */

static void *worker(void *arg)
{
	double t0 = wl_thread_seconds();

	(void)arg;
	while (!stop_work && wl_thread_seconds() - t0 < WORK_CPU_S)
		for (int k = 0; k < NCALLERS; k++)
			callers[k](loop_per_sec / 200 + 1);
	return NULL;
}

/* The caller whose code holds @ra, or -1. */
static int caller_of(uint64_t ra)
{
	for (int k = 0; k < NCALLERS; k++) {
		struct wl_func f = wl_func_extent((void *)callers[k]);

		if (ra > f.start && ra <= f.start + f.size)
			return k;
	}
	return -1;
}

struct expected {
	__u64 chain[DEPTH];
	uint32_t len;
	int ret;
	int found;
};

static struct expected want[NCALLERS];

/* Walks the spinning worker once per caller, while it stays put. */
static void walk_worker(void)
{
	struct timespec nap = { 0, 200000 };
	int found = 0;

	for (int tries = 0; tries < 50000 && found < NCALLERS; tries++) {
		uint64_t g = __atomic_load_n(&ko_leaf_gen, __ATOMIC_ACQUIRE);
		__u64 chain[DEPTH];
		uint32_t len = 0;
		int ret, k;

		if (!(g & 1)) {
			nanosleep(&nap, NULL);
			continue;
		}
		ret = spu_walk(NULL, (uintptr_t)ko_leaf_loop, ko_leaf_sp,
			       ko_leaf_fp, DEPTH, chain, &len);
		if (__atomic_load_n(&ko_leaf_gen, __ATOMIC_ACQUIRE) != g ||
		    len < 3)
			continue;
		k = caller_of(chain[2]);
		if (k < 0 || want[k].found)
			continue;
		memcpy(want[k].chain, chain, len * sizeof(chain[0]));
		want[k].len = len;
		want[k].ret = ret;
		want[k].found = 1;
		found++;
	}
}

struct compare {
	uint64_t samples, same, differ;
	char first[256];
};

static int compare_chain(void *arg, const struct kt_chain *c)
{
	struct compare *cmp = arg;
	const struct expected *w;
	int k;

	if (c->pc[0] < (uintptr_t)ko_leaf_loop ||
	    c->pc[0] >= (uintptr_t)ko_leaf_loop_end)
		return 0;
	cmp->samples += c->count;
	k = c->len >= 3 ? caller_of(c->pc[2]) : -1;
	w = k >= 0 ? &want[k] : NULL;
	if (w && w->found && c->len == w->len &&
	    c->truncated == (w->ret != 0) &&
	    !memcmp(&c->pc[1], &w->chain[1], (c->len - 1) * sizeof(c->pc[0]))) {
		cmp->same += c->count;
		return 0;
	}
	if (!cmp->differ)
		snprintf(cmp->first, sizeof(cmp->first),
			 "caller %d: module len %u%s, userland len %u ret %d",
			 k, c->len, c->truncated ? " truncated" : "",
			 w ? w->len : 0, w ? w->ret : 0);
	cmp->differ += c->count;
	return 0;
}

static const char *tool(void)
{
	const char *t = getenv("SPROFIL_TEST_UNWIND_TOOL");

	return t && *t ? t : "/payload/sprofil-unwind";
}

static void module_walk_equals_userland_walk(void **state)
{
	struct sprofil_unwind_module um[MAX_MODULES];
	char dir[] = "/tmp/sprofil-kmod-unwind-XXXXXX";
	struct compare cmp = { 0 };
	struct sprofil_region reg;
	pthread_attr_t attr;
	struct kt_table t;
	uintptr_t start;
	pthread_t tid;
	uint16_t *buf;
	size_t size;
	int fd, n;

	(void)state;
	if (access(tool(), X_OK))
		skip();
	assert_non_null(mkdtemp(dir));
	assert_int_equal(ut_build_tables(tool(), dir, NULL, "/dev/null"), 0);
	n = ut_load_tables(dir, mods, MAX_MODULES);
	ut_remove_dir(dir);
	assert_true(n >= 2);
	nmods = (unsigned int)n;
	for (unsigned int i = 0; i < nmods; i++) {
		const struct spu_header *h = mods[i].t->hdr;

		um[i] = (struct sprofil_unwind_module){
			.bias = mods[i].bias, .table = (uintptr_t)h,
			.bytes = spu_table_bytes(h->nrules, h->span, h->nrows),
		};
	}
	print_message("# %u modules with a table\n", nmods);

	kt_exec_text(&start, &size);
	buf = calloc(size / 2, 2);
	stack = mmap(NULL, STACK_BYTES, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(buf && stack != MAP_FAILED);
	reg = kt_region(buf, size / 2 * 2, start, SPM_SCALE_ONE);
	assert_int_equal(kt_table_init(&t, 4 << 20, DEPTH), 0);
	fd = kt_open();
	assert_true(fd >= 0);
	{
		struct sprofil_start a = {
			.size = sizeof(a),
			.flags = SPROFIL_USHORT | SPROFIL_CALLERS,
			.regions = (uintptr_t)&reg, .nregions = 1,
			.period_ns = PERIOD_NS,
			.callers = (uintptr_t)t.mem,
			.callers_size = t.bytes, .callers_depth = t.depth,
			.unwind = (uintptr_t)um, .nunwind = nmods,
		};

		assert_int_equal(ioctl(fd, SPROFIL_IOC_START, &a), 0);
	}
	pthread_attr_init(&attr);
	assert_int_equal(pthread_attr_setstack(&attr, stack, STACK_BYTES), 0);
	assert_int_equal(pthread_create(&tid, &attr, worker, NULL), 0);
	walk_worker();
	pthread_join(tid, NULL);
	pthread_attr_destroy(&attr);
	assert_int_equal(kt_stop(fd), 0);
	assert_int_equal(kt_table_chains(&t, compare_chain, &cmp), 0);
	for (int k = 0; k < NCALLERS; k++)
		print_message("# caller %c: userland chain of %u frames, %s\n",
			      'a' + k, want[k].len,
			      !want[k].found ? "not walked" :
			      want[k].ret ? "cut" : "complete");
	print_message("# %llu samples in the leaf's loop: %llu equal to the userland walk, %llu not%s%s\n",
		      (unsigned long long)cmp.samples,
		      (unsigned long long)cmp.same,
		      (unsigned long long)cmp.differ,
		      cmp.differ ? "; first: " : "", cmp.first);
	for (int k = 0; k < NCALLERS; k++) {
		assert_true(want[k].found);
		assert_int_equal(want[k].ret, 0);
		assert_true(want[k].len >= 6);
	}
	assert_true(cmp.samples >= 200);
	assert_int_equal(cmp.differ, 0);
	close(fd);
	kt_table_free(&t);
	ut_free_tables(mods, nmods);
	munmap(stack, STACK_BYTES);
	free(buf);
}

static int group_setup(void **state)
{
	uint64_t n = 1000000;
	double t0, dt;

	(void)state;
	for (;;) {
		t0 = wl_thread_seconds();
		ko_leaf(n);
		dt = wl_thread_seconds() - t0;
		if (dt > 0.1)
			break;
		n *= 2;
	}
	loop_per_sec = n / dt;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(module_walk_equals_userland_walk),
	};

	return cmocka_run_group_tests(tests, group_setup, NULL);
}
