// SPDX-License-Identifier: GPL-2.0
/*
 * No task sleeps uninterruptibly because a user holds a page fault of its
 * profile buffer (issue 19, part 8).
 *
 * The victim, an unprivileged user, profiles into a buffer whose faults
 * its own server can hold: a private anonymous mapping registered with a
 * userfaultfd (vm.unprivileged_userfaultfd=1, set here, lets it catch the
 * kernel's faults), or a private mapping of a FUSE file.  Once START has
 * pinned it, the server stops answering and the victim zaps the buffer
 * (MADV_DONTNEED, after dropping the FUSE file's page cache), so that the
 * module's recheck worker finds it gone.  Then, with the hung-task timeout
 * at 10 s, checks that
 *  - the victim's STATUS, STOP and START each return in under a second,
 *    and the recheck turned the zapped region off;
 *  - after HOLD_SECONDS of held faults the victim exits (FUSE) or is
 *    killed (userfaultfd) within a second;
 *  - the kernel logged no "blocked for more than" report meanwhile;
 *  - no session and no pinned page is left once the server lets go.
 * Before the fix the worker faulted the buffer under the session's lock:
 * it waited on the held fault, and the victim's STATUS waited on the lock
 * in state D (6.1: "INFO: task ... blocked for more than 10 seconds").
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "at.h"

#define QUICK		1.0	/* seconds a call or an exit may take */
#define HOLD_SECONDS	25	/* two hung-task periods and some */
#define HUNG_SECONDS	"10"
#define WAIT_FAULT	3.0	/* seconds to see whether the module faults */
#define BUF_PAGES	4
#define PAGE		4096
#define HUNG_LINE	"blocked for more than"

enum kind { UFFD, FUSE };

static const char *const kind_name[] = { "userfaultfd", "FUSE" };

/* What the victim did, in a shared page. */
struct report {
	int start_rc;		/* first START */
	int faulted;		/* the module faulted on the zapped buffer */
	int status_rc, stop_rc, restart_rc;
	double status_s, stop_s, restart_s;	/* slowest call of each */
	unsigned int regions_off;
};

struct victim {
	enum kind kind;
	const char *fuse_path;
	struct report *rep;
	int to_parent;		/* victim writes its progress here */
	int from_parent;	/* and waits for the parent's word here */
	int keeper_cmd;		/* read end for the userfaultfd keeper */
	int parent_cmd;		/* its write end, the parent's only */
};

/* Fills every page of a userfaultfd range, so that START faults nothing. */
static int uffd_fill(int uffd, void *buf, size_t len)
{
	static unsigned char page[PAGE];
	struct uffdio_copy c = { .src = (uintptr_t)page, .len = PAGE };

	for (size_t off = 0; off < len; off += PAGE) {
		c.dst = (uintptr_t)buf + off;
		if (ioctl(uffd, UFFDIO_COPY, &c))
			return -errno;
	}
	return 0;
}

/*
 * Keeps the victim's userfaultfd open, so that its held faults outlive
 * it; serves them when the parent says so, then exits when the parent
 * closes its end.
 */
static void keeper(int uffd, int cmd)
{
	char c;

	if (read(cmd, &c, 1) == 1)
		at_uffd_serve_thread(uffd, 0);
	while (read(cmd, &c, 1) > 0)
		;
	_exit(0);
}

/* True if the module faulted on the buffer within WAIT_FAULT seconds. */
static bool uffd_faulted(int uffd)
{
	struct pollfd p = { .fd = uffd, .events = POLLIN };

	return poll(&p, 1, WAIT_FAULT * 1000) == 1;
}

static bool say(struct victim *v, char what)
{
	char c;

	return write(v->to_parent, &what, 1) == 1 &&
	       read(v->from_parent, &c, 1) == 1;
}

/* Maps the buffer; returns the userfaultfd or FUSE file descriptor. */
static int map_buffer(struct victim *v, size_t len, void **buf)
{
	int fd;

	if (v->kind == UFFD) {
		fd = at_uffd_map(len, buf);
		if (fd < 0 || uffd_fill(fd, *buf, len))
			return -1;
		if (fork() == 0)
			keeper(fd, v->keeper_cmd);
		return fd;
	}
	fd = open(v->fuse_path, O_RDONLY);
	if (fd < 0)
		return -1;
	*buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	return *buf == MAP_FAILED ? -1 : fd;
}

