// SPDX-License-Identifier: GPL-2.0
/*
 * The unfinished period of an exiting thread.
 *
 * A thread's counter files a sample each time the thread completes a
 * period of CPU time; whatever it ran since its last sample is lost when
 * it exits.  For long threads that is under one period each, but a
 * thread that runs for less than a period (thread-per-task pools) is
 * never sampled at all: thousands of 1 ms threads at a 4 ms period would
 * show almost no samples.
 *
 * So at each thread's exit (the sched_process_exit tracepoint, which runs
 * in the exiting thread before its counters are torn down) the time its
 * counter ran since its last sample is added to the session's carry, and
 * each whole period in the carry is filed as a sample at the thread's
 * last user PC, where it entered the kernel to exit.  The totals are then
 * right: samples x period tracks the process's CPU time however short its
 * threads are.  Attribution of the carried part is to the exit path (in
 * the C library), which is honest about where the time is not known;
 * spreading it over PCs the thread never reported would invent data.
 * The carry may go below zero: the sampling handler rounds a late timer to
 * the nearest period, so a thread may have been credited up to half a
 * period ahead; keeping the sign keeps the total unbiased.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/perf_event.h>
#include <linux/ptrace.h>
#include <linux/sched/task_stack.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include "sprofil.h"

static struct tracepoint *exit_tp;

/* Exits of profiled threads seen, and periods filed from carried time. */
static atomic64_t exits_seen = ATOMIC64_INIT(0);
static atomic64_t periods_carried = ATOMIC64_INIT(0);

static int get_counter(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lld\n", atomic64_read(kp->arg));
}

static const struct kernel_param_ops counter_ops = {
	.get = get_counter,
};

module_param_cb(exits_seen, &counter_ops, &exits_seen, 0444);
MODULE_PARM_DESC(exits_seen, "exits of profiled threads");
module_param_cb(periods_carried, &counter_ops, &periods_carried, 0444);
MODULE_PARM_DESC(periods_carried,
		 "samples filed from the unfinished periods of exited threads");

/* Adds @ns to the carry and takes whole periods out of it. */
static u32 carry_periods(atomic64_t *carry, s64 ns, u64 period)
{
	s64 old = atomic64_read(carry), next;
	u64 n;

	do {
		next = old + ns;
		n = next > 0 ? div64_u64(next, period) : 0;
	} while (!atomic64_try_cmpxchg(carry, &old, next - n * period));
	return min_t(u64, n, U32_MAX);
}

/* With IRQs off, on the exiting thread's own counter. */
static void credit_leftover(struct perf_event *event, struct pt_regs *regs)
{
	struct sprofil_session *s = event->overflow_handler_context;
	u64 period = event->hw.sample_period, value;
	s64 left;
	u32 n;

	atomic64_inc(&exits_seen);
	/*
	 * perf_event_read_local() refuses inherited counters; this one is
	 * the exiting thread's own, active on this CPU with IRQs off, which
	 * is all its pmu->read() needs to bring the count up to now.
	 */
	if (!period || READ_ONCE(event->state) != PERF_EVENT_STATE_ACTIVE ||
	    READ_ONCE(event->oncpu) != smp_processor_id())
		return;
	event->pmu->read(event);
	value = local64_read(&event->count);
	/* hw.freq_count_stamp: the count at the last sample (sampler.c). */
	left = value - event->hw.freq_count_stamp;
	event->hw.freq_count_stamp = value;
	n = carry_periods(&s->carry_ns, left, period);
	atomic64_add(n, &periods_carried);
	sprofil_file_samples(event, regs, n);
}

/*
 * The context holding the task's software counters: 6.1 has one per kind
 * (an array indexed by perf_sw_context), 6.2 and later a single one.
 */
static struct perf_event_context *task_sw_context(struct task_struct *task)
{
	struct perf_event_context **ctxp = (void *)&task->perf_event_ctxp;
	bool per_kind = sizeof(task->perf_event_ctxp) > sizeof(*ctxp);

	return READ_ONCE(ctxp[per_kind ? perf_sw_context : 0]);
}

/*
 * Tracepoint probe, in the exiting thread (@task is current), with
 * preemption off; its counters are still in its context, which cannot go
 * away before it has exited.  Holding ctx->lock keeps a concurrent STOP
 * from removing an inherited counter under us, and our RCU read side
 * (preemption off) keeps the session alive.
 */
static void sprofil_thread_exit(void *data, struct task_struct *task)
{
	struct perf_event_context *ctx = task_sw_context(task);
	struct pt_regs *regs = task_pt_regs(task);
	struct perf_event *event;
	unsigned long flags;

	if (!ctx || task != current || (task->flags & PF_KTHREAD))
		return;
	raw_spin_lock_irqsave(&ctx->lock, flags);
	list_for_each_entry(event, &ctx->event_list, event_entry)
		if (sprofil_is_sampler(event))
			credit_leftover(event, regs);
	raw_spin_unlock_irqrestore(&ctx->lock, flags);
}

static void find_exit_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_exit"))
		exit_tp = tp;
}

int sprofil_leftover_init(void)
{
	int err;

	for_each_kernel_tracepoint(find_exit_tp, NULL);
	if (!exit_tp) {
		pr_err("no sched_process_exit tracepoint\n");
		return -ENOENT;
	}
	err = tracepoint_probe_register(exit_tp, sprofil_thread_exit, NULL);
	if (err)
		pr_err("cannot attach to sched_process_exit: %d\n", err);
	return err;
}

void sprofil_leftover_exit(void)
{
	tracepoint_probe_unregister(exit_tp, sprofil_thread_exit, NULL);
	/* No probe is still running our code. */
	tracepoint_synchronize_unregister();
}
