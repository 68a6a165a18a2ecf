// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Before the program runs: can the backend asked for sample here?  A
 * child process loads libsprofil, starts sampling a region of its own
 * text and stops.  libsprofil says on stderr why a backend cannot run;
 * the child's stderr is a pipe, so that the reason becomes our one line
 * instead of a program that runs unprofiled.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <sys/gmon.h>
#include <sys/profil.h>

#include "sprofil.h"

typedef int (*sprofil_fn)(struct prof *, int, struct timeval *,
			  unsigned int);

static __attribute__((noreturn)) void probe_child(const char *lib,
						  const char *backend, int out)
{
	static unsigned short buckets[256];
	struct prof region = {
		.pr_base = buckets, .pr_size = sizeof(buckets),
		.pr_off = (size_t)(void *)probe_child, .pr_scale = 0x10000,
	};
	struct timeval tick;
	sprofil_fn start;
	void *h;

	dup2(out, 2);
	unsetenv("SPROFIL_RECORD");
	if (backend)
		setenv("SPROFIL_BACKEND", backend, 1);
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		_exit(1);
	}
	start = (sprofil_fn)dlsym(h, "sprofil");
	if (!start) {
		fprintf(stderr, "%s: no sprofil()\n", lib);
		_exit(1);
	}
	if (start(&region, 1, &tick, PROF_USHORT)) {
		fprintf(stderr, "sampling does not start: %s\n",
			strerror(errno));
		_exit(1);
	}
	start(NULL, 0, NULL, 0);
	_exit(0);
}

int cli_probe(const char *lib, const char *backend)
{
	char msg[1024], *line, *nl;
	size_t len = 0;
	ssize_t n;
	int fd[2], status;
	pid_t pid;

	if (pipe2(fd, O_CLOEXEC)) {
		cli_error("pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		cli_error("fork: %s", strerror(errno));
		return -1;
	}
	if (!pid)
		probe_child(lib, backend, fd[1]);
	close(fd[1]);
	while (len < sizeof(msg) - 1 &&
	       ((n = read(fd[0], msg + len, sizeof(msg) - 1 - len)) > 0 ||
		(n < 0 && errno == EINTR)))
		len += n > 0 ? n : 0;
	msg[len] = '\0';
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	/* libsprofil's first line names the reason. */
	line = msg;
	if (!strncmp(line, "libsprofil: ", 12))
		line += 12;
	nl = strchr(line, '\n');
	if (nl)
		*nl = '\0';
	cli_error("no usable backend%s%s: %s", backend ? " " : "",
		  backend ? backend : "", *line ? line : "the probe failed");
	return -1;
}
