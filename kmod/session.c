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
 * runs in a user of the mm, or holds one from outside), and neither do
 * ioctls and module exit (an open fd pins the module), so only release
 * and module exit race, and the spinlock makes one of them the owner.
 *
 * Outside sessions (SPROFIL_TARGET): another process, the collector,
 * samples this mm into buffers of its own.  The session is still this
 * mm's, so the sampling handler, the exit hook (leftover.c) and the chain
 * walk, which all run in the sampled threads, work as for a process that
 * profiles itself.  The collector's open file holds a second notifier
 * reference (struct sprofil_fd) and is the session's holder: its STOP,
 * STATUS and close act on the session, the sampled process's own ioctls
 * leave it alone.  Lock order: the file's lock, then the session's.  The
 * buffers are in the collector's mm, which this mm's notifier does not
 * watch: their pages stay pinned, so what the collector unmaps is only
 * written in vain until STOP.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/fs.h>
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
	if (t && t->mm == s->mn.mm)
		done = sprofil_table_recheck(t, s->mn.mm);
	mutex_unlock(&s->lock);
	/* A cancel_delayed_work_sync() under way refuses this. */
	if (!done)
		queue_delayed_work(system_wq, &s->recheck, RECHECK_RETRY);
}

/*
 * The table if @range touches one of its buffers.  Callers may run in
 * non-blocking context: they only flag and queue work, under RCU.  An
 * outside session's buffers are in another mm than the one notifying.
 */
