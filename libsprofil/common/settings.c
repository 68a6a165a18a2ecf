// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The settings snapshot (settings.h): the variables the library reads,
 * copied out of environ once into one read-only mapping.
 *
 * When: in a constructor that runs before the library's others, or at
 * the first sp_setting() if something asks sooner: a static -pg
 * program's _init calls __monstartup() before any constructor, and a -pg
 * library's _init may too.  Either way main() has not run, so environ is
 * still the environment the process was started with.  A library
 * dlopen()ed later takes the environment of that moment.
 *
 * environ itself is read, not getenv(), which a program may define (see
 * settings.h).  The strings are copied, not pointed to: a program may
 * rewrite its initial environment in place (setproctitle() in servers
 * does) and setenv() may replace an entry.  The copy lives in its own
 * mapping, not in malloc()'s heap, since a program may replace malloc()
 * as well and the copy is made before main().
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>
#include "settings.h"

#define SP_OWN_PREFIX		"SPROFIL_"
#define SP_OWN_PREFIX_LEN	(sizeof(SP_OWN_PREFIX) - 1)

/* The others the library reads: ld.so's, HP-UX's and glibc's names. */
static const char *const sp_foreign_names[] = {
	"LD_PROFILE", "LD_PROFILEBUCKET_SIZE", "GPROFDIR", "GMON_OUT_PREFIX",
};

static pthread_once_t sp_settings_once = PTHREAD_ONCE_INIT;
/* "NAME=value" strings in the environment's order, NULL-terminated. */
static const char *const *sp_settings;

/* Whether @name, @len characters long, is a variable the library reads. */
static bool sp_setting_known(const char *name, size_t len)
{
	size_t i;

	if (len > SP_OWN_PREFIX_LEN &&
	    !strncmp(name, SP_OWN_PREFIX, SP_OWN_PREFIX_LEN))
		return true;
	for (i = 0; i < sizeof(sp_foreign_names) / sizeof(*sp_foreign_names);
	     i++)
		if (strlen(sp_foreign_names[i]) == len &&
		    !strncmp(name, sp_foreign_names[i], len))
			return true;
	return false;
}

/* The length of the variable's name if the library reads it, else 0. */
static size_t sp_setting_entry(const char *entry)
{
	const char *eq = strchr(entry, '=');

	return eq && sp_setting_known(entry, eq - entry) ? eq - entry : 0;
}

static void sp_settings_capture(void)
{
	static const char *const none[] = { NULL };
	char **env = environ;
	const char **table;
	size_t n = 0, bytes = 0, size, len, i, k;
	char *text, *end;
	void *map;

	sp_settings = none;
	for (i = 0; env && env[i]; i++) {
		if (sp_setting_entry(env[i])) {
			n++;
			bytes += strlen(env[i]) + 1;
		}
	}
	if (!n)
		return;
	size = (n + 1) * sizeof(*table) + bytes;
	map = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "libsprofil: cannot copy its settings from the environment (%s): every SPROFIL_ variable is ignored\n",
			strerror(errno));
		return;
	}
	table = map;
	text = (char *)(table + n + 1);
	end = text + bytes;
	/* Bounded again: only a racing setenv() could change the sizes. */
	for (i = 0, k = 0; env[i] && k < n; i++) {
		if (!sp_setting_entry(env[i]))
			continue;
		len = strlen(env[i]) + 1;
		if (len > (size_t)(end - text))
			break;
		memcpy(text, env[i], len);
		table[k++] = text;
		text += len;
	}
	table[k] = NULL;
	/* Nothing writes it again; a stray write would now fault. */
	mprotect(map, size, PROT_READ);
	sp_settings = table;
}

/*
 * Priority 101, the first one not reserved: the copy is taken before any
 * of our constructors, and before the application's own in a static
 * link, could setenv().
 */
__attribute__((constructor(101))) static void sp_settings_load(void)
{
	pthread_once(&sp_settings_once, sp_settings_capture);
}

const char *sp_setting(const char *name)
{
	size_t len = strlen(name);
	const char *const *s;

	if (!sp_setting_known(name, len)) {
		/* A reader settings.c was not told of: a bug, caught at once. */
		fprintf(stderr, "libsprofil: internal error: %s is not among the settings copied from the environment\n",
			name);
		abort();
	}
	pthread_once(&sp_settings_once, sp_settings_capture);
	for (s = sp_settings; *s; s++)
		if (!strncmp(*s, name, len) && (*s)[len] == '=')
			return *s + len + 1;
	return NULL;
}

const char *sp_setting_secure(const char *name)
{
	return getauxval(AT_SECURE) ? NULL : sp_setting(name);
}
