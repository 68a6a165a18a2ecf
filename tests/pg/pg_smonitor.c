// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * smonitor() in a -pg program run with LD_PROFILE="" (HP-UX: no
 * histogram until the application asks): smonitor() over its own text,
 * work A, smonitor(0, ...) (the dump: A's samples and A's arcs), work B,
 * exit (the -pg runtime's dump: only B's arcs, in a file of its own).
 */
#include <stdint.h>
#include <sprofil.h>
#include "pg_burn.h"

extern char __executable_start[], etext[];

volatile uint64_t sink;
static uint16_t buf[1 << 16];

static PG_FUNC void a1(int i)
{
	sink = i;
}

static PG_FUNC void b1(int i)
{
	sink = i;
}

static PG_FUNC void work_a(void)
{
	for (int i = 0; i < 1000; i++)
		a1(i);
	sink = burn(0.3);
}

static PG_FUNC void work_b(void)
{
	for (int i = 0; i < 2000; i++)
		b1(i);
	sink = burn(0.1);
}

int main(void)
{
	struct text_region r = {
		.text_start = (unsigned long)__executable_start,
		.text_end = (unsigned long)etext,
		.name = "pg-smonitor",
	};

	smonitor(&r, 1, buf, sizeof(buf), 0, PROF_USHORT);
	work_a();
	smonitor(0, 0, 0, 0, 0, 0);
	work_b();
	return 0;
}
