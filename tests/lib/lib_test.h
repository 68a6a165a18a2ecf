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

/* Address and size of a function (the tests link with -rdynamic). */
struct lt_func {
	uintptr_t start;
	size_t size;
};
struct lt_func lt_func_extent(void *fn);

/*
 * Workloads: every lt_work_* runs the same loop body, so n iterations cost
 * the same CPU in each; kt_lib_work() (liblt_spin.so) runs it too.
 * lt_calibrate() returns the iterations that take @seconds of CPU.
 */
uint64_t lt_work_a(uint64_t n);
uint64_t lt_work_b(uint64_t n);
uint64_t lt_work_c(uint64_t n);
uint64_t lt_work_d(uint64_t n);
uint64_t kt_lib_work(uint64_t n);
uint64_t lt_calibrate(double seconds);

/* CPU time of the calling thread, and of the whole process. */
double lt_thread_seconds(void);
double lt_cpu_seconds(void);

/*
 * Calls @fn with @chunk iterations until the calling thread has spent
 * @seconds of CPU; returns the CPU time it really took.
 */
double lt_spin_cpu(uint64_t (*fn)(uint64_t), uint64_t chunk, double seconds);

/* An anonymous private mapping with @prot, or NULL. */
void *lt_map(size_t bytes, int prot);

/* Sum of the buckets [first, last) of a 16- or 32-bit buffer. */
uint64_t lt_sum(const void *buf, unsigned int flags, size_t first,
		size_t last);

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

#endif /* SPROFIL_LIB_TEST_H */