static void timed_status(int dev, struct report *rep)
{
	double t0 = at_now(), took;
	struct sprofil_status st;

	/* The recheck worker may not have run yet: a few tries. */
	do {
		double t1 = at_now();

		rep->status_rc = kt_status(dev, &st);
		took = at_now() - t1;
		if (took > rep->status_s)
			rep->status_s = took;
		rep->regions_off = st.regions_off;
		if (rep->status_rc || st.regions_off)
			return;
		at_sleep(0.01);
	} while (at_now() - t0 < 2.0);
}

static int victim_main(void *arg)
{
	static uint16_t plain[1024];
	struct victim *v = arg;
	struct report *rep = v->rep;
	size_t len = BUF_PAGES * PAGE;
	struct sprofil_region r;
	void *buf;
	double t0;
	int dev, fd;

	close(v->parent_cmd);
	if (at_become(AT_UID_A))
		return 10;
	dev = kt_open();
	fd = map_buffer(v, len, &buf);
	if (fd < 0)
		return 11;
	r = kt_region(buf, len, (uintptr_t)wl_work_a, 0x10000);
	rep->start_rc = kt_start(dev, &r, 1, SPROFIL_USHORT, NULL);
	if (rep->start_rc || !say(v, 's'))
		return 12;
	/* The server holds its faults now: zap what START pinned. */
	if (v->kind == FUSE && posix_fadvise(fd, 0, len, POSIX_FADV_DONTNEED))
		return 13;
	if (madvise(buf, len, MADV_DONTNEED))
		return 14;
	if (v->kind == UFFD)
		rep->faulted = uffd_faulted(fd);
	if (!say(v, 'z'))
		return 15;

	timed_status(dev, rep);
	t0 = at_now();
	rep->stop_rc = kt_stop(dev);
	rep->stop_s = at_now() - t0;
	r = kt_region(plain, sizeof(plain), (uintptr_t)wl_work_a, 0x10000);
	t0 = at_now();
	rep->restart_rc = kt_start(dev, &r, 1, SPROFIL_USHORT, NULL);
	rep->restart_s = at_now() - t0;
	/* Told to, exits with a live session: the release path runs. */
	say(v, 'd');
	return 0;
}

/* Occurrences of HUNG_LINE in the kernel's log buffer, or -1. */
static int hung_reports(void)
{
	int size = klogctl(10, NULL, 0), n = 0;	/* SYSLOG_ACTION_SIZE_BUFFER */
	char *log, *p;

	if (size <= 0)
		return -1;
	log = calloc(1, size + 1);
	if (!log)
		return -1;
	size = klogctl(3, log, size);		/* SYSLOG_ACTION_READ_ALL */
	if (size < 0) {
		free(log);
		return -1;
	}
	for (p = log; (p = strstr(p, HUNG_LINE)); p++)
		n++;
	free(log);
	return n;
}

/* Reads one progress byte from the victim, waiting up to @timeout s. */
static bool hear(int fd, double timeout, char want)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c;

	return poll(&p, 1, timeout * 1000) == 1 && read(fd, &c, 1) == 1 &&
	       c == want;
}

static bool write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY);
	bool ok = fd >= 0 && write(fd, value, strlen(value)) ==
			     (ssize_t)strlen(value);

	if (fd >= 0)
		close(fd);
	return ok;
}

