// SPDX-License-Identifier: GPL-2.0
/*
 * In-VM test of sprofil.ko: the session belongs to the mm, so a START
 * issued by a CLONE_VM child (a process of its own sharing its parent's
 * memory, not a thread) profiles every task using that memory: the child
 * and its parent both.  The session outlives the child that started it,
 * until the last user of the mm exits or execs.
 */
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <sprofil/mapping.h>

#include "kmod_test.h"

#define STACK_BYTES	(256 * 1024)
#define SPIN_SECONDS	0.3

/* Shared by parent and child: they have one memory. */
static uint32_t buf_a[1024], buf_b[1024];
static struct sprofil_region r[2];
static volatile int started, parent_done;
static int child_rc;
static uint64_t chunk;

/* The CLONE_VM child: starts the session for the mm, then works in b. */
static int child(void *arg)
{
	int fd = *(int *)arg;

	child_rc = kt_start(fd, r, 2, SPROFIL_UINT, NULL);
	started = 1;
	wl_spin_cpu(wl_work_b, chunk, SPIN_SECONDS);
	while (!parent_done)
		sched_yield();
	return 0;
}

static uint64_t sum(const uint32_t *b)
{
	return wl_sum(b, SPROFIL_UINT, 0, 1024);
}

static void test_clone_vm_child_start_profiles_the_parent(void **state)
{
	struct wl_func fa = wl_func_extent(wl_work_a);
	struct wl_func fb = wl_func_extent(wl_work_b);
	struct sprofil_status st;
	char *stack = malloc(STACK_BYTES);
	int fd = kt_open(), status;
	uint64_t a, b;
	pid_t pid;

	(void)state;
	assert_non_null(stack);
	chunk = wl_calibrate(0.0005);
	r[0] = kt_region(buf_a, sizeof(buf_a), fa.start, 0x10000);
	r[1] = kt_region(buf_b, sizeof(buf_b), fb.start, 0x10000);
	assert_true(fa.size <= sizeof(buf_a) && fb.size <= sizeof(buf_b));
	pid = clone(child, stack + STACK_BYTES, CLONE_VM | SIGCHLD, &fd);
	assert_true(pid > 0);
	while (!started)
		sched_yield();
	assert_int_equal(child_rc, 0);
	wl_spin_cpu(wl_work_a, chunk, SPIN_SECONDS);
	parent_done = 1;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	a = sum(buf_a);
	b = sum(buf_b);
	assert_int_equal(kt_status(fd, &st), 0);
	print_message("# START by a CLONE_VM child: parent's wl_work_a %llu samples, child's wl_work_b %llu; after the child exited: state %#x\n",
		      (unsigned long long)a, (unsigned long long)b, st.state);
	assert_true(b > 0);
	assert_true(a > 0);
	/* The session is the mm's: still on with the child gone. */
	assert_true(st.state & SPROFIL_STATE_ENABLED);
	wl_spin_cpu(wl_work_a, chunk, 0.1);
	assert_true(sum(buf_a) > a);
	assert_int_equal(kt_stop(fd), 0);
	close(fd);
	free(stack);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clone_vm_child_start_profiles_the_parent),
	};

	return cmocka_run_group_tests_name("sprofil CLONE_VM", tests, NULL,
					   NULL);
}
