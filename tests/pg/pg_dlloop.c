// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dlopen() and dlclose() the same -pg library argv[1] times, calling
 * into it each time (one call of pgearly_touch() and about 2 ms of CPU in
 * pgearly_burn()), so that the profile must hold one module, one
 * histogram and every cycle's calls and samples.  Not linked with the
 * library: each dlclose() really unloads it.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "pg_burn.h"

int main(int argc, char **argv)
{
	int cycles = argc > 1 ? atoi(argv[1]) : 100;
	char path[4096], *slash;
	void (*touch)(int);
	void (*work)(double);
	ssize_t n;
	void *h;

	n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	if (n < 0)
		return 1;
	path[n] = '\0';
	slash = strrchr(path, '/');
	strcpy(slash + 1, "libpgearly.so");
	for (int i = 0; i < cycles; i++) {
		h = dlopen(path, RTLD_NOW);
		if (!h) {
			fprintf(stderr, "dlopen: %s\n", dlerror());
			return 1;
		}
		*(void **)&touch = dlsym(h, "pgearly_touch");
		*(void **)&work = dlsym(h, "pgearly_burn");
		if (!touch || !work)
			return 1;
		touch(i);
		work(0.002);
		if (dlclose(h)) {
			fprintf(stderr, "dlclose: %s\n", dlerror());
			return 1;
		}
	}
	printf("pg-dlloop: %d cycles\n", cycles);
	return 0;
}
