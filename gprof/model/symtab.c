// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The symbol table's lookup by address, which every layer above the
 * model uses; the table is filled and sorted by the reader (read/core.c).
 */
#include "model/model.h"

struct sym *sym_lookup(const struct sym_table *t, uint64_t addr)
{
	size_t lo = 0, hi = t->len;

	/* The last symbol starting at or below @addr, if it covers it. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->base[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr > t->base[lo - 1].end_addr)
		return NULL;
	return &t->base[lo - 1];
}

