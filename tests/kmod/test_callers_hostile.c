// SPDX-License-Identifier: GPL-2.0
/*
 * SPROFIL_CALLERS against hostile stacks and bad input.
 *
 *  - A thread spins in an assembly loop with its frame pointer set to a
 *    kernel address, a non-canonical one, a PROT_NONE page and an
 *    unmapped hole above its stack, a misaligned address, one below its
 *    stack pointer, a record that points at itself, and a chain of 200
 *    records (deeper than SPROFIL_MAX_DEPTH).  The module must read
 *    none of it into the process's harm: no oops or WARN (the VM runner
 *    fails on either in the kernel log), no signal, and every sample in
 *    the loop filed as a truncated chain of exactly the frames the rules
 *    allow.
 *  - Bad START arguments get their errno and change nothing: the live
 *    session keeps its regions, period, table and pinned pages.
 *  - The table's pages are charged to RLIMIT_MEMLOCK like the buckets'.
 *
 * Built with -fno-omit-frame-pointer (tests.mk).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <sprofil/mapping.h>
#include "kmod_test.h"
#include "kt_callers.h"

#define PERIOD_NS	1000000ULL
#define STACK_BYTES	(256 * 1024)
#define DEEP		200

static int fd = -1;
static uint64_t loop_per_sec;
static volatile sig_atomic_t faults;

/*
 * kc_hostile(fp, n): saves the frame pointer, loads @fp into it, counts
 * @n down, restores it.  Nothing in the loop touches memory, so the
 * hostile value is only ever seen by the sampler's walk.
 */
__asm__(".text\n"
	".globl kc_hostile\n"
	".type kc_hostile, @function\n"
	".p2align 4\n"
	"kc_hostile:\n"
	"	push %rbp\n"
	"	mov %rdi, %rbp\n"
	".globl kc_hostile_loop\n"
	"kc_hostile_loop:\n"
	"	sub $1, %rsi\n"
	"	jnz kc_hostile_loop\n"
	".globl kc_hostile_loop_end\n"
	"kc_hostile_loop_end:\n"
	"	pop %rbp\n"
	"	ret\n"
	".size kc_hostile, .-kc_hostile\n");

void kc_hostile(uint64_t fp, uint64_t n);
extern const char kc_hostile_loop[], kc_hostile_loop_end[];

static void on_fault(int sig)
{
	(void)sig;
	faults++;
}

/* The loop with no hostile frame pointer, for wl_rate(). */
static void hostile_run(uint64_t n)
{
	kc_hostile(0, n);
}

static int group_setup(void **state)
{
	struct sigaction sa = { .sa_handler = on_fault };

	(void)state;
	fd = kt_open();
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	loop_per_sec = wl_rate(hostile_run);
	return 0;
}

static int test_teardown(void **state)
{
	(void)state;
	kt_stop(fd);
	return 0;
}

enum hostile_kind {
	H_KERNEL, H_NONCANONICAL, H_PROT_NONE, H_UNMAPPED, H_MISALIGNED,
	H_BELOW_SP, H_SELF_LOOP, H_DEEP, H_KINDS
};

static const char *const kind_name[H_KINDS] = {
	"kernel address", "non-canonical address", "PROT_NONE page above the stack",
	"unmapped hole above the stack", "misaligned", "below the stack pointer",
	"a record pointing at itself", "200 records deep",
};

struct hostile {
	enum hostile_kind kind;
	char *above;		/* the two pages above the thread's stack */
	uint64_t ra;		/* a return address in known text */
};

static void *hostile_main(void *arg)
{
	struct hostile *h = arg;
	uint64_t rec[2 * DEEP + 2], fp = 0;
	double t0;
	int i;

	memset(rec, 0, sizeof(rec));
	switch (h->kind) {
	case H_KERNEL:
		fp = 0xffffffff81000000ULL;
		break;
	case H_NONCANONICAL:
		fp = 0x0000800000000000ULL;
		break;
	case H_PROT_NONE:
		fp = (uintptr_t)h->above;
		break;
	case H_UNMAPPED:
		fp = (uintptr_t)h->above + sysconf(_SC_PAGESIZE);
		break;
	case H_MISALIGNED:
		rec[0] = (uintptr_t)&rec[2];
		rec[1] = h->ra;
		fp = (uintptr_t)rec + 4;
		break;
	case H_BELOW_SP:
		rec[0] = 0;
		rec[1] = h->ra;
		fp = ((uintptr_t)rec - 16384) & ~(uintptr_t)7;
		break;
	case H_SELF_LOOP:
		rec[0] = (uintptr_t)rec;
		rec[1] = h->ra;
		fp = (uintptr_t)rec;
		break;
	case H_DEEP:
		for (i = 0; i < DEEP; i++) {
			rec[2 * i] = (uintptr_t)&rec[2 * i + 2];
			rec[2 * i + 1] = h->ra;
		}
		fp = (uintptr_t)rec;
		break;
	default:
		break;
	}
	t0 = wl_thread_seconds();
	while (wl_thread_seconds() - t0 < 0.4)
		kc_hostile(fp, loop_per_sec / 100);
	/* Keep rec[] alive (and above the loop's stack) until here. */
	__asm__ volatile("" : : "r"(rec) : "memory");
	return NULL;
}