static struct sprofil_table *
table_touched(struct sprofil_session *s, const struct mmu_notifier_range *range)
{
	struct sprofil_table *t = rcu_dereference(s->table);

	return t && t->mm == s->mn.mm &&
	       sprofil_table_overlaps(t, range->start, range->end) ? t : NULL;
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
 * Whether a START by @holder (NULL: the process itself) must leave @s
 * alone: another file samples it, or the process samples itself and
 * @holder would sample it from outside.  A stopped session is free.
 */
static bool session_busy(struct sprofil_session *s,
			 const struct sprofil_fd *holder)
{
	lockdep_assert_held(&s->lock);
	return s->holder != holder &&
	       (s->holder || rcu_access_pointer(s->table));
}

/*
 * Swaps @t in under the session's lock and starts the counters; consumes
 * @t and the caller's notifier reference.  A session this START listed
 * and could not start is unlisted again, so a failed first START leaves
 * no session behind.  @holder: the file starting it from outside, or
 * NULL for the process itself.
 */
static int session_start(struct sprofil_session *s, struct sprofil_table *t,
			 const struct sprofil_sampling *how,
			 const struct sprofil_fd *holder)
{
	const struct sprofil_fd *was;
	struct sprofil_table *old = NULL;
	bool fresh, published = false;
	int err;

	/* Nothing is listed or published yet: a fatal signal undoes all. */
	err = mutex_lock_killable(&s->lock);
	if (!err && session_busy(s, holder)) {
		mutex_unlock(&s->lock);
		err = -EBUSY;
	}
	if (err) {
		sprofil_table_destroy(t);
		mmu_notifier_put(&s->mn);
		return err;
	}
	fresh = session_list(s);
	was = s->holder;
	s->holder = holder;
	err = sprofil_sampler_start(s, how, holder);
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
	if (err)
		s->holder = was;
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
	struct sprofil_sampling how;
	struct sprofil_region *regions;
	struct sprofil_table *t;
	struct mmu_notifier *mn;

	if (!current->mm)
		return -EINVAL;
	regions = memdup_user(u64_to_user_ptr(args->regions),
			      array_size(args->nregions, sizeof(*regions)));
	if (IS_ERR(regions))
		return PTR_ERR(regions);
	sprofil_sampling_of(args, &how);
	*period_ns = how.event == SPROFIL_EVENT_CPU_CLOCK ? how.period : 0;
	t = sprofil_table_create(args, regions);
	kfree(regions);
	if (IS_ERR(t))
		return PTR_ERR(t);

	mn = mmu_notifier_get(&sprofil_mn_ops, current->mm);
	if (IS_ERR(mn)) {
		sprofil_table_destroy(t);
		return PTR_ERR(mn);
	}
	return session_start(to_session(mn), t, &how, NULL);
}

/*
 * STOP by @holder (NULL: the process itself), with s->lock held, which it
 * drops: only a session of @holder's that is sampling is stopped.
 */
static void session_stop_own_unlock(struct sprofil_session *s,
				    const struct sprofil_fd *holder)
{
	/* Nothing published: no grace period to wait for. */
	if (s->holder != holder ||
	    (!rcu_access_pointer(s->table) && !rcu_access_pointer(s->threads))) {
		mutex_unlock(&s->lock);
		return;
	}
	session_stop_unlock(s);
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
	session_stop_own_unlock(s, NULL);
	return 0;
}

/* Fills @st from @s if @holder's, else leaves it empty. */
static int session_status(struct sprofil_session *s,
			  const struct sprofil_fd *holder,
			  struct sprofil_status *st)
{
	struct sprofil_table *t;
	int cpu, err;

	err = mutex_lock_killable(&s->lock);
	if (err)
		return err;
	if (s->holder != holder) {
		mutex_unlock(&s->lock);
		return 0;
	}
	for_each_possible_cpu(cpu) {
		struct sprofil_stats *c = per_cpu_ptr(s->stats, cpu);

		st->samples += READ_ONCE(c->samples);
		st->misses += READ_ONCE(c->misses);
		st->saturated += READ_ONCE(c->saturated);
	}
	t = rcu_dereference_protected(s->table, lockdep_is_held(&s->lock));
	if (t && rcu_access_pointer(s->threads)) {
		st->state |= SPROFIL_STATE_ENABLED;
		/* For an event, its period in events (uapi header). */
		st->period_ns = s->sampling.period;
		st->nregions = t->map.nregions;
		st->regions_off = sprofil_table_regions_off(t);
	}
	mutex_unlock(&s->lock);
	return 0;
}

int sprofil_status(struct sprofil_status *st)
{
	struct sprofil_session *s = session_find(current->mm);

	return s ? session_status(s, NULL, st) : 0;
}

/* The file operations of /proc/PID/mem, learned at load. */
static const struct file_operations *mem_fops;

/*
 * Learns to recognize /proc/PID/mem files: their file operations are not
 * exported, so they are read off one the module opens, its loader's own
 * (mm_access() lets a process open its own).  Without them SPROFIL_TARGET
 * is refused.
 */
void sprofil_outside_init(void)
{
	struct file *f = filp_open("/proc/self/mem", O_RDONLY, 0);

	if (IS_ERR(f)) {
		pr_warn("cannot open /proc/self/mem (%ld): no sampling from outside\n",
			PTR_ERR(f));
		return;
	}
	mem_fops = f->f_op;
	filp_close(f, NULL);
}

/*
 * The mm of @fd, the caller's open /proc/PID/mem, with a user reference,
 * or an ERR_PTR.  Its open made the kernel's ptrace check (mm_access(),
 * PTRACE_MODE_ATTACH, security modules included), which a module cannot
 * call itself, and the file keeps the mm_struct: no process that came
 * later can take its place.  Its mm is NULL for a kernel thread or a
 * process that had exited when it was opened.
 */
static struct mm_struct *target_mm(int fd)
{
	struct mm_struct *mm;
	struct file *file;

	if (!mem_fops)
		return ERR_PTR(-EOPNOTSUPP);
	file = fget(fd);
	if (!file)
		return ERR_PTR(-EBADF);
	mm = file->private_data;
	if (file->f_op != mem_fops)
		mm = ERR_PTR(-EINVAL);
	else if (!mm || !mmget_not_zero(mm))
		mm = ERR_PTR(-ESRCH);
	fput(file);
	return mm;
}

/*
 * Lets go of @s, the session @f held: stops it, makes it the process's
 * own again, with no counters of ours, and drops @f's reference.
 */
static void outside_release(struct sprofil_fd *f, struct sprofil_session *s)
{
	mutex_lock(&s->lock);
	session_stop_own_unlock(s, f);
	mutex_lock(&s->lock);
	if (s->holder == f) {
		s->holder = NULL;
		stats_reset(s);
	}
	mutex_unlock(&s->lock);
	mmu_notifier_put(&s->mn);
}

/*
 * START with SPROFIL_TARGET on the file @f.  The table is built and
 * pinned in the caller's memory before any lock is taken, as for a
 * process profiling itself; the target's mm is kept in use meanwhile,
 * so its session cannot be released under us.
 */
int sprofil_outside_start(struct sprofil_fd *f, const struct sprofil_start *args,
			  u64 *period_ns)
{
	struct mmu_notifier *mn, *ref = NULL;
	struct sprofil_session *s, *old;
	struct sprofil_sampling how;
	struct sprofil_region *regions;
	struct sprofil_table *t;
	struct mm_struct *mm;
	int err;

	mm = target_mm(args->target_fd);
	if (IS_ERR(mm))
		return PTR_ERR(mm);
	regions = memdup_user(u64_to_user_ptr(args->regions),
			      array_size(args->nregions, sizeof(*regions)));
	if (IS_ERR(regions)) {
		err = PTR_ERR(regions);
		goto out_mm;
	}
	sprofil_sampling_of(args, &how);
	*period_ns = how.event == SPROFIL_EVENT_CPU_CLOCK ? how.period : 0;
	t = sprofil_table_create(args, regions);
	kfree(regions);
	if (IS_ERR(t)) {
		err = PTR_ERR(t);
		goto out_mm;
	}
	t->sampled = mm;
	/* One reference for session_start(), one for the file to keep. */
	mn = mmu_notifier_get(&sprofil_mn_ops, mm);
	if (!IS_ERR(mn))
		ref = mmu_notifier_get(&sprofil_mn_ops, mm);
	err = IS_ERR(mn) ? PTR_ERR(mn) : PTR_ERR_OR_ZERO(ref);
	if (!err)
		err = mutex_lock_killable(&f->lock);
	if (err)
		goto out_table;
	s = to_session(mn);
	old = f->s;
	/* A file samples one process at a time. */
	if (old && old != s && rcu_access_pointer(old->table)) {
		mutex_unlock(&f->lock);
		err = -EBUSY;
		goto out_table;
	}
	err = session_start(s, t, &how, f);
	if (!err && old != s) {
		WRITE_ONCE(f->s, s);
		ref = NULL;
		if (old)
			outside_release(f, old);
	}
	mutex_unlock(&f->lock);
	if (ref)
		mmu_notifier_put(ref);
	goto out_mm;

out_table:
	sprofil_table_destroy(t);
	if (!IS_ERR_OR_NULL(ref))
		mmu_notifier_put(ref);
	if (!IS_ERR(mn))
		mmu_notifier_put(mn);
out_mm:
	/* If the target is gone meanwhile, its release runs here. */
	mmput(mm);
	return err;
}

int sprofil_outside_stop(struct sprofil_fd *f)
{
	int err = mutex_lock_killable(&f->lock);

	if (err)
		return err;
	if (f->s) {
		err = mutex_lock_killable(&f->s->lock);
		if (!err)
			session_stop_own_unlock(f->s, f);
	}
	mutex_unlock(&f->lock);
	return err;
}

/* After the target's exit or exec the counters stay, not enabled. */
int sprofil_outside_status(struct sprofil_fd *f, struct sprofil_status *st)
{
	int err = mutex_lock_killable(&f->lock);

	if (err)
		return err;
	if (f->s)
		err = session_status(f->s, f, st);
	mutex_unlock(&f->lock);
	return err;
}

/* The file is closed: no other thread uses @f. */
void sprofil_outside_close(struct sprofil_fd *f)
{
	if (f->s)
		outside_release(f, f->s);
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
