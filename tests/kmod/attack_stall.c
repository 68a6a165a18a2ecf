// SPDX-License-Identifier: GPL-2.0
/*
 * A START whose buffer can never be faulted in must not stall anybody
 * else, and must stay killable.
 *
 * The victim, an unprivileged user, starts profiling into a buffer whose
 * first write fault waits forever: a userfaultfd nobody serves, or a
 * MAP_PRIVATE page of a FUSE file whose server never answers the read.
 * While it is stuck pinning, checks that
 *  - another user's process, already profiling, exits in under a second;
 *  - another user's START, STATUS and STOP each finish in under a second;
 *  - root's STATUS does too, and rmmod is refused at once;
 *  - SIGKILL ends the victim within a second;
 * and then that no session and no pinned page is left.  Checks marked
 * [kmod fix] fail on the module before issue 10's fixes: START pinned
 * under the global sprofil_mutex, and on 6.1 pin_user_pages_fast()'s
 * FOLL_LONGTERM slow path faults without FAULT_FLAG_KILLABLE, so the
 * victim waits for the FUSE page lock in state D.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "at.h"

#define QUICK		1.0	/* seconds another process may take */
#define BUF_PAGES	4

enum kind { UFFD, FUSE };

static const char *const kind_name[] = { "userfaultfd", "FUSE" };

struct victim {
	enum kind kind;
	const char *fuse_path;
	int ready;		/* write end: victim says it is about to START */
};

static int victim_main(void *arg)
{
	struct victim *v = arg;
	size_t len = BUF_PAGES * 4096;
	struct sprofil_region r;
	void *buf;
	int fd, rc;

	if (at_become(AT_UID_A))
		return 10;
	fd = kt_open();
	if (v->kind == UFFD) {
		if (at_uffd_map(len, &buf) < 0)
			return 11;
	} else {
		int ffd = open(v->fuse_path, O_RDONLY);

		if (ffd < 0)
			return 12;
		buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE,
			   ffd, 0);
		if (buf == MAP_FAILED)
			return 13;
	}
	r = kt_region(buf, len, (uintptr_t)wl_work_a, 0x10000);
	if (write(v->ready, "r", 1) != 1)
		return 14;
	rc = kt_start(fd, &r, 1, SPROFIL_USHORT, NULL);
	/* Only reached if the fault was resolved or refused. */
	printf("# victim: START returned %d (%s)\n", rc, strerror(-rc));
	return 20;
}

/* Another user's process that profiles, then exits when told to. */
static int bystander_main(void *arg)
{
	int *pipes = arg;	/* [0]: read "go", [1]: write "started" */
	static uint16_t buckets[1024];
	struct sprofil_region r = kt_region(buckets, sizeof(buckets),
					    (uintptr_t)wl_work_a, 0x10000);
	char c;
	int fd;

	if (at_become(AT_UID_B))
		return 10;
	fd = kt_open();
	if (kt_start(fd, &r, 1, SPROFIL_USHORT, NULL))
		return 11;
	if (write(pipes[1], "s", 1) != 1 || read(pipes[0], &c, 1) != 1)
		return 12;
	/* Exits with its session alive: the release path runs. */
	return 0;
}

struct timed_ops {
	double start, status, stop;
};

/* Another user's START, STATUS and STOP, each timed, into a shm page. */
static int newcomer_main(void *arg)
{
	struct timed_ops *t = arg;
	static uint16_t buckets[1024];
	struct sprofil_region r = kt_region(buckets, sizeof(buckets),
					    (uintptr_t)wl_work_a, 0x10000);
	struct sprofil_status st;
	double t0;
	int fd;

	if (at_become(AT_UID_B))
		return 10;
	fd = kt_open();
	t0 = at_now();
	if (kt_start(fd, &r, 1, SPROFIL_USHORT, NULL))
		return 11;
	t->start = at_now() - t0;
	t0 = at_now();
	if (kt_status(fd, &st) || !(st.state & SPROFIL_STATE_ENABLED))
		return 12;
	t->status = at_now() - t0;
	t0 = at_now();
	if (kt_stop(fd))
		return 13;
	t->stop = at_now() - t0;
	return 0;
}

static int root_status_main(void *arg)
{
	struct sprofil_status st;
	int fd = kt_open();

	(void)arg;
	return kt_status(fd, &st) ? 1 : 0;
}

/* The module is in use (an fd is open): EWOULDBLOCK, or EBUSY. */
static int rmmod_main(void *arg)
{
	(void)arg;
	if (syscall(SYS_delete_module, "sprofil", O_NONBLOCK) == 0)
		return 1;	/* must not go while an fd is open */
	if (errno == EWOULDBLOCK || errno == EBUSY)
		return 0;
	printf("# rmmod: %s\n", strerror(errno));
	return 2;
}

/* Where a process that should have ended sleeps, for the log. */
static void show_stack(pid_t pid)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		printf("#   %d: %s", pid, line);
	if (f)
		fclose(f);
}

/* Runs @fn in a child; true if it exits 0 within QUICK seconds. */
static bool quick(int (*fn)(void *), void *arg, pid_t *stuck, double *took)
{
	pid_t pid = at_spawn(fn, arg);
	int status;

	*took = at_wait(pid, QUICK, &status);
	if (*took < 0) {
		*stuck = pid;	/* reaped once the victim is gone */
		return false;
	}
	*stuck = -1;
	return at_exited_ok(status);
}

/*
 * True once the victim's START is waiting on the fault.  False if it
 * returned instead: a kernel whose long-term pin does not wait for
 * userfaultfd (6.1 refuses with EFAULT) stalls nobody.
 */