struct loop_samples {
	enum hostile_kind kind;
	uint64_t ra;
	uint64_t samples, bad;
};

/* The frames the walk rules allow for each kind, all of them cut. */
static int check_loop_chain(void *arg, const struct kt_chain *c)
{
	struct loop_samples *ls = arg;
	uint32_t want = 1, i;

	if (c->pc[0] < (uintptr_t)kc_hostile_loop ||
	    c->pc[0] >= (uintptr_t)kc_hostile_loop_end)
		return 0;
	ls->samples += c->count;
	if (ls->kind == H_SELF_LOOP)
		want = 2;
	else if (ls->kind == H_DEEP)
		want = SPROFIL_MAX_DEPTH;
	if (!c->truncated || c->len != want) {
		ls->bad += c->count;
		return 0;
	}
	for (i = 1; i < c->len; i++)
		if (c->pc[i] != ls->ra)
			ls->bad += c->count;
	return 0;
}

static void test_hostile_stacks(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	struct wl_func known = wl_func_extent(kc_hostile);
	struct text_region {
		struct sprofil_region r;
		uint16_t *buf;
	} tr;
	uintptr_t start;
	size_t size;
	int k;

	(void)state;
	kt_exec_text(&start, &size);
	tr.buf = calloc(size / 2, 2);
	assert_non_null(tr.buf);
	tr.r = kt_region(tr.buf, size / 2 * 2, start, SPM_SCALE_ONE);
	for (k = 0; k < H_KINDS; k++) {
		struct hostile h = { .kind = k, .ra = known.start + 1 };
		struct loop_samples ls = { .kind = k, .ra = h.ra };
		struct kt_table t;
		struct sprofil_status st;
		pthread_attr_t attr;
		pthread_t tid;
		char *stack;
		uint64_t period = PERIOD_NS;

		/* The stack, then a PROT_NONE page, then a hole. */
		stack = mmap(NULL, STACK_BYTES + 2 * page,
			     PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		assert_true(stack != MAP_FAILED);
		h.above = stack + STACK_BYTES;
		assert_int_equal(mprotect(h.above, page, PROT_NONE), 0);
		assert_int_equal(munmap(h.above + page, page), 0);
		assert_int_equal(kt_table_init(&t, 1 << 20, SPROFIL_MAX_DEPTH),
				 0);
		assert_int_equal(kt_start_callers(fd, &tr.r, 1, SPROFIL_USHORT,
						  &period, &t), 0);
		pthread_attr_init(&attr);
		assert_int_equal(pthread_attr_setstack(&attr, stack,
						       STACK_BYTES), 0);
		assert_int_equal(pthread_create(&tid, &attr, hostile_main, &h),
				 0);
		pthread_join(tid, NULL);
		pthread_attr_destroy(&attr);
		assert_int_equal(kt_stop(fd), 0);
		assert_int_equal(kt_table_chains(&t, check_loop_chain, &ls), 0);
		assert_int_equal(kt_status(fd, &st), 0);
		print_message("# %s: %llu samples in the loop, %llu not filed as the rules say; status samples=%llu, table samples=%llu truncated=%llu lost=%llu busy=%llu\n",
			      kind_name[k], (unsigned long long)ls.samples,
			      (unsigned long long)ls.bad,
			      (unsigned long long)st.samples,
			      (unsigned long long)t.spc.hdr->samples,
			      (unsigned long long)t.spc.hdr->truncated,
			      (unsigned long long)t.spc.hdr->lost,
			      (unsigned long long)t.spc.hdr->busy);
		assert_true(ls.samples >= 100);
		assert_int_equal(ls.bad, 0);
		assert_true(t.spc.hdr->truncated >= ls.samples);
		assert_int_equal(faults, 0);
		kt_table_free(&t);
		munmap(stack, STACK_BYTES + page);
	}
	free(tr.buf);
}

/* ---- bad input ---- */

static int start_raw(struct sprofil_start *a)
{
	return ioctl(fd, SPROFIL_IOC_START, a) ? -errno : 0;
}

static struct sprofil_start args_for(struct sprofil_region *r, void *table,
				     uint64_t bytes, uint32_t depth)
{
	struct sprofil_start a = {
		.size = sizeof(a),
		.flags = SPROFIL_UINT | SPROFIL_CALLERS,
		.regions = (uintptr_t)r,
		.nregions = 1,
		.period_ns = 2 * PERIOD_NS,
		.callers = (uintptr_t)table,
		.callers_size = bytes,
		.callers_depth = depth,
	};

	return a;
}

/* A live session must be just as it was after each refused START. */
struct live {
	struct sprofil_status st;
	long pinned;
};

static void snapshot(struct live *l)
{
	assert_int_equal(kt_status(fd, &l->st), 0);
	l->pinned = kt_module_param("pinned_pages");
}

static void assert_unchanged(const struct live *before, const char *what)
{
	struct live now;

	snapshot(&now);
	if (now.st.state != before->st.state ||
	    now.st.period_ns != before->st.period_ns ||
	    now.st.nregions != before->st.nregions ||
	    now.pinned != before->pinned)
		fail_msg("%s changed the session: state %u->%u period %llu->%llu regions %u->%u pinned %ld->%ld",
			 what, before->st.state, now.st.state,
			 (unsigned long long)before->st.period_ns,
			 (unsigned long long)now.st.period_ns,
			 before->st.nregions, now.st.nregions,
			 before->pinned, now.pinned);
}

static void expect_refused(struct sprofil_start a, int err, const char *what,
			   const struct live *before)
{
	int got = start_raw(&a);

	print_message("# %s: %s\n", what, got ? strerror(-got) : "accepted");
	if (got != -err)
		fail_msg("%s: got %d, want %d", what, got, -err);
	assert_unchanged(before, what);
}

static void test_bad_input(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	uint32_t buckets[64];
	struct sprofil_region r = kt_region(buckets, sizeof(buckets),
					    0x1000, SPM_SCALE_ONE);
	struct kt_table live, bad;
	struct live before;
	struct sprofil_start a;
	uint64_t period = PERIOD_NS;
	uint64_t min = spc_table_bytes(SPC_MIN_NODES);
	unsigned char *ro, *hole, pattern[256];
	long pinned_plain;

	(void)state;
	/* The live session: one region and a table of its own. */
	assert_int_equal(kt_start_callers(fd, &r, 1, SPROFIL_UINT, &period,
					  NULL), 0);
	pinned_plain = kt_module_param("pinned_pages");
	assert_int_equal(kt_table_init(&live, 64 * 1024, 16), 0);
	assert_int_equal(kt_start_callers(fd, &r, 1, SPROFIL_UINT, &period,
					  &live), 0);
	snapshot(&before);
	/* The table's pages are pinned on top of the buckets'. */
	assert_int_equal(before.pinned - pinned_plain,
			 (long)((spc_table_bytes(live.nodes) + page - 1) / page));
	assert_true(before.st.state & SPROFIL_STATE_ENABLED);

	/* A spare table, filled with a pattern that must stay. */
	assert_int_equal(kt_table_init(&bad, 64 * 1024, 16), 0);
	for (size_t i = 0; i < sizeof(pattern); i++)
		pattern[i] = (unsigned char)(i * 37 + 1);
	memcpy(bad.mem, pattern, sizeof(pattern));

	a = args_for(&r, bad.mem, bad.bytes, 0);
	expect_refused(a, EINVAL, "depth 0", &before);
	a = args_for(&r, bad.mem, bad.bytes, SPROFIL_MAX_DEPTH + 1);
	expect_refused(a, EINVAL, "depth above SPROFIL_MAX_DEPTH", &before);
	a = args_for(&r, bad.mem, min - 1, 16);
	expect_refused(a, EINVAL, "room for fewer than 16 nodes", &before);
	a = args_for(&r, bad.mem, 0, 16);
	expect_refused(a, EINVAL, "size 0", &before);
	a = args_for(&r, (char *)bad.mem + 4, min, 16);
	expect_refused(a, EINVAL, "table not 8-byte aligned", &before);
	a = args_for(&r, NULL, min, 16);
	expect_refused(a, EFAULT, "table at NULL", &before);
	a = args_for(&r, (void *)0xffffffff81000000ULL, min, 16);
	expect_refused(a, EFAULT, "table at a kernel address", &before);

	ro = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(ro != MAP_FAILED);
	a = args_for(&r, ro, min, 16);
	expect_refused(a, EFAULT, "read-only table", &before);
	hole = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(hole != MAP_FAILED);
	assert_int_equal(munmap(hole + page, page), 0);
	a = args_for(&r, hole + page - 64, min, 16);
	expect_refused(a, EFAULT, "table running into unmapped memory",
		       &before);

	/* Caller-table fields without the flag. */
	a = args_for(&r, bad.mem, bad.bytes, 16);
	a.flags &= ~SPROFIL_CALLERS;
	expect_refused(a, EINVAL, "all three fields without the flag",
		       &before);
	a = args_for(&r, bad.mem, 0, 0);
	a.flags &= ~SPROFIL_CALLERS;
	expect_refused(a, EINVAL, "callers without the flag", &before);
	a = args_for(&r, NULL, min, 0);
	a.flags &= ~SPROFIL_CALLERS;
	expect_refused(a, EINVAL, "callers_size without the flag", &before);
	a = args_for(&r, NULL, 0, 16);
	a.flags &= ~SPROFIL_CALLERS;
	expect_refused(a, EINVAL, "callers_depth without the flag", &before);
	a = args_for(&r, bad.mem, bad.bytes, 16);
	a.reserved2 = 1;
	expect_refused(a, EINVAL, "reserved2 set", &before);

	assert_memory_equal(bad.mem, pattern, sizeof(pattern));
	/* The live table is still filed into. */
	{
		uint64_t filed = live.spc.hdr->samples;
		double t0 = wl_thread_seconds();

		while (wl_thread_seconds() - t0 < 0.3)
			kc_hostile(0, loop_per_sec / 100);
		assert_true(live.spc.hdr->samples > filed);
	}
	/* Dropping the table unpins exactly its pages. */
	assert_int_equal(kt_start_callers(fd, &r, 1, SPROFIL_UINT, &period,
					  NULL), 0);
	assert_int_equal(kt_module_param("pinned_pages"), pinned_plain);
	assert_int_equal(kt_stop(fd), 0);
	munmap(ro, page);
	munmap(hole, page);
	kt_table_free(&bad);
	kt_table_free(&live);
}

/*
 * In a child that is not root: RLIMIT_MEMLOCK of 64 KiB covers a small
 * table but not one of 1 MiB, which gets ENOMEM and pins nothing.
 */
static int memlock_child(void)
{
	struct rlimit rl = { 64 * 1024, 64 * 1024 };
	uint32_t buckets[64];
	struct sprofil_region r = kt_region(buckets, sizeof(buckets),
					    0x1000, SPM_SCALE_ONE);
	struct kt_table small, big;
	uint64_t period = PERIOD_NS;
	long pinned;
	int cfd, err;

	KT_CHECK(setrlimit(RLIMIT_MEMLOCK, &rl) == 0, "setrlimit");
	KT_CHECK(setgid(65534) == 0 && setuid(65534) == 0, "drop root");
	cfd = open("/dev/sprofil", O_RDWR);
	KT_CHECK(cfd >= 0, "open: %s", strerror(errno));
	KT_CHECK(kt_table_init(&small, 16 * 1024, 16) == 0, "small table");
	KT_CHECK(kt_table_init(&big, 1 << 20, 16) == 0, "big table");
	pinned = kt_module_param("pinned_pages");
	err = kt_start_callers(cfd, &r, 1, SPROFIL_UINT, &period, &big);
	KT_CHECK(err == -ENOMEM, "1 MiB table over a 64 KiB limit: %d", err);
	KT_CHECK(kt_module_param("pinned_pages") == pinned,
		 "pages left pinned after ENOMEM");
	err = kt_start_callers(cfd, &r, 1, SPROFIL_UINT, &period, &small);
	KT_CHECK(err == 0, "16 KiB table under the limit: %d", err);
	KT_CHECK(kt_stop(cfd) == 0, "stop");
	return 0;
}

static void test_memlock(void **state)
{
	pid_t pid;
	int status;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		_exit(memlock_child());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_hostile_stacks, test_teardown),
		cmocka_unit_test_teardown(test_bad_input, test_teardown),
		cmocka_unit_test(test_memlock),
	};

	return cmocka_run_group_tests(tests, group_setup, NULL);
}
