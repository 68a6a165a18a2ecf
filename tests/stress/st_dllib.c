// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The -pg library st-dlloop loads and unloads: dl_hot(n) calls dl_leaf()
 * n times and burns a little CPU, so each load has calls and samples.
 */
#include "pg_burn.h"

volatile uint64_t st_dl_sink;

PG_FUNC void dl_leaf(void)
{
	st_dl_sink++;
}

PG_FUNC void dl_hot(int n)
{
	for (int i = 0; i < n; i++)
		dl_leaf();
	st_dl_sink += burn(0.0005);
}
