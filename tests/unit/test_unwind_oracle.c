// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The unwind tables against an independent unwinder.  A program built
 * without frame pointers (unwind_work.c) runs its chains under a CPU-time
 * timer; at each SIGPROF the handler keeps the interrupted pc, sp and fp
 * from its ucontext, its own pc, sp and fp, and a copy of the stack from
 * its own sp up.  Afterwards every stop is walked twice, from the
 * interrupted registers and from the handler's (through the kernel's
 * signal frame and libc's __restore_rt), by unwind_table.h's walk on the
 * tables unwind_build.c made of every module mapped, and by libdw's own
 * unwinder (dwfl_getthread_frames) on the same registers and the same
 * stack copy.  A SIGILL on the first instruction of a function adds stops
 * where the interrupted pc is a function's entry.  The chains must be equal, pc for pc, and end the same way:
 * complete where libdw reaches the outermost frame, cut where it stops.
 *
 * Sized by CPU time (samples at the timer's rate, up to a budget), not by
 * iterations, so it takes the same on a fast and a slow machine.
 */
#include <elfutils/libdwfl.h>
#include <link.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../unwind/unwind_build.h"
#include "unwind_work.h"

#define MAX_MODULES	32
#define MAX_SAMPLES	600
#define WANT_SAMPLES	400
#define MIN_SAMPLES	60
#define CPU_BUDGET_NS	4000000000ll	/* of the workload's CPU time */
#define STACK_CAP	(64 << 10)
#define ARENA_BYTES	(24 << 20)
#define DEPTH		64

struct module {
	__u64 lo, hi;			/* runtime span of executable code */
	__u64 bias;
	struct spu_header *h;
	struct spu_table t;
	char name[128];
};

struct sample {
	__u64 pc, sp, fp;		/* interrupted */
	__u64 hpc, hsp, hfp;		/* the handler's own */
	size_t off, len;		/* copy of [hsp, hsp + len) in arena */
};

static struct module mods[MAX_MODULES];
static int nmods;
static struct sample samples[MAX_SAMPLES];
static volatile int nsamples;
static unsigned char *arena;
static size_t arena_used;
static __u64 stack_end;
static long long cpu_stop_ns;

/* The sample a walk or libdw reads, and libdw's start registers. */
static const struct sample *cur;
static __u64 start_regs[3];		/* pc, sp, fp */

static int read_word(__u64 addr, __u64 *val)
{
	if (addr < cur->hsp || addr + 8 > cur->hsp + cur->len ||
	    addr + 8 < addr)
		return -1;
	memcpy(val, arena + cur->off + (addr - cur->hsp), 8);
	return 0;
}

static int find_rule(__u64 addr, struct spu_rule *rule)
{
	int i;

	for (i = 0; i < nmods; i++) {
		const struct spu_table *t = &mods[i].t;
		long k;

		if (addr < mods[i].lo || addr >= mods[i].hi)
			continue;
		k = spu_find(t, addr - mods[i].bias - t->hdr->base);
		if (k < 0)
			return -1;
		*rule = t->rule[k];
		return 0;
	}
	return -1;
}

#define SPU_READ_WORD(ctx, addr, val)	((void)(ctx), read_word((addr), (val)))
#define SPU_FIND_RULE(ctx, addr, rule)	((void)(ctx), find_rule((addr), (rule)))
#include <sprofil/unwind_table.h>

static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void on_prof(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	struct sample *s;
	__u64 pc, sp, fp;
	size_t len;

	(void)si;
	/* The handler's own registers, at one instruction. */
	asm volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
		     : "=r"(pc), "=r"(sp), "=r"(fp));
	if (uw_stop)
		goto out;
	if (nsamples >= MAX_SAMPLES || cpu_ns() >= cpu_stop_ns) {
		uw_stop = 1;
		goto out;
	}
	len = stack_end - sp;
	if (len > STACK_CAP)
		len = STACK_CAP;
	if (arena_used + len > ARENA_BYTES) {
		uw_stop = 1;
		goto out;
	}
	s = &samples[nsamples];
	s->pc = uc->uc_mcontext.gregs[REG_RIP];
	s->sp = uc->uc_mcontext.gregs[REG_RSP];
	s->fp = uc->uc_mcontext.gregs[REG_RBP];
	s->hpc = pc;
	s->hsp = sp;
	s->hfp = fp;
	s->off = arena_used;
	s->len = len;
	memcpy(arena + arena_used, (const void *)sp, len);
	arena_used += len;
	if (++nsamples >= WANT_SAMPLES)
		uw_stop = 1;
out:
	/* uw_trap's ud2: go on after it, once the stack is copied. */
	if (sig == SIGILL)
		uc->uc_mcontext.gregs[REG_RIP] += 2;
}

static void find_stack_end(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	unsigned long lo, hi;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[stack]") &&
		    sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			stack_end = hi;
	fclose(f);
	assert_true(stack_end != 0);
}

