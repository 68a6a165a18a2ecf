// SPDX-License-Identifier: LGPL-2.1-or-later
/* Unwind tables for a test (unwind_tables.h). */
#include <dirent.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unwind_tables.h"

#define CMD_MAX	8192

/*
 * Every module loaded: its file, and the executable's (by its path: the
 * builder runs under a shell, whose /proc/self/exe is the shell).
 */
static int add_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	static char exe[4096];
	char *cmd = arg;
	const char *name = info->dlpi_name;
	ssize_t n;

	(void)size;
	if (!*name) {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n <= 0)
			return 0;
		exe[n] = 0;
		name = exe;
	}
	if (strstr(name, "linux-vdso") || access(name, R_OK))
		return 0;
	if (strlen(cmd) + strlen(name) + 4 < CMD_MAX) {
		strcat(cmd, " '");
		strcat(cmd, name);
		strcat(cmd, "'");
	}
	return 0;
}

int ut_build_tables(const char *tool, const char *dir, const char *extra,
		    const char *out)
{
	static char cmd[CMD_MAX];
	int status;

	snprintf(cmd, sizeof(cmd), "%s -O %s", tool, dir);
	if (extra)
		add_module(&(struct dl_phdr_info){ .dlpi_name = extra }, 0,
			   cmd);
	dl_iterate_phdr(add_module, cmd);
	if (strlen(cmd) + strlen(out) + 3 < sizeof(cmd)) {
		strcat(cmd, " >");
		strcat(cmd, out);
	}
	status = system(cmd);
	if (status)
		fprintf(stderr, "# %s: status %d\n", cmd, status);
	return status;
}

void ut_remove_dir(const char *dir)
{
	char path[4096];
	struct dirent *e;
	DIR *d = opendir(dir);

	if (d) {
		while ((e = readdir(d)))
			if (e->d_name[0] != '.') {
				snprintf(path, sizeof(path), "%s/%s", dir,
					 e->d_name);
				unlink(path);
			}
		closedir(d);
	}
	rmdir(dir);
}
