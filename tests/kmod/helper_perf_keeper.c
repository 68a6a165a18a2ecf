// SPDX-License-Identifier: GPL-2.0
/*
 * Holds one task-clock perf event open and sleeps until killed, so perf's
 * perf_sched_events static key stays on for the whole test run.
 *
 * Why: under qemu TCG, Debian's 6.12 kernel oopses with "int3" at a
 * static-branch site in __schedule() when that key flips (the text
 * patching races TCG's translated code).  It reproduces with nothing but
 * perf_event_open()/close() and a >1 s pause between them, without
 * sprofil.ko loaded; 6.1 does not do it.  run-in-vm starts this keeper on
 * kernels after 6.1 so that the module's tests are not killed by it.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.size = sizeof(a);
	if (syscall(SYS_perf_event_open, &a, 0, -1, -1, 0) < 0) {
		perror("helper_perf_keeper: perf_event_open");
		return 1;
	}
	for (;;)
		pause();
}
