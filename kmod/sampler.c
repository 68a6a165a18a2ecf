// SPDX-License-Identifier: GPL-2.0
/*
 * Sampling on the process's CPU-time clock: one perf task-clock counter per
 * thread, created in the kernel (no fd, no paranoia check), with
 *  - inherit + inherit_thread: threads created later get a copy of their
 *    creator's counter, fork children do not (the library re-arms those);
 *  - remove_on_exec: exec ends sampling even before the old mm is released.
 * The handler runs in hard IRQ (task-clock is an hrtimer event, never NMI),
 * so it may only read RCU-published state and store into pinned memory.
 * It sees kernel-mode periods too, to account for them (see
 * periods_elapsed()), but only user-mode ones are counted.
 *
 * Why per-thread task-clock rather than a per-CPU timer: it samples every
 * period of each thread's own CPU time (no ITIMER_PROF-style coalescing of
 * busy threads), costs nothing on CPUs not running the process, and needs
 * no CPU-hotplug handling.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <sprofil/events.h>
#include "sprofil.h"

/* Threads are gathered under RCU in batches, then counted outside it. */
#define SCAN_BATCH	64
/*
 * Passes over the thread list, each of which found new threads.  Only a
 * thread cloned during a pass by a thread not yet covered needs another
 * pass (the others inherit their creator's counter); a process that keeps
 * cloning through its uncovered threads for this many passes has the
 * last few covered by inheritance only once their creators are.
 */
#define SCAN_PASSES	64

static u64 sprofil_period_ns(u32 flags, u64 requested)
{
	if (!requested)
		requested = TICK_NSEC / ((flags & SPROFIL_FAST) ?
					 SPROFIL_FAST_DIVISOR : 1);
	return max_t(u64, requested, SPROFIL_MIN_PERIOD_NS);
}

/* START's event, checked by main.c: the clock or a software event. */
void sprofil_sampling_of(const struct sprofil_start *args,
			 struct sprofil_sampling *how)
{
	how->event = args->event_type;
	if (how->event == SPROFIL_EVENT_CPU_CLOCK)
		how->period = sprofil_period_ns(args->flags, args->period_ns);
	else
		how->period = args->event_period ? args->event_period : 1;
}

/*
 * A thread may be counted twice: by its own counter, created when START
 * scanned the threads, and by one inherited from its creator if it was
 * cloned during the scan.  The inherited one then stays silent.
 */
static bool counted_by_own_event(struct sprofil_session *s,
				 struct perf_event *event)
{
	struct sprofil_threads *th = rcu_dereference(s->threads);
	/*
	 * Whose counter it is, not who runs: on a switch between a thread
	 * and its clone the kernel may swap their cloned event contexts
	 * (perf_event_context_sched_out()), and a covered thread then runs
	 * on its clone's inherited counter, whose periods are its own.
	 */
	struct task_struct *owner = event->hw.target;
	struct sprofil_thread *rec;

	if (!th || !owner)
		return false;
	rec = xa_load(&th->xa, owner->pid);
	return rec && rec->task == owner && rec->event;
}

/*
 * Periods of the thread's CPU time since this counter's last sample.  The
 * hrtimer behind task-clock fires once however late it is (a long
 * IRQs-off stretch, a preempted virtual CPU) and drops the periods it
 * missed; like BSD's profclock, which credits its missed ticks, we count
 * them.  The count at the last sample is kept in hw.freq_count_stamp,
 * which perf itself only uses for attr.freq events, and ours never are.
 */
static u32 periods_elapsed(struct perf_event *event)
{
	u64 period = event->hw.sample_period;
	u64 elapsed = local64_read(&event->count) - event->hw.freq_count_stamp;
	u64 n = div64_u64(elapsed + period / 2, period);

	event->hw.freq_count_stamp += n * period;
	return min_t(u64, n, U32_MAX);
}

/*
 * Files @n periods of the current thread at user PC @regs, and their call
 * chain with SPROFIL_CALLERS (chains.c), with IRQs off (the sampling
 * handler, or a thread's exit: see leftover.c), under RCU.  A session
 * being stopped has no table while its counters are disarmed: those
 * periods are not taken.  Counted as samples and misses, they broke
 * STATUS's rule that every sample taken is in a bucket, the overflow
 * or the chains (6 of 1791 on 6.12 under qemu).
 */
