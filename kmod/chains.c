// SPDX-License-Identifier: GPL-2.0
/*
 * Caller sampling (SPROFIL_CALLERS): each user-mode sample's call chain,
 * walked through the thread's frame pointers and filed into the caller
 * table, both by the rules of include/sprofil/callers.h, or with the
 * unwind tables of the sample's module (unwind.c).
 *
 * The walk runs where the sample is filed: in the sampling handler (hard
 * IRQ) or at a thread's exit with IRQs off (leftover.c).  So it may not
 * sleep, fault or take the mmap lock: frame records are read with
 * copy_from_user_nofault(), which refuses kernel addresses (access_ok),
 * an mm that is not the one loaded, and any page that is not present
 * and readable, without delivering a fault to the process.  The walk is
 * bounded by the session's depth (at most SPROFIL_MAX_DEPTH records) and
 * by callers.h's rule that each record lies above the previous one.
 *
 * The chain is built in a per-CPU buffer rather than on the IRQ stack
 * (8 * SPROFIL_MAX_DEPTH = 1 KiB): both callers run with IRQs off, so
 * nothing else on this CPU can use the buffer until the chain is filed.
 *
 * Carried samples of an exiting thread (leftover.c) are filed at the
 * thread's last user pc, like their histogram samples.  On the kernels
 * we support the exit tracepoint fires after exit_mm(): the thread no
 * longer has an mm, so its stack cannot be read and those samples are
 * filed as truncated chains of that pc alone.  That is honest: the time
 * is real but where in the call tree it went is not known.
 */
#include <linux/types.h>

static int chain_read_frame(void *ctx, u64 fp, u64 rec[2]);
static int chain_text_known(void *ctx, u64 pc);
static int chain_read_code(void *ctx, u64 addr, u8 code[8]);
#define SPC_READ_FRAME(ctx, fp, rec)	chain_read_frame(ctx, fp, rec)
#define SPC_TEXT_KNOWN(ctx, pc)		chain_text_known(ctx, pc)
#define SPC_READ_CODE(ctx, addr, code)	chain_read_code(ctx, addr, code)

#include <linux/lockdep.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include "sprofil.h"

struct chain_buf {
	u64 pc[SPROFIL_MAX_DEPTH];
};

static DEFINE_PER_CPU(struct chain_buf, chain_buf);

/*
 * What filing costs, for docs/callers.md: with measure_cost set (root,
 * /sys/module/sprofil/parameters/), each sample's time in the histogram
 * count and in the chain's walk and filing is summed per CPU with
 * local_clock().  Off, it costs one predicted branch.
 */
static bool measure_cost;
module_param(measure_cost, bool, 0644);
MODULE_PARM_DESC(measure_cost, "sum the handler's filing times into cost");

struct filing_cost {
	u64 samples;
	u64 count_ns;	/* the pc into its bucket */
	u64 chain_ns;	/* the chain walked and filed */
	u64 frames;	/* frames walked, the pc included */
};

static DEFINE_PER_CPU(struct filing_cost, filing_cost);

static int get_cost(char *buf, const struct kernel_param *kp)
{
	struct filing_cost sum = { 0 };
	int cpu;

	for_each_possible_cpu(cpu) {
		struct filing_cost *c = per_cpu_ptr(&filing_cost, cpu);

		sum.samples += READ_ONCE(c->samples);
		sum.count_ns += READ_ONCE(c->count_ns);
		sum.chain_ns += READ_ONCE(c->chain_ns);
		sum.frames += READ_ONCE(c->frames);
	}
	return sysfs_emit(buf, "%llu %llu %llu %llu\n", sum.samples,
			  sum.count_ns, sum.chain_ns, sum.frames);
}

static const struct kernel_param_ops cost_ops = {
	.get = get_cost,
};

module_param_cb(cost, &cost_ops, NULL, 0444);
MODULE_PARM_DESC(cost,
		 "with measure_cost: samples, ns counting pcs, ns filing chains, frames");

/* The time a sample's filing starts at, or 0 when not measuring. */
u64 sprofil_cost_clock(void)
{
	return READ_ONCE(measure_cost) ? local_clock() : 0;
}

static void cost_account(u64 t0, u64 t1, u32 frames)
{
	struct filing_cost *c = this_cpu_ptr(&filing_cost);

	c->samples++;
	c->count_ns += t1 - t0;
	c->chain_ns += local_clock() - t1;
	c->frames += frames;
}

/* Reads the frame record at user address @fp; nonzero if it cannot. */
static int chain_read_frame(void *ctx, u64 fp, u64 rec[2])
{
	return copy_from_user_nofault(rec, u64_to_user_ptr(fp),
				      2 * sizeof(u64)) != 0;
}

/* The leaf rule's look at a call instruction, in the same way. */
static int chain_read_code(void *ctx, u64 addr, u8 code[8])
{
	return copy_from_user_nofault(code, u64_to_user_ptr(addr), 8) != 0;
}

/* Whether @pc lies in one of the session's regions (not the overflow). */
static int chain_text_known(void *ctx, u64 pc)
{
	struct sprofil_table *t = ctx;

	return spm_lookup(&t->map, pc) >= 0;
}

/*
 * Whether the interrupted thread's frame records can be read: it still
 * runs on the sampled mm (an exiting thread has dropped it), and in
 * 64-bit mode (a compat task's records have 4-byte fields).
 */
static bool frames_readable(struct sprofil_table *t, struct pt_regs *regs)
{
	if (current->mm != t->sampled)
		return false;
#ifdef CONFIG_X86_64
	return user_64bit_mode(regs);
#else
	return IS_ENABLED(CONFIG_64BIT) && !IS_ENABLED(CONFIG_COMPAT);
#endif
}

/*
 * Files @n samples of the current thread, interrupted in user mode at
 * @regs, with their call chain, if the session has a caller table.
 * @t0: sprofil_cost_clock() before the pc was counted.  IRQs are off and
 * the caller holds the RCU read lock on @t.
 */
void sprofil_file_chain(struct sprofil_table *t, struct pt_regs *regs, u32 n,
			u64 t0)
{
	u64 pc = instruction_pointer(regs), t1 = t0 ? local_clock() : 0;
	struct chain_buf *buf;
	bool readable;
	u32 len = 1;
	int cut = 1;

	lockdep_assert_irqs_disabled();
	if (!t->callers.npages || READ_ONCE(t->callers.off)) {
		if (t0)
			cost_account(t0, t1, 0);
		return;
	}
	buf = this_cpu_ptr(&chain_buf);
	buf->pc[0] = pc;
	/*
	 * A module with an unwind table is walked with it, through code
	 * without frame pointers (unwind.c); others by their records.
	 */
	readable = frames_readable(t, regs);
	if (readable && sprofil_unwind_covers(t->unwind, pc))
		cut = sprofil_unwind_walk(t->unwind, pc,
					  user_stack_pointer(regs),
					  frame_pointer(regs), t->spc.depth,
					  buf->pc, &len) != 0;
	else if (readable)
		cut = spc_walk(t, pc, frame_pointer(regs),
			       user_stack_pointer(regs), 0, t->spc.depth,
			       buf->pc, &len);
	/* The thread id in the process's own pid namespace, as gettid(). */
	spc_file(&t->spc, buf->pc, len, cut, n,
		 t->per_thread ? spc_thread_pc(task_pid_vnr(current)) : 0);
	if (t0)
		cost_account(t0, t1, len);
}