/* The vdso's image: its mapping in /proc/self/maps. */
static Elf *vdso_elf(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long lo = 0, hi = 0, a, b;
	char line[512];

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") &&
		    sscanf(line, "%lx-%lx", &a, &b) == 2) {
			lo = a;
			hi = b;
		}
	fclose(f);
	if (!lo || lo != getauxval(AT_SYSINFO_EHDR))
		return NULL;
	return elf_memory((char *)lo, hi - lo);
}

static int add_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct module *m = &mods[nmods];
	struct spu_build_stats st;
	const char *name = info->dlpi_name;
	char err[256];
	size_t bytes;
	int i;

	(void)size;
	(void)arg;
	if (nmods == MAX_MODULES)
		return 1;
	m->lo = ~0ull;
	m->hi = 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (info->dlpi_addr + ph->p_vaddr < m->lo)
			m->lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > m->hi)
			m->hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if (m->lo >= m->hi)
		return 0;
	m->bias = info->dlpi_addr;
	if (strstr(name, "linux-vdso")) {
		Elf *elf = vdso_elf();

		m->h = elf ? spu_build(elf, NULL, &bytes, &st, err,
				       sizeof(err)) : NULL;
		if (elf)
			elf_end(elf);
	} else {
		if (!*name)
			name = "/proc/self/exe";
		m->h = spu_build_file(name, &bytes, &st, err, sizeof(err));
	}
	if (!m->h) {
		print_message("no table for %s: %s\n", name, err);
		return 0;
	}
	if (spu_table_view(m->h, bytes, &m->t)) {
		print_message("%s: the builder's table is not valid\n", name);
		free(m->h);
		return 0;
	}
	snprintf(m->name, sizeof(m->name), "%s", name);
	nmods++;
	return 0;
}

/* libdw's side: one thread, the sample's copy, three registers. */
static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)arg;
	if (*thread_argp)
		return 0;
	*thread_argp = (void *)1;
	return getpid();
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			void *arg)
{
	__u64 v;

	(void)dwfl;
	(void)arg;
	if (read_word(addr, &v))
		return false;
	*result = v;
	return true;
}

/*
 * rbp, rsp and rip: rip as register 16 too, which the .plt's CFA
 * expression reads (without it libdw ends a chain stopped in a PLT
 * entry there, as if it were the outermost frame).
 */
static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	Dwarf_Word regs[2] = { start_regs[2], start_regs[1] };
	Dwarf_Word pc = start_regs[0];

	(void)arg;
	if (!dwfl_thread_state_registers(thread, 6, 2, regs) ||
	    !dwfl_thread_state_registers(thread, 16, 1, &pc))
		return false;
	dwfl_thread_state_register_pc(thread, pc);
	return true;
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

struct chain {
	__u64 pc[DEPTH + 1];
	__u32 len;
	int complete;
};

static int on_frame(Dwfl_Frame *state, void *arg)
{
	struct chain *c = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation) || c->len > DEPTH)
		return DWARF_CB_ABORT;
	c->pc[c->len++] = pc;
	return DWARF_CB_OK;
}

static void oracle_chain(Dwfl *dwfl, __u64 pc, __u64 sp, __u64 fp,
			 struct chain *c)
{
	int ret;

	start_regs[0] = pc;
	start_regs[1] = sp;
	start_regs[2] = fp;
	c->len = 0;
	ret = dwfl_getthread_frames(dwfl, getpid(), on_frame, c);
	c->complete = ret == 0;
}

static int table_chain(__u64 pc, __u64 sp, __u64 fp, struct chain *c)
{
	int ret = spu_walk(NULL, pc, sp, fp, DEPTH, c->pc, &c->len);

	c->complete = ret == 0;
	return ret;
}

static const char *where(Dwfl *dwfl, __u64 pc, char *buf, size_t len)
{
	Dwfl_Module *m = dwfl_addrmodule(dwfl, pc);
	const char *sym = m ? dwfl_module_addrname(m, pc) : NULL;
	const char *mod = m ? dwfl_module_info(m, NULL, NULL, NULL, NULL,
					       NULL, NULL, NULL) : NULL;

	snprintf(buf, len, "%s (%s)", sym ? sym : "?", mod ? mod : "?");
	return buf;
}

static int same(const struct chain *a, const struct chain *b, __u32 skip)
{
	__u32 i;

	if (a->complete != b->complete || a->len != b->len + skip)
		return 0;
	for (i = 0; i < b->len; i++)
		if (a->pc[i + skip] != b->pc[i])
			return 0;
	return 1;
}

static void show(Dwfl *dwfl, const char *what, const struct chain *c,
		 int reason)
{
	char buf[256];
	__u32 i;

	print_message("  %s: %u frames, %s\n", what, c->len,
		      c->complete ? "complete" : spu_cut_name(reason));
	for (i = 0; i < c->len; i++)
		print_message("    %#llx %s\n", (unsigned long long)c->pc[i],
			      where(dwfl, c->pc[i], buf, sizeof(buf)));
}

