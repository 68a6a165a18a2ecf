// SPDX-License-Identifier: GPL-2.0
/*
 * In-VM tests of sprofil.ko: how a session lives and ends with its process
 * and its buffers (docs/contract.md).
 *
 * A session belongs to the process (its mm), not to the fd: it survives
 * close(), it is not inherited at fork (the child's copy of a buffer must
 * stop changing), it ends at exec and at exit without leaking pins, and a
 * buffer that stops being the process's writable memory turns its region
 * off while the others keep counting.
 *
 * Children never use cmocka's assertions (a failed one would longjmp into
 * the child's copy of the test runner): they check with KT_CHECK(), which
 * prints why and returns the source line, and report it as exit status.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "kmod_test.h"

#define PERIOD_NS	1000000ULL
#define PAGE		4096

/* Iterations of a kt_work_* function taking about 5 ms of CPU. */
static uint64_t chunk;

static double wall_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Runs the given functions in turn, a chunk each, until @seconds of CPU
 * have passed: bounded by CPU time, because the VM's speed varies with
 * the load other VMs put on the host.
 */
static double spin(double seconds, uint64_t (*f)(uint64_t),
		   uint64_t (*g)(uint64_t))
{
	double t0 = wl_cpu_seconds(), t;

	do {
		f(chunk);
		if (g)
			g(chunk);
		t = wl_cpu_seconds() - t0;
	} while (t < seconds);
	return t;
}

/* A 32-bit region with one bucket per 4 bytes of @fn, in a page of its own. */
static struct sprofil_region func_region(void *buf, void *fn)
{
	struct wl_func f = wl_func_extent(fn);

	return kt_region(buf, (f.size + 3) / 4 * 4, f.start, 0x10000);
}

static uint64_t region_sum(const struct sprofil_region *r)
{
	return wl_sum((const void *)(uintptr_t)r->base, SPROFIL_UINT, 0,
		      r->size / 4);
}

/* Waits for a forked child; returns its exit status, or -1 if killed. */
static int wait_child(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status)) {
		print_message("# child %d killed by signal %d (%s)\n", (int)pid,
			      WTERMSIG(status), strsignal(WTERMSIG(status)));
		return -1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Runs @fn in a forked child; its return value becomes the exit status. */
static pid_t fork_child(int (*fn)(void *), void *arg)
{
	pid_t pid;
	int rc;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		rc = fn(arg);
		fflush(stdout);
		_exit(rc > 255 ? 255 : rc);
	}
	return pid;
}

static int group_setup(void **state)
{
	(void)state;
	chunk = wl_calibrate(0.005);
	return 0;
}

/* ---- fork ---- */

struct fork_arg {
	int fd;
	struct sprofil_region r;
};

static int fork_child_main(void *p)
{
	struct fork_arg *a = p;
	struct sprofil_status st;
	uint64_t before, after;
	double t;
	int rc;

	before = region_sum(&a->r);
	t = spin(0.5, wl_work_a, NULL);
	after = region_sum(&a->r);
	print_message("# fork child: its copy of the buffer %llu -> %llu over %.2f s CPU in wl_work_a\n",
		      (unsigned long long)before, (unsigned long long)after, t);
	KT_CHECK(before > 0, "the copy lost the parent's counts");
	KT_CHECK(after == before, "the child's copy kept counting");
	rc = kt_status(a->fd, &st);
	KT_CHECK(rc == 0, "status: %s", strerror(-rc));
	KT_CHECK(st.state == 0 && st.samples == 0,
	      "child has a session: state %#x, %llu samples", st.state,
	      (unsigned long long)st.samples);
	return 0;
}

