// SPDX-License-Identifier: GPL-2.0
/*
 * In-VM tests of sprofil.ko's pinning: each distinct page is pinned once
 * per session however many buffers share it; pinned pages are charged to
 * the user, so forked children cannot get around RLIMIT_MEMLOCK; and a
 * page shared by many sessions is refused (ENOMEM) before its reference
 * count nears the kernel's limit, with no kernel warning.
 */
#include <errno.h>
#include <poll.h>
#include <grp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "kmod_test.h"

#define PAGE		4096
#define SHARERS		64	/* regions sharing one page */
#define PARAMS		"/sys/module/sprofil/parameters/"

/* Regions whose buffers are slices of one page, over distinct text. */
static void slices(struct sprofil_region *r, unsigned int n, void *page)
{
	size_t slice = PAGE / n;
	unsigned int i;

	for (i = 0; i < n; i++)
		r[i] = kt_region((char *)page + i * slice, slice,
				 0x10000000 + (uintptr_t)i * 0x100000, 0x100);
}

static void test_regions_sharing_a_page_pin_it_once(void **state)
{
	struct sprofil_region r[SHARERS + 1];
	long pinned0 = kt_module_param("pinned_pages"), pinned;
	void *buf = wl_map(2 * PAGE, PROT_READ | PROT_WRITE);
	int fd = kt_open();

	(void)state;
	assert_non_null(buf);
	slices(r, SHARERS, buf);
	assert_int_equal(kt_start(fd, r, SHARERS, SPROFIL_UINT, NULL), 0);
	pinned = kt_module_param("pinned_pages") - pinned0;
	print_message("# %d regions in one page: %ld pages pinned\n", SHARERS,
		      pinned);
	assert_int_equal(pinned, 1);

	/* The overflow bin in the same page, and one region on two pages. */
	r[SHARERS] = kt_region(buf, 4, 0, 2);
	r[0] = kt_region((char *)buf + PAGE - 32, 64, 0x0f000000, 0x100);
	assert_int_equal(kt_start(fd, r, SHARERS + 1, SPROFIL_UINT, NULL), 0);
	pinned = kt_module_param("pinned_pages") - pinned0;
	print_message("# with the overflow bin and a straddling region: %ld pages pinned\n",
		      pinned);
	assert_int_equal(pinned, 2);
	assert_int_equal(kt_stop(fd), 0);
	assert_int_equal(kt_module_param("pinned_pages"), pinned0);
	close(fd);
	munmap(buf, 2 * PAGE);
}

/* Pipes between the test and its children: results up, "exit" down. */
struct chan {
	int report[2];		/* one byte per child: 0 or START's errno */
	int hold[2];		/* closed by the test to let children exit */
};

/* In a child: keeps only its ends of @c. */
static void child_ends(const struct chan *c)
{
	close(c->report[0]);
	close(c->hold[1]);
}

/*
 * A child that starts a session on @npages of its own memory, reports
 * the result and waits until the test closes the hold pipe.
 */
static pid_t start_and_hold(int fd, size_t npages, const struct chan *c)
{
	struct sprofil_region r;
	unsigned char res;
	char byte;
	void *buf;
	int rc;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid)
		return pid;
	child_ends(c);
	buf = wl_map(npages * PAGE, PROT_READ | PROT_WRITE);
	r = kt_region(buf, npages * PAGE, (uintptr_t)wl_work_a, 0x10000);
	rc = buf ? kt_start(fd, &r, 1, SPROFIL_UINT, NULL) : -ENOMEM;
	res = -rc;
	if (write(c->report[1], &res, 1) != 1)
		_exit(2);
	(void)!read(c->hold[0], &byte, 1);
	_exit(0);
}

/*
 * START's result from child @kid: 0 or its errno; -1 (said why) if the
 * child died or did not answer within 60 s.
 */
static int kid_result(const struct chan *c, pid_t kid)
{
	struct pollfd p = { .fd = c->report[0], .events = POLLIN };
	unsigned char res;
	int status;

	if (poll(&p, 1, 60000) == 1 && read(c->report[0], &res, 1) == 1)
		return res;
	if (waitpid(kid, &status, WNOHANG) == kid)
		print_message("# child %d died without answering, status %#x\n",
			      (int)kid, status);
	else
		print_message("# child %d did not answer in 60 s\n", (int)kid);
	return -1;
}

/*
 * As nobody, with RLIMIT_MEMLOCK of 10 pages: forked children of 4 pages
 * each; two fit, the third is refused although each process alone is
 * within its own limit.  The device is opened as root: only the calling
 * user's credentials at START matter.  Returns 0 or the line of the failed check.
 */
