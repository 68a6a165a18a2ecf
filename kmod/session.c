// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions: one per mm, found and kept with the mmu-notifier get/put API
 * (the amdkfd pattern).  The notifier tells us when the mm goes away (exit,
 * or exec releasing the old mm) and when a buffer's memory is unmapped or
 * changed under us.
 *
 * Locking: sprofil_mutex serialises every ioctl, release and module exit,
 * and guards the session list; session->lock orders table and counter
 * swaps against the buffer recheck worker.  The sampling handler and the
 * invalidate callback only read RCU-published pointers.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include "sprofil.h"

static DEFINE_MUTEX(sprofil_mutex);
static LIST_HEAD(sprofil_sessions);

static struct sprofil_session *to_session(struct mmu_notifier *mn)
{
	return container_of(mn, struct sprofil_session, mn);
}

static void session_recheck(struct work_struct *work)
{
	struct sprofil_session *s =
		container_of(work, struct sprofil_session, recheck);
	struct sprofil_table *t;

	mutex_lock(&s->lock);
	t = rcu_dereference_protected(s->table, lockdep_is_held(&s->lock));
	if (t)
		sprofil_table_recheck(t, s->mn.mm);
	mutex_unlock(&s->lock);
}

/*
 * The table if @range touches one of its buffers.  Callers may run in
 * non-blocking context: they only flag and queue work, under RCU.
 */
static struct sprofil_table *
table_touched(struct sprofil_session *s, const struct mmu_notifier_range *range)
{
	struct sprofil_table *t = rcu_dereference(s->table);

	return t && sprofil_table_overlaps(t, range->start, range->end) ?
	       t : NULL;
}

/* munmap and mremap: the buffer is gone, its region is off at once. */
static int session_invalidate_start(struct mmu_notifier *mn,
				    const struct mmu_notifier_range *range)
{
	struct sprofil_table *t;

	rcu_read_lock();
	t = table_touched(to_session(mn), range);
	if (t && range->event == MMU_NOTIFY_UNMAP)
		sprofil_table_unmap(t, range->start, range->end);
	rcu_read_unlock();
	return 0;
}

/*
 * Protection changes and page-table clears are rechecked once they are
 * done: at invalidate_range_start the old page is still mapped, so a
 * recheck racing with a MADV_DONTNEED zap would find the buffer intact.
 */
static void session_invalidate_end(struct mmu_notifier *mn,
				   const struct mmu_notifier_range *range)
{
	struct sprofil_session *s = to_session(mn);

	rcu_read_lock();
	if ((range->event == MMU_NOTIFY_CLEAR ||
	     range->event == MMU_NOTIFY_PROTECTION_VMA) &&
	    table_touched(s, range))
		queue_work(system_wq, &s->recheck);
	rcu_read_unlock();
}

/* Ends sampling and frees the table; counters stay readable. */
static void session_stop(struct sprofil_session *s)
{
	struct sprofil_table *t;

	mutex_lock(&s->lock);
	sprofil_sampler_stop(s);
	t = rcu_replace_pointer(s->table, NULL, lockdep_is_held(&s->lock));
	mutex_unlock(&s->lock);
	/* No handler or invalidate callback still sees @t or queues work. */
	synchronize_rcu();
	cancel_work_sync(&s->recheck);
	sprofil_table_destroy(t);
}

/* Unlists, stops and drops the session's lifetime reference. */
static void session_destroy(struct sprofil_session *s)
{
	lockdep_assert_held(&sprofil_mutex);
	list_del_init(&s->node);
	session_stop(s);
	mmu_notifier_put(&s->mn);
}

/*
 * The mm is going away: exit, or exec of a new image.  The teardown runs
 * right here rather than in a work item (as kernel_design.md suggests):
 * release is called in process context and may sleep, and no queued work
 * can then outlive the module.
 */
static void session_release(struct mmu_notifier *mn, struct mm_struct *mm)
{
	struct sprofil_session *s = to_session(mn);

	mutex_lock(&sprofil_mutex);
	if (!list_empty(&s->node))
		session_destroy(s);
	mutex_unlock(&sprofil_mutex);
}

static struct mmu_notifier *session_alloc(struct mm_struct *mm)
{
	struct sprofil_session *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return ERR_PTR(-ENOMEM);
	s->stats = alloc_percpu(struct sprofil_stats);
	if (!s->stats) {
		kfree(s);
		return ERR_PTR(-ENOMEM);
	}
	INIT_LIST_HEAD(&s->node);
	mutex_init(&s->lock);
	INIT_WORK(&s->recheck, session_recheck);
	return &s->mn;
}

static void session_free(struct mmu_notifier *mn)
{
	struct sprofil_session *s = to_session(mn);

	free_percpu(s->stats);
	kfree(s);
}

static const struct mmu_notifier_ops sprofil_mn_ops = {
	.release = session_release,
	.invalidate_range_start = session_invalidate_start,
	.invalidate_range_end = session_invalidate_end,
	.alloc_notifier = session_alloc,
	.free_notifier = session_free,
};