/* Whether a chain holds @inner and, further out, @outer (symbol names). */
static int chain_has(Dwfl *dwfl, const struct chain *c, const char *inner,
		     const char *outer)
{
	char buf[256];
	__u32 i, found = 0;

	for (i = 0; i < c->len; i++) {
		where(dwfl, c->pc[i], buf, sizeof(buf));
		if (!found && strstr(buf, inner))
			found = 1;
		else if (found && (!outer || strstr(buf, outer)))
			return 1;
	}
	return found && !outer;
}

static void test_oracle(void **state)
{
	static const Dwfl_Callbacks cbs = {
		.find_elf = dwfl_linux_proc_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
	};
	struct sigaction sa = { .sa_sigaction = on_prof,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
	int i, bad = 0, complete = 0, via_libc = 0, via_vla = 0, deep = 0;
	int at_entry = 0;
	Dwfl *dwfl;

	(void)state;
	elf_version(EV_CURRENT);
	find_stack_end();
	dl_iterate_phdr(add_module, NULL);
	assert_true(nmods >= 3);	/* the program, libc, ld.so */
	arena = malloc(ARENA_BYTES);
	assert_non_null(arena);

	/* One handler at a time: a nested one would take the same slot. */
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGPROF);
	sigaddset(&sa.sa_mask, SIGILL);
	assert_int_equal(sigaction(SIGPROF, &sa, NULL), 0);
	assert_int_equal(sigaction(SIGILL, &sa, NULL), 0);
	cpu_stop_ns = cpu_ns() + CPU_BUDGET_NS;
	assert_int_equal(setitimer(ITIMER_PROF, &it, NULL), 0);
	uw_run();
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_PROF, &it, NULL);
	signal(SIGPROF, SIG_DFL);
	signal(SIGILL, SIG_DFL);
	print_message("%d stops, %zu KiB of stack copied, %d modules\n",
		      nsamples, arena_used >> 10, nmods);
	assert_true(nsamples >= MIN_SAMPLES);

	dwfl = dwfl_begin(&cbs);
	assert_non_null(dwfl);
	assert_int_equal(dwfl_linux_proc_report(dwfl, getpid()), 0);
	assert_int_equal(dwfl_report_end(dwfl, NULL, NULL), 0);
	assert_true(dwfl_attach_state(dwfl, NULL, getpid(), &thread_cbs,
				      NULL));

	for (i = 0; i < nsamples; i++) {
		struct chain ours, theirs, hours, htheirs;
		int r1, r2;

		cur = &samples[i];
		r1 = table_chain(cur->pc, cur->sp, cur->fp, &ours);
		oracle_chain(dwfl, cur->pc, cur->sp, cur->fp, &theirs);
		r2 = table_chain(cur->hpc, cur->hsp, cur->hfp, &hours);
		oracle_chain(dwfl, cur->hpc, cur->hsp, cur->hfp, &htheirs);
		/*
		 * From the handler: its frame, the return into
		 * __restore_rt, then the interrupted chain itself.
		 */
		if (!same(&ours, &theirs, 0) || !same(&hours, &htheirs, 0) ||
		    !same(&hours, &ours, 2)) {
			if (bad++ < 5) {
				print_message("stop %d differs:\n", i);
				show(dwfl, "table, interrupted", &ours, r1);
				show(dwfl, "libdw, interrupted", &theirs, 0);
				show(dwfl, "table, from the handler", &hours,
				     r2);
				show(dwfl, "libdw, from the handler",
				     &htheirs, 0);
			}
			continue;
		}
		complete += ours.complete;
		deep += ours.complete && ours.len >= 8;
		via_libc += chain_has(dwfl, &ours, "libc.so", "uw_sort") &&
			    chain_has(dwfl, &ours, "cmp", "libc.so");
		via_vla += chain_has(dwfl, &ours, "uw_vla", "uw_run");
		at_entry += cur->pc == (__u64)uw_trap;
	}
	print_message("%d stops equal to libdw's chains (%d complete, "
		      "%d of 8 frames or more), %d through qsort's callback, "
		      "%d through the fp-based frame, %d at a function's entry\n",
		      nsamples - bad, complete, deep, via_libc, via_vla,
		      at_entry);
	dwfl_end(dwfl);
	assert_int_equal(bad, 0);
	/* Every function of the workload has CFI: chains are whole. */
	assert_true(complete * 10 >= nsamples * 9);
	assert_true(deep > 0);
	assert_true(via_libc > 0);
	assert_true(via_vla > 0);
	assert_true(at_entry > 0);
	for (i = 0; i < nmods; i++)
		free(mods[i].h);
	free(arena);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oracle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
