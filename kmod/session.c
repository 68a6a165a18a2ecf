// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions: one per mm, found and kept with the mmu-notifier get/put API
 * (the amdkfd pattern).  The notifier tells us when the mm goes away (exit,
 * or exec releasing the old mm) and when a buffer's memory is unmapped or
 * changed under us.
 *
 * Locking: there is no lock shared by unrelated processes that is held
 * for longer than a list update.  session->lock orders one process's
 * table and counter swaps (START, STOP, STATUS, its exit) against each
 * other and against the buffer recheck worker; sessions_lock, a spinlock,
 * only guards the hash of live sessions, which module exit walks and
 * STOP and STATUS search by mm.  The sampling handler and the invalidate
 * callback only read RCU-published pointers.
 *
 * No lock is held across a page fault of the user's memory, which a
 * userfaultfd or FUSE server the user runs can hold for as long as it
 * likes: tables are built and pinned before any lock is taken, and the
 * recheck worker looks pages up without faulting and only tries the mmap
 * lock (table.c).  So session->lock is held for bounded times only, and
 * the ioctls still take it killably; the mm's release and module exit,
 * which cannot give up, wait for it plainly.
 *
 * Lifetime: a listed session owns one notifier reference, dropped by
 * whoever unlists it: its mm's release, module exit, or the START that
 * created it and failed.  START and the mm's release never overlap (START
 * runs in a user of the mm), and neither do ioctls and module exit (an
 * open fd pins the module), so only release and module exit race, and the
 * spinlock makes one of them the owner.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hashtable.h>
#include <linux/percpu.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait_bit.h>
#include "sprofil.h"

static DEFINE_SPINLOCK(sessions_lock);
static DEFINE_HASHTABLE(sessions, 8);
static int sessions_count;		/* written under sessions_lock */
static atomic_t sessions_dying = ATOMIC_INIT(0);	/* being destroyed */

static struct sprofil_session *to_session(struct mmu_notifier *mn)
{
	return container_of(mn, struct sprofil_session, mn);
}

/* A recheck that found the mmap lock busy tries again this much later. */
#define RECHECK_RETRY	(HZ / 50)

static void session_recheck(struct work_struct *work)
{
	struct sprofil_session *s =
		container_of(to_delayed_work(work), struct sprofil_session,
			     recheck);
	struct sprofil_table *t;
	bool done = true;

	mutex_lock(&s->lock);
	t = rcu_dereference_protected(s->table, lockdep_is_held(&s->lock));
	if (t)
		done = sprofil_table_recheck(t, s->mn.mm);
	mutex_unlock(&s->lock);
	/* A cancel_delayed_work_sync() under way refuses this. */
	if (!done)
		queue_delayed_work(system_wq, &s->recheck, RECHECK_RETRY);
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
		queue_delayed_work(system_wq, &s->recheck, 0);
	rcu_read_unlock();
}

/*
 * Ends sampling and frees the table; counters stay readable.  Called with
 * s->lock held, which it drops.
 */
static void session_stop_unlock(struct sprofil_session *s)
{
	struct sprofil_table *t;
	bool synced;

	lockdep_assert_held(&s->lock);
	t = rcu_replace_pointer(s->table, NULL, lockdep_is_held(&s->lock));
	synced = sprofil_sampler_stop(s);
	mutex_unlock(&s->lock);
	/* No handler or invalidate callback still sees @t or queues work. */
	if (!synced)
		synchronize_rcu();
	/* The worker never waits on the user: this wait is short. */
	cancel_delayed_work_sync(&s->recheck);
	sprofil_table_destroy(t);
}

/* Adds @s to the hash unless it is there; true if it was added. */
static bool session_list(struct sprofil_session *s)
{
	bool added;

	spin_lock(&sessions_lock);
	added = !hash_hashed(&s->node);
	if (added) {
		hash_add_rcu(sessions, &s->node, (unsigned long)s->mn.mm);
		WRITE_ONCE(sessions_count, sessions_count + 1);
	}
	spin_unlock(&sessions_lock);
	return added;
}

static void session_unlist_locked(struct sprofil_session *s)
{
	lockdep_assert_held(&sessions_lock);
	hash_del_rcu(&s->node);
	WRITE_ONCE(sessions_count, sessions_count - 1);
}

/*
 * Takes @s off the hash for teardown; true if the caller is the one who
 * did (and must then call session_destroy()).
 */
static bool session_claim(struct sprofil_session *s)
{
	bool owner;

	spin_lock(&sessions_lock);
	owner = hash_hashed(&s->node);
	if (owner) {
		session_unlist_locked(s);
		atomic_inc(&sessions_dying);
	}
	spin_unlock(&sessions_lock);
	return owner;
}

