// SPDX-License-Identifier: GPL-2.0
/*
 * In-VM test of sprofil.ko: a START whose buffer cannot be faulted in
 * (userfaultfd-registered, nobody serving the faults, as a stuck FUSE
 * server would do) blocks only the process that issued it.
 *
 * While it is blocked, another process starts, reads and ends (by exit)
 * a session, and root reads its status, each well within a second; then
 * SIGKILL ends the blocked process within a second too, leaving no
 * session and no pinned page behind.  The run script fails the VM on any
 * hung-task report.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "kmod_test.h"

#define PAGE		4096
#define PROMPT_SECONDS	1.0	/* what "promptly" means here */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Runs @fn in a child; returns its pid. */
static pid_t spawn(int (*fn)(int), int arg)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int rc = fn(arg);

		fflush(stdout);
		_exit(rc > 255 ? 255 : rc);
	}
	return pid;
}

/*
 * Waits up to @seconds for @pid; returns the seconds it took, or -1 if it
 * is still running.
 */
static double wait_timed(pid_t pid, double seconds, int *status)
{
	double t0 = now();

	do {
		if (waitpid(pid, status, WNOHANG) == pid)
			return now() - t0;
		usleep(2000);
	} while (now() - t0 < seconds);
	return -1;
}

/*
 * Registers a fresh buffer with userfaultfd and profiles into it: the
 * pin's fault is never served, so START blocks until the process dies.
 */
static int stuck_child(int ready_fd)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct sprofil_region r;
	void *buf;
	int uffd, fd, rc;

	uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	KT_CHECK(uffd >= 0, "userfaultfd: %m");
	KT_CHECK(ioctl(uffd, UFFDIO_API, &api) == 0, "UFFDIO_API: %m");
	buf = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	KT_CHECK(buf != MAP_FAILED, "mmap: %m");
	reg.range.start = (uintptr_t)buf;
	reg.range.len = 2 * PAGE;
	KT_CHECK(ioctl(uffd, UFFDIO_REGISTER, &reg) == 0,
		 "UFFDIO_REGISTER: %m");
	fd = kt_open();
	r = kt_region(buf, 2 * PAGE, (uintptr_t)wl_work_a, 0x10000);
	KT_CHECK(write(ready_fd, "x", 1) == 1, "write: %m");
	rc = kt_start(fd, &r, 1, SPROFIL_UINT, NULL);
	print_message("# the blocked START returned %d (%s)\n", rc,
		      strerror(-rc));
	return 100;
}

/* Starts a session on its own buffer, reads it and exits still in it. */
static int other_user_child(int unused)
{
	static uint32_t buf[PAGE / 4];
	struct sprofil_region r;
	struct sprofil_status st;
	int fd = kt_open(), rc;

	(void)unused;
	r = kt_region(buf, sizeof(buf), (uintptr_t)wl_work_a, 0x10000);
	rc = kt_start(fd, &r, 1, SPROFIL_UINT, NULL);
	KT_CHECK(rc == 0, "START: %s", strerror(-rc));
	rc = kt_status(fd, &st);
	KT_CHECK(rc == 0 && (st.state & SPROFIL_STATE_ENABLED),
		 "STATUS: %s, state %#x", strerror(-rc), st.state);
	return 0;
}

/* Root reading the status of a process that never profiled. */
static int status_child(int unused)
{
	struct sprofil_status st;
	int fd = kt_open(), rc;

	(void)unused;
	rc = kt_status(fd, &st);
	KT_CHECK(rc == 0 && st.state == 0, "STATUS: %s", strerror(-rc));
	return 0;
}

/* The system call @pid is blocked in, from /proc/PID/syscall, or -1. */
static long blocked_syscall(pid_t pid)
{
	char path[64];
	long nr = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &nr) != 1)
		nr = -1;
	fclose(f);
	return nr;
}

/* Runs @fn in a child and checks that it exits 0 promptly. */
static int prompt(const char *what, int (*fn)(int))
{
	double took;
	int status = -1;
	pid_t pid = spawn(fn, 0);

	KT_CHECK(pid > 0, "fork: %m");
	took = wait_timed(pid, 5 * PROMPT_SECONDS, &status);
	print_message("# %s: %s%.3f s\n", what, took < 0 ? "still blocked after " : "",
		      took < 0 ? 5 * PROMPT_SECONDS : took);
	if (took < 0) {
		/* Stuck behind the blocked START: tell, then let it go. */
		return -1;
	}
	KT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		 "%s: status %#x", what, status);
	KT_CHECK(took < PROMPT_SECONDS, "%s took %.3f s", what, took);
	return 0;
}

static void test_blocked_pin_stalls_nobody_else(void **state)
{
	long sessions0 = kt_module_param("sessions");
	long pinned0 = kt_module_param("pinned_pages");
	int pipefd[2], status, other, root;
	double took;
	char c;
	pid_t stuck;

	(void)state;
	assert_true(sessions0 >= 0 && pinned0 >= 0);
	assert_int_equal(pipe(pipefd), 0);
	stuck = spawn(stuck_child, pipefd[1]);
	assert_true(stuck > 0);
	assert_int_equal(read(pipefd[0], &c, 1), 1);
	usleep(300000);
	assert_int_equal(waitpid(stuck, &status, WNOHANG), 0);
	print_message("# blocked process %d is in system call %ld\n",
		      (int)stuck, blocked_syscall(stuck));
	assert_int_equal(blocked_syscall(stuck), SYS_ioctl);

	other = prompt("another process's START, STATUS and exit", other_user_child);
	root = prompt("root's STATUS", status_child);

	kill(stuck, SIGKILL);
	took = wait_timed(stuck, 60, &status);
	print_message("# SIGKILL ended the blocked START in %.3f s\n", took);
	/* Now that nothing is blocked, collect any straggler. */
	while (waitpid(-1, NULL, 0) > 0)
		;
	assert_int_equal(other, 0);
	assert_int_equal(root, 0);
	assert_true(took >= 0 && took < PROMPT_SECONDS);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_int_equal(kt_module_param("sessions"), sessions0);
	assert_int_equal(kt_module_param("pinned_pages"), pinned0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blocked_pin_stalls_nobody_else),
	};

	return cmocka_run_group_tests_name("sprofil stall", tests, NULL, NULL);
}
