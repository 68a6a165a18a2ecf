// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The BPF program's unwind walk (docs/callers.md, "On the bpf backend")
 * against <sprofil/unwind_table.h>'s walk in userland, as root on the
 * host.  The workload is test_unwind_oracle's (tests/unit/unwind_work.c,
 * built -O2 -fomit-frame-pointer -fno-optimize-sibling-calls: frameless
 * callers and leaf, qsort() calling back into the program, an fp-based
 * CFA, a recursion, a stop at a function's first instruction);
 * sprofil-unwind builds the tables of every module loaded, which go
 * into the program's sp_punwind map as the library puts them
 * (sprofil_load.h, spb_unwind_fill()).  At each SIGPROF of a CPU-time
 * timer (and the SIGILL of uw_trap()) the handler walks the interrupted
 * thread's live stack twice: by the program's
 * self-test sp_unwind_test (bpf_prog_test_run(): the sampler's own code,
 * its tables read from the map, the stack by bpf_probe_read_user()),
 * and by the header's walk over the same tables in userland.  The
 * chains must be equal, pc for pc, and end the same way; the userland
 * walk is itself compared with libdw's unwinder in
 * tests/unit/test_unwind_oracle.c.  Most chains must be complete and
 * reach through the frameless callers.
 */
#include <errno.h>
#include <link.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "sprofil_skel_load.h"
#include "unwind_tables.h"
#include "unwind_work.h"

#define MAX_MODULES	32
#define DEPTH		64
#define WANT_SAMPLES	300
#define CPU_BUDGET_S	4.0

/* The modules with a table: as the userland walk and the map take them. */
static struct ut_module got[MAX_MODULES];
static struct spb_utable mods[MAX_MODULES];
static unsigned int nmods;
static uintptr_t stack_lo, stack_hi;

/* Inside the main thread's stack only: a load there cannot fault. */
static int read_word(__u64 addr, __u64 *val)
{
	if (addr < stack_lo || addr > stack_hi - 8 || (addr & 7))
		return -1;
	*val = *(const __u64 *)(uintptr_t)addr;
	return 0;
}

#define SPU_FIND_RULE(ctx, addr, rule) \
	((void)(ctx), ut_rule_of(got, nmods, (addr), (rule)))
#define SPU_READ_WORD(ctx, addr, val)	read_word((addr), (val))
#include <sprofil/unwind_table.h>

/* ---- the handler's two walks ---- */

static struct sprofil_bpf *skel;
static int prog_fd;
static volatile unsigned int samples, same, differ, failed, complete, deep;
static char first_diff[256];
static double cpu_end;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * At each SIGPROF, and at the SIGILL of uw_trap()'s first instruction
 * (stepped over: a stop exactly at a function's entry).
 */
static void on_stop(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	struct spb_test_unwind *u = &skel->bss->sp_test_unwind;
	__u64 chain[DEPTH];
	__u32 len = 0;
	int ret, saved = errno;
	LIBBPF_OPTS(bpf_test_run_opts, opts);

	(void)si;
	u->pc = (__u64)uc->uc_mcontext.gregs[REG_RIP];
	u->sp = (__u64)uc->uc_mcontext.gregs[REG_RSP];
	u->fp = (__u64)uc->uc_mcontext.gregs[REG_RBP];
	u->depth = DEPTH;
	u->len = 0;
	if (bpf_prog_test_run_opts(prog_fd, &opts) || opts.retval) {
		failed++;
		uw_stop = 1;
		errno = saved;
		return;
	}
	ret = spu_walk(NULL, u->pc, u->sp, u->fp, DEPTH, chain, &len);
	samples++;
	if (ret == u->ret && len == u->len &&
	    !memcmp(chain, u->chain, len * sizeof(*chain))) {
		same++;
	} else {
		if (!differ++)
			snprintf(first_diff, sizeof(first_diff),
				 "pc %llx: bpf %d len %u, userland %d len %u",
				 (unsigned long long)u->pc, u->ret, u->len,
				 ret, len);
	}
	if (!ret)
		complete++;
	if (!ret && len >= 6)
		deep++;
	if (sig == SIGILL)
		uc->uc_mcontext.gregs[REG_RIP] += 2;
	if (samples >= WANT_SAMPLES || cpu_now() > cpu_end)
		uw_stop = 1;
	errno = saved;
}

/* ---- the tables ---- */

static const char *tool = UNWIND_TOOL;
static char tdir[] = "/tmp/sprofil-bpf-unwind-XXXXXX";

/* The main thread's stack, from /proc/self/maps. */
static void find_stack(void)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long lo, hi;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[stack]") &&
		    sscanf(line, "%lx-%lx", &lo, &hi) == 2) {
			stack_lo = lo;
			stack_hi = hi;
		}
	fclose(f);
	assert_true(stack_hi > stack_lo);
}

