// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where libsprofil.so and the analyzer are, found from our own path so
 * that the command works from the build tree (build/bin/sprofil beside
 * build/lib/, build/libexec/ and build/gprof/) and installed
 * (bin/sprofil beside bin/sprofil-gprof, libexec/ and lib/ or
 * lib/<multiarch>/).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sprofil.h"

/* Our own directory, from /proc/self/exe. */
static int self_dir(char *dir, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", dir, size - 1);
	char *slash;

	if (n < 0)
		return -1;
	dir[n] = '\0';
	slash = strrchr(dir, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	return 0;
}

/* The first of @rel (relative to our directory) that exists, as @mode. */
static int find_beside(const char *const *rel, int mode, char *path,
		       size_t size)
{
	char dir[PATH_MAX];
	size_t i;

	if (self_dir(dir, sizeof(dir)))
		return -1;
	for (i = 0; rel[i]; i++) {
		int n = snprintf(path, size, "%s/%s", dir, rel[i]);

		if (n > 0 && (size_t)n < size && !access(path, mode))
			return 0;
	}
	return -1;
}

/* find_beside(), or one line naming @what and where it was looked for. */
static int find_or_say(const char *const *rel, int mode, char *path,
		       size_t size, const char *what)
{
	if (!find_beside(rel, mode, path, size))
		return 0;
	cli_error("%s not found beside this command (%s)", what, rel[0]);
	return -1;
}

int cli_find_lib(char *path, size_t size)
{
	static const char *const rel[] = {
		"../lib/libsprofil.so.0",
		"../lib/" MULTIARCH "/libsprofil.so.0",
		"../lib/libsprofil.so",
		NULL,
	};

	return find_or_say(rel, R_OK, path, size, "libsprofil.so.0");
}

int cli_find_gprof(char *path, size_t size)
{
	static const char *const rel[] = {
		"../gprof/gprof",
		"sprofil-gprof",
		NULL,
	};

	return find_or_say(rel, X_OK, path, size, "the analyzer (sprofil-gprof)");
}

int cli_find_probe(char *path, size_t size)
{
	static const char *const rel[] = {
		"../libexec/sprofil-probe",
		"../libexec/sprofil/sprofil-probe",
		NULL,
	};

	return find_or_say(rel, X_OK, path, size, "sprofil-probe");
}

int cli_find_outside(char *path, size_t size)
{
	static const char *const rel[] = {
		"../libexec/sprofil-outside",
		"../libexec/sprofil/sprofil-outside",
		NULL,
	};

	return find_or_say(rel, X_OK, path, size, "sprofil-outside");
}

int cli_find_unwind(char *path, size_t size)
{
	static const char *const rel[] = {
		"../libexec/sprofil-unwind",
		"../libexec/sprofil/sprofil-unwind",
		NULL,
	};

	return find_or_say(rel, X_OK, path, size,
			   "the unwind table builder (sprofil-unwind)");
}
