// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Record's runs sampled from outside the process (docs/record.md,
 * "Static programs and attaching"): a statically linked program, which
 * has no loader to preload the collector into, and `record -p PID`, a
 * process already running.  sprofil-outside (libexec, linked with
 * libsprofil.a) samples the process through the module (kmod) or the
 * bpf backend's program and perf events, and writes the profile when
 * record closes its stdin.
 *
 * A static program is started stopped: the child asks to be traced
 * (PTRACE_TRACEME) and execs, so the kernel stops it at the new image's
 * first instruction; its sampling then starts, and only then is it let
 * go.  Its -pg runtime, if it has one, writes its gmon.out where
 * GMON_OUT_PREFIX says, for sprofil-outside to take the call arcs from.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sprofil.h"

static void set_env(const char *name, const char *value)
{
	if (value)
		setenv(name, value, 1);
	else
		unsetenv(name);
}

int cli_outside_start(struct cli_outside *c, pid_t pid, const char *path,
		      const char *pg_file)
{
	char helper[PATH_MAX], arg[32], ready[16] = "";
	int in[2], out[2], status;
	ssize_t n;

	if (cli_find_outside(helper, sizeof(helper)))
		return -1;
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) {
		cli_error("pipe: %s", strerror(errno));
		return -1;
	}
	snprintf(arg, sizeof(arg), "%d", (int)pid);
	fflush(NULL);
	c->collector = fork();
	if (c->collector < 0) {
		cli_error("fork: %s", strerror(errno));
		return -1;
	}
	if (!c->collector) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		unsetenv("LD_PRELOAD");
		unsetenv("SPROFIL_RECORD");
		unsetenv("SPROFIL_SIGDUMP");
		unsetenv("SPROFIL_THREADS");
		setenv("SPROFIL_BACKEND", c->backend, 1);
		set_env("SPROFIL_HZ", c->hz);
		set_env("SPROFIL_MODULES", c->modules);
		set_env("SPROFIL_BPF_SHARE", c->share);
		set_env("SPROFIL_CALLERS", c->no_callers ? "0" : NULL);
		set_env("SPROFIL_UNWIND_DIR", c->unwind_dir);
		set_env("SPROFIL_UNWIND_SERVER", c->unwind_server);
		/* ^C is record's: it ends us through our stdin (kept by exec). */
		signal(SIGINT, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
		execl(helper, "sprofil-outside", arg, path, pg_file,
		      (char *)NULL);
		cli_error("%s: %s", helper, strerror(errno));
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->ctl = in[1];
	/* Its one line on stderr, if it fails, says why. */
	while ((n = read(out[0], ready, sizeof(ready) - 1)) < 0 &&
	       errno == EINTR)
		;
	close(out[0]);
	if (n > 0 && !strncmp(ready, "ready\n", 6))
		return 0;
	close(c->ctl);
	while (waitpid(c->collector, &status, 0) < 0 && errno == EINTR)
		;
	return -1;
}

int cli_outside_finish(struct cli_outside *c)
{
	int status;

	close(c->ctl);
	while (waitpid(c->collector, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

pid_t cli_outside_spawn(const char *path, char **argv, const char *pg_prefix,
			int *status)
{
	pid_t pid;

	*status = 0;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		cli_error("fork: %s", strerror(errno));
		return -1;
	}
	if (!pid) {
		setenv("GMON_OUT_PREFIX", pg_prefix, 1);
		unsetenv("GPROFDIR");
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL)) {
			cli_error("%s: cannot start it stopped (ptrace): %s",
				  argv[0], strerror(errno));
			_exit(126);
		}
		execv(path, argv);
		cli_error("%s: %s", argv[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	/* Stopped by SIGTRAP when the exec has loaded the new image. */
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR) {
			cli_error("waitpid: %s", strerror(errno));
			kill(pid, SIGKILL);
			return -1;
		}
	if (WIFSTOPPED(*status) && WSTOPSIG(*status) == SIGTRAP)
		return pid;
	if (WIFSTOPPED(*status)) {
		kill(pid, SIGKILL);
		ptrace(PTRACE_DETACH, pid, NULL, NULL);
		while (waitpid(pid, status, 0) < 0 && errno == EINTR)
			;
	}
	return -1;
}

void cli_outside_release(pid_t pid)
{
	ptrace(PTRACE_DETACH, pid, NULL, NULL);
}

int cli_outside_allowed(pid_t pid)
{
	char maps[64];
	int fd;

	if (kill(pid, 0) && errno == ESRCH) {
		cli_error("-p %d: no such process", (int)pid);
		return -1;
	}
	/*
	 * perf's own rule for another process's events: the ptrace access
	 * check (PTRACE_MODE_READ_REALCREDS), which opening its maps makes
	 * too (with our file system credentials, the same here).
	 */
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	fd = open(maps, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		cli_error("-p %d: not allowed to trace it (%s: another user's process, or the ptrace rules forbid it)",
			  (int)pid, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}