static bool victim_stuck(enum kind k, pid_t victim, struct at_fuse *f)
{
	char path[64], buf[256], *p;
	struct pollfd pfd = { .fd = f->held, .events = POLLIN };
	int fd;

	if (k == FUSE)
		return poll(&pfd, 1, 10000) == 1;
	/* userfaultfd: sleeping in the kernel, not running. */
	snprintf(path, sizeof(path), "/proc/%d/stat", victim);
	for (int i = 0; i < 1000; i++) {
		ssize_t n;

		at_sleep(0.01);
		fd = open(path, O_RDONLY);
		n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		if (fd >= 0)
			close(fd);
		if (n <= 0)
			return false;
		buf[n] = 0;
		p = strrchr(buf, ')');
		if (!p || p[2] == 'Z')
			return false;
		if ((p[2] == 'S' || p[2] == 'D') && i > 20)
			return true;
	}
	return false;
}

static void attack(enum kind k)
{
	const char *kn = kind_name[k];
	struct timed_ops *ops = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct at_fuse f = { .pid = -1, .held = -1 };
	struct victim v = { .kind = k };
	int ready[2], by_go[2], by_started[2], by_pipes[2], status, err;
	pid_t victim, bystander, stuck[4];
	int keep = kt_open();	/* rmmod may be refused, never succeed */
	double took;
	bool ok;
	char c;

	if (k == FUSE) {
		err = at_fuse_start(&f, "/tmp/at_stall_fuse", AT_FUSE_HOLD);
		if (err == -ENODEV) {
			at_skip("no FUSE in this kernel",
				"stall/FUSE: pin held by a FUSE server");
			return;
		}
		if (!at_check(!err, "stall/FUSE: FUSE server mounted (%s)",
			      strerror(-err)))
			return;
		v.fuse_path = f.path;
	}
	if (pipe(ready) || pipe(by_go) || pipe(by_started))
		abort();
	by_pipes[0] = by_go[0];
	by_pipes[1] = by_started[1];
	bystander = at_spawn(bystander_main, by_pipes);
	close(by_started[1]);
	at_check(read(by_started[0], &c, 1) == 1,
		 "stall/%s: a bystander of another user profiles", kn);

	v.ready = ready[1];
	victim = at_spawn(victim_main, &v);
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1) {
		at_check(false, "stall/%s: the victim set up its buffer", kn);
	} else if (victim_stuck(k, victim, &f)) {
		at_check(true, "stall/%s: the victim's START waits on the fault",
			 kn);
	} else {
		/* No stall to test: the checks below must pass anyway. */
		at_wait(victim, 10, &status);
		at_check(WIFEXITED(status) && WEXITSTATUS(status) == 20,
			 "stall/%s: the victim's START is refused at once, not stuck (status %#x)",
			 kn, status);
	}

	/* The bystander exits with its session: the release path. */
	if (write(by_go[1], "g", 1) != 1)
		abort();
	took = at_wait(bystander, QUICK, &status);
	at_check(took >= 0 && at_exited_ok(status),
		 "stall/%s: another user's profiled process exits in < %.0f s (%.2f s) [kmod fix]",
		 kn, QUICK, took);
	stuck[0] = took < 0 ? bystander : -1;

	memset(ops, 0, sizeof(*ops));
	ok = quick(newcomer_main, ops, &stuck[1], &took);
	at_check(ok, "stall/%s: another user's START, STATUS, STOP in < %.0f s (%.3f %.3f %.3f s) [kmod fix]",
		 kn, QUICK, ops->start, ops->status, ops->stop);
	ok = quick(root_status_main, NULL, &stuck[2], &took);
	at_check(ok, "stall/%s: root's STATUS in < %.0f s (%.3f s) [kmod fix]", kn, QUICK,
		 took);
	ok = quick(rmmod_main, NULL, &stuck[3], &took);
	at_check(ok, "stall/%s: rmmod is refused at once, the module being in use (%.3f s)",
		 kn, took);

	kill(victim, SIGKILL);
	took = at_wait(victim, QUICK, &status);
	at_check(took >= 0, "stall/%s: SIGKILL ends the stuck victim (%.3f s) [kmod fix]",
		 kn, took);
	if (took < 0) {
		printf("# the victim after SIGKILL:\n");
		show_stack(victim);
		/* Unkillable: only ending the server can free it. */
		at_fuse_stop(&f);
		if (at_wait(victim, 30, &status) < 0) {
			printf("# still there after its FUSE server died:\n");
			show_stack(victim);
		}
	}
	for (int i = 0; i < 4; i++) {
		if (stuck[i] > 0 && at_wait(stuck[i], 30, &status) < 0) {
			printf("# a process still stuck:\n");
			show_stack(stuck[i]);
		}
	}
	at_fuse_stop(&f);
	at_check(at_param_settles("sessions", 0, 10) &&
		 at_param_settles("pinned_pages", 0, 10),
		 "stall/%s: no session or pinned page left", kn);
	close(ready[0]);
	close(by_go[0]);
	close(by_go[1]);
	close(by_started[0]);
	munmap(ops, 4096);
	close(keep);
}

int main(void)
{
	int fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Let users create userfaultfds that catch kernel-mode faults. */
	fd = open("/proc/sys/vm/unprivileged_userfaultfd", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "1", 1) != 1)
			perror("unprivileged_userfaultfd");
		close(fd);
	}
	attack(UFFD);
	attack(FUSE);
	return at_done();
}
