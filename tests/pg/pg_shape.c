// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The shape of glibc's gmon/tst-gmon.c: f3 called once calls f2 1000
 * times, f2 calls f1 twice, so gprof must report 1, 1000 and 2000 calls.
 * busy() adds half a second of CPU so the flat profile has time to show.
 * Built three ways: with libsprofil's runtime (-lsprofil), the same with
 * -mfentry, and against glibc's own runtime (run under LD_PRELOAD).
 */
#include "pg_burn.h"

volatile uint64_t sink;

static PG_FUNC void f1(int i)
{
	sink = i;
}

/* Two call sites in one function: both arcs must land on f2. */
static PG_FUNC void f2(int i)
{
	f1(i);
	f1(i + 1);
}

static PG_FUNC void f3(void)
{
	for (int i = 0; i < 1000; i++)
		f2(i);
}

static PG_FUNC void busy(void)
{
	sink = burn(0.5);
}

int main(void)
{
	f3();
	busy();
	return 0;
}
