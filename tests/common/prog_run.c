// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Running the programs under test from a cmocka driver (prog_run.h).
 */
#include <limits.h>
#include <setjmp.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "prog_run.h"

extern char **environ;

#define MAX_ARGS	16
#define MAX_ENV		64

int prog_dir(char *buf, size_t size)
{
	char exe[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return -1;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	return snprintf(buf, size, "%s", exe) < (int)size ? 0 : -1;
}

/* Whether the driver's variable @e is set by @env too. */
static int overridden(const char *e, const char *const env[])
{
	size_t len = strcspn(e, "=");

	for (int i = 0; env && env[i]; i++)
		if (!strncmp(env[i], e, len) && env[i][len] == '=')
			return 1;
	return 0;
}

void prog_run(struct prog_run *r, const char *path, const char *const argv[],
	      const char *const env[], char *out, size_t size, int max_lines)
{
	char *envp[MAX_ENV], *args[MAX_ARGS];
	posix_spawn_file_actions_t fa;
	size_t len = 0;
	int n = 0, fd[2], lines = 0;
	ssize_t got;

	args[0] = (char *)path;
	args[1] = NULL;
	for (int i = 1; argv[i] && i < MAX_ARGS - 1; i++)
		args[i] = (char *)argv[i], args[i + 1] = NULL;
	for (char **e = environ; *e && n < MAX_ENV / 2; e++)
		if ((!strncmp(*e, "SPROFIL_", 8) || !strncmp(*e, "PATH=", 5) ||
		     strstr(*e, "SAN_OPTIONS=")) && !overridden(*e, env))
			envp[n++] = *e;
	envp[n++] = "LC_ALL=C";
	for (int i = 0; env && env[i] && n < MAX_ENV - 1; i++)
		envp[n++] = (char *)env[i];
	envp[n] = NULL;

	assert_int_equal(pipe(fd), 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 2);
	posix_spawn_file_actions_addclose(&fa, fd[0]);
	posix_spawn_file_actions_addclose(&fa, fd[1]);
	assert_int_equal(posix_spawn(&r->pid, path, &fa, NULL, args, envp), 0);
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	r->out = out;
	while ((got = read(fd[0], out + len, size - 1 - len)) > 0)
		len += got;
	out[len] = '\0';
	close(fd[0]);
	assert_int_equal(waitpid(r->pid, &r->status, 0), r->pid);

	print_message("# ran %s (pid %d):", argv[0], (int)r->pid);
	for (int i = 1; argv[i]; i++)
		print_message(" %s", argv[i]);
	for (int i = 0; env && env[i]; i++)
		print_message(" %s", env[i]);
	if (WIFEXITED(r->status))
		print_message(" exit %d\n", WEXITSTATUS(r->status));
	else if (WIFSIGNALED(r->status))
		print_message(" killed by signal %d (%s)\n",
			      WTERMSIG(r->status), strsignal(WTERMSIG(r->status)));
	for (char *l = out; *l; ) {
		size_t ll = strcspn(l, "\n");

		if (++lines > max_lines) {
			print_message("#   | ...\n");
			break;
		}
		print_message("#   | %.*s\n", (int)ll, l);
		l += ll + (l[ll] == '\n');
	}
}
