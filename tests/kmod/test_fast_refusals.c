// SPDX-License-Identifier: GPL-2.0
/*
 * In-VM test of sprofil.ko: refusals and no-op stops are fast, so a
 * fuzzer can issue millions of ioctls.  A STOP with nothing to stop, in a
 * process with or without a session, and a START refused for its buffer,
 * must not wait for an RCU grace period (23 ms each on 6.1 under TCG
 * before) nor create a session.  Each loop's mean is printed (a START
 * replacing a table too, which waits for one grace period so that the old
 * pages are unpinned when it returns); a refusal must take under 1 ms on
 * average.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "kmod_test.h"

#define LOOPS		10000
#define GOOD_LOOPS	200
#define MAX_MEAN_US	1000.0

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Mean microseconds of @n calls of @op, each returning @expect. */
static double time_op(int (*op)(int fd, void *arg), int fd, void *arg,
		      int n, int expect, const char *what)
{
	double t0 = now_us(), mean;
	int i;

	for (i = 0; i < n; i++)
		assert_int_equal(op(fd, arg), expect);
	mean = (now_us() - t0) / n;
	print_message("# %d x %s: %.1f us each\n", n, what, mean);
	return mean;
}

static int op_stop(int fd, void *arg)
{
	(void)arg;
	return kt_stop(fd);
}

static int op_start(int fd, void *arg)
{
	return kt_start(fd, arg, 1, 0, NULL);
}

static void test_refusals_are_fast(void **state)
{
	static uint16_t buf[1024];
	/* Unmapped user memory: refused with EFAULT when pinned. */
	struct sprofil_region bad = kt_region((void *)4096, 4096, 0, 0x10000);
	struct sprofil_region good = kt_region(buf, sizeof(buf), 0, 0x10000);
	int fd = kt_open();

	(void)state;
	assert_int_equal(kt_module_param("sessions"), 0);
	assert_true(time_op(op_stop, fd, NULL, LOOPS, 0,
			    "STOP, no session") < MAX_MEAN_US);
	assert_true(time_op(op_start, fd, &bad, LOOPS, -EFAULT,
			    "START refused, no session") < MAX_MEAN_US);
	/* A refused START leaves no session behind. */
	assert_int_equal(kt_module_param("sessions"), 0);

	assert_int_equal(kt_start(fd, &good, 1, 0, NULL), 0);
	assert_int_equal(kt_stop(fd), 0);
	assert_true(time_op(op_stop, fd, NULL, LOOPS, 0,
			    "STOP, stopped session") < MAX_MEAN_US);
	assert_true(time_op(op_start, fd, &bad, LOOPS, -EFAULT,
			    "START refused, stopped session") < MAX_MEAN_US);
	time_op(op_start, fd, &good, GOOD_LOOPS, 0, "START replacing a table");
	assert_int_equal(kt_stop(fd), 0);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refusals_are_fast),
	};

	return cmocka_run_group_tests_name("sprofil fast refusals", tests,
					   NULL, NULL);
}
