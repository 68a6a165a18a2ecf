// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * glibc's qsort order, which GNU gprof's lists follow (ties included);
 * the call graph, the orderings and -R's map sort with it.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/*
 * A stable merge sort of pointers that compares exactly as glibc's
 * qsort does (top-down halves, the left element wins unless the
 * comparison says greater), so even a comparison that is not a strict
 * order lands elements where GNU's qsort put them.
 */
static void msort_rec(void **a, void **tmp, size_t n,
		      int (*cmp)(const void *, const void *))
{
	size_t n1, n2, i, j, k;

	if (n <= 1)
		return;
	n1 = n / 2;
	n2 = n - n1;
	msort_rec(a, tmp, n1, cmp);
	msort_rec(a + n1, tmp, n2, cmp);
	for (i = 0, j = n1, k = 0; i < n1 && j < n; k++) {
		if (cmp(&a[i], &a[j]) <= 0)
			tmp[k] = a[i++];
		else
			tmp[k] = a[j++];
	}
	while (i < n1)
		tmp[k++] = a[i++];
	/* What is left of the right half is already in place. */
	memcpy(a, tmp, k * sizeof(*a));
}

void cg_sort(void *base, size_t n, int (*cmp)(const void *, const void *))
{
	void **tmp;

	if (n <= 1)
		return;
	tmp = xmalloc(n * sizeof(void *));
	msort_rec(base, tmp, n, cmp);
	free(tmp);
}
