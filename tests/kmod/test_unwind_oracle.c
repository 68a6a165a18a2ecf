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
 * in the same caller.  A fifth caller runs in a signal handler on
 * sigaltstack (the walk crosses glibc's __restore_rt back to the
 * thread's stack), a sixth in a coroutine on a stack of its own
 * (makecontext(): the chain stops at glibc's __start_context, whose
 * CFI gives no rule: cut, on both sides alike).  The leaf publishes its stack and frame pointers
 * and a generation, odd while it spins; the main thread walks the
 * spinning thread's stack in userland from the loop's pc while the
 * generation stays the same, once per caller.  Each chain the module
 * files in the loop must equal its caller's userland chain frame for
 * frame beyond the sampled pc, and end the same way (complete, down to
 * the thread's clone).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
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
#include <ucontext.h>
#include <unistd.h>
#include <cmocka.h>
#include <sprofil/mapping.h>
#include <sprofil/unwind_table.h>
#include "kmod_test.h"
#include "kt_callers.h"
#include "unwind_tables.h"

#define PERIOD_NS	1000000ULL
#define DEPTH		64
/* a-d from the thread, e in a handler on sigaltstack, f in a coroutine */
#define NCALLERS	6
#define ALT_BYTES	(64 * 1024)
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

__attribute__((noipa)) uint64_t ko_caller_e(uint64_t n)
{
	return ko_mid(n) + 5;
}

__attribute__((noipa)) uint64_t ko_caller_f(uint64_t n)
{
	return ko_mid(n) + 6;
}

static uint64_t (*const callers[NCALLERS])(uint64_t) = {
	ko_caller_a, ko_caller_b, ko_caller_c, ko_caller_d, ko_caller_e,
	ko_caller_f,
};

static struct ut_module mods[MAX_MODULES];
static unsigned int nmods;
/* The worker's stack, its signal stack and its coroutine's. */
static char *stack, *alt, *co_stack;
static ucontext_t co_ctx, co_back;
static uint64_t loop_per_sec;
static volatile int stop_work;

/* ---- the userland walk, over the same tables ---- */

static bool inside(__u64 addr, const char *base, size_t bytes)
{
	return addr >= (uintptr_t)base && addr <= (uintptr_t)base + bytes - 8;
}

/* Inside the worker's stacks only. */
static int read_word(__u64 addr, __u64 *val)
{
	if ((addr & 7) || !(inside(addr, stack, STACK_BYTES) ||
			    inside(addr, alt, ALT_BYTES) ||
			    inside(addr, co_stack, ALT_BYTES)))
		return -1;
	*val = *(const volatile __u64 *)(uintptr_t)addr;
	return 0;
}

#define SPU_FIND_RULE(ctx, addr, rule) \
	((void)(ctx), ut_rule_of(mods, nmods, (addr), (rule)))
#define SPU_READ_WORD(ctx, addr, val)	read_word((addr), (val))
#include <sprofil/unwind_table.h>

/* ---- the workload ---- */

/* On the signal stack: the walk crosses glibc's __restore_rt frame. */
static void on_usr1(int sig)
{
	(void)sig;
	ko_caller_e(loop_per_sec / 200 + 1);
}

/* A coroutine (makecontext()): its chain ends at glibc's start code. */
static void coroutine(void)
{
	ko_caller_f(loop_per_sec / 200 + 1);
}

static void *worker(void *arg)
{
	stack_t ss = { .ss_sp = alt, .ss_size = ALT_BYTES };
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_ONSTACK };
	double t0 = wl_thread_seconds();

	(void)arg;
	if (sigaltstack(&ss, NULL) || sigaction(SIGUSR1, &sa, NULL))
		return (void *)1;
	while (!stop_work && wl_thread_seconds() - t0 < WORK_CPU_S) {
		for (int k = 0; k < 4; k++)
			callers[k](loop_per_sec / 200 + 1);
		raise(SIGUSR1);
		if (getcontext(&co_ctx))
			return (void *)1;
		co_ctx.uc_stack.ss_sp = co_stack;
		co_ctx.uc_stack.ss_size = ALT_BYTES;
		co_ctx.uc_link = &co_back;
		makecontext(&co_ctx, coroutine, 0);
		if (swapcontext(&co_back, &co_ctx))
			return (void *)1;
	}
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
	void *ret;
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
	alt = mmap(NULL, 2 * ALT_BYTES, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(buf && stack != MAP_FAILED && alt != MAP_FAILED);
	co_stack = alt + ALT_BYTES;
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
	assert_int_equal(pthread_join(tid, &ret), 0);
	assert_null(ret);
	pthread_attr_destroy(&attr);
	assert_int_equal(kt_stop(fd), 0);
	assert_int_equal(kt_table_chains(&t, compare_chain, &cmp), 0);
	for (int k = 0; k < NCALLERS; k++)
		print_message("# caller %c: userland chain of %2u frames, %s\n",
			      'a' + k, want[k].len,
			      !want[k].found ? "not walked" :
			      want[k].ret ? "cut" : "complete");
	print_message("# %llu samples in the leaf's loop: %llu equal to the userland walk, %llu not%s%s\n",
		      (unsigned long long)cmp.samples,
		      (unsigned long long)cmp.same,
		      (unsigned long long)cmp.differ,
		      cmp.differ ? "; first: " : "", cmp.first);
	/*
	 * Complete down to the thread's clone, the handler's through
	 * __restore_rt; the coroutine's is cut where glibc's
	 * __start_context has no rule (a truncated chain, as the tables
	 * say: the module must only agree).
	 */
	for (int k = 0; k < NCALLERS; k++) {
		assert_true(want[k].found);
		assert_true(want[k].len >= (k == 5 ? 4u : 6u));
		if (k < 5)
			assert_int_equal(want[k].ret, 0);
	}
	assert_true(want[4].len >= want[0].len + 3);
	assert_true(cmp.samples >= 200);
	assert_int_equal(cmp.differ, 0);
	close(fd);
	kt_table_free(&t);
	ut_free_tables(mods, nmods);
	munmap(stack, STACK_BYTES);
	munmap(alt, 2 * ALT_BYTES);
	free(buf);
}

static int group_setup(void **state)
{
	(void)state;
	loop_per_sec = wl_rate(ko_leaf);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(module_walk_equals_userland_walk),
	};

	return cmocka_run_group_tests(tests, group_setup, NULL);
}
