// SPDX-License-Identifier: GPL-2.0
/*
 * A process that profiles itself for the module-lifecycle checks of
 * run-in-vm:
 *   helper_profile exit        start profiling, then exit without stopping;
 *   helper_profile hold FILE   start profiling, close the fd, create FILE,
 *                              then keep working until FILE is removed
 *                              (rmmod happens meanwhile) and exit 0; or
 *                              exit 1 after about 600 s of CPU.
 * The holder waits to be told rather than for a fixed CPU time: on a slow
 * (loaded, TCG, PREEMPT_RT) VM the checks made meanwhile could otherwise
 * come after it had already exited.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kmod_test.h"

static uint16_t buckets[4096];

int main(int argc, char **argv)
{
	struct wl_func f = wl_func_extent(wl_work_a);
	struct sprofil_region r = kt_region(buckets, sizeof(buckets), f.start,
					    0x10000);
	uint64_t n = wl_calibrate(0.2);
	int fd, err;

	if (argc < 2)
		return 2;
	fd = kt_open();
	err = kt_start(fd, &r, 1, SPROFIL_USHORT, NULL);
	if (err) {
		fprintf(stderr, "start: %s\n", strerror(-err));
		return 1;
	}
	wl_work_a(n);
	if (!strcmp(argv[1], "exit"))
		_exit(0);
	if (strcmp(argv[1], "hold") || argc < 3)
		return 2;
	/* The session belongs to the process, not to the fd. */
	close(fd);
	close(open(argv[2], O_CREAT | O_WRONLY, 0644));
	for (int i = 0; i < 3000; i++) {
		if (access(argv[2], F_OK))
			return 0;
		wl_work_a(n);
	}
	fprintf(stderr, "hold: %s still there after ~600 s\n", argv[2]);
	return 1;
}
