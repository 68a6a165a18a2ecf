// SPDX-License-Identifier: GPL-2.0
/*
 * The module's unwind tables (struct sprofil_unwind_module, kmod/unwind.c)
 * against hostile tables and stacks, and bad START arguments.
 *
 *  - A loop runs with its stack pointer (and frame pointer) on a crafted
 *    stack, under a table that covers the whole executable with one
 *    hostile rule: a return address in the kernel or in memory no
 *    module covers, frames of 256 KiB that run into a PROT_NONE page, a
 *    walk whose every frame returns into the loop (it never ends by
 *    itself), a signal frame whose saved stack pointer is itself, one
 *    whose saved stack is the kernel's, a CFA from a frame pointer into
 *    the kernel.  No oops or WARN (the VM runner fails on either), no
 *    signal to the process, and every sample in the loop is filed as a
 *    truncated chain of exactly the frames the walk's rules allow
 *    (include/sprofil/unwind_table.h).
 *  - Bad tables get their errno and change nothing: a table that
 *    spu_table_view() refuses, one shorter than its header says, two
 *    whose spans overlap, too many, tables without SPROFIL_CALLERS, an
 *    unreadable one, tables beyond the unwind_max_bytes parameter
 *    (E2BIG); the live session keeps its regions and period.
 *  - The copies are charged to the caller's memory cgroup: a session
 *    holding 48 MiB of tables raises memory.current by as much, and
 *    under a memory.max that leaves less, START fails with ENOMEM.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <sprofil/mapping.h>
#include <sprofil/unwind_table.h>
#include "kmod_test.h"
#include "kt_callers.h"

#define PERIOD_NS	1000000ULL
#define DEPTH		64
#define AREA_BYTES	(1u << 20)
#define AREA_GUARD	(768u << 10)	/* PROT_NONE from here up */
#define AREA_SP		(600u << 10)	/* the loop's stack pointer */
#define KERNEL_ADDR	0xffffffff81000000ULL
#define CG_ROOT		"/sys/fs/cgroup"
#define CG		CG_ROOT "/sprofil-unwind"
#define BIG_TABLE	(48u << 20)

static int fd = -1;
static uint64_t loop_per_sec;
static volatile sig_atomic_t faults;
static char *area;

/*
 * ku_spin(sp, n, fp): runs a count-down loop of @n with its stack
 * pointer at @sp and its frame pointer @fp, then returns on its own
 * stack.  Nothing in the loop touches memory: the crafted stack is only
 * ever read by the module's walk.
 */
__asm__(".text\n"
	".globl ku_spin\n"
	".type ku_spin, @function\n"
	".p2align 4\n"
	"ku_spin:\n"
	"	push %rbp\n"
	"	push %r12\n"
	"	mov %rsp, %r12\n"
	"	mov %rdx, %rbp\n"
	"	mov %rdi, %rsp\n"
	".globl ku_spin_loop\n"
	"ku_spin_loop:\n"
	"	sub $1, %rsi\n"
	"	jnz ku_spin_loop\n"
	".globl ku_spin_loop_end\n"
	"ku_spin_loop_end:\n"
	"	mov %r12, %rsp\n"
	"	pop %r12\n"
	"	pop %rbp\n"
	"	ret\n"
	".size ku_spin, .-ku_spin\n");

void ku_spin(uint64_t sp, uint64_t n, uint64_t fp);
extern const char ku_spin_loop[], ku_spin_loop_end[];

static void on_fault(int sig)
{
	(void)sig;
	faults++;
}

/* A table of one rule over the executable's text, in @buf (@bytes). */
static uint64_t one_rule_table(void *buf, size_t bytes, uintptr_t start,
			       size_t size, struct spu_rule rule)
{
	struct spu_header *h = buf;
	uint32_t np = spu_npages(size), p;
	struct spu_rule *r = (struct spu_rule *)(h + 1);
	uint32_t *page = (uint32_t *)(r + 1);
	struct spu_row *row = (struct spu_row *)(page + np + 1);
	uint64_t need = spu_table_bytes(1, size, np);
	struct spu_table t;

	assert_true(need <= bytes);
	memset(buf, 0, need);
	*h = (struct spu_header){
		.magic = SPU_MAGIC, .version = SPU_VERSION,
		.machine = SPU_MACHINE_X86_64, .nrows = np, .span = size,
		.base = start, .nrules = 1,
	};
	r[0] = rule;
	for (p = 0; p <= np; p++)
		page[p] = p;
	for (p = 0; p < np; p++)
		row[p] = (struct spu_row){ 0, 0 };
	assert_int_equal(spu_table_view(h, need, &t), 0);
	return need;
}

