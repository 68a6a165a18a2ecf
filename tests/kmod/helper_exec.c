// SPDX-License-Identifier: GPL-2.0
/*
 * helper_exec SESSIONS: exec'd by test_lifecycle from a process that was
 * profiling.  exec must have ended that session: this program spins about
 * 1 s of CPU (under glibc's profil it would die of SIGPROF, "Profiling
 * timer expired", as the inherited ITIMER_PROF meets the reset handler),
 * then checks that it has no session and that the module counts SESSIONS
 * sessions again.  Exit status: 0, or the line of the failed check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "kmod_test.h"

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "helper_exec: " __VA_ARGS__);	\
			fputc('\n', stderr);				\
			return __LINE__ > 255 ? 255 : __LINE__;		\
		}							\
	} while (0)

int main(int argc, char **argv)
{
	struct sprofil_status st;
	long want, sessions;
	uint64_t chunk;
	double t0;
	int fd, rc;

	CHECK(argc == 2, "usage: helper_exec SESSIONS");
	want = strtol(argv[1], NULL, 10);
	chunk = wl_calibrate(0.01);
	t0 = wl_cpu_seconds();
	while (wl_cpu_seconds() - t0 < 1.0)
		wl_work_b(chunk);

	fd = kt_open();
	rc = kt_status(fd, &st);
	CHECK(rc == 0, "status: %s", strerror(-rc));
	CHECK(st.state == 0 && st.samples == 0 && st.nregions == 0,
	      "the new image has a session: state %#x, %llu samples",
	      st.state, (unsigned long long)st.samples);
	sessions = kt_module_param("sessions");
	CHECK(sessions == want, "sessions %ld, expected %ld", sessions, want);
	printf("# helper_exec: %.2f s CPU after exec, no session, %ld sessions\n",
	       wl_cpu_seconds() - t0, sessions);
	return 0;
}
