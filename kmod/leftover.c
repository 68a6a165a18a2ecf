// SPDX-License-Identifier: GPL-2.0
/*
 * The unfinished periods of exiting threads.
 *
 * A thread's counter files a sample each time the thread completes a
 * period of CPU time; what it ran since its last sample is dropped when
 * it exits.  For a long thread that is under one period, but a pool that
 * spawns a thread per task of 1 ms, sampled every 10 ms, would show
 * almost none of its work.
 *
 * So the time no sample covered is carried per START (struct
 * sprofil_threads) and filed at thread exits, one sample per whole
 * period carried, at the exiting thread's last user PC (where it entered
 * the kernel to exit: honest about the time's place being unknown, where
 * spreading it over PCs the thread never reported would invent data).
 * Over thousands of threads samples x period then tracks the CPU time.
 * With a caller table they are filed as truncated chains of that PC
 * alone: the thread's mm, hence its stack, is gone by then (chains.c).
 *
 * The hook is the sched_process_exit tracepoint, in the exiting thread.
 * No perf internals beyond two public fields are needed, whatever the
 * order of perf_event_exit_task() and the tracepoint in do_exit() (Debian
 * 6.1 and 6.12 flush counters first, older order flushes after):
 *  - a thread created after START counts on a copy of its creator's
 *    counter; perf adds the copy's count to the original's child_count
 *    when the thread exits.  Each exit carries the growth of child_count
 *    of this START's counters (so a copy flushed after the tracepoint is
 *    carried at the next exit) minus the periods the copies took, user or
 *    kernel, which the sampling handler adds up in inherited_periods;
 *  - a thread with a counter of its own carries its count since its last
 *    sample (the handler's hw.freq_count_stamp, see sampler.c).
 * The carry is signed: the handler rounds a late period to the nearest
 * one, and live copies' periods are subtracted before their counts come
 * in; the sum stays unbiased.
 *
 * Only user time is filed.  Task-clock counts user and kernel time alike
 * and the handler files only the periods that end in user mode; so the
 * carried time is scaled by the user share of the exiting threads' ticks
 * (the split getrusage() applies to the same CPU time), pooled over the
 * START's exits.  Thread start and exit are mostly kernel time (rseq,
 * robust list, the stack's madvise, exit itself): a thread-per-task pool
 * would otherwise be credited them as user time.  Each thread's own share
 * cannot be used: a thread of 1 ms is mostly never ticked, and crediting
 * an unticked one in full made such pools 22 % too heavy.
 *
 * Cost: every exit in the system checks for sessions; an exit of a
 * profiled thread walks the START's own counters (one per thread that
 * existed at START) under RCU.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/ptrace.h>
#include <linux/sched/signal.h>
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

/* Time the copies of this START's counters counted since the last exit. */
static s64 inherited_counted(struct sprofil_threads *th)
{
	struct sprofil_thread *rec;
	unsigned long tid;
	s64 ns = 0, now;

	xa_for_each(&th->xa, tid, rec) {
		if (!rec->event)
			continue;
		now = atomic64_read(&rec->event->child_count);
		ns += now - atomic64_xchg(&rec->child_seen, now);
	}
	return ns;
}

/* Time the exiting thread's own counter, if it has one, did not sample. */
static s64 own_unsampled(struct sprofil_threads *th)
{
	struct sprofil_thread *rec = xa_load(&th->xa, current->pid);
	struct perf_event *event;

	if (!rec || rec->task != current || !rec->event)
		return 0;
	event = rec->event;
	/* With IRQs off the handler cannot move the stamp under us. */
	return local64_read(&event->count) - event->hw.freq_count_stamp;
}

/*
 * Pools the exiting thread's user and system ticks, weighted by the part
 * of its life the carry likely holds: all of it for a thread that lived
 * under half a period, about half a period of a longer one.  A short
 * thread is rarely ticked, so its own share says nothing; pooled over
 * the START's exits the ticks are an unbiased sample of where the carried
 * time went.  They are the split getrusage() applies to the same time.
 */