/* START with a caller table and @n unwind tables; 0 or -errno. */
static int start_unwind(const struct sprofil_region *r, const struct kt_table *t,
			const struct sprofil_unwind_module *um, uint32_t n,
			uint32_t flags)
{
	struct sprofil_start a = {
		.size = sizeof(a),
		.flags = SPROFIL_USHORT | flags,
		.regions = (uintptr_t)r,
		.nregions = 1,
		.period_ns = PERIOD_NS,
		.unwind = (uintptr_t)um,
		.nunwind = n,
	};

	if (t) {
		a.flags |= SPROFIL_CALLERS;
		a.callers = (uintptr_t)t->mem;
		a.callers_size = t->bytes;
		a.callers_depth = t->depth;
	}
	return ioctl(fd, SPROFIL_IOC_START, &a) ? -errno : 0;
}

/* The loop on the crafted stack with no hostile rule, for wl_rate(). */
static void spin_run(uint64_t n)
{
	ku_spin((uintptr_t)area + AREA_SP, n, 0);
}

static int group_setup(void **state)
{
	struct sigaction sa = { .sa_handler = on_fault };

	(void)state;
	fd = kt_open();
	if (fd < 0)
		return -1;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	area = mmap(NULL, AREA_BYTES, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED ||
	    mprotect(area + AREA_GUARD, AREA_BYTES - AREA_GUARD, PROT_NONE))
		return -1;
	loop_per_sec = wl_rate(spin_run);
	return 0;
}

static int test_teardown(void **state)
{
	(void)state;
	kt_stop(fd);
	return 0;
}

enum kind {
	K_KERNEL_RA, K_NO_MODULE_RA, K_HUGE_FRAMES, K_ENDLESS, K_SIGNAL_SELF,
	K_SIGNAL_KERNEL_SP, K_FP_KERNEL, K_KINDS
};

static const struct {
	const char *name;
	struct spu_rule rule;
	uint32_t frames;	/* the chain the rules allow; 0: DEPTH */
} kinds[K_KINDS] = {
	[K_KERNEL_RA] = { "a return address in the kernel",
			  { 1, 0, SPU_CFA_SP | SPU_FP_SAME }, 1 },
	[K_NO_MODULE_RA] = { "a return address no module covers",
			     { 1, 0, SPU_CFA_SP | SPU_FP_SAME }, 2 },
	[K_HUGE_FRAMES] = { "256 KiB frames into a PROT_NONE page",
			    { 32767, -128, SPU_CFA_SP | SPU_FP_AT }, 1 },
	[K_ENDLESS] = { "every frame returning into the loop",
			{ 1, 0, SPU_CFA_SP | SPU_FP_SAME }, 0 },
	[K_SIGNAL_SELF] = { "a signal frame saving its own stack pointer",
			    { 0, 2, SPU_CFA_SIGNAL }, 0 },
	[K_SIGNAL_KERNEL_SP] = { "a signal frame saving a kernel stack",
				 { 0, 2, SPU_CFA_SIGNAL }, 2 },
	[K_FP_KERNEL] = { "a CFA from a frame pointer into the kernel",
			  { 2, 0, SPU_CFA_FP | SPU_FP_SAME }, 1 },
};

/* The crafted stack of @k at AREA_SP; the frame pointer to run with. */
static uint64_t craft(enum kind k)
{
	uint64_t *w = (uint64_t *)(area + AREA_SP);
	uint64_t loop = (uintptr_t)ku_spin_loop;
	size_t i, words = (AREA_GUARD - AREA_SP) / 8;

	memset(w, 0, words * 8);
	switch (k) {
	case K_KERNEL_RA:
		w[0] = KERNEL_ADDR;
		break;
	case K_NO_MODULE_RA:
		/* A user address, mapped PROT_NONE, in no table's span. */
		w[0] = (uintptr_t)area + AREA_GUARD + 4096;
		break;
	case K_ENDLESS:
		/* Looked up at pc - 1: the loop again, frame after frame. */
		for (i = 0; i < words; i++)
			w[i] = loop + 1;
		break;
	case K_SIGNAL_SELF:
		w[0] = (uintptr_t)w;
		w[1] = loop;
		break;
	case K_SIGNAL_KERNEL_SP:
		w[0] = 0xffff888000000000ULL;
		w[1] = loop;
		break;
	case K_FP_KERNEL:
		return KERNEL_ADDR;
	default:
		break;
	}
	return 0;
}

struct loop_samples {
	uint32_t want;
	uint64_t samples, bad;
};

static int check_loop_chain(void *arg, const struct kt_chain *c)
{
	struct loop_samples *ls = arg;

	if (c->pc[0] < (uintptr_t)ku_spin_loop ||
	    c->pc[0] >= (uintptr_t)ku_spin_loop_end)
		return 0;
	ls->samples += c->count;
	if (!c->truncated || c->len != ls->want)
		ls->bad += c->count;
	return 0;
}

