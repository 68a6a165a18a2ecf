// SPDX-License-Identifier: GPL-2.0
/*
 * In-VM test of sprofil.ko's kernel memory accounting: a session's kernel
 * memory (table, mapping arrays, thread records, statistics) is charged to
 * the memory cgroup of the process that starts it, and at the cgroup's
 * memory.max START fails with ENOMEM instead of growing the kernel's
 * unaccounted memory (or OOM-killing).  Each half runs in a cgroup of its
 * own: memory a cgroup freed stays charged to it in slab caches, which
 * would let a second START fit.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "kmod_test.h"

#define PAGE		4096
#define NREGIONS	SPROFIL_MAX_REGIONS
/*
 * Pages per region's buffer: the session then needs more kernel memory
 * (8 bytes per pinned page) than the 64-page batch a memory cgroup
 * charges ahead for each CPU, which could otherwise absorb it.
 */
#define REGION_PAGES	32
#define BUF_BYTES	((size_t)NREGIONS * REGION_PAGES * PAGE)
#define CG_ROOT		"/sys/fs/cgroup"
#define CG		CG_ROOT "/sprofil-measure"
#define CG2		CG_ROOT "/sprofil-limit"

/* A field of CG/memory.stat, in bytes, or -1. */
static long memory_stat(const char *field)
{
	char name[64];
	long v, found = -1;
	FILE *f = fopen(CG "/memory.stat", "r");

	if (!f)
		return -1;
	while (fscanf(f, "%63s %ld", name, &v) == 2)
		if (!strcmp(name, field))
			found = v;
	fclose(f);
	return found;
}

/* Kernel memory of the cgroup, flushed (memory.stat is batched). */
static long kernel_bytes(void)
{
	/* The periodic flush runs every 2 s on 6.1. */
	usleep(2200000);
	return memory_stat("kernel");
}

static int group_setup(void **state)
{
	(void)state;
	if (access(CG_ROOT "/cgroup.controllers", F_OK) &&
	    mount("cgroup2", CG_ROOT, "cgroup2", 0, NULL)) {
		print_message("# mount cgroup2: %s\n", strerror(errno));
		return -1;
	}
	if (kt_write_file(CG_ROOT "/cgroup.subtree_control", "+memory")) {
		print_message("# enable the memory controller: %s\n",
			      strerror(errno));
		return -1;
	}
	if ((mkdir(CG, 0755) && errno != EEXIST) ||
	    (mkdir(CG2, 0755) && errno != EEXIST)) {
		print_message("# mkdir under " CG_ROOT ": %s\n",
			      strerror(errno));
		return -1;
	}
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	rmdir(CG);
	rmdir(CG2);
	return 0;
}

/* Regions of REGION_PAGES each, back to back in @buf. */
static void regions(struct sprofil_region *r, uint32_t *buf)
{
	const size_t words = REGION_PAGES * PAGE / 4;
	unsigned int i;

	for (i = 0; i < NREGIONS; i++)
		r[i] = kt_region(buf + i * words, words * 4,
				 0x10000000 + (uintptr_t)i * 0x100000,
				 0x10000);
}

/*
 * In a fresh cgroup: measures what a session of 1,024 regions charges
 * (into *@cost).  Returns 0 or the line of the failed check.
 */
static int measure_child(long *cost)
{
	static struct sprofil_region r[NREGIONS];
	uint32_t *buf = wl_map(BUF_BYTES, PROT_READ | PROT_WRITE);
	long k0, k1;
	int fd, rc;

	KT_CHECK(buf, "mmap: %m");
	/* User pages stay charged where they were faulted in: not here. */
	memset(buf, 0, BUF_BYTES);
	regions(r, buf);
	fd = kt_open();
	KT_CHECK(kt_write_file(CG "/cgroup.procs", "0") == 0,
		 "join " CG ": %m");
	k0 = kernel_bytes();
	rc = kt_start(fd, r, NREGIONS, SPROFIL_UINT, NULL);
	KT_CHECK(rc == 0, "START: %s", strerror(-rc));
	k1 = kernel_bytes();
	print_message("# a %d-region session charged %ld bytes of kernel memory (memory.stat kernel %ld -> %ld)\n",
		      NREGIONS, k1 - k0, k0, k1);
	KT_CHECK(k0 >= 0 && k1 - k0 >= 400 * 1024,
		 "kernel memory %ld -> %ld", k0, k1);
	*cost = k1 - k0;
	return 0;
}

/*
 * In another fresh cgroup whose memory.max leaves a quarter of @cost: the
 * same START fails with ENOMEM, leaves the usage under the limit and the
 * process alive; without the limit it succeeds.
 */
static int limit_child(long cost)
{
	static struct sprofil_region r[NREGIONS];
	uint32_t *buf = wl_map(BUF_BYTES, PROT_READ | PROT_WRITE);
	long cur, after;
	char max[32];
	int fd, rc;

	KT_CHECK(buf, "mmap: %m");
	memset(buf, 0, BUF_BYTES);
	regions(r, buf);
	fd = kt_open();
	KT_CHECK(kt_write_file(CG2 "/cgroup.procs", "0") == 0,
		 "join " CG2 ": %m");
	cur = kt_read_long(CG2 "/memory.current");
	snprintf(max, sizeof(max), "%ld", cur + cost / 4);
	KT_CHECK(kt_write_file(CG2 "/memory.max", max) == 0, "memory.max: %m");
	rc = kt_start(fd, r, NREGIONS, SPROFIL_UINT, NULL);
	after = kt_read_long(CG2 "/memory.current");
	print_message("# with memory.max %s (usage %ld): START returned %d (%s), usage %ld\n",
		      max, cur, rc, strerror(-rc), after);
	KT_CHECK(rc == -ENOMEM, "START under memory.max: %s", strerror(-rc));
	KT_CHECK(after <= atol(max), "usage %ld over memory.max %s", after,
		 max);
	KT_CHECK(kt_write_file(CG2 "/memory.max", "max") == 0, "memory.max: %m");
	rc = kt_start(fd, r, NREGIONS, SPROFIL_UINT, NULL);
	KT_CHECK(rc == 0, "START without the limit: %s", strerror(-rc));
	return 0;
}

/* Runs @fn in a child; returns its exit status (0: passed). */
static int in_child(int (*fn)(long *), long *arg)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		status = fn(arg);
		fflush(stdout);
		_exit(status > 255 ? 255 : status);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status))
		print_message("# child killed by signal %d\n",
			      WTERMSIG(status));
	/* Otherwise a source line of the child's function (mod 256). */
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int limit_child_ptr(long *cost)
{
	return limit_child(*cost);
}

static void test_session_memory_is_charged_and_bounded(void **state)
{
	long pinned0 = kt_module_param("pinned_pages");
	long *cost = mmap(NULL, sizeof(*cost), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	(void)state;
	assert_true(cost != MAP_FAILED);
	assert_int_equal(in_child(measure_child, cost), 0);
	assert_int_equal(in_child(limit_child_ptr, cost), 0);
	assert_int_equal(kt_module_param("pinned_pages"), pinned0);
	munmap(cost, sizeof(*cost));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_session_memory_is_charged_and_bounded),
	};

	return cmocka_run_group_tests_name("sprofil memcg", tests,
					   group_setup, group_teardown);
}
