// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libpgearly.so, built with -pg and linked after libsprofil, so that the
 * loader runs its _init first: crti.o's _init calls __gmon_start__ (as
 * libz's does), so __monstartup runs before libsprofil's own
 * constructors.  pg-sigfork checks that the runtime's locks do not
 * depend on which of the two runs first.  pg-dlloop dlopen()s it over
 * and over: pgearly_burn() gives each load samples of its own.
 */
#include "pg_burn.h"

volatile uint64_t pgearly_sink;

PG_FUNC void pgearly_touch(int i)
{
	pgearly_sink += i;
}

PG_FUNC void pgearly_burn(double seconds)
{
	pgearly_sink += burn(seconds);
}