/* Stops a claimed session and drops its lifetime reference. */
static void session_destroy(struct sprofil_session *s)
{
	/* Exit and module exit cannot give up: a plain, bounded wait. */
	mutex_lock(&s->lock);
	session_stop_unlock(s);
	mmu_notifier_put(&s->mn);
	if (atomic_dec_and_test(&sessions_dying))
		wake_up_var(&sessions_dying);
}

/*
 * The mm is going away: exit, or exec of a new image.  The teardown runs
 * right here, in the exiting process and under no global lock, so exits
 * of many profiled processes proceed in parallel; release is called in
 * process context and may sleep.
 */
static void session_release(struct mmu_notifier *mn, struct mm_struct *mm)
{
	struct sprofil_session *s = to_session(mn);

	if (session_claim(s))
		session_destroy(s);
}

static struct mmu_notifier *session_alloc(struct mm_struct *mm)
{
	struct sprofil_session *s = kzalloc(sizeof(*s), SPROFIL_GFP);

	if (!s)
		return ERR_PTR(-ENOMEM);
	s->stats = alloc_percpu_gfp(struct sprofil_stats, SPROFIL_GFP);
	if (!s->stats) {
		kfree(s);
		return ERR_PTR(-ENOMEM);
	}
	INIT_HLIST_NODE(&s->node);
	mutex_init(&s->lock);
	INIT_DELAYED_WORK(&s->recheck, session_recheck);
	return &s->mn;
}

static void session_free_rcu(struct rcu_head *rcu)
{
	struct sprofil_session *s = container_of(rcu, struct sprofil_session,
						 rcu);

	free_percpu(s->stats);
	kfree(s);
}

/* Exit-time lookups (sprofil_session_lookup_rcu()) may still see it. */
static void session_free(struct mmu_notifier *mn)
{
	call_rcu(&to_session(mn)->rcu, session_free_rcu);
}

static const struct mmu_notifier_ops sprofil_mn_ops = {
	.release = session_release,
	.invalidate_range_start = session_invalidate_start,
	.invalidate_range_end = session_invalidate_end,
	.alloc_notifier = session_alloc,
	.free_notifier = session_free,
};

/*
 * The session of the caller's mm, or NULL.  It stays valid after the
 * spinlock is dropped: only the mm's release (the caller still uses the
 * mm) or module exit (the caller's fd pins the module) end it.
 */
static struct sprofil_session *session_find(struct mm_struct *mm)
{
	struct sprofil_session *s, *found = NULL;

	spin_lock(&sessions_lock);
	hash_for_each_possible(sessions, s, node, (unsigned long)mm)
		if (s->mn.mm == mm) {
			found = s;
			break;
		}
	spin_unlock(&sessions_lock);
	return found;
}

/*
 * The session of @mm from any context, under rcu_read_lock(); NULL if
 * there is none.  It is freed only a grace period after it is unlisted.
 */
struct sprofil_session *sprofil_session_lookup_rcu(struct mm_struct *mm)
{
	struct sprofil_session *s;

	if (!READ_ONCE(sessions_count))
		return NULL;
	hash_for_each_possible_rcu(sessions, s, node, (unsigned long)mm)
		if (READ_ONCE(s->mn.mm) == mm)
			return s;
	return NULL;
}

static void stats_reset(struct sprofil_session *s)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(s->stats, cpu), 0, sizeof(*s->stats));
}

/*
 * Swaps @t in under the session's lock and starts the counters; consumes
 * @t and the caller's notifier reference.  A session this START listed
 * and could not start is unlisted again, so a failed first START leaves
 * no session behind.
 */
static int session_start(struct sprofil_session *s, struct sprofil_table *t,
			 u64 period_ns)
{
	struct sprofil_table *old = NULL;
	bool fresh, published = false;
	int err;

	/* Nothing is listed or published yet: a fatal signal undoes all. */
	err = mutex_lock_killable(&s->lock);
	if (err) {
		sprofil_table_destroy(t);
		mmu_notifier_put(&s->mn);
		return err;
	}
	fresh = session_list(s);
	err = sprofil_sampler_start(s, period_ns);
	if (err && (rcu_access_pointer(s->threads) ||
		    !rcu_access_pointer(s->table))) {
		/* Nothing changed: the old session (if any) goes on. */
		old = t;
		t = NULL;
	} else {
		/* Failed after the old counters were gone: stop altogether. */
		if (!err)
			stats_reset(s);
		old = rcu_replace_pointer(s->table, err ? NULL : t,
					  lockdep_is_held(&s->lock));
		published = old;
		if (!err)
			t = NULL;
	}
	if (fresh && err) {
		spin_lock(&sessions_lock);
		session_unlist_locked(s);
		spin_unlock(&sessions_lock);
	}
	mutex_unlock(&s->lock);
	/*
	 * Handlers that still see the replaced table are done with it.  Not
	 * deferred to an rcu_work: the old pages must be unpinned and their
	 * locked_vm uncharged when START returns, or a process replacing
	 * its table would briefly hold both and hit RLIMIT_MEMLOCK.
	 */
	if (published)
		synchronize_rcu();
	sprofil_table_destroy(old);
	sprofil_table_destroy(t);
	/* A listed session keeps the reference of the START that listed it. */
	if (!fresh || err)
		mmu_notifier_put(&s->mn);
	return err;
}