static struct sprofil_session *session_find(struct mm_struct *mm)
{
	struct sprofil_session *s;

	lockdep_assert_held(&sprofil_mutex);
	list_for_each_entry(s, &sprofil_sessions, node)
		if (s->mn.mm == mm)
			return s;
	return NULL;
}

static void stats_reset(struct sprofil_session *s)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(s->stats, cpu), 0, sizeof(*s->stats));
}

static int session_start(struct sprofil_session *s,
			 const struct sprofil_region *regions, u32 n, u32 flags,
			 u64 period_ns)
{
	struct sprofil_table *t, *old;
	int err;

	t = sprofil_table_create(regions, n, flags);
	if (IS_ERR(t))
		return PTR_ERR(t);
	mutex_lock(&s->lock);
	err = sprofil_sampler_start(s, period_ns);
	if (err && (rcu_access_pointer(s->threads) ||
		    !rcu_access_pointer(s->table))) {
		/* Nothing changed: the old session (if any) goes on. */
		mutex_unlock(&s->lock);
		sprofil_table_destroy(t);
		return err;
	}
	/* Failed after the old counters were gone: stop altogether. */
	if (!err)
		stats_reset(s);
	old = rcu_replace_pointer(s->table, err ? NULL : t,
				  lockdep_is_held(&s->lock));
	mutex_unlock(&s->lock);
	synchronize_rcu();
	sprofil_table_destroy(old);
	if (err)
		sprofil_table_destroy(t);
	return err;
}

/*
 * Starts profiling the caller, or replaces its region set.  @args was
 * checked for flags and period by the ioctl layer.
 */
int sprofil_start(const struct sprofil_start *args, u64 *period_ns)
{
	struct sprofil_region *regions;
	struct mmu_notifier *mn;
	struct sprofil_session *s;
	bool fresh;
	int err;

	if (!current->mm)
		return -EINVAL;
	regions = memdup_user(u64_to_user_ptr(args->regions),
			      array_size(args->nregions, sizeof(*regions)));
	if (IS_ERR(regions))
		return PTR_ERR(regions);
	*period_ns = sprofil_period_ns(args->flags, args->period_ns);

	mn = mmu_notifier_get(&sprofil_mn_ops, current->mm);
	if (IS_ERR(mn)) {
		kfree(regions);
		return PTR_ERR(mn);
	}
	s = to_session(mn);
	mutex_lock(&sprofil_mutex);
	fresh = list_empty(&s->node);
	if (fresh)
		list_add(&s->node, &sprofil_sessions);
	err = session_start(s, regions, args->nregions, args->flags,
			    *period_ns);
	if (!fresh)
		mmu_notifier_put(mn);
	else if (err)
		session_destroy(s);
	mutex_unlock(&sprofil_mutex);
	kfree(regions);
	return err;
}

int sprofil_stop(void)
{
	struct sprofil_session *s;

	mutex_lock(&sprofil_mutex);
	s = session_find(current->mm);
	if (s)
		session_stop(s);
	mutex_unlock(&sprofil_mutex);
	return 0;
}

int sprofil_status(struct sprofil_status *st)
{
	struct sprofil_session *s;
	struct sprofil_table *t;
	int cpu;

	mutex_lock(&sprofil_mutex);
	s = session_find(current->mm);
	if (s) {
		for_each_possible_cpu(cpu) {
			struct sprofil_stats *c = per_cpu_ptr(s->stats, cpu);

			st->samples += READ_ONCE(c->samples);
			st->misses += READ_ONCE(c->misses);
			st->saturated += READ_ONCE(c->saturated);
		}
		mutex_lock(&s->lock);
		t = rcu_dereference_protected(s->table,
					      lockdep_is_held(&s->lock));
		if (t && rcu_access_pointer(s->threads)) {
			st->state |= SPROFIL_STATE_ENABLED;
			st->period_ns = s->period_ns;
			st->nregions = t->map.nregions;
			st->regions_off = sprofil_table_regions_off(t);
		}
		mutex_unlock(&s->lock);
	}
	mutex_unlock(&sprofil_mutex);
	return 0;
}

int sprofil_session_count(void)
{
	struct sprofil_session *s;
	int n = 0;

	mutex_lock(&sprofil_mutex);
	list_for_each_entry(s, &sprofil_sessions, node)
		n++;
	mutex_unlock(&sprofil_mutex);
	return n;
}

/* Module exit: no fd is open any more, only processes still profiling. */
void sprofil_sessions_destroy(void)
{
	struct sprofil_session *s, *next;

	mutex_lock(&sprofil_mutex);
	list_for_each_entry_safe(s, next, &sprofil_sessions, node)
		session_destroy(s);
	mutex_unlock(&sprofil_mutex);
	/* Wait for the notifiers' deferred frees before our code goes. */
	mmu_notifier_synchronize();
}
