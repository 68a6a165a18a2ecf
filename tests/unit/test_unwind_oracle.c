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
#include <dlfcn.h>
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
	/*
	 * What a walk costs, for docs/callers.md: the stops walked again
	 * (table lookups over the 10 modules, reads from the copies), no
	 * check, for 0.2 s of CPU.  Said, never asserted.
	 */
	{
		long long t0 = cpu_ns(), t1;
		unsigned long long walks = 0, frames = 0;

		do {
			for (i = 0; i < nsamples; i++) {
				struct chain c;

				cur = &samples[i];
				table_chain(cur->pc, cur->sp, cur->fp, &c);
				frames += c.len;
				walks++;
			}
			t1 = cpu_ns();
		} while (t1 - t0 < 200000000ll);
		print_message("walk: %.0f ns per chain of %.1f frames, %.1f ns per frame\n",
			      (double)(t1 - t0) / walks,
			      (double)frames / walks,
			      (double)(t1 - t0) / frames);
	}
	assert_int_equal(bad, 0);
	/* Every function of the workload has CFI: chains are whole. */
	assert_true(complete * 10 >= nsamples * 9);
	assert_true(deep > 0);
	assert_true(via_libc > 0);
	assert_true(via_vla > 0);
	assert_true(at_entry > 0);
	for (i = 0; i < nmods; i++)
		free(mods[i].h);
	nmods = 0;
	free(arena);
	arena = NULL;
}

/*
 * Every rule of whole modules, one step each, against libdw: for
 * addresses of the module's rows (each row's first and last byte and
 * one between, in random order, as many as the CPU budget allows), the
 * step from pc = that address (and as many addresses drawn uniformly
 * from the module's span, which finds rows merged that should not be),
 * sp and fp in a fake stack whose every
 * word holds a marker of its own address, so that the caller's pc tells
 * which slot the return address was read from.  libdw unwinds one frame
 * from the same three registers and memory; the caller's pc, sp and
 * (where the table knows it) fp must be equal, and where the table has
 * no caller (end of chain, or cut), libdw must have none either.  Gaps
 * without an FDE are left out: libdw guesses there from the frame
 * pointer, which is no CFI.
 */
#define FAKE_BYTES	(64 << 10)
#define FAKE_SP		0x7e0000000000ull
#define MARK		0x300000000000ull
#define STEP_BUDGET_NS	700000000ll	/* CPU per module */
#define MIN_STEPS	1000

struct frame2 {
	__u64 pc[2], sp, fp;
	int n, fp_ok;
};

static int on_frame2(Dwfl_Frame *state, void *arg)
{
	struct frame2 *f = arg;
	Dwarf_Addr pc;
	Dwarf_Word v;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	f->pc[f->n++] = pc;
	if (f->n < 2)
		return DWARF_CB_OK;
	if (dwfl_frame_reg(state, 7, &v) == 0)
		f->sp = v;
	f->fp_ok = dwfl_frame_reg(state, 6, &v) == 0;
	f->fp = v;
	return DWARF_CB_ABORT;
}

/* Whether the module's .eh_frame or .debug_frame has an FDE for @pc. */
static int dwarf_cfi_addrframe_ok(Dwfl_Module *dm, __u64 pc)
{
	Dwarf_Addr bias;
	Dwarf_CFI *cfi[2];
	int i;

	cfi[0] = dwfl_module_eh_cfi(dm, &bias);
	cfi[1] = dwfl_module_dwarf_cfi(dm, &bias);
	for (i = 0; i < 2; i++) {
		Dwarf_Frame *fr;

		if (cfi[i] && !dwarf_cfi_addrframe(cfi[i], pc - bias, &fr)) {
			free(fr);
			return 1;
		}
	}
	return 0;
}

static __u64 rnd_state = 0x9e3779b97f4a7c15ull;

static __u64 rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* The row starts of a table, in order, and its span at the end. */
static __u32 *row_starts(const struct spu_table *t)
{
	__u32 *start = malloc((t->hdr->nrows + 1) * sizeof(*start)), p, i;

	assert_non_null(start);
	for (p = 0; p < t->npages; p++)
		for (i = t->page[p]; i < t->page[p + 1]; i++)
			start[i] = (p << SPU_PAGE_SHIFT) + t->row[i].low;
	start[t->hdr->nrows] = t->hdr->span;
	return start;
}

