// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dlopen/dlclose of a -pg library in a loop: st-dlloop MAXCYCLES
 * SECONDS.  Each cycle loads libst_dl.so (next to the program, by full
 * path), calls dl_hot(50) (50 calls of dl_leaf()), and unloads it,
 * until MAXCYCLES cycles or SECONDS of wall time.  It prints
 *
 *   fn dl_leaf ...    (the library's, once)
 *   cycles <n> <dl_leaf calls> <seconds>
 *
 * Every module's data is kept (docs/gmon-format.md): the profile must
 * hold all the calls, and the driver counts the library's records.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "st_pg.h"

#define LEAF_CALLS 50

int main(int argc, char **argv)
{
	int max = argc > 1 ? atoi(argv[1]) : 100;
	double seconds = argc > 2 ? atof(argv[2]) : 5, t0 = st_now();
	char path[4096], *slash;
	long calls = 0;
	int n;
	ssize_t len = readlink("/proc/self/exe", path, sizeof(path) - 32);

	if (len <= 0)
		return 2;
	path[len] = '\0';
	slash = strrchr(path, '/');
	strcpy(slash + 1, "libst_dl.so");
	for (n = 0; n < max && st_now() - t0 < seconds; n++) {
		void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		void (*hot)(int);

		if (!h) {
			dprintf(2, "st-dlloop: dlopen: %s\n", dlerror());
			return 1;
		}
		*(void **)&hot = dlsym(h, "dl_hot");
		if (!hot) {
			dprintf(2, "st-dlloop: dlsym: %s\n", dlerror());
			return 1;
		}
		if (n == 0)
			st_describe("dl_leaf", dlsym(h, "dl_leaf"));
		hot(LEAF_CALLS);
		calls += LEAF_CALLS;
		if (dlclose(h)) {
			dprintf(2, "st-dlloop: dlclose: %s\n", dlerror());
			return 1;
		}
	}
	dprintf(1, "cycles %d %ld %.3f\n", n, calls, st_now() - t0);
	return 0;
}
