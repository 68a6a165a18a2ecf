// SPDX-License-Identifier: GPL-2.0
/*
 * attack_rmmod [MODULE.ko]: rmmod under 50 profiling processes.
 *
 * While their fds are open, rmmod is refused at once.  Then they
 * close their fds and keep profiling (the session belongs to the
 * process): rmmod succeeds, without hanging, the processes keep running and
 * exit normally, and insmod of MODULE.ko (default ./sprofil.ko) works
 * again, with a new process able to profile.  Runs as root, with
 * sprofil.ko loaded; leaves it loaded.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "at.h"

#define PROCS	50

static uint64_t spin;

/* Reads one command byte from @fd: c(lose), x (exit). */
static int profiler_main(void *arg)
{
	int *p = arg;		/* [0]: commands in, [1]: replies out */
	static uint16_t buckets[4096];
	struct wl_func f = wl_func_extent(wl_work_a);
	struct sprofil_region r = kt_region(buckets, sizeof(buckets),
					    f.start, 0x10000);
	uint64_t before;
	int fd = kt_open();
	char c;

	if (kt_start(fd, &r, 1, SPROFIL_USHORT, NULL))
		return 1;
	if (write(p[1], "s", 1) != 1 || read(p[0], &c, 1) != 1 || c != 'c')
		return 2;
	close(fd);
	/* Still profiled with no fd: the buckets keep filling. */
	before = wl_sum(buckets, 0, 0, 4096);
	for (int i = 0; i < 50 && wl_sum(buckets, 0, 0, 4096) == before; i++)
		wl_spin_cpu(wl_work_a, spin, 0.02);
	c = wl_sum(buckets, 0, 0, 4096) > before ? 'k' : 'n';
	if (write(p[1], &c, 1) != 1)
		return 3;
	/* Keep running, lightly, until told to go. */
	for (;;) {
		struct timeval tv = { 0, 10000 };
		fd_set set;

		FD_ZERO(&set);
		FD_SET(p[0], &set);
		if (select(p[0] + 1, &set, NULL, NULL, &tv) > 0)
			return read(p[0], &c, 1) == 1 && c == 'x' ? 0 : 4;
		wl_work_a(spin);
	}
}

static int delete_module(void)
{
	return syscall(SYS_delete_module, "sprofil", O_NONBLOCK) ? -errno : 0;
}

static int insert_module(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (syscall(SYS_finit_module, fd, "", 0))
		err = -errno;
	close(fd);
	return err;
}

static int profile_once(void *arg)
{
	static uint16_t buckets[1024];
	struct sprofil_region r = kt_region(buckets, sizeof(buckets),
					    (uintptr_t)wl_work_a, 0x10000);
	int fd = kt_open();

	(void)arg;
	return kt_start(fd, &r, 1, SPROFIL_USHORT, NULL) ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *ko = argc > 1 ? argv[1] : "./sprofil.ko";
	int cmd[PROCS][2], rep[PROCS][2], err, status, alive = 0, kept = 0;
	int exited = 0, started = 0;
	pid_t pid[PROCS];
	double t0, took;
	char c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	spin = wl_calibrate(0.001);
	for (int i = 0; i < PROCS; i++) {
		int p[2];

		if (pipe(cmd[i]) || pipe(rep[i]))
			return 1;
		p[0] = cmd[i][0];
		p[1] = rep[i][1];
		pid[i] = at_spawn(profiler_main, p);
		close(cmd[i][0]);
		close(rep[i][1]);
	}
	for (int i = 0; i < PROCS; i++)
		started += read(rep[i][0], &c, 1) == 1 && c == 's';
	at_check(started == PROCS && kt_module_param("sessions") >= PROCS,
		 "rmmod: %d processes profiling (%ld sessions)", started,
		 kt_module_param("sessions"));

	t0 = at_now();
	err = delete_module();
	took = at_now() - t0;
	/* In use: EWOULDBLOCK (O_NONBLOCK), or EBUSY. */
	at_check((err == -EWOULDBLOCK || err == -EBUSY) && took < 1,
		 "rmmod: refused while fds are open (%s, %.3f s)",
		 strerror(-err), took);

	for (int i = 0; i < PROCS; i++)
		if (write(cmd[i][1], "c", 1) != 1)
			return 1;
	for (int i = 0; i < PROCS; i++)
		kept += read(rep[i][0], &c, 1) == 1 && c == 'k';
	at_check(kept == PROCS,
		 "rmmod: %d of %d processes keep profiling with their fd closed",
		 kept, PROCS);

	t0 = at_now();
	err = delete_module();
	took = at_now() - t0;
	/*
	 * Sessions are torn down one after the other, each waiting for RCU:
	 * 0.3-0.4 s each under TCG (15-22 s here), several times that on a
	 * loaded host.  The bound is for a hang, not for speed.
	 */
	at_check(!err && took < 120,
		 "rmmod: succeeds under %d profiling processes, no hang (%s, %.3f s)",
		 PROCS, strerror(-err), took);
	for (int i = 0; i < PROCS; i++)
		alive += waitpid(pid[i], &status, WNOHANG) == 0;
	at_check(alive == PROCS, "rmmod: all %d processes still run (%d)",
		 PROCS, alive);
	for (int i = 0; i < PROCS; i++) {
		if (write(cmd[i][1], "x", 1) != 1)
			return 1;
		if (at_wait(pid[i], 30, &status) >= 0 && at_exited_ok(status))
			exited++;
	}
	at_check(exited == PROCS, "rmmod: all %d processes exit normally (%d)",
		 PROCS, exited);

	if (err) {
		at_check(false, "rmmod: insmod works again (never removed)");
	} else {
		err = insert_module(ko);
		at_check(!err, "rmmod: insmod works again (%s)",
			 strerror(-err));
	}
	if (at_wait(at_spawn(profile_once, NULL), 30, &status) < 0)
		status = -1;
	at_check(at_exited_ok(status),
		 "rmmod: a new process profiles after re-insmod");
	at_check(at_param_settles("sessions", 0, 10) &&
		 at_param_settles("pinned_pages", 0, 10),
		 "rmmod: no session or pinned page left");
	return at_done();
}