static void hostile_tables_cut_chains(void **state)
{
	struct sprofil_region reg;
	struct sprofil_unwind_module um;
	uintptr_t start;
	size_t size;
	uint16_t *buf;
	void *table;
	int k;

	(void)state;
	kt_exec_text(&start, &size);
	buf = calloc(size / 2, 2);
	table = malloc(1 << 20);
	assert_true(buf && table);
	reg = kt_region(buf, size / 2 * 2, start, SPM_SCALE_ONE);
	for (k = 0; k < K_KINDS; k++) {
		struct loop_samples ls = {
			.want = kinds[k].frames ? kinds[k].frames : DEPTH,
		};
		struct kt_table t;
		uint64_t fp;
		double t0;

		um = (struct sprofil_unwind_module){
			.bias = 0, .table = (uintptr_t)table,
			.bytes = one_rule_table(table, 1 << 20, start, size,
						kinds[k].rule),
		};
		fp = craft(k);
		assert_int_equal(kt_table_init(&t, 1 << 20, DEPTH), 0);
		assert_int_equal(start_unwind(&reg, &t, &um, 1, 0), 0);
		t0 = wl_thread_seconds();
		while (wl_thread_seconds() - t0 < 0.4)
			ku_spin((uintptr_t)area + AREA_SP, loop_per_sec / 100,
				fp);
		assert_int_equal(kt_stop(fd), 0);
		assert_int_equal(kt_table_chains(&t, check_loop_chain, &ls), 0);
		print_message("# %s: %llu samples in the loop, %llu not a truncated chain of %u frames\n",
			      kinds[k].name, (unsigned long long)ls.samples,
			      (unsigned long long)ls.bad, ls.want);
		kt_table_free(&t);
		assert_true(ls.samples >= 50);
		assert_int_equal(ls.bad, 0);
		assert_int_equal(faults, 0);
	}
	free(table);
	free(buf);
}

static void bad_tables_change_nothing(void **state)
{
	struct sprofil_unwind_module um[SPROFIL_MAX_UNWIND + 1];
	struct sprofil_region reg;
	struct sprofil_status st;
	struct spu_header *h;
	struct kt_table t;
	uintptr_t start;
	size_t size;
	uint64_t bytes;
	uint16_t *buf;
	char *table, old[32];
	long max;

	(void)state;
	kt_exec_text(&start, &size);
	buf = calloc(size / 2, 2);
	table = malloc(2 << 20);
	assert_true(buf && table);
	reg = kt_region(buf, size / 2 * 2, start, SPM_SCALE_ONE);
	bytes = one_rule_table(table, 1 << 20, start, size,
			       kinds[K_KERNEL_RA].rule);
	assert_int_equal(kt_table_init(&t, 1 << 20, DEPTH), 0);
	um[0] = (struct sprofil_unwind_module){ 0, (uintptr_t)table, bytes };
	assert_int_equal(start_unwind(&reg, &t, um, 1, 0), 0);

	/* The same table at another bias does not overlap; at this, it does. */
	um[1] = um[0];
	um[1].bias = size + 4096;
	assert_int_equal(start_unwind(&reg, &t, um, 2, 0), 0);
	um[1].bias = size / 2;
	assert_int_equal(start_unwind(&reg, &t, um, 2, 0), -EINVAL);
	/* Too many, or without a caller table. */
	for (int i = 0; i <= SPROFIL_MAX_UNWIND; i++)
		um[i] = (struct sprofil_unwind_module){
			(uint64_t)i * (size + 4096), (uintptr_t)table, bytes };
	assert_int_equal(start_unwind(&reg, &t, um, SPROFIL_MAX_UNWIND + 1, 0),
			 -EINVAL);
	assert_int_equal(start_unwind(&reg, NULL, um, 1, 0), -EINVAL);
	/* Shorter than the header says, empty, unreadable. */
	um[0].bytes = bytes - 1;
	assert_int_equal(start_unwind(&reg, &t, um, 1, 0), -EINVAL);
	um[0].bytes = 0;
	assert_int_equal(start_unwind(&reg, &t, um, 1, 0), -EINVAL);
	um[0] = (struct sprofil_unwind_module){ 0, KERNEL_ADDR, bytes };
	assert_int_equal(start_unwind(&reg, &t, um, 1, 0), -EFAULT);
	/* Refused by spu_table_view(): a rule, a row out of order. */
	um[0] = (struct sprofil_unwind_module){ 0, (uintptr_t)table, bytes };
	h = (struct spu_header *)table;
	((struct spu_rule *)(h + 1))->how = SPU_FP_MASK;
	assert_int_equal(start_unwind(&reg, &t, um, 1, 0), -EINVAL);
	((struct spu_rule *)(h + 1))->how = SPU_CFA_SP;
	h->magic ^= 1;
	assert_int_equal(start_unwind(&reg, &t, um, 1, 0), -EINVAL);
	h->magic ^= 1;
	/* Beyond unwind_max_bytes: E2BIG. */
	max = kt_module_param("unwind_max_bytes");
	assert_true(max > 0);
	snprintf(old, sizeof(old), "%ld", max);
	assert_int_equal(kt_module_param_set("unwind_max_bytes", "4096"), 0);
	um[0].bytes = 2 << 20;
	assert_int_equal(start_unwind(&reg, &t, um, 1, 0), -E2BIG);
	assert_int_equal(kt_module_param_set("unwind_max_bytes", old), 0);

	/* The session is the last good START's. */
	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	assert_int_equal(kt_status(fd, &st), 0);
	assert_true(st.state & SPROFIL_STATE_ENABLED);
	assert_int_equal(st.nregions, 1);
	assert_int_equal(st.period_ns, PERIOD_NS);
	assert_int_equal(kt_stop(fd), 0);
	kt_table_free(&t);
	free(table);
	free(buf);
}