static int memlock_forks(void)
{
	const struct rlimit lim = { 10 * PAGE, 10 * PAGE };
	int ok = 0, i, status, fd = kt_open();
	int res[4];
	struct chan c;
	pid_t kids[4];

	KT_CHECK(setrlimit(RLIMIT_MEMLOCK, &lim) == 0, "setrlimit: %m");
	KT_CHECK(setgroups(0, NULL) == 0, "setgroups: %m");
	KT_CHECK(setgid(65534) == 0, "setgid: %m");
	KT_CHECK(setuid(65534) == 0, "setuid: %m");
	KT_CHECK(pipe(c.report) == 0 && pipe(c.hold) == 0, "pipe: %m");
	for (i = 0; i < 4; i++) {
		kids[i] = start_and_hold(fd, 4, &c);
		KT_CHECK(kids[i] > 0, "fork: %m");
		res[i] = kid_result(&c, kids[i]);
		KT_CHECK(res[i] >= 0, "child %d", i);
		print_message("# child %d, 4 pages: %s\n", i,
			      res[i] ? strerror(res[i]) : "started");
		ok += !res[i];
	}
	close(c.hold[1]);
	for (i = 0; i < 4; i++)
		waitpid(kids[i], &status, 0);
	KT_CHECK(ok == 2, "%d of 4 children pinned 4 pages each under a 10-page limit",
		 ok);
	KT_CHECK(res[2] == ENOMEM && res[3] == ENOMEM, "errno %d %d",
		 res[2], res[3]);

	/* Their exits gave the charge back. */
	kids[0] = start_and_hold(fd, 8, &c);
	res[0] = kid_result(&c, kids[0]);
	waitpid(kids[0], &status, 0);
	KT_CHECK(res[0] == 0, "8 pages after the others exited: %s",
		 strerror(res[0]));
	return 0;
}

static void test_memlock_is_per_user_across_forks(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	fflush(stdout);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		status = memlock_forks();
		fflush(stdout);
		_exit(status > 255 ? 255 : status);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	/* Non-zero: a source line of memlock_forks() (mod 256). */
	assert_int_equal(WEXITSTATUS(status), 0);
}

static int write_param(const char *name, long v)
{
	char path[128];
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), PARAMS "%s", name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	rc = fprintf(f, "%ld\n", v) < 0;
	return fclose(f) || rc ? -EIO : 0;
}

/* A child with many regions over the shared @page, held. */
static pid_t share_and_hold(uint32_t *page, const struct chan *c)
{
	struct sprofil_region r[SHARERS];
	unsigned char res;
	char byte;
	pid_t pid;
	int fd;

	fflush(stdout);
	pid = fork();
	if (pid)
		return pid;
	child_ends(c);
	slices(r, SHARERS, page);
	fd = kt_open();
	res = -kt_start(fd, r, SHARERS, SPROFIL_UINT, NULL);
	if (write(c->report[1], &res, 1) != 1)
		_exit(2);
	(void)!read(c->hold[0], &byte, 1);
	_exit(0);
}

/*
 * Forked children profiling into one MAP_SHARED page: each pins it once,
 * and once its reference count passes pin_ref_limit (lowered here so the
 * test stays short; the default is INT_MAX / 2) the next START is refused
 * with ENOMEM, cleanly.
 */
static void test_shared_page_pins_are_bounded(void **state)
{
	const int max_kids = 160, limit_pins = 100;
	long pinned0 = kt_module_param("pinned_pages");
	int i, started = 0, refused = 0;
	struct chan c;
	uint32_t *page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t kids[160];
	int res;

	(void)state;
	assert_true(page != MAP_FAILED);
	page[0] = 1;
	assert_int_equal(pipe(c.report), 0);
	assert_int_equal(pipe(c.hold), 0);
	assert_int_equal(write_param("pin_ref_limit", limit_pins * 1024L), 0);
	for (i = 0; i < max_kids; i++) {
		kids[i] = share_and_hold(page, &c);
		assert_true(kids[i] > 0);
		res = kid_result(&c, kids[i]);
		assert_true(res >= 0);
		if (res) {
			if (!refused)
				print_message("# child %d refused: %s\n", i,
					      strerror(res));
			assert_int_equal(res, ENOMEM);
			refused++;
		} else {
			assert_int_equal(refused, 0);
			started++;
		}
	}
	print_message("# %d children with %d regions each on one shared page: %d started (%ld pages pinned), %d refused\n",
		      max_kids, SHARERS, started,
		      kt_module_param("pinned_pages") - pinned0, refused);
	assert_int_equal(kt_module_param("pinned_pages") - pinned0, started);
	close(c.hold[1]);
	for (i = 0; i < max_kids; i++)
		waitpid(kids[i], NULL, 0);
	assert_int_equal(write_param("pin_ref_limit", 0x3fffffff), 0);
	/* About one pin (1024 references) per child, below the limit. */
	assert_true(started > limit_pins - 10 && started <= limit_pins);
	assert_int_equal(refused, max_kids - started);
	assert_int_equal(kt_module_param("pinned_pages"), pinned0);
	close(c.report[0]);
	close(c.report[1]);
	close(c.hold[0]);
	munmap(page, PAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regions_sharing_a_page_pin_it_once),
		cmocka_unit_test(test_memlock_is_per_user_across_forks),
		cmocka_unit_test(test_shared_page_pins_are_bounded),
	};

	return cmocka_run_group_tests_name("sprofil pins", tests, NULL, NULL);
}
