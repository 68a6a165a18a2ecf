// SPDX-License-Identifier: GPL-2.0
/*
 * Caller sampling (SPROFIL_CALLERS): each user-mode sample's call chain,
 * walked through the thread's frame pointers and filed into the caller
 * table, both by the rules of include/sprofil/callers.h.
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
#define SPC_READ_FRAME(ctx, fp, rec)	chain_read_frame(ctx, fp, rec)
#define SPC_TEXT_KNOWN(ctx, pc)		chain_text_known(ctx, pc)

#include <linux/lockdep.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include "sprofil.h"

struct chain_buf {
	u64 pc[SPROFIL_MAX_DEPTH];
};

static DEFINE_PER_CPU(struct chain_buf, chain_buf);

/* Reads the frame record at user address @fp; nonzero if it cannot. */
static int chain_read_frame(void *ctx, u64 fp, u64 rec[2])
{
	return copy_from_user_nofault(rec, u64_to_user_ptr(fp),
				      2 * sizeof(u64)) != 0;
}

/* Whether @pc lies in one of the session's regions (not the overflow). */
static int chain_text_known(void *ctx, u64 pc)
{
	struct sprofil_table *t = ctx;

	return spm_lookup(&t->map, pc) >= 0;
}

/*
 * Whether the interrupted thread's frame records can be read: it still
 * runs on the table's mm (an exiting thread has dropped it), and in
 * 64-bit mode (a compat task's records have 4-byte fields).
 */
static bool frames_readable(struct sprofil_table *t, struct pt_regs *regs)
{
	if (current->mm != t->mm)
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
 * IRQs are off and the caller holds the RCU read lock on @t.
 */
void sprofil_file_chain(struct sprofil_table *t, struct pt_regs *regs, u32 n)
{
	u64 pc = instruction_pointer(regs);
	struct chain_buf *buf;
	u32 len = 1;
	int cut = 1;

	if (!t->callers.npages || READ_ONCE(t->callers.off))
		return;
	lockdep_assert_irqs_disabled();
	buf = this_cpu_ptr(&chain_buf);
	buf->pc[0] = pc;
	if (frames_readable(t, regs))
		cut = spc_walk(t, pc, frame_pointer(regs),
			       user_stack_pointer(regs), 0, t->spc.depth,
			       buf->pc, &len);
	spc_file(&t->spc, buf->pc, len, cut, n);
}
