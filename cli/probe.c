// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Before the program runs: can the backend asked for sample here?
 * sprofil-probe (probe_helper.c) runs with libsprofil preloaded, starts
 * sampling and stops.  libsprofil says on stderr why a backend cannot
 * run; the probe's stderr is a pipe, so that the reason becomes our one
 * line instead of a program that runs unprofiled.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sprofil.h"

static __attribute__((noreturn)) void probe_child(const char *lib,
						  const char *helper,
						  const char *backend, int out)
{
	dup2(out, 1);
	dup2(out, 2);
	unsetenv("SPROFIL_RECORD");
	if (backend)
		setenv("SPROFIL_BACKEND", backend, 1);
	setenv("LD_PRELOAD", lib, 1);
	execl(helper, "sprofil-probe", (char *)NULL);
	fprintf(stderr, "%s: %s\n", helper, strerror(errno));
	_exit(1);
}

/*
 * Runs the probe; 0 with the backend chosen in @chosen, or -1 with the
 * reason in @msg (one line).
 */
static int probe_run(const char *lib, const char *backend, char *chosen,
		     size_t size, char *msg, size_t msize)
{
	char *line, *nl;
	size_t len = 0;
	ssize_t n;
	char helper[PATH_MAX];
	int fd[2], status;
	pid_t pid;

	if (cli_find_probe(helper, sizeof(helper)))
		return -2;

	if (pipe2(fd, O_CLOEXEC)) {
		snprintf(msg, msize, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(msg, msize, "fork: %s", strerror(errno));
		return -1;
	}
	if (!pid)
		probe_child(lib, helper, backend, fd[1]);
	close(fd[1]);
	while (len < msize - 1 &&
	       ((n = read(fd[0], msg + len, msize - 1 - len)) > 0 ||
		(n < 0 && errno == EINTR)))
		len += n > 0 ? n : 0;
	msg[len] = '\0';
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && !WEXITSTATUS(status)) {
		line = strstr(msg, "backend ");
		nl = line ? strchr(line, '\n') : NULL;
		if (nl)
			*nl = '\0';
		snprintf(chosen, size, "%s", line ? line + 8 : "");
		return 0;
	}
	/* libsprofil's first line names the reason. */
	line = msg;
	if (!strncmp(line, "libsprofil: ", 12))
		line += 12;
	nl = strchr(line, '\n');
	if (nl)
		*nl = '\0';
	memmove(msg, *line ? line : "the probe failed",
		strlen(*line ? line : "the probe failed") + 1);
	return -1;
}

int cli_probe(const char *lib, const char *backend, char *chosen,
	      size_t size)
{
	char msg[1024];
	int ret = probe_run(lib, backend, chosen, size, msg, sizeof(msg));

	if (ret == -1)
		cli_error("no usable backend%s%s: %s", backend ? " " : "",
			  backend ? backend : "", msg);
	return ret ? -1 : 0;
}

/* @msg, libsprofil's "backend @name cannot run: WHY", as WHY. */
static const char *reason(const char *msg, const char *name)
{
	char head[32];
	size_t n = (size_t)snprintf(head, sizeof(head), "backend %s cannot run: ",
				    name);

	return strncmp(msg, head, n) ? msg : msg + n;
}

int cli_probe_outside(const char *lib, const char *backend, const char *what,
		      char *chosen, size_t size)
{
	char msg[1024], kmsg[1024];
	int ret;

	/* The signal backend samples from inside the process only. */
	if (backend && !strcmp(backend, "signal")) {
		cli_error("%s: the signal backend cannot sample it: it samples inside the process, which needs the loader to preload the collector; use --backend kmod, bpf or auto",
			  what);
		return 2;
	}
	if (backend && strcmp(backend, "auto")) {
		ret = probe_run(lib, backend, chosen, size, msg, sizeof(msg));
		/* @msg is libsprofil's "backend NAME cannot run: WHY". */
		if (ret == -1)
			cli_error("%s: %s", what, msg);
		return ret ? 1 : 0;
	}
	ret = probe_run(lib, "kmod", chosen, size, kmsg, sizeof(kmsg));
	if (ret != -1)
		return ret ? 1 : 0;
	ret = probe_run(lib, "bpf", chosen, size, msg, sizeof(msg));
	if (ret == -1)
		cli_error("%s: sampling it from outside needs the kmod backend (%s) or the bpf one (%s)",
			  what, reason(kmsg, "kmod"), reason(msg, "bpf"));
	return ret ? 1 : 0;
}

/* A socket name of its own for this run: @what.<pid>.<random>. */
void cli_socket_name(const char *what, char *name, size_t size)
{
	unsigned int r;

	if (getentropy(&r, sizeof(r)))
		r = (unsigned int)clock();
	snprintf(name, size, "%s.%d.%08x", what, (int)getpid(), r);
}

/*
 * One of the run's servers: @helper run with @argv and our end of a pipe
 * as its stdin, so that it ends when we do; it says "ready" on stdout
 * once it serves.  Returns its pid and fills @lifeline, or -1.
 */
pid_t cli_serve(const char *helper, char *const argv[], int *lifeline)
{
	char ready[16] = "";
	int in[2], out[2];
	ssize_t n;
	pid_t pid;

	if (pipe2(in, O_CLOEXEC))
		return -1;
	if (pipe2(out, O_CLOEXEC)) {
		close(in[0]);
		close(in[1]);
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (!pid) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		unsetenv("LD_PRELOAD");
		execv(helper, argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	n = pid < 0 ? -1 : read(out[0], ready, sizeof(ready) - 1);
	close(out[0]);
	if (n <= 0 || strncmp(ready, "ready\n", 6)) {
		close(in[1]);
		if (pid > 0)
			waitpid(pid, NULL, 0);
		return -1;
	}
	*lifeline = in[1];
	return pid;
}

/*
 * The run's bpf program server (cli/bpf_share.c): sprofil-probe --serve.
 * Fills @name (the socket's, for SPROFIL_BPF_SHARE) and returns the
 * server's pid, or -1 when it could not start: then every process loads
 * the program itself, as without record.
 */
pid_t cli_bpf_serve(char *name, size_t size, int *lifeline)
{
	char helper[PATH_MAX];
	char *argv[] = { "sprofil-probe", "--serve", name, NULL };

	if (cli_find_probe(helper, sizeof(helper)))
		return -1;
	cli_socket_name("sprofil-bpf", name, size);
	return cli_serve(helper, argv, lifeline);
}
