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
#include "workload.h"

/* All ioctl wrappers return 0 or -errno. */
int kt_open(void);
int kt_start(int fd, const struct sprofil_region *r, unsigned int n,
	     unsigned int flags, uint64_t *period_ns);
int kt_stop(int fd);
int kt_status(int fd, struct sprofil_status *st);

/* One region entry for a buffer. */
struct sprofil_region kt_region(void *buf, size_t bytes, uintptr_t offset,
				uint32_t scale);

/* User CPU time of the calling process. */
double kt_user_seconds(void);

/* Bucket index range covering [start, start + size) of a region. */
void kt_bucket_range(const struct sprofil_region *r, unsigned int flags,
		     uintptr_t start, size_t size, size_t *first,
		     size_t *last);

/* Reads an integer from /sys/module/sprofil/parameters/<name>, or -1. */
long kt_module_param(const char *name);
/* Writes @value there (root): 0 or -errno. */
int kt_module_param_set(const char *name, const char *value);

/* A file's first integer, or -1; writes @s to a file: 0 or -errno. */
long kt_read_long(const char *path);
int kt_write_file(const char *path, const char *s);

/*
 * In a function returning int (0 = success): on failure, says which
 * condition failed and why, and returns the line.  The same style works in
 * the test process and in a forked child reporting through its exit
 * status.  Needs <cmocka.h> (print_message) included first.
 */
#define KT_CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			print_message("# check failed: %s: ", #cond);	\
			print_message(__VA_ARGS__);			\
			print_message("\n");				\
			return __LINE__;				\
		}							\
	} while (0)

#endif /* SPROFIL_KMOD_TEST_H */
