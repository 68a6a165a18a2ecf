/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the tests that run inside the VM against the real
 * sprofil.ko: ioctl wrappers, function extents and calibrated workloads
 * whose CPU split is known by construction.
 */
#ifndef SPROFIL_KMOD_TEST_H
#define SPROFIL_KMOD_TEST_H

#include <stddef.h>
#include <stdint.h>
#include <linux/sprofil.h>

/* All ioctl wrappers return 0 or -errno. */
int kt_open(void);
int kt_start(int fd, const struct sprofil_region *r, unsigned int n,
	     unsigned int flags, uint64_t *period_ns);
int kt_stop(int fd);
int kt_status(int fd, struct sprofil_status *st);

/* One region entry for a buffer. */
struct sprofil_region kt_region(void *buf, size_t bytes, uintptr_t offset,
				uint32_t scale);

/* Address and size of a function (tests link with -rdynamic). */
struct kt_func {
	uintptr_t start;
	size_t size;
};
struct kt_func kt_func_extent(void *fn);

/*
 * Workloads: every kt_work_* function runs the same loop body, so n
 * iterations cost the same CPU in each of them.  kt_calibrate() returns
 * the iteration count that takes about @seconds of CPU time.
 */
uint64_t kt_work_a(uint64_t n);
uint64_t kt_work_b(uint64_t n);
uint64_t kt_work_c(uint64_t n);
uint64_t kt_work_d(uint64_t n);
uint64_t kt_calibrate(double seconds);

/* CPU time of the calling process: user, and user + system. */
double kt_user_seconds(void);
double kt_cpu_seconds(void);

/* An anonymous private mapping with @prot, or NULL. */
void *kt_map(size_t bytes, int prot);

/* Sum of the buckets of a 16- or 32-bit buffer over [first, last). */
uint64_t kt_sum(const void *buf, unsigned int flags, size_t first,
		size_t last);

/* Bucket index range covering [start, start + size) of a region. */
void kt_bucket_range(const struct sprofil_region *r, unsigned int flags,
		     uintptr_t start, size_t size, size_t *first,
		     size_t *last);

/* Reads an integer from /sys/module/sprofil/parameters/<name>, or -1. */
long kt_module_param(const char *name);

#endif /* SPROFIL_KMOD_TEST_H */