/*
 * Starts profiling the caller, or replaces its region set.  @args was
 * checked for flags and period by the ioctl layer.  The table is built
 * and pinned before any lock is taken: see table.c.
 */
int sprofil_start(const struct sprofil_start *args, u64 *period_ns)
{
	struct sprofil_region *regions;
	struct sprofil_table *t;
	struct mmu_notifier *mn;

	if (!current->mm)
		return -EINVAL;
	regions = memdup_user(u64_to_user_ptr(args->regions),
			      array_size(args->nregions, sizeof(*regions)));
	if (IS_ERR(regions))
		return PTR_ERR(regions);
	*period_ns = sprofil_period_ns(args->flags, args->period_ns);
	t = sprofil_table_create(args, regions);
	kfree(regions);
	if (IS_ERR(t))
		return PTR_ERR(t);

	mn = mmu_notifier_get(&sprofil_mn_ops, current->mm);
	if (IS_ERR(mn)) {
		sprofil_table_destroy(t);
		return PTR_ERR(mn);
	}
	return session_start(to_session(mn), t, *period_ns);
}

/*
 * -EINTR if a fatal signal came while waiting for the session's lock:
 * nothing changed, and the dying caller never sees it.
 */
int sprofil_stop(void)
{
	struct sprofil_session *s = session_find(current->mm);
	int err;

	if (!s)
		return 0;
	err = mutex_lock_killable(&s->lock);
	if (err)
		return err;
	/* Nothing published: no grace period to wait for. */
	if (!rcu_access_pointer(s->table) && !rcu_access_pointer(s->threads)) {
		mutex_unlock(&s->lock);
		return 0;
	}
	session_stop_unlock(s);
	return 0;
}

int sprofil_status(struct sprofil_status *st)
{
	struct sprofil_session *s = session_find(current->mm);
	struct sprofil_table *t;
	int cpu, err;

	if (!s)
		return 0;
	for_each_possible_cpu(cpu) {
		struct sprofil_stats *c = per_cpu_ptr(s->stats, cpu);

		st->samples += READ_ONCE(c->samples);
		st->misses += READ_ONCE(c->misses);
		st->saturated += READ_ONCE(c->saturated);
	}
	err = mutex_lock_killable(&s->lock);
	if (err)
		return err;
	t = rcu_dereference_protected(s->table, lockdep_is_held(&s->lock));
	if (t && rcu_access_pointer(s->threads)) {
		st->state |= SPROFIL_STATE_ENABLED;
		st->period_ns = s->period_ns;
		st->nregions = t->map.nregions;
		st->regions_off = sprofil_table_regions_off(t);
	}
	mutex_unlock(&s->lock);
	return 0;
}

int sprofil_session_count(void)
{
	int n;

	spin_lock(&sessions_lock);
	n = sessions_count;
	spin_unlock(&sessions_lock);
	return n;
}

/* Any listed session, claimed for teardown, or NULL. */
static struct sprofil_session *session_claim_any(void)
{
	struct sprofil_session *s = NULL;
	int bkt;

	spin_lock(&sessions_lock);
	for (bkt = 0; bkt < HASH_SIZE(sessions) && !s; bkt++)
		if (!hlist_empty(&sessions[bkt]))
			s = hlist_entry(sessions[bkt].first,
					struct sprofil_session, node);
	if (s) {
		session_unlist_locked(s);
		atomic_inc(&sessions_dying);
	}
	spin_unlock(&sessions_lock);
	return s;
}

/* Module exit: no fd is open any more, only processes still profiling. */
void sprofil_sessions_destroy(void)
{
	struct sprofil_session *s;

	while ((s = session_claim_any()))
		session_destroy(s);
	/* Releases that claimed a session before us are done with it... */
	wait_var_event(&sessions_dying, !atomic_read(&sessions_dying));
	/* ...and the notifiers' deferred frees too, before our code goes; */
	mmu_notifier_synchronize();
	/* so are the session frees waiting for a grace period. */
	rcu_barrier();
}
