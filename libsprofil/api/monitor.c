// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * SysV monitor(3C): one text range, 16-bit buckets.  It is smonitor()
 * with a single region, so both share one session: a monitor() call
 * while smonitor() samples writes that profile first, and the reverse.
 */
#include <stdint.h>
#include <sprofil.h>
#include "pg/gmon.h"

void monitor(void (*lowpc)(void), void (*highpc)(void),
	     unsigned short *buffer, size_t bufsize, size_t nfunc)
{
	struct text_region r = {
		.text_start = (uintptr_t)lowpc,
		.text_end = (uintptr_t)highpc,
		.name = "monitor",
	};

	(void)nfunc;
	if (!lowpc) {
		sp_monitor_stop("monitor");
		return;
	}
	/* A size in words that overflows in bytes is as good as the most. */
	sp_monitor_start("monitor", &r, 1, buffer,
			 bufsize > SIZE_MAX / 2 ? SIZE_MAX : bufsize * 2,
			 PROF_USHORT);
}