void sprofil_file_samples(struct sprofil_session *s, struct pt_regs *regs,
			  u32 n)
{
	struct sprofil_stats *stats = this_cpu_ptr(s->stats);
	struct sprofil_table *t = rcu_dereference(s->table);
	u64 t0;

	if (!t)
		return;
	stats->samples += n;
	t0 = sprofil_cost_clock();
	sprofil_table_count(t, instruction_pointer(regs), n, stats);
	sprofil_file_chain(t, regs, n, t0);
}

static void sprofil_sample(struct perf_event *event,
			   struct perf_sample_data *data, struct pt_regs *regs)
{
	struct sprofil_session *s = event->overflow_handler_context;
	struct sprofil_threads *th;
	unsigned long flags;
	u32 n;

	if (!regs || current->mm != s->mn.mm)
		return;
	n = periods_elapsed(event);
	if (!n)
		return;
	/*
	 * A software event's handler runs where the event happens, with
	 * IRQs on in the fault path: filing wants them off, as in the
	 * task-clock's hard IRQ.  A context switch happens in kernel mode
	 * and is charged to the user PC the thread returns to; a fault in
	 * kernel mode (on a system call's user buffer) has no user PC and,
	 * like the clock's kernel-mode periods, is not filed.
	 */
	local_irq_save(flags);
	if (!user_mode(regs) &&
	    event->attr.config == PERF_COUNT_SW_CONTEXT_SWITCHES &&
	    !(current->flags & PF_KTHREAD))
		regs = task_pt_regs(current);
	rcu_read_lock();
	if (event->parent) {
		/* Balanced against the count it leaves at exit. */
		th = rcu_dereference(s->threads);
		if (th)
			atomic64_add(n, &th->inherited_periods);
		if (counted_by_own_event(s, event))
			goto out;
	}
	if (user_mode(regs))
		sprofil_file_samples(s, regs, n);
out:
	rcu_read_unlock();
	local_irq_restore(flags);
}

static int cover_thread(struct sprofil_session *s, struct sprofil_threads *th,
			struct task_struct *task, bool disabled)
{
	struct perf_event_attr attr = th->attr;
	struct sprofil_thread *rec;
	struct perf_event *event;
	int err;

	rec = kzalloc(sizeof(*rec), SPROFIL_GFP);
	if (!rec)
		return -ENOMEM;
	attr.disabled = disabled;
	event = perf_event_create_kernel_counter(&attr, -1, task,
						 sprofil_sample, s);
	if (IS_ERR(event)) {
		err = PTR_ERR(event);
		/* The thread is exiting: remember it so it is not rescanned. */
		if (err != -ESRCH) {
			kfree(rec);
			return err;
		}
		event = NULL;
	}
	get_task_struct(task);
	rec->task = task;
	rec->event = event;
	err = xa_err(xa_store(&th->xa, task->pid, rec, SPROFIL_GFP));
	if (err) {
		if (event)
			perf_event_release_kernel(event);
		put_task_struct(task);
		kfree(rec);
	}
	return err;
}

/* A task of @mm that needs a counter of its own. */
static bool uncovered(struct sprofil_threads *th, struct task_struct *t,
		      struct mm_struct *mm)
{
	return !(t->flags & (PF_EXITING | PF_KTHREAD)) &&
	       READ_ONCE(t->mm) == mm && !xa_load(&th->xa, t->pid);
}

/*
 * Fills @batch with up to SCAN_BATCH referenced tasks of the session's mm
 * not yet in @th; returns how many.  The session belongs to the mm, so
 * when the mm is shared with other processes (CLONE_VM without
 * CLONE_THREAD, vfork) their threads are profiled too: then every
 * process is scanned, which only such a START pays for.  So is every
 * process for a START from @outside, which knows the mm and not a task
 * of it.
 */
static int gather(struct sprofil_session *s, struct sprofil_threads *th,
		  bool outside, struct task_struct *batch[SCAN_BATCH])
{
	struct mm_struct *mm = s->mn.mm;
	bool all = outside ||
		   atomic_read(&mm->mm_users) > get_nr_threads(current);
	struct task_struct *p, *t;
	int n = 0;

	rcu_read_lock();
	if (all) {
		for_each_process_thread(p, t)
			if (uncovered(th, t, mm)) {
				get_task_struct(t);
				batch[n++] = t;
				if (n == SCAN_BATCH)
					goto out;
			}
	} else {
		for_each_thread(current, t)
			if (uncovered(th, t, mm)) {
				get_task_struct(t);
				batch[n++] = t;
				if (n == SCAN_BATCH)
					goto out;
			}
	}
out:
	rcu_read_unlock();
	return n;
}