static void check_module(const char *path)
{
	static const Dwfl_Callbacks cbs = {
		.find_elf = dwfl_linux_proc_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
	};
	struct spu_build_stats st;
	struct module *m = &mods[0];
	struct sample fake = { .hsp = FAKE_SP, .len = FAKE_BYTES };
	int steps = 0, callers = 0, ends = 0, cuts = 0, gaps = 0, bad = 0;
	__u32 *start, *cand, ncand = 0, i;
	long long stop;
	char err[256];
	size_t bytes;
	Dwfl *dwfl;
	GElf_Addr bias;
	Dwfl_Module *dm;
	Dwarf_Addr dbias;

	m->h = spu_build_file(path, &bytes, &st, err, sizeof(err));
	if (!m->h)
		fail_msg("%s", err);
	assert_int_equal(spu_table_view(m->h, bytes, &m->t), 0);
	dwfl = dwfl_begin(&cbs);
	assert_non_null(dwfl);
	/* A shared object anywhere; an executable where it was linked. */
	dm = dwfl_report_elf(dwfl, path, path, -1, 0x100000000000ull, false);
	assert_non_null(dm);
	dwfl_module_info(dm, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	assert_int_equal(dwfl_report_end(dwfl, NULL, NULL), 0);
	assert_true(dwfl_attach_state(dwfl, NULL, getpid(), &thread_cbs,
				      NULL));
	assert_non_null(dwfl_module_getelf(dm, &dbias));
	bias = dbias;
	m->bias = bias;
	m->lo = m->h->base + bias;
	m->hi = m->lo + m->h->span;
	nmods = 1;

	/* The fake stack: each word holds MARK plus its own offset. */
	arena = malloc(FAKE_BYTES);
	assert_non_null(arena);
	for (i = 0; i < FAKE_BYTES / 8; i++)
		((__u64 *)arena)[i] = MARK + 8ull * i;
	cur = &fake;

	start = row_starts(&m->t);
	cand = malloc(4 * (size_t)m->h->nrows * sizeof(*cand));
	assert_non_null(cand);
	for (i = 0; i < m->h->nrows; i++) {
		__u32 len = start[i + 1] - start[i];

		cand[ncand++] = start[i];
		if (len > 1)
			cand[ncand++] = start[i + 1] - 1;
		if (len > 2)
			cand[ncand++] = start[i] + 1 + (__u32)(rnd() % (len - 2));
		cand[ncand++] = (__u32)(rnd() % m->h->span);
	}
	for (i = ncand - 1; i > 0; i--) {
		__u32 j = (__u32)(rnd() % (i + 1)), x = cand[i];

		cand[i] = cand[j];
		cand[j] = x;
	}
	stop = cpu_ns() + STEP_BUDGET_NS;
	for (i = 0; i < ncand && (steps < MIN_STEPS || cpu_ns() < stop); i++) {
		__u64 pc = m->lo + cand[i];
		struct spu_regs r = { .pc = pc, .sp = FAKE_SP + 4096,
				      .fp = FAKE_SP + 8192,
				      .flags = SPU_REGS_FP_KNOWN |
					       SPU_REGS_EXACT };
		struct frame2 f = { .n = 0 };
		long k = spu_find(&m->t, cand[i]);
		int ret, ok;

		start_regs[0] = r.pc;
		start_regs[1] = r.sp;
		start_regs[2] = r.fp;
		ret = dwfl_getthread_frames(dwfl, getpid(), on_frame2, &f);
		if (k >= 0 && (m->t.rule[k].how & SPU_CFA_MASK) == SPU_CFA_NONE &&
		    !dwarf_cfi_addrframe_ok(dm, pc)) {
			gaps++;
			continue;
		}
		steps++;
		switch (spu_step(NULL, &r)) {
		case SPU_STEP_CALLER:
			callers++;
			ok = f.n == 2 && f.pc[1] == r.pc && f.sp == r.sp &&
			     (!(r.flags & SPU_REGS_FP_KNOWN) ||
			      (f.fp_ok && f.fp == r.fp));
			break;
		case SPU_STEP_END:
			ends++;
			ok = f.n == 1 && ret == 0;
			break;
		default:
			cuts++;
			ok = f.n == 1;
			break;
		}
		if (!ok && bad++ < 5)
			print_message("%s: pc %#llx (link %#llx): table pc %#llx "
				      "sp %#llx fp %#llx flags %u; libdw %d "
				      "frames (%d), pc %#llx sp %#llx fp %#llx\n",
				      path, (unsigned long long)pc,
				      (unsigned long long)(pc - bias),
				      (unsigned long long)r.pc,
				      (unsigned long long)r.sp,
				      (unsigned long long)r.fp, r.flags, f.n,
				      ret, (unsigned long long)f.pc[1],
				      (unsigned long long)f.sp,
				      (unsigned long long)f.fp);
	}
	print_message("%s: %d of %u addresses stepped like libdw "
		      "(%d callers, %d ends, %d cuts), %d in gaps left out, "
		      "%d differ\n", path, steps - bad, ncand, callers, ends,
		      cuts, gaps, bad);
	free(cand);
	free(start);
	free(arena);
	arena = NULL;
	nmods = 0;
	free(m->h);
	dwfl_end(dwfl);
	assert_int_equal(bad, 0);
	assert_true(steps >= MIN_STEPS);
	assert_true(callers > steps / 2);
}

/* The modules of Debian 12 the issue names, where they are installed. */
static void test_every_rule(void **state)
{
	static const char *const more[] = {
		"/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0",
		"/usr/lib/gcc/x86_64-linux-gnu/12/cc1",
	};
	Dl_info info;
	unsigned int i;

	(void)state;
	/* libc, wherever this program found it: present everywhere. */
	assert_true(dladdr((void *)qsort, &info) && info.dli_fname);
	check_module(info.dli_fname);
	check_module("/proc/self/exe");
	for (i = 0; i < sizeof(more) / sizeof(more[0]); i++)
		if (access(more[i], R_OK) == 0)
			check_module(more[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oracle),
		cmocka_unit_test(test_every_rule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
