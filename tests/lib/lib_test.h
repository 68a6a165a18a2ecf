/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Helpers of libsprofil's behavioural suite (tests/lib): function extents,
 * workloads whose CPU split is known by construction, and bucket sums.
 * The same binaries run on every backend, so nothing here knows which one
 * is sampling: it asks sprofil_info().
 */
#ifndef SPROFIL_LIB_TEST_H
#define SPROFIL_LIB_TEST_H

#include <stddef.h>
#include <stdint.h>
#include <sprofil.h>
#include "callers_tree.h"
#include "workload.h"

/* Bucket index range covering [start, start + size) of region @p. */
void lt_bucket_range(const struct prof *p, unsigned int flags,
		     uintptr_t start, size_t size, size_t *first,
		     size_t *last);

/*
 * A region with one bucket per bucket-size bytes of @fn (scale 0x10000),
 * its zeroed buffer allocated with calloc (free it with free()).
 */
struct prof lt_func_region(void *fn, unsigned int flags);

/* Number of buckets of @p. */
size_t lt_nbuckets(const struct prof *p, unsigned int flags);

/* sprofil_info(), failing the current cmocka test if it fails. */
struct sprofil_info lt_info(void);

/* Prints @i as a TAP comment, prefixed with @what. */
void lt_print_info(const char *what, const struct sprofil_info *i);

/*
 * Seconds of CPU that give about @samples samples at the period in use
 * (the library must be sampling).
 */
double lt_seconds_for(double samples);

/*
 * libsprofil reads its settings once, from the environment it loaded in
 * (docs/backends.md), so a test that needs a setting sets it in a new
 * process: runs this program again as "<name> @role" with @env's
 * changes made ("NAME=value" sets, a bare "NAME" unsets; NULL-terminated)
 * and returns its exit status, or -1 if it did not exit.  The child's
 * stdout goes to stderr, where a nested cmocka run's lines stay comments.
 */
int lt_run_self(const char *role, const char *const *env);

/* The extent of function @fn, as a span of caller-table PCs. */
struct ct_span lt_span_of(void *fn);
/* The executable text of the module holding @fn (abort()s if none). */
struct ct_span lt_text_of(void *fn);

#endif /* SPROFIL_LIB_TEST_H */