/*
 * Gives every task of the session's mm not yet in @th a counter of its
 * own.  There is no limit on the number of threads; a fatal signal ends
 * the scan.  Runs under the session's lock only.
 */
static int cover_threads(struct sprofil_session *s, struct sprofil_threads *th,
			 bool disabled, bool outside)
{
	struct task_struct *batch[SCAN_BATCH];
	int passes = 0, n, i, err = 0;

	while (!err && passes < SCAN_PASSES) {
		n = gather(s, th, outside, batch);
		if (!n)
			break;
		/* A full batch is one pass's progress, not a new pass. */
		if (n < SCAN_BATCH)
			passes++;
		for (i = 0; i < n; i++) {
			if (!err)
				err = cover_thread(s, th, batch[i], disabled);
			put_task_struct(batch[i]);
		}
		if (!err && fatal_signal_pending(current))
			err = -EINTR;
		cond_resched();
	}
	return err;
}

/* Releasing a counter also kills every copy inherited from it. */
static void threads_release(struct sprofil_threads *th)
{
	struct sprofil_thread *rec;
	unsigned long tid;

	if (!th)
		return;
	xa_for_each(&th->xa, tid, rec)
		if (rec->event)
			perf_event_release_kernel(rec->event);
	/* Handlers that loaded @th before it was unpublished are done. */
	synchronize_rcu();
	xa_for_each(&th->xa, tid, rec) {
		put_task_struct(rec->task);
		kfree(rec);
	}
	xa_destroy(&th->xa);
	kfree(th);
}

/*
 * Stops every counter; true if that waited for an RCU grace period, which
 * then also covers whatever the caller unpublished before.
 */
bool sprofil_sampler_stop(struct sprofil_session *s)
{
	struct sprofil_threads *old;

	old = rcu_replace_pointer(s->threads, NULL, lockdep_is_held(&s->lock));
	threads_release(old);
	s->sampling = (struct sprofil_sampling){};
	return old;
}

/*
 * Starts sampling every thread of the session's mm (the caller's, unless
 * @outside) as @how says, keeping the
 * live counters when the event and period are unchanged.  New counters are created
 * disabled and enabled only after the old ones are gone, so no sample is
 * taken twice.  On failure before the swap nothing changed; after it,
 * sampling is stopped.
 */
int sprofil_sampler_start(struct sprofil_session *s,
			  const struct sprofil_sampling *how, bool outside)
{
	struct sprofil_threads *th, *old;
	struct sprofil_thread *rec;
	unsigned long tid;
	int err;

	old = rcu_dereference_protected(s->threads, lockdep_is_held(&s->lock));
	if (old && s->sampling.event == how->event &&
	    s->sampling.period == how->period)
		return 0;

	th = kzalloc(sizeof(*th), SPROFIL_GFP);
	if (!th)
		return -ENOMEM;
	xa_init(&th->xa);
	/* The clock and the software events: main.c refuses the PMU's. */
	th->attr.type = spe_events[how->event].perf_type;
	th->attr.config = spe_events[how->event].perf_config;
	th->attr.size = sizeof(th->attr);
	th->attr.sample_period = how->period;
	th->attr.exclude_hv = 1;
	th->attr.inherit = 1;
	th->attr.inherit_thread = 1;
	th->attr.remove_on_exec = 1;

	err = cover_threads(s, th, true, outside);
	if (err) {
		threads_release(th);
		return err;
	}
	rcu_assign_pointer(s->threads, th);
	threads_release(old);
	xa_for_each(&th->xa, tid, rec)
		if (rec->event)
			perf_event_enable(rec->event);
	/* Threads cloned while the counters were off inherited them off. */
	err = cover_threads(s, th, false, outside);
	if (err) {
		sprofil_sampler_stop(s);
		return err;
	}
	/* The hrtimer of a task-clock event fires every sample_period ns. */
	s->sampling = *how;
	return 0;
}
