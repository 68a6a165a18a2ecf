// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pg-modmain (linked with it) and pg-dlmod (not) call libpgmod.so's hot function, which calls pg_back() back: linked
 * against it, or with "dlopen" loaded by dlopen() and closed again by
 * dlclose() before exit, so that only the profile remembers it.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "pg_burn.h"

/* Weak: pg-dlmod, built from this file, is not linked with the library. */
void pgmod_hot(void (*back)(void)) __attribute__((weak));
volatile uint64_t sink;

PG_FUNC void pg_back(void)
{
	sink += burn(0.1);
}

int main(int argc, char **argv)
{
	void (*hot)(void (*)(void)) = pgmod_hot;
	char path[4096], *slash;
	void *h = NULL;
	ssize_t n;

	if (argc > 1 && !strcmp(argv[1], "dlopen")) {
		/* Next to the program, named by full path (no $ORIGIN). */
		n = readlink("/proc/self/exe", path, sizeof(path) - 32);
		if (n < 0)
			return 1;
		path[n] = '\0';
		slash = strrchr(path, '/');
		strcpy(slash + 1, "libpgmod.so");
		h = dlopen(path, RTLD_NOW);
		if (!h) {
			fprintf(stderr, "dlopen: %s\n", dlerror());
			return 1;
		}
		*(void **)&hot = dlsym(h, "pgmod_hot");
	}
	hot(pg_back);
	if (h && dlclose(h)) {
		fprintf(stderr, "dlclose: %s\n", dlerror());
		return 1;
	}
	printf("pg-modmain done\n");
	return 0;
}
