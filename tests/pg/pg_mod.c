// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libpgmod.so, built with -pg: a hot function, so that the library has
 * time of its own, which calls back into the executable, so that there
 * are arcs both ways.
 */
#include "pg_burn.h"

volatile uint64_t pgmod_sink;

PG_FUNC void pgmod_hot(void (*back)(void))
{
	pgmod_sink += burn(0.6);
	back();
}
