// SPDX-License-Identifier: GPL-2.0
/*
 * sprofil.ko: /dev/sprofil, whose ioctl implements sprofil(2) for the
 * calling process.  See include/uapi/linux/sprofil.h for the ABI.
 *
 * The device only ever writes into the caller's own memory, and samples
 * another process only on the proof of an open /proc/PID/mem (the
 * kernel's ptrace check), so it is world-usable (mode 0666): any user may
 * profile their own process, or one they may ptrace, and nobody can make
 * the module write into another process's memory.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "sprofil.h"

/* Ioctl numbers are matched without their size field: see below. */
#define IOC_BASE(cmd)	((cmd) & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT))

#define START_SIZE_VER0		32	/* first published struct sprofil_start */
#define START_SIZE_VER1		56	/* with the caller table */
#define START_SIZE_VER2		80	/* with the target and the event */
#define START_SIZE_VER3		96	/* with the unwind tables */
#define STATUS_SIZE_VER0	48	/* first published struct sprofil_status */
static_assert(sizeof(struct sprofil_start) == START_SIZE_VER3);
static_assert(sizeof(struct sprofil_status) == STATUS_SIZE_VER0);

/*
 * Copies an argument structure that begins with its own size, accepting
 * older (shorter, zero-extended) and newer (longer, zero-tailed) callers.
 */
static int copy_sized_arg(void *dst, size_t ksize, size_t minsize,
			  const void __user *uarg)
{
	u32 usize;

	if (get_user(usize, (const u32 __user *)uarg))
		return -EFAULT;
	if (usize < minsize || usize > PAGE_SIZE)
		return -EINVAL;
	return copy_struct_from_user(dst, ksize, uarg, usize);
}

static long ioctl_start(struct sprofil_fd *f, struct sprofil_start __user *uarg)
{
	struct sprofil_start args;
	u64 period_ns;
	int err;

	err = copy_sized_arg(&args, sizeof(args), START_SIZE_VER0, uarg);
	if (err)
		return err;
	if ((args.flags & ~SPROFIL_START_FLAGS) || args.reserved ||
	    args.reserved2 || args.nregions > SPROFIL_MAX_REGIONS ||
	    args.period_ns > SPROFIL_MAX_PERIOD_NS)
		return -EINVAL;
	if (!(args.flags & SPROFIL_CALLERS) &&
	    (args.callers || args.callers_size || args.callers_depth ||
	     args.unwind || args.nunwind || (args.flags & SPROFIL_THREADS)))
		return -EINVAL;
	if (args.reserved3 || args.nunwind > SPROFIL_MAX_UNWIND)
		return -EINVAL;
	if (args.event_type > SPROFIL_EVENT_MAX || args.event_config ||
	    (args.event_type == SPROFIL_EVENT_CPU_CLOCK && args.event_period))
		return -EINVAL;
	/*
	 * The clock and the software events.  A PMU event's handler runs
	 * in NMI context, where reading the user stack and filing into the
	 * session's table are not made safe (docs/backends.md).
	 */
	if (args.event_type >= SPROFIL_EVENT_CYCLES)
		return -EOPNOTSUPP;
	/* A file that samples another process does only that. */
	if (!(args.flags & SPROFIL_TARGET) &&
	    (args.target_fd || READ_ONCE(f->s)))
		return -EINVAL;
	/* Fail on an unwritable argument before anything changes. */
	if (put_user(args.period_ns, &uarg->period_ns))
		return -EFAULT;
	if (args.flags & SPROFIL_TARGET) {
		if (!args.nregions)
			return sprofil_outside_stop(f);
		err = sprofil_outside_start(f, &args, &period_ns);
	} else {
		if (!args.nregions)
			return sprofil_stop();
		err = sprofil_start(&args, &period_ns);
	}
	if (err)
		return err;
	return put_user(period_ns, &uarg->period_ns);
}

static long ioctl_status(struct sprofil_fd *f,
			 struct sprofil_status __user *uarg)
{
	struct sprofil_status st;
	u32 usize;
	int err;

	err = copy_sized_arg(&st, sizeof(st), STATUS_SIZE_VER0, uarg);
	if (err)
		return err;
	usize = st.size;
	memset(&st, 0, sizeof(st));
	st.size = min_t(u32, usize, sizeof(st));
	err = READ_ONCE(f->s) ? sprofil_outside_status(f, &st) :
				sprofil_status(&st);
	if (err)
		return err;
	return copy_to_user(uarg, &st, st.size) ? -EFAULT : 0;
}

/*
 * Commands are matched on type, number and direction only; the structure
 * carries its size, so a grown structure keeps the same command.
 */
static long sprofil_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	struct sprofil_fd *f = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (IOC_BASE(cmd)) {
	case IOC_BASE(SPROFIL_IOC_START):
		return ioctl_start(f, uarg);
	case IOC_BASE(SPROFIL_IOC_STOP):
		return READ_ONCE(f->s) ? sprofil_outside_stop(f) :
					 sprofil_stop();
	case IOC_BASE(SPROFIL_IOC_STATUS):
		return ioctl_status(f, uarg);
	}
	return -ENOTTY;
}

static int sprofil_open(struct inode *inode, struct file *file)
{
	struct sprofil_fd *f = kzalloc(sizeof(*f), SPROFIL_GFP);

	if (!f)
		return -ENOMEM;
	mutex_init(&f->lock);
	file->private_data = f;
	return 0;
}

/* Closing the file that samples another process stops that. */
static int sprofil_release(struct inode *inode, struct file *file)
{
	struct sprofil_fd *f = file->private_data;

	sprofil_outside_close(f);
	mutex_destroy(&f->lock);
	kfree(f);
	return 0;
}

static const struct file_operations sprofil_fops = {
	.owner = THIS_MODULE,
	.open = sprofil_open,
	.release = sprofil_release,
	.unlocked_ioctl = sprofil_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice sprofil_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "sprofil",
	.fops = &sprofil_fops,
	.mode = 0666,
};

/* Read-only counters under /sys/module/sprofil/parameters/ for tests. */
static int get_pinned_pages(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", sprofil_pinned_pages());
}

static int get_sessions(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", sprofil_session_count());
}

static const struct kernel_param_ops pinned_pages_ops = {
	.get = get_pinned_pages,
};

static const struct kernel_param_ops sessions_ops = {
	.get = get_sessions,
};

module_param_cb(pinned_pages, &pinned_pages_ops, NULL, 0444);
MODULE_PARM_DESC(pinned_pages, "user buffer pages pinned by all sessions");
module_param_cb(sessions, &sessions_ops, NULL, 0444);
MODULE_PARM_DESC(sessions, "processes with a profiling session");

static int __init sprofil_init(void)
{
	int err = sprofil_leftover_init();

	if (err)
		return err;
	sprofil_outside_init();
	err = misc_register(&sprofil_dev);
	if (err) {
		pr_err("cannot register /dev/sprofil: %d\n", err);
		sprofil_leftover_exit();
	}
	return err;
}

/*
 * No fd is open (each holds a module reference), but processes may still
 * be profiling through an fd they closed: stop them all first.
 */
static void __exit sprofil_exit(void)
{
	misc_deregister(&sprofil_dev);
	/* Exits look sessions up: no probe runs once this returns. */
	sprofil_leftover_exit();
	sprofil_sessions_destroy();
}

module_init(sprofil_init);
module_exit(sprofil_exit);

MODULE_DESCRIPTION("sprofil: PC-sampling profiling of the calling process");
MODULE_LICENSE("GPL");
MODULE_VERSION(SPROFIL_VERSION);