static void test_fork_child_copy_stops_parent_keeps_counting(void **state)
{
	struct fork_arg a = { .fd = kt_open() };
	void *buf = wl_map(PAGE, PROT_READ | PROT_WRITE);
	struct sprofil_status st0, st1;
	uint64_t period = PERIOD_NS, sum0, sum1;
	double t;
	pid_t pid;

	(void)state;
	assert_non_null(buf);
	a.r = func_region(buf, wl_work_a);
	assert_int_equal(kt_start(a.fd, &a.r, 1, SPROFIL_UINT, &period), 0);
	spin(0.1, wl_work_a, NULL);

	pid = fork_child(fork_child_main, &a);
	assert_true(pid > 0);
	assert_int_equal(kt_status(a.fd, &st0), 0);
	sum0 = region_sum(&a.r);
	t = spin(0.5, wl_work_a, NULL);
	assert_int_equal(kt_status(a.fd, &st1), 0);
	sum1 = region_sum(&a.r);
	print_message("# fork parent: buffer %llu -> %llu, samples +%llu over %.2f s CPU\n",
		      (unsigned long long)sum0, (unsigned long long)sum1,
		      (unsigned long long)(st1.samples - st0.samples), t);
	assert_int_equal(wait_child(pid), 0);
	assert_true(st1.state & SPROFIL_STATE_ENABLED);
	/*
	 * 0.5 s at 1 ms: about 500 (the module credits the periods a late
	 * timer skipped); a floor well below it, should counting stop.
	 */
	assert_true(st1.samples - st0.samples >= 20);
	assert_true(sum1 - sum0 >= (st1.samples - st0.samples) * 8 / 10);
	kt_stop(a.fd);
	close(a.fd);
	munmap(buf, PAGE);
}

/* ---- exec ---- */

struct exec_arg {
	int fd;
	long sessions;		/* before the child started its session */
	char helper[PATH_MAX];
};

static int exec_child_main(void *p)
{
	struct exec_arg *a = p;
	void *buf = wl_map(PAGE, PROT_READ | PROT_WRITE);
	struct sprofil_region r;
	char want[32];
	int rc;

	KT_CHECK(buf, "mmap: %m");
	r = func_region(buf, wl_work_b);
	rc = kt_start(a->fd, &r, 1, SPROFIL_UINT, NULL);
	KT_CHECK(rc == 0, "start: %s", strerror(-rc));
	spin(0.1, wl_work_b, NULL);
	KT_CHECK(region_sum(&r) > 0, "the child's session does not count");
	KT_CHECK(kt_module_param("sessions") == a->sessions + 1,
	      "sessions %ld, expected %ld", kt_module_param("sessions"),
	      a->sessions + 1);
	/* The helper checks it is back to the number before our START. */
	snprintf(want, sizeof(want), "%ld", a->sessions);
	execl(a->helper, "helper_exec", want, (char *)NULL);
	print_message("# exec %s: %m\n", a->helper);
	return __LINE__;
}

static void test_exec_ends_session_and_program_runs_normally(void **state)
{
	struct exec_arg a = { .fd = kt_open() };
	void *buf = wl_map(PAGE, PROT_READ | PROT_WRITE);
	struct sprofil_region r;
	struct sprofil_status st;
	ssize_t n;
	char *slash;
	pid_t pid;
	int rc;

	(void)state;
	assert_non_null(buf);
	n = readlink("/proc/self/exe", a.helper, sizeof(a.helper) - 32);
	assert_true(n > 0);
	a.helper[n] = '\0';
	slash = strrchr(a.helper, '/');
	assert_non_null(slash);
	strcpy(slash + 1, "helper_exec");

	/* The parent profiles too: exec in the child must not end that. */
	r = func_region(buf, wl_work_a);
	assert_int_equal(kt_start(a.fd, &r, 1, SPROFIL_UINT, NULL), 0);
	a.sessions = kt_module_param("sessions");
	assert_true(a.sessions >= 1);

	pid = fork_child(exec_child_main, &a);
	assert_true(pid > 0);
	spin(0.2, wl_work_a, NULL);
	rc = wait_child(pid);
	print_message("# exec'd helper exit status %d; sessions %ld -> %ld\n",
		      rc, a.sessions, kt_module_param("sessions"));
	/* glibc's profil kills it with SIGPROF: wait_child() says -1 then. */
	assert_int_equal(rc, 0);
	assert_int_equal(kt_module_param("sessions"), a.sessions);
	assert_int_equal(kt_status(a.fd, &st), 0);
	assert_true(st.state & SPROFIL_STATE_ENABLED);
	assert_true(region_sum(&r) > 0);
	kt_stop(a.fd);
	close(a.fd);
	munmap(buf, PAGE);
}

