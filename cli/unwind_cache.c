// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The unwind tables of a record run, on every backend
 * (docs/callers.md, "Tables for a recorded tree"): a cache per user,
 * $SPROFIL_UNWIND_DIR if set, else $XDG_CACHE_HOME/sprofil/unwind or
 * ~/.cache/sprofil/unwind, and the table server (sprofil-unwind -S) that
 * builds into it the tables the run's processes ask for.  libdw is the
 * server's alone: neither this command nor libsprofil links it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sprofil.h"

/* Creates the missing directories of @path, each 0700. */
static int mkdirs(char *path)
{
	char *s;

	for (s = strchr(path + 1, '/'); ; s = strchr(s + 1, '/')) {
		if (s)
			*s = '\0';
		if (mkdir(path, 0700) && errno != EEXIST) {
			int err = errno;

			if (s)
				*s = '/';
			errno = err;
			return -1;
		}
		if (!s)
			return 0;
		*s = '/';
	}
}

/* The cache's path, created; its owner and mode checked. */
static int cache_dir(char *dir, size_t size)
{
	const char *set = getenv("SPROFIL_UNWIND_DIR");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	struct stat st;
	int n;

	if (!(set && *set) && !(xdg && *xdg == '/') &&
	    !(home && *home == '/')) {
		cli_error("no unwind tables: neither XDG_CACHE_HOME nor HOME names a directory for their cache (SPROFIL_UNWIND_DIR)");
		return -1;
	}
	if (set && *set)
		n = snprintf(dir, size, "%s", set);
	else if (xdg && *xdg == '/')
		n = snprintf(dir, size, "%s/sprofil/unwind", xdg);
	else
		n = snprintf(dir, size, "%s/.cache/sprofil/unwind", home);
	if (n < 0 || (size_t)n >= size) {
		cli_error("no unwind tables: %s: %s", dir, strerror(ENAMETOOLONG));
		return -1;
	}
	if (*dir != '/' || mkdirs(dir)) {
		cli_error("no unwind tables: cannot create %s: %s", dir,
			  *dir != '/' ? "not an absolute path" : strerror(errno));
		return -1;
	}
	/* The library checks each table the same way before it maps it. */
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		cli_error("no unwind tables: %s is not a directory of yours that only you may write",
			  dir);
		return -1;
	}
	return 0;
}

pid_t cli_unwind_serve(char *dir, size_t dsize, char *name, size_t nsize,
		       int *lifeline)
{
	char helper[PATH_MAX];
	char *argv[] = { "sprofil-unwind", "-S", name, "-O", dir, NULL };
	pid_t pid;

	if (cache_dir(dir, dsize) || cli_find_unwind(helper, sizeof(helper)))
		return -1;
	cli_socket_name("sprofil-unwind", name, nsize);
	pid = cli_serve(helper, argv, lifeline);
	if (pid < 0)
		cli_error("no unwind tables: %s did not start", helper);
	return pid;
}