static void pool_ticks(struct sprofil_threads *th, u64 period)
{
	u64 life = READ_ONCE(current->se.sum_exec_runtime);
	u64 ut = READ_ONCE(current->utime);
	u64 st = READ_ONCE(current->stime);

	if (life > period / 2) {
		ut = mul_u64_u64_div_u64(ut, period / 2, life);
		st = mul_u64_u64_div_u64(st, period / 2, life);
	}
	atomic64_add(ut, &th->ticks_user);
	atomic64_add(st, &th->ticks_system);
}

/*
 * Adds @ns to the START's carried time and returns the periods newly due:
 * its user part, by the pooled ticks, in whole periods, less those filed.
 * The estimate is made over the START's whole carry, so an early one that
 * filed too much is made up by filing nothing until the carry catches up.
 * With no tick pooled yet the time counts as user.
 */
static u32 periods_due(struct sprofil_threads *th, s64 ns, u64 period)
{
	s64 total = atomic64_add_return(ns, &th->carried_ns);
	u64 ut = atomic64_read(&th->ticks_user);
	u64 st = atomic64_read(&th->ticks_system);
	s64 filed = atomic64_read(&th->carried_periods);
	s64 due;

	if (total <= 0)
		return 0;
	if (ut + st)
		total = mul_u64_u64_div_u64(total, ut, ut + st);
	due = div64_u64(total, period);
	do {
		if (due <= filed)
			return 0;
	} while (!atomic64_try_cmpxchg(&th->carried_periods, &filed, due));
	return min_t(s64, due - filed, U32_MAX);
}

static void credit_exit(struct sprofil_session *s, struct pt_regs *regs)
{
	struct sprofil_threads *th = rcu_dereference(s->threads);
	unsigned long flags;
	u64 period;
	s64 ns;
	u32 n;

	if (!th)
		return;
	atomic64_inc(&exits_seen);
	period = th->attr.sample_period;
	local_irq_save(flags);
	pool_ticks(th, period);
	ns = inherited_counted(th) + own_unsampled(th) -
	     atomic64_xchg(&th->inherited_periods, 0) * period;
	n = periods_due(th, ns, period);
	if (n && user_mode(regs)) {
		atomic64_add(n, &periods_carried);
		sprofil_file_samples(s, regs, n);
	}
	local_irq_restore(flags);
}

/*
 * In the exiting thread, which may already have dropped its mm: it then
 * still runs on it as its active_mm, kept until the thread is gone.  If
 * it was the mm's last user the session is gone too, and so is anybody
 * who could read the profile.
 */
static void sprofil_thread_exit(void *data, struct task_struct *task)
{
	struct sprofil_session *s;
	struct mm_struct *mm;

	if (task != current || (task->flags & PF_KTHREAD))
		return;
	mm = task->mm ?: task->active_mm;
	rcu_read_lock();
	s = sprofil_session_lookup_rcu(mm);
	if (s)
		credit_exit(s, task_pt_regs(task));
	rcu_read_unlock();
}

#ifdef SPROFIL_EXIT_TP_GROUP_DEAD
/* 6.15 added whether the thread group is dead to the tracepoint (Kbuild). */
static void sprofil_exit_probe(void *data, struct task_struct *task,
			       bool group_dead)
{
	sprofil_thread_exit(data, task);
}
#else
static void sprofil_exit_probe(void *data, struct task_struct *task)
{
	sprofil_thread_exit(data, task);
}
#endif

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
	err = tracepoint_probe_register(exit_tp, sprofil_exit_probe, NULL);
	if (err)
		pr_err("cannot attach to sched_process_exit: %d\n", err);
	return err;
}

void sprofil_leftover_exit(void)
{
	tracepoint_probe_unregister(exit_tp, sprofil_exit_probe, NULL);
	/* No probe is still running our code or using a session. */
	tracepoint_synchronize_unregister();
}