static void attack(enum kind k)
{
	const char *kn = kind_name[k];
	struct report *rep = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct at_fuse f = { .pid = -1, .held = -1 };
	struct victim v = { .kind = k, .rep = rep };
	int up[2], down[2], cmd[2], status = 0, hung0, hung1, err;
	double t_zap, took;
	pid_t victim;
	bool faulted, heard;

	if (k == FUSE) {
		err = at_fuse_start(&f, "/tmp/at_held_fuse", AT_FUSE_SERVE);
		if (err == -ENODEV) {
			at_skip("no FUSE in this kernel",
				"held/FUSE: a fault held by a FUSE server");
			return;
		}
		if (!at_check(!err, "held/FUSE: FUSE server mounted (%s)",
			      strerror(-err)))
			return;
		v.fuse_path = f.path;
	}
	if (pipe(up) || pipe(down) || pipe(cmd))
		abort();
	v.to_parent = up[1];
	v.from_parent = down[0];
	v.keeper_cmd = cmd[0];
	v.parent_cmd = cmd[1];
	hung0 = hung_reports();
	victim = at_spawn(victim_main, &v);
	close(up[1]);
	close(down[0]);
	close(cmd[0]);

	/* Heard first: the report is read once the victim has written it. */
	heard = hear(up[0], 10, 's');
	if (!at_check(heard && !rep->start_rc,
		      "held/%s: the victim's START pins its buffer (%s)", kn,
		      strerror(-rep->start_rc)))
		goto out;
	if (k == FUSE)
		at_fuse_hold(&f);
	if (write(down[1], "g", 1) != 1)
		abort();
	t_zap = at_now();
	if (!at_check(hear(up[0], 10, 'z'),
		      "held/%s: the victim zapped its buffer", kn))
		goto out;
	if (k == FUSE) {
		struct pollfd p = { .fd = f.held, .events = POLLIN };

		faulted = poll(&p, 1, WAIT_FAULT * 1000) == 1;
	} else {
		faulted = rep->faulted;
	}
	printf("# held/%s: the module %s the zapped buffer's fault\n", kn,
	       faulted ? "waits on" : "did not take");
	if (write(down[1], "g", 1) != 1)
		abort();

	/* STATUS may try for 2 s until the recheck has run. */
	heard = hear(up[0], 2 + 3 * QUICK, 'd');
	at_check(heard && rep->status_s < QUICK &&
		 rep->stop_s < QUICK && rep->restart_s < QUICK &&
		 !rep->status_rc && !rep->stop_rc && !rep->restart_rc,
		 "held/%s: STATUS, STOP and START return in < %.0f s while the fault is held (%.3f %.3f %.3f ms; %d %d %d) [part 8]",
		 kn, QUICK, rep->status_s * 1e3, rep->stop_s * 1e3,
		 rep->restart_s * 1e3,
		 rep->status_rc, rep->stop_rc, rep->restart_rc);
	at_check(rep->regions_off == 1,
		 "held/%s: the recheck turned the zapped buffer's region off (%u off)",
		 kn, rep->regions_off);

	/* Hold the fault long enough for two hung-task checks. */
	while (at_now() - t_zap < HOLD_SECONDS)
		at_sleep(0.5);
	if (k == UFFD) {
		kill(victim, SIGKILL);
	} else if (write(down[1], "x", 1) != 1) {
		abort();
	}
	took = at_wait(victim, QUICK, &status);
	at_check(took >= 0 && (k == UFFD || at_exited_ok(status)),
		 "held/%s: the victim %s in < %.0f s, its fault held for %d s (%.3f s, status %#x) [part 8]",
		 kn, k == UFFD ? "is killed" : "exits", QUICK, HOLD_SECONDS,
		 took, status);
	hung1 = hung_reports();
	if (hung0 < 0 || hung1 < 0)
		at_skip("the kernel log is not readable",
			"held/%s: no hung-task report", kn);
	else
		at_check(hung1 == hung0,
			 "held/%s: no hung-task report in the kernel log (%d new, timeout %s s) [part 8]",
			 kn, hung1 - hung0, HUNG_SECONDS);
out:
	/* Let go of the faults: whatever still waits on them goes on. */
	if (k == UFFD && write(cmd[1], "r", 1) != 1)
		printf("# the userfaultfd keeper is gone\n");
	at_fuse_stop(&f);
	if (at_wait(victim, 30, &status) < 0) {
		kill(victim, SIGKILL);
		at_wait(victim, 30, &status);
	}
	close(cmd[1]);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	at_check(at_param_settles("sessions", 0, 10) &&
		 at_param_settles("pinned_pages", 0, 10),
		 "held/%s: no session or pinned page left", kn);
	close(up[0]);
	close(down[1]);
	munmap(rep, PAGE);
}

int main(void)
{
	const char *hung = "/proc/sys/kernel/hung_task_timeout_secs";
	char old[32] = "";
	int fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* A keeper that died early must not take the test with it. */
	signal(SIGPIPE, SIG_IGN);
	/* Let users create userfaultfds that catch kernel-mode faults. */
	if (!write_file("/proc/sys/vm/unprivileged_userfaultfd", "1"))
		perror("unprivileged_userfaultfd");
	/* A report, never a panic, after 10 s in state D. */
	fd = open(hung, O_RDONLY);
	if (fd >= 0 && read(fd, old, sizeof(old) - 1) < 0)
		old[0] = 0;
	if (fd >= 0)
		close(fd);
	if (!write_file("/proc/sys/kernel/hung_task_panic", "0") ||
	    !write_file(hung, HUNG_SECONDS))
		printf("# no hung-task detection to set: the log check shows nothing\n");
	attack(UFFD);
	attack(FUSE);
	if (old[0])
		write_file(hung, old);
	return at_done();
}
