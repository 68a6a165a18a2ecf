// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * helper_exec: exec'd by test_lifecycle from a process that was profiling.
 * It spins about 0.5 s of CPU, long enough for any sampling signal or
 * timer inherited from the old image to strike (under glibc's profil the
 * inherited ITIMER_PROF kills it with SIGPROF), then checks that nothing
 * is sampling this new image.  Exit status: 0, or the line of the failed
 * check.
 */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include "lib_test.h"

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "helper_exec: " __VA_ARGS__);	\
			fputc('\n', stderr);				\
			return __LINE__ > 255 ? 255 : __LINE__;		\
		}							\
	} while (0)

int main(void)
{
	struct sprofil_info i;
	double t;

	t = wl_spin_cpu(wl_work_b, wl_calibrate(0.01), 0.5);
	/* exec turns profiling off: this image has started nothing. */
	memset(&i, 0, sizeof(i));
	if (sprofil_info(&i) == 0)
		CHECK(!i.enabled && i.nregions == 0,
		      "still sampling after exec: %s, %llu samples, %u regions",
		      i.backend, (unsigned long long)i.samples, i.nregions);
	else
		CHECK(errno == ENODEV, "sprofil_info: %s", strerror(errno));
	printf("# helper_exec: %.2f s of CPU after exec, not sampled\n", t);
	return 0;
}