/* ---- a buffer that goes away ---- */

/* Regions over wl_work_a and wl_work_b, each buffer in a page of its own. */
struct two {
	int fd;
	void *pa, *pb;
	struct sprofil_region r[2];
};

static void two_start(struct two *t)
{
	uint64_t period = PERIOD_NS;

	t->fd = kt_open();
	t->pa = wl_map(PAGE, PROT_READ | PROT_WRITE);
	t->pb = wl_map(PAGE, PROT_READ | PROT_WRITE);
	assert_non_null(t->pa);
	assert_non_null(t->pb);
	t->r[0] = func_region(t->pa, wl_work_a);
	t->r[1] = func_region(t->pb, wl_work_b);
	assert_true(t->r[0].size <= PAGE && t->r[1].size <= PAGE);
	assert_int_equal(kt_start(t->fd, t->r, 2, SPROFIL_UINT, &period), 0);
	spin(0.1, wl_work_a, wl_work_b);
	assert_true(region_sum(&t->r[0]) > 0);
	assert_true(region_sum(&t->r[1]) > 0);
}

static void two_stop(struct two *t)
{
	kt_stop(t->fd);
	close(t->fd);
	munmap(t->pa, PAGE);
	munmap(t->pb, PAGE);
}

/* Polls regions_off for up to 2 s of wall time; returns the seconds. */
static double wait_region_off(int fd, struct sprofil_status *st)
{
	double t0 = wall_seconds();

	do {
		if (kt_status(fd, st) || st->regions_off)
			break;
		usleep(10000);
	} while (wall_seconds() - t0 < 2.0);
	return wall_seconds() - t0;
}

/*
 * After region A was turned off: the process runs on, B keeps counting,
 * wl_work_a's samples become misses, and A's memory (@a, still readable
 * or remapped) does not change.
 */
static void check_a_off(struct two *t, const void *a, uint64_t a_sum0)
{
	struct sprofil_status st0, st1;
	uint64_t b0, b1, a1;
	double cpu;

	assert_int_equal(kt_status(t->fd, &st0), 0);
	b0 = region_sum(&t->r[1]);
	cpu = spin(0.4, wl_work_a, wl_work_b);
	assert_int_equal(kt_status(t->fd, &st1), 0);
	b1 = region_sum(&t->r[1]);
	a1 = wl_sum(a, SPROFIL_UINT, 0, t->r[0].size / 4);
	print_message("# region A off: %.2f s CPU, samples +%llu, misses +%llu, B +%llu, A %llu -> %llu\n",
		      cpu, (unsigned long long)(st1.samples - st0.samples),
		      (unsigned long long)(st1.misses - st0.misses),
		      (unsigned long long)(b1 - b0),
		      (unsigned long long)a_sum0, (unsigned long long)a1);
	assert_true(st1.state & SPROFIL_STATE_ENABLED);
	assert_int_equal(st1.nregions, 2);
	assert_int_equal(st1.regions_off, 1);
	assert_int_equal(a1, a_sum0);
	assert_true(st1.samples - st0.samples >= 20);
	/* Half the CPU is in each function: the bounds are loose. */
	assert_true((b1 - b0) * 4 >= st1.samples - st0.samples);
	assert_true((st1.misses - st0.misses) * 4 >= st1.samples - st0.samples);
}