/* A new map of the tables of mods[0, nmods), the process's from now on. */
static int put_tables(void **mem, __u64 *elems)
{
	__u32 tgid = (__u32)getpid();
	int fd;

	*elems = spb_unwind_elems(mods, nmods);
	fd = spb_unwind_map(*elems);
	assert_true(fd >= 0);
	assert_int_equal(spb_inner_mmap(fd, *elems * SPB_UELEM, mem), 0);
	spb_unwind_fill(*mem, mods, nmods);
	assert_int_equal(bpf_map_update_elem(
		bpf_map__fd(skel->maps.sp_punwind), &tgid, &fd, BPF_ANY), 0);
	return fd;
}

/* Runs the workload under the two walks; asserts they agreed. */
static void run_walks(const char *what)
{
	struct itimerval it = { { 0, 2000 }, { 0, 2000 } };
	struct itimerval off = { { 0, 0 }, { 0, 0 } };

	samples = same = differ = failed = complete = deep = 0;
	uw_stop = 0;
	cpu_end = cpu_now() + CPU_BUDGET_S;
	assert_int_equal(setitimer(ITIMER_PROF, &it, NULL), 0);
	uw_run();
	setitimer(ITIMER_PROF, &off, NULL);
	print_message("# %s: %u samples: %u walks equal, %u differ, %u test runs failed; %u complete, %u of 6 frames or more\n",
		      what, samples, same, differ, failed, complete, deep);
	if (differ)
		print_message("# first difference: %s\n", first_diff);
	assert_int_equal(failed, 0);
	assert_true(samples >= 100);
	assert_int_equal(differ, 0);
}

/*
 * The walks agree with all the modules' tables; then, with a new map
 * without the executable's table, they agree again: the program's
 * cache of rules found (sp_urules) holds them by the tables'
 * generation, and must not hand out the executable's rules it found
 * before (its frameless functions' chains are cut now, or walked by
 * frame pointers, as the userland walk without that table says).
 */
static void bpf_walk_equals_userland_walk(void **state)
{
	struct sigaction sa = { .sa_sigaction = on_stop,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	void *mem[2] = { NULL, NULL };
	struct spb_utable exe = { 0 };
	unsigned int i, with_exe;
	__u64 elems[2];
	int err, fd[2], n;

	(void)state;
	if (access(tool, X_OK))
		skip();
	err = spb_load_with(&skel, true, true);
	if (err)
		print_message("# load: %s\n", strerror(-err));
	assert_int_equal(err, 0);
	prog_fd = bpf_program__fd(skel->progs.sp_unwind_test);
	assert_non_null(mkdtemp(tdir));
	assert_int_equal(ut_build_tables(tool, tdir, NULL, "/dev/null"), 0);
	n = ut_load_tables(tdir, got, MAX_MODULES);
	ut_remove_dir(tdir);
	assert_true(n >= 0);
	for (nmods = 0; nmods < (unsigned int)n; nmods++) {
		mods[nmods].bias = got[nmods].bias;
		mods[nmods].t = got[nmods].t;
	}
	print_message("# %u modules with a table\n", nmods);
	assert_true(nmods >= 2);
	fd[0] = put_tables(&mem[0], &elems[0]);
	find_stack();

	sigaddset(&sa.sa_mask, SIGPROF);
	sigaddset(&sa.sa_mask, SIGILL);
	assert_int_equal(sigaction(SIGPROF, &sa, NULL), 0);
	assert_int_equal(sigaction(SIGILL, &sa, NULL), 0);
	run_walks("all tables");
	assert_true(complete >= 0.95 * samples);
	assert_true(deep >= 0.9 * samples);
	with_exe = complete;

	/* The executable's table last, and left out of both walks. */
	for (i = 0; i < nmods && *got[i].name; i++)
		;
	assert_true(i < nmods);
	exe = mods[i];
	mods[i] = mods[nmods - 1];
	mods[nmods - 1] = exe;
	{
		struct ut_module g = got[i];

		got[i] = got[nmods - 1];
		got[nmods - 1] = g;
	}
	nmods--;
	fd[1] = put_tables(&mem[1], &elems[1]);
	run_walks("without the executable's table");
	/* Its frameless functions' chains: no longer complete. */
	assert_true(complete < 0.5 * samples);
	assert_true(with_exe > complete);
	signal(SIGPROF, SIG_DFL);
	signal(SIGILL, SIG_DFL);
	for (i = 0; i < 2; i++) {
		munmap(mem[i], elems[i] * SPB_UELEM);
		close(fd[i]);
	}
	sprofil_bpf__destroy(skel);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bpf_walk_equals_userland_walk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