/* In a cgroup of its own: the charge, then the limit. */
static int memcg_child(void)
{
	struct sprofil_unwind_module um;
	struct sprofil_region reg;
	struct kt_table t;
	uintptr_t start;
	size_t size;
	uint16_t *buf;
	char *table, max[32];
	long cur, during;
	int rc;

	kt_exec_text(&start, &size);
	buf = calloc(size / 2, 2);
	/* Untouched beyond the table: read as the zero page, not charged. */
	table = mmap(NULL, BIG_TABLE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	KT_CHECK(buf && table != MAP_FAILED, "memory: %m");
	reg = kt_region(buf, size / 2 * 2, start, SPM_SCALE_ONE);
	um = (struct sprofil_unwind_module){ 0, (uintptr_t)table, BIG_TABLE };
	one_rule_table(table, BIG_TABLE, start, size, kinds[K_KERNEL_RA].rule);
	KT_CHECK(kt_table_init(&t, 1 << 20, DEPTH) == 0, "caller table");
	KT_CHECK(kt_write_file(CG "/cgroup.procs", "0") == 0, "join " CG ": %m");
	cur = kt_read_long(CG "/memory.current");
	rc = start_unwind(&reg, &t, &um, 1, 0);
	during = kt_read_long(CG "/memory.current");
	print_message("# a session with %u MiB of tables: START %s, memory.current %ld -> %ld\n",
		      BIG_TABLE >> 20, strerror(-rc), cur, during);
	KT_CHECK(rc == 0, "START: %s", strerror(-rc));
	KT_CHECK(during - cur >= (long)BIG_TABLE, "charged %ld", during - cur);
	KT_CHECK(kt_stop(fd) == 0, "STOP");
	/* The table goes after a grace period: wait for its uncharge. */
	for (int i = 0; i < 100; i++) {
		cur = kt_read_long(CG "/memory.current");
		if (cur <= during - (long)BIG_TABLE / 2)
			break;
		usleep(50000);
	}
	KT_CHECK(cur <= during - (long)BIG_TABLE / 2,
		 "still charged after STOP: %ld", cur);
	snprintf(max, sizeof(max), "%ld", cur + (BIG_TABLE >> 2));
	KT_CHECK(kt_write_file(CG "/memory.max", max) == 0, "memory.max: %m");
	rc = start_unwind(&reg, &t, &um, 1, 0);
	print_message("# with memory.max %s: START returned %d (%s)\n", max, rc,
		      strerror(-rc));
	KT_CHECK(rc == -ENOMEM, "START under memory.max: %s", strerror(-rc));
	KT_CHECK(kt_read_long(CG "/memory.current") <= atol(max),
		 "over memory.max");
	KT_CHECK(kt_write_file(CG "/memory.max", "max") == 0, "memory.max: %m");
	return 0;
}

static void tables_are_charged_to_the_cgroup(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	if (access(CG_ROOT "/cgroup.controllers", F_OK) &&
	    mount("cgroup2", CG_ROOT, "cgroup2", 0, NULL))
		fail_msg("mount cgroup2: %s", strerror(errno));
	assert_int_equal(kt_write_file(CG_ROOT "/cgroup.subtree_control",
				    "+memory"), 0);
	assert_true(!mkdir(CG, 0755) || errno == EEXIST);
	fflush(stdout);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		status = memcg_child();
		fflush(stdout);
		_exit(status > 255 ? 255 : status);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	rmdir(CG);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(hostile_tables_cut_chains,
					  test_teardown),
		cmocka_unit_test_teardown(bad_tables_change_nothing,
					  test_teardown),
		cmocka_unit_test(tables_are_charged_to_the_cgroup),
	};

	return cmocka_run_group_tests(tests, group_setup, NULL);
}