static void test_munmap_buffer_turns_its_region_off_at_once(void **state)
{
	struct sprofil_status st;
	struct two t;
	void *p;

	(void)state;
	two_start(&t);
	assert_int_equal(munmap(t.pa, PAGE), 0);
	/* The unmap notifier acts synchronously: no waiting here. */
	assert_int_equal(kt_status(t.fd, &st), 0);
	print_message("# right after munmap: regions_off %u\n",
		      st.regions_off);
	assert_int_equal(st.regions_off, 1);
	/* New memory at the same address must not receive A's counts. */
	p = mmap(t.pa, PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	assert_ptr_equal(p, t.pa);
	check_a_off(&t, p, 0);
	two_stop(&t);
}

static void test_mprotect_read_only_turns_its_region_off(void **state)
{
	struct sprofil_status st;
	uint64_t sum;
	struct two t;
	double waited;

	(void)state;
	two_start(&t);
	assert_int_equal(mprotect(t.pa, PAGE, PROT_READ), 0);
	waited = wait_region_off(t.fd, &st);
	print_message("# after mprotect(PROT_READ): regions_off %u after %.3f s\n",
		      st.regions_off, waited);
	assert_int_equal(st.regions_off, 1);
	sum = region_sum(&t.r[0]);
	check_a_off(&t, t.pa, sum);
	two_stop(&t);
}

static void test_madv_dontneed_turns_its_region_off(void **state)
{
	struct sprofil_status st;
	struct two t;
	double waited;

	(void)state;
	two_start(&t);
	assert_int_equal(madvise(t.pa, PAGE, MADV_DONTNEED), 0);
	waited = wait_region_off(t.fd, &st);
	print_message("# after MADV_DONTNEED: regions_off %u after %.3f s, buffer now %llu\n",
		      st.regions_off, waited,
		      (unsigned long long)region_sum(&t.r[0]));
	assert_int_equal(st.regions_off, 1);
	/* The process got a fresh zero page: it must stay zero. */
	check_a_off(&t, t.pa, 0);
	two_stop(&t);
}

/* ---- two processes ---- */

struct pair_arg {
	int fd;
	int ready[2];		/* child -> parent: session started */
	int go[2];		/* parent -> child: both spin now */
	uintptr_t lo, hi;	/* text covered by both regions */
	void *own;		/* function this process runs */
	void *other;		/* function only the other one runs */
};

static struct sprofil_region pair_region(void *buf, const struct pair_arg *a)
{
	return kt_region(buf, (a->hi - a->lo + 3) / 4 * 4, a->lo, 0x10000);
}

/*
 * One side of the pair: its region covers both functions, it runs only
 * its own, so the other function's buckets must stay empty; samples x
 * period must match the user CPU time of this process alone (the module
 * credits the periods a late timer skipped, so CPU time is the oracle).
 */
static int pair_side(const struct pair_arg *a, struct sprofil_region *r,
		     const char *who)
{
	struct wl_func own = wl_func_extent(a->own);
	struct wl_func other = wl_func_extent(a->other);
	size_t of, ol, xf, xl;
	struct sprofil_status st0, st1;
	uint64_t in_own, in_other, ds;
	double t, u, ratio;
	int rc;

	kt_bucket_range(r, SPROFIL_UINT, own.start, own.size, &of, &ol);
	kt_bucket_range(r, SPROFIL_UINT, other.start, other.size, &xf, &xl);
	rc = kt_status(a->fd, &st0);
	KT_CHECK(rc == 0, "status: %s", strerror(-rc));
	u = kt_user_seconds();
	t = spin(0.5, (uint64_t (*)(uint64_t))a->own, NULL);
	u = kt_user_seconds() - u;
	rc = kt_status(a->fd, &st1);
	KT_CHECK(rc == 0, "status: %s", strerror(-rc));
	ds = st1.samples - st0.samples;
	ratio = ds * (PERIOD_NS / 1e9) / u;
	in_own = wl_sum((void *)(uintptr_t)r->base, SPROFIL_UINT, of, ol);
	in_other = wl_sum((void *)(uintptr_t)r->base, SPROFIL_UINT, xf, xl);
	print_message("# %s: %.2f s CPU (%.2f s user), samples +%llu (x period = %.3f of user CPU), own function %llu, other's %llu\n",
		      who, t, u, (unsigned long long)ds, ratio,
		      (unsigned long long)in_own, (unsigned long long)in_other);
	KT_CHECK(in_other == 0, "the other process's samples landed here");
	KT_CHECK(in_own >= ds * 8 / 10, "own function got %llu",
	      (unsigned long long)in_own);
	/* Both processes' samples would be about twice the CPU time. */
	KT_CHECK(ratio >= 0.8 && ratio <= 1.25,
	      "samples x period / user CPU = %.3f", ratio);
	return 0;
}

static int pair_child_main(void *p)
{
	struct pair_arg *a = p;
	void *buf = wl_map(2 * PAGE, PROT_READ | PROT_WRITE);
	struct sprofil_region r;
	char c = 1;
	int rc;

	close(a->ready[0]);
	close(a->go[1]);
	KT_CHECK(buf, "mmap: %m");
	r = pair_region(buf, a);
	rc = kt_start(a->fd, &r, 1, SPROFIL_UINT, NULL);
	if (rc == 0)
		rc = kt_start(a->fd, &r, 1, SPROFIL_UINT,
			      &(uint64_t){ PERIOD_NS });
	KT_CHECK(rc == 0, "start: %s", strerror(-rc));
	KT_CHECK(write(a->ready[1], &c, 1) == 1, "write: %m");
	KT_CHECK(read(a->go[0], &c, 1) == 1, "read: %m");
	return pair_side(a, &r, "child");
}

static void test_two_processes_profile_independently(void **state)
{
	struct wl_func fa = wl_func_extent(wl_work_a);
	struct wl_func fb = wl_func_extent(wl_work_b);
	struct pair_arg a = { .fd = kt_open() };
	uint64_t period = PERIOD_NS;
	void *buf = wl_map(2 * PAGE, PROT_READ | PROT_WRITE);
	struct sprofil_region r;
	pid_t pid;
	char c = 1;
	int rc;

	(void)state;
	assert_non_null(buf);
	a.lo = fa.start < fb.start ? fa.start : fb.start;
	a.hi = fa.start + fa.size > fb.start + fb.size ? fa.start + fa.size :
							 fb.start + fb.size;
	assert_true(a.hi - a.lo <= 2 * PAGE);
	assert_int_equal(pipe(a.ready), 0);
	assert_int_equal(pipe(a.go), 0);

	a.own = wl_work_b;
	a.other = wl_work_a;
	pid = fork_child(pair_child_main, &a);
	assert_true(pid > 0);
	close(a.ready[1]);
	close(a.go[0]);

	a.own = wl_work_a;
	a.other = wl_work_b;
	r = pair_region(buf, &a);
	assert_int_equal(kt_start(a.fd, &r, 1, SPROFIL_UINT, &period), 0);
	/* Both sessions exist before either one measures. */
	assert_int_equal(read(a.ready[0], &c, 1), 1);
	assert_int_equal(write(a.go[1], &c, 1), 1);
	rc = pair_side(&a, &r, "parent");
	assert_int_equal(wait_child(pid), 0);
	assert_int_equal(rc, 0);
	kt_stop(a.fd);
	close(a.fd);
	close(a.ready[0]);
	close(a.go[1]);
	munmap(buf, 2 * PAGE);
}

/* ---- exit, stop, close ---- */

static int exit_child_main(void *p)
{
	long pinned0 = *(long *)p;
	void *buf = wl_map(4 * PAGE, PROT_READ | PROT_WRITE);
	struct sprofil_region r;
	int fd = kt_open(), rc;

	KT_CHECK(buf, "mmap: %m");
	r = kt_region(buf, 4 * PAGE, wl_func_extent(wl_work_a).start, 0x10000);
	rc = kt_start(fd, &r, 1, SPROFIL_UINT, NULL);
	KT_CHECK(rc == 0, "start: %s", strerror(-rc));
	spin(0.1, wl_work_a, NULL);
	KT_CHECK(kt_module_param("pinned_pages") == pinned0 + 4,
	      "pinned pages %ld, expected %ld",
	      kt_module_param("pinned_pages"), pinned0 + 4);
	/* No stop, no close, no atexit handlers. */
	_exit(0);
}

static void test_exit_without_stop_releases_session_and_pins(void **state)
{
	long pinned0 = kt_module_param("pinned_pages");
	long sessions0 = kt_module_param("sessions");
	pid_t pid;

	(void)state;
	assert_true(pinned0 >= 0 && sessions0 >= 0);
	pid = fork_child(exit_child_main, &pinned0);
	assert_true(pid > 0);
	assert_int_equal(wait_child(pid), 0);
	/* The exit released the mm before the parent could reap it. */
	print_message("# pinned pages %ld -> %ld, sessions %ld -> %ld\n",
		      pinned0, kt_module_param("pinned_pages"), sessions0,
		      kt_module_param("sessions"));
	assert_int_equal(kt_module_param("pinned_pages"), pinned0);
	assert_int_equal(kt_module_param("sessions"), sessions0);
}

static void test_stop_keeps_counters_and_clears_enabled(void **state)
{
	int fd = kt_open();
	void *buf = wl_map(PAGE, PROT_READ | PROT_WRITE);
	struct sprofil_region r;
	struct sprofil_status on, off, later;
	uint64_t period = PERIOD_NS, sum;

	(void)state;
	assert_non_null(buf);
	r = func_region(buf, wl_work_a);
	assert_int_equal(kt_start(fd, &r, 1, SPROFIL_UINT, &period), 0);
	spin(0.2, wl_work_a, NULL);
	assert_int_equal(kt_status(fd, &on), 0);
	assert_int_equal(kt_stop(fd), 0);
	assert_int_equal(kt_status(fd, &off), 0);
	sum = region_sum(&r);
	spin(0.2, wl_work_a, NULL);
	assert_int_equal(kt_status(fd, &later), 0);
	print_message("# running: state %#x, %llu samples, %llu misses; stopped: state %#x, %llu samples, %llu misses; buffer %llu -> %llu\n",
		      on.state, (unsigned long long)on.samples,
		      (unsigned long long)on.misses, off.state,
		      (unsigned long long)off.samples,
		      (unsigned long long)off.misses, (unsigned long long)sum,
		      (unsigned long long)region_sum(&r));
	assert_true(on.state & SPROFIL_STATE_ENABLED);
	assert_int_equal(off.state & SPROFIL_STATE_ENABLED, 0);
	assert_true(on.samples >= 10);
	/* Kept: at most the few samples taken between the two calls. */
	assert_true(off.samples >= on.samples && off.samples <= on.samples + 5);
	assert_true(off.misses >= on.misses);
	/* Stopped means stopped: no more samples, no more counts. */
	assert_int_equal(later.samples, off.samples);
	assert_int_equal(later.misses, off.misses);
	assert_int_equal(region_sum(&r), sum);
	close(fd);
	munmap(buf, PAGE);
}

static void test_session_survives_closing_the_fd(void **state)
{
	int fd = kt_open();
	void *buf = wl_map(PAGE, PROT_READ | PROT_WRITE);
	struct sprofil_region r;
	struct sprofil_status st;
	uint64_t period = PERIOD_NS, sum;

	(void)state;
	assert_non_null(buf);
	r = func_region(buf, wl_work_a);
	assert_int_equal(kt_start(fd, &r, 1, SPROFIL_UINT, &period), 0);
	assert_int_equal(close(fd), 0);
	sum = region_sum(&r);
	spin(0.2, wl_work_a, NULL);
	fd = kt_open();
	assert_int_equal(kt_status(fd, &st), 0);
	print_message("# after close: state %#x, %llu samples, buffer %llu -> %llu\n",
		      st.state, (unsigned long long)st.samples,
		      (unsigned long long)sum,
		      (unsigned long long)region_sum(&r));
	assert_true(st.state & SPROFIL_STATE_ENABLED);
	assert_true(st.samples >= 10);
	assert_true(region_sum(&r) - sum >= 8);
	assert_int_equal(kt_stop(fd), 0);
	close(fd);
	munmap(buf, PAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fork_child_copy_stops_parent_keeps_counting),
		cmocka_unit_test(test_exec_ends_session_and_program_runs_normally),
		cmocka_unit_test(test_munmap_buffer_turns_its_region_off_at_once),
		cmocka_unit_test(test_mprotect_read_only_turns_its_region_off),
		cmocka_unit_test(test_madv_dontneed_turns_its_region_off),
		cmocka_unit_test(test_two_processes_profile_independently),
		cmocka_unit_test(test_exit_without_stop_releases_session_and_pins),
		cmocka_unit_test(test_stop_keeps_counters_and_clears_enabled),
		cmocka_unit_test(test_session_survives_closing_the_fd),
	};

	return cmocka_run_group_tests_name("sprofil lifecycle", tests,
					   group_setup, NULL);
}
