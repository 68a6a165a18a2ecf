// SPDX-License-Identifier: GPL-2.0
/*
 * In-VM test of sprofil.ko's outside sampling (SPROFIL_TARGET): a process
 * samples another one, whose /proc/PID/mem it opened, into buffers of its
 * own.  The targets are forked children of this test, which run the same
 * text at the same addresses, and a statically linked program
 * (static_spin.c).  Each child works on command through a pipe, so the
 * test knows when it runs and can ask it to use /dev/sprofil itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
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
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <sprofil/mapping.h>

#include "kmod_test.h"
#include "kt_callers.h"

#define PERIOD_NS	1000000ull
#define SPIN_SECONDS	1.0
#define WORDS		1024
/* Samples x period over the child's CPU time, loose for TCG. */
#define RATIO_MIN	0.75
#define RATIO_MAX	1.15
/* Share of the samples the hot function's buckets must hold. */
#define HOT_SHARE	0.8

static uint64_t chunk;

/* ---- a forked child that works on command ---- */

struct child {
	pid_t pid;
	int cmd;	/* to it */
	int reply;	/* from it */
};

static uint32_t child_buf[WORDS];

/*
 * The caller whose frame the chains sampled from outside must show;
 * exported (-rdynamic), so that wl_func_extent() finds it.
 */
__attribute__((noinline)) uint64_t outside_caller(uint64_t n)
{
	return kt_callee(n) + 1;
}

static void child_reply(int fd, const void *p, size_t n)
{
	if (write(fd, p, n) != (ssize_t)n)
		_exit(2);
}

/*
 * User and system time: the kernel splits them by where its ticks land,
 * and a loaded TCG host may move some of a spin's time into system.
 */
static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/*
 * Commands: 'b' spins in wl_work_b and replies its CPU time, 'c' in
 * outside_caller() and kt_callee(), replying nothing; 's', 'p' and 't' are the child's own START (over wl_work_c), STOP and STATUS on
 * its own /dev/sprofil, replying the result (and the status); 'q' exits.
 */
static void child_main(int cmd, int reply)
{
	struct wl_func fc = wl_func_extent(wl_work_c);
	struct sprofil_region r = kt_region(child_buf, sizeof(child_buf),
					    fc.start, 0x10000);
	struct sprofil_status st;
	int fd = kt_open(), err;
	double u;
	char c;

	while (read(cmd, &c, 1) == 1) {
		switch (c) {
		case 'b':
			u = cpu_seconds();
			wl_spin_cpu(wl_work_b, chunk, SPIN_SECONDS);
			u = cpu_seconds() - u;
			child_reply(reply, &u, sizeof(u));
			break;
		case 'c':
			wl_spin_cpu(outside_caller, chunk, SPIN_SECONDS / 2);
			child_reply(reply, "c", 1);
			break;
		case 's':
			err = kt_start(fd, &r, 1, SPROFIL_UINT, NULL);
			child_reply(reply, &err, sizeof(err));
			break;
		case 'p':
			err = kt_stop(fd);
			child_reply(reply, &err, sizeof(err));
			break;
		case 't':
			err = kt_status(fd, &st);
			child_reply(reply, &err, sizeof(err));
			child_reply(reply, &st, sizeof(st));
			break;
		case 'q':
			_exit(0);
		}
	}
	_exit(3);
}

static void child_spawn(struct child *c)
{
	int to[2], from[2];

	assert_int_equal(pipe2(to, O_CLOEXEC), 0);
	assert_int_equal(pipe2(from, O_CLOEXEC), 0);
	c->pid = fork();
	assert_true(c->pid >= 0);
	if (!c->pid) {
		close(to[1]);
		close(from[0]);
		child_main(to[0], from[1]);
	}
	close(to[0]);
	close(from[1]);
	c->cmd = to[1];
	c->reply = from[0];
}

static void child_ask(struct child *c, char op, void *reply, size_t n)
{
	assert_int_equal(write(c->cmd, &op, 1), 1);
	if (n)
		assert_int_equal(read(c->reply, reply, n), (ssize_t)n);
}

static int child_int(struct child *c, char op)
{
	int v;

	child_ask(c, op, &v, sizeof(v));
	return v;
}

/* The child's own STATUS: its result, and @st. */
static int child_status(struct child *c, struct sprofil_status *st)
{
	int err;

	child_ask(c, 't', &err, sizeof(err));
	assert_int_equal(read(c->reply, st, sizeof(*st)), sizeof(*st));
	return err;
}

static void child_end(struct child *c)
{
	int status;

	assert_int_equal(write(c->cmd, "q", 1), 1);
	assert_int_equal(waitpid(c->pid, &status, 0), c->pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(c->cmd);
	close(c->reply);
}

/* ---- the ioctls ---- */

static int open_mem(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	return open(path, O_RDONLY | O_CLOEXEC);
}

static int start_args(int fd, struct sprofil_start *a)
{
	return ioctl(fd, SPROFIL_IOC_START, a) ? -errno : 0;
}

/* START with SPROFIL_TARGET: the process of @memfd, into @r. */
static int start_target(int fd, int memfd, const struct sprofil_region *r,
			unsigned int n, uint64_t *period_ns)
{
	struct sprofil_start a = {
		.size = sizeof(a),
		.flags = SPROFIL_UINT | SPROFIL_TARGET,
		.regions = (uintptr_t)r,
		.nregions = n,
		.period_ns = period_ns ? *period_ns : PERIOD_NS,
		.target_fd = memfd,
	};
	int err = start_args(fd, &a);

	if (!err && period_ns)
		*period_ns = a.period_ns;
	return err;
}

static uint32_t buf_a[WORDS], buf_b[WORDS];
static struct sprofil_region r_ab[2];

/* Regions over wl_work_a (this process's) and wl_work_b (the child's). */
static void regions_ab(void)
{
	struct wl_func fa = wl_func_extent(wl_work_a);
	struct wl_func fb = wl_func_extent(wl_work_b);

	assert_true(fa.size <= sizeof(buf_a) && fb.size <= sizeof(buf_b));
	memset(buf_a, 0, sizeof(buf_a));
	memset(buf_b, 0, sizeof(buf_b));
	r_ab[0] = kt_region(buf_a, sizeof(buf_a), fa.start, 0x10000);
	r_ab[1] = kt_region(buf_b, sizeof(buf_b), fb.start, 0x10000);
}

static uint64_t sum(const uint32_t *b)
{
	return wl_sum(b, SPROFIL_UINT, 0, WORDS);
}

/* Samples x period over @cpu seconds is the CPU time, loosely. */
static void check_ratio(const char *what, uint64_t samples, double cpu)
{
	double ratio = samples * (PERIOD_NS / 1e9) / cpu;

	print_message("# %s: %llu samples at 1 ms over %.3f s of CPU time: %.3f\n",
		      what, (unsigned long long)samples, cpu, ratio);
	assert_true(ratio >= RATIO_MIN && ratio <= RATIO_MAX);
}

static int setup(void **state)
{
	(void)state;
	/*
	 * 5 ms of work between two reads of the thread's clock: a syscall,
	 * outside the hot function, whose share a slow TCG exit inflates.
	 */
	chunk = wl_calibrate(0.005);
	return 0;
}

/* ---- tests ---- */

static void test_outside_samples_a_child(void **state)
{
	struct sprofil_status st, own;
	uint64_t period = PERIOD_NS, a, b;
	int fd, fd2, memfd;
	struct child c;
	double cpu;

	(void)state;
	regions_ab();
	child_spawn(&c);
	memfd = open_mem(c.pid);
	assert_true(memfd >= 0);
	fd = kt_open();
	assert_int_equal(start_target(fd, memfd, r_ab, 2, &period), 0);
	assert_int_equal(period, PERIOD_NS);
	assert_int_equal(kt_status(fd, &st), 0);
	assert_true(st.state & SPROFIL_STATE_ENABLED);
	assert_int_equal(st.nregions, 2);
	assert_int_equal(st.period_ns, PERIOD_NS);

	/* This process is not sampled: its own work counts nowhere. */
	wl_spin_cpu(wl_work_a, chunk, 0.2);
	child_ask(&c, 'b', &cpu, sizeof(cpu));
	assert_int_equal(kt_status(fd, &st), 0);
	a = sum(buf_a);
	b = sum(buf_b);
	print_message("# child's wl_work_b %llu of %llu samples (%llu misses), this process's wl_work_a %llu\n",
		      (unsigned long long)b, (unsigned long long)st.samples,
		      (unsigned long long)st.misses, (unsigned long long)a);
	assert_int_equal(a, 0);
	assert_true(b >= HOT_SHARE * st.samples);
	assert_int_equal(st.samples, b + st.misses);
	check_ratio("forked child", st.samples, cpu);

	/* The child's own ioctls do not see the session, nor end it. */
	assert_int_equal(child_status(&c, &own), 0);
	assert_int_equal(own.state, 0);
	assert_int_equal(own.samples, 0);
	assert_int_equal(child_int(&c, 's'), -EBUSY);
	assert_int_equal(child_int(&c, 'p'), 0);
	assert_int_equal(kt_status(fd, &st), 0);
	assert_true(st.state & SPROFIL_STATE_ENABLED);

	/* One file samples a process at a time, and does only that. */
	fd2 = kt_open();
	assert_int_equal(start_target(fd2, memfd, r_ab, 2, NULL), -EBUSY);
	close(fd2);
	assert_int_equal(kt_start(fd, r_ab, 2, SPROFIL_UINT, NULL), -EINVAL);

	/*
	 * STOP keeps the counters; START again goes on.  The buckets are
	 * summed again: the child's answers above took CPU time too (a
	 * sample of it on the debug kernel).
	 */
	assert_int_equal(kt_stop(fd), 0);
	assert_int_equal(kt_status(fd, &st), 0);
	assert_int_equal(st.state, 0);
	assert_int_equal(st.samples, sum(buf_a) + sum(buf_b) + st.misses);
	assert_int_equal(start_target(fd, memfd, r_ab, 2, NULL), 0);
	assert_int_equal(child_int(&c, 's'), -EBUSY);

	/* Closing the file ends it: the child may profile itself again. */
	close(fd);
	assert_int_equal(child_int(&c, 's'), 0);
	assert_int_equal(child_status(&c, &own), 0);
	assert_true(own.state & SPROFIL_STATE_ENABLED);
	assert_int_equal(own.samples, 0);
	/* And then it is the child's, which an outside START leaves. */
	fd = kt_open();
	assert_int_equal(start_target(fd, memfd, r_ab, 2, NULL), -EBUSY);
	assert_int_equal(child_int(&c, 'p'), 0);
	assert_int_equal(start_target(fd, memfd, r_ab, 2, NULL), 0);
	close(fd);
	close(memfd);
	child_end(&c);
}

static void test_outside_session_ends_with_the_target(void **state)
{
	long sessions = kt_module_param("sessions");
	struct sprofil_status st;
	int fd, memfd;
	struct child c;
	double cpu;

	(void)state;
	regions_ab();
	child_spawn(&c);
	memfd = open_mem(c.pid);
	assert_true(memfd >= 0);
	fd = kt_open();
	assert_int_equal(start_target(fd, memfd, r_ab, 2, NULL), 0);
	assert_int_equal(kt_module_param("sessions"), sessions + 1);
	child_ask(&c, 'b', &cpu, sizeof(cpu));
	child_end(&c);
	/* Its exit ended the session; the counters stay readable. */
	assert_int_equal(kt_module_param("sessions"), sessions);
	assert_int_equal(kt_status(fd, &st), 0);
	print_message("# after the target's exit: state %#x, %llu samples, %llu in wl_work_b\n",
		      st.state, (unsigned long long)st.samples,
		      (unsigned long long)sum(buf_b));
	assert_int_equal(st.state, 0);
	assert_true(st.samples > 0);
	assert_int_equal(st.samples, sum(buf_b) + st.misses);
	check_ratio("until exit", st.samples, cpu);
	assert_int_equal(kt_stop(fd), 0);
	/* Its memory is gone: the file names no process any more. */
	assert_int_equal(start_target(fd, memfd, r_ab, 2, NULL), -ESRCH);
	close(memfd);
	close(fd);
	assert_int_equal(kt_module_param("sessions"), sessions);
}

struct in_caller {
	struct wl_func f;
	uint64_t total, in;
};

static int count_in_caller(void *arg, const struct kt_chain *c)
{
	struct in_caller *ic = arg;

	ic->total += c->count;
	if (kt_chain_has(c, ic->f.start, ic->f.size))
		ic->in += c->count;
	return 0;
}

/* The chain walk reads the target's stack, from the target's threads. */
static void test_outside_caller_chains(void **state)
{
	struct in_caller ic = { .f = wl_func_extent(outside_caller) };
	struct sprofil_status st;
	struct sprofil_region r;
	struct kt_table t;
	uintptr_t start;
	size_t size, first, last;
	uint32_t *buf;
	int fd, memfd;
	struct child c;
	char done;

	(void)state;
	kt_exec_text(&start, &size);
	r = kt_region(NULL, 0, start, 0x4000);
	kt_bucket_range(&r, SPROFIL_UINT, start, size, &first, &last);
	buf = calloc(last, sizeof(*buf));
	assert_non_null(buf);
	r = kt_region(buf, last * sizeof(*buf), start, 0x4000);
	assert_int_equal(kt_table_init(&t, 1 << 20, 16), 0);

	child_spawn(&c);
	memfd = open_mem(c.pid);
	assert_true(memfd >= 0);
	fd = kt_open();
	{
		struct sprofil_start a = {
			.size = sizeof(a),
			.flags = SPROFIL_UINT | SPROFIL_TARGET |
				 SPROFIL_CALLERS,
			.regions = (uintptr_t)&r,
			.nregions = 1,
			.period_ns = PERIOD_NS,
			.callers = (uintptr_t)t.mem,
			.callers_size = t.bytes,
			.callers_depth = t.depth,
			.target_fd = memfd,
		};

		assert_int_equal(start_args(fd, &a), 0);
	}
	child_ask(&c, 'c', &done, 1);
	assert_int_equal(kt_status(fd, &st), 0);
	assert_int_equal(kt_table_chains(&t, count_in_caller, &ic), 0);
	print_message("# chains sampled from outside: %llu of %llu through outside_caller (%llu samples)\n",
		      (unsigned long long)ic.in, (unsigned long long)ic.total,
		      (unsigned long long)st.samples);
	assert_true(st.samples > 0);
	assert_true(ic.in >= HOT_SHARE * st.samples);
	close(fd);
	close(memfd);
	child_end(&c);
	kt_table_free(&t);
	free(buf);
}

/* The path of static_spin, beside this program. */
static void static_spin_path(char *path, size_t n)
{
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	assert_true(len > 0);
	self[len] = 0;
	snprintf(path, n, "%s/static_spin", dirname(self));
}

static void test_outside_samples_a_static_program(void **state)
{
	unsigned long start, etext, hot;
	size_t first, last, hot_first, hot_last, words;
	struct sprofil_region r;
	struct sprofil_status st;
	int to[2], from[2], fd, memfd, status;
	char path[PATH_MAX + 16], line[128];
	uint32_t *buf;
	uint64_t in_hot;
	double cpu;
	FILE *out;
	pid_t pid;

	(void)state;
	static_spin_path(path, sizeof(path));
	assert_int_equal(pipe2(to, O_CLOEXEC), 0);
	assert_int_equal(pipe2(from, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		if (dup2(to[0], 0) < 0 || dup2(from[1], 1) < 0)
			_exit(4);
		execl(path, "static_spin", "1.0", (char *)NULL);
		_exit(5);
	}
	close(to[0]);
	close(from[1]);
	out = fdopen(from[0], "r");
	assert_non_null(out);
	/* It runs its own image now: where its text and hot function are. */
	assert_non_null(fgets(line, sizeof(line), out));
	assert_int_equal(sscanf(line, "%lx %lx %lx", &start, &etext, &hot), 3);
	assert_true(start < hot && hot < etext);

	/* One bucket per 16 bytes of its text (scale 0x4000, 4-byte ones). */
	r = kt_region(NULL, 0, start, 0x4000);
	kt_bucket_range(&r, SPROFIL_UINT, start, etext - start, &first, &last);
	words = last;
	buf = calloc(words, sizeof(*buf));
	assert_non_null(buf);
	r = kt_region(buf, words * sizeof(*buf), start, 0x4000);
	kt_bucket_range(&r, SPROFIL_UINT, hot, 96, &hot_first, &hot_last);

	memfd = open_mem(pid);
	assert_true(memfd >= 0);
	fd = kt_open();
	assert_int_equal(start_target(fd, memfd, &r, 1, NULL), 0);
	assert_int_equal(write(to[1], "g", 1), 1);
	assert_non_null(fgets(line, sizeof(line), out));
	assert_int_equal(sscanf(line, "%lf", &cpu), 1);
	assert_int_equal(kt_status(fd, &st), 0);
	assert_true(st.state & SPROFIL_STATE_ENABLED);
	in_hot = wl_sum(buf, SPROFIL_UINT, hot_first, hot_last);
	print_message("# static program: %llu of %llu samples in its hot function, %llu in its text\n",
		      (unsigned long long)in_hot,
		      (unsigned long long)st.samples,
		      (unsigned long long)wl_sum(buf, SPROFIL_UINT, 0, words));
	assert_true(in_hot >= HOT_SHARE * st.samples);
	check_ratio("static program", st.samples, cpu);

	assert_int_equal(write(to[1], "x", 1), 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(kt_status(fd, &st), 0);
	assert_int_equal(st.state, 0);
	close(fd);
	close(memfd);
	close(to[1]);
	fclose(out);
	free(buf);
}

/* A START refused with @err that changed nothing. */
static void expect_refused(int fd, struct sprofil_start *a, int err,
			   const char *what)
{
	long sessions = kt_module_param("sessions");
	long pinned = kt_module_param("pinned_pages");
	int got = start_args(fd, a);

	print_message("# %s: %s\n", what, strerror(-got));
	assert_int_equal(got, -err);
	assert_int_equal(kt_module_param("sessions"), sessions);
	assert_int_equal(kt_module_param("pinned_pages"), pinned);
}

/*
 * A process with no memory cannot be named: 6.1 opens its /proc/PID/mem
 * with no memory behind it, which START refuses, 6.12 refuses the open.
 */
static void no_memory(int fd, struct sprofil_start *a, pid_t pid,
		      const char *what)
{
	int memfd = open_mem(pid);

	if (memfd < 0) {
		print_message("# %s: open /proc/%d/mem: %s\n", what, (int)pid,
			      strerror(errno));
		assert_int_equal(errno, ESRCH);
		return;
	}
	a->target_fd = memfd;
	expect_refused(fd, a, ESRCH, what);
	close(memfd);
}

static void test_outside_refusals(void **state)
{
	int fd = kt_open(), pipefd[2], other;
	struct sprofil_start a = {
		.size = sizeof(a),
		.flags = SPROFIL_UINT,
		.nregions = 2,
	};
	struct sprofil_status st;
	pid_t zombie;
	siginfo_t si;

	(void)state;
	regions_ab();
	a.regions = (uintptr_t)r_ab;

	/* The clock and the software events; no PMU event (NMI). */
	a.event_type = SPROFIL_EVENT_MAX + 1;
	expect_refused(fd, &a, EINVAL, "event_type past the last");
	a.event_type = SPROFIL_EVENT_CYCLES;
	expect_refused(fd, &a, EOPNOTSUPP, "event_type cycles (PMU, NMI)");
	a.event_type = 0;
	a.event_config = 1;
	expect_refused(fd, &a, EINVAL, "event_config 1");
	a.event_config = 0;
	a.event_period = 1;
	expect_refused(fd, &a, EINVAL, "event_period with the clock");
	a.event_period = 0;
	a.target_fd = 1;
	expect_refused(fd, &a, EINVAL, "target_fd without SPROFIL_TARGET");

	/* target_fd must be an open /proc/PID/mem. */
	a.flags |= SPROFIL_TARGET;
	a.target_fd = -1;
	expect_refused(fd, &a, EBADF, "target_fd -1");
	assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
	a.target_fd = pipefd[0];
	expect_refused(fd, &a, EINVAL, "a pipe");
	other = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	assert_true(other >= 0);
	a.target_fd = other;
	expect_refused(fd, &a, EINVAL, "/proc/self/status");
	close(other);
	other = open("/proc/self/environ", O_RDONLY | O_CLOEXEC);
	assert_true(other >= 0);
	a.target_fd = other;
	expect_refused(fd, &a, EINVAL, "/proc/self/environ");
	close(other);

	/* A kernel thread (kthreadd) has no memory to sample. */
	no_memory(fd, &a, 2, "kthreadd");

	/* Nor has a zombie. */
	zombie = fork();
	assert_true(zombie >= 0);
	if (!zombie)
		_exit(0);
	assert_int_equal(waitid(P_PID, zombie, &si, WEXITED | WNOWAIT), 0);
	no_memory(fd, &a, zombie, "a zombie");
	assert_int_equal(waitpid(zombie, NULL, 0), zombie);

	/* No file was tied to a session by any of these. */
	assert_int_equal(kt_status(fd, &st), 0);
	assert_int_equal(st.state, 0);
	close(pipefd[0]);
	close(pipefd[1]);
	close(fd);
}

/*
 * The kernel's ptrace check is made when /proc/PID/mem is opened: a user
 * who may not trace a process cannot get the file START needs.
 */
static void test_outside_needs_ptrace_access(void **state)
{
	pid_t parent = getpid(), pid;
	int status;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		char path[64];
		int fd;

		if (setgid(65534) || setuid(65534))
			_exit(10);
		if (open("/proc/1/mem", O_RDONLY) >= 0 || errno != EACCES)
			_exit(11);
		snprintf(path, sizeof(path), "/proc/%d/mem", (int)parent);
		if (open(path, O_RDONLY) >= 0 || errno != EACCES)
			_exit(12);
		/* Its own is its to give, once setuid() left it dumpable. */
		if (prctl(PR_SET_DUMPABLE, 1))
			_exit(14);
		fd = open("/proc/self/mem", O_RDONLY);
		_exit(fd >= 0 ? 0 : 13);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	print_message("# uid 65534 opening root's /proc/PID/mem: exit %d (0: refused with EACCES)\n",
		      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A file that samples one process is busy until it stops. */
static void test_outside_one_target_a_file(void **state)
{
	struct child c1, c2;
	int fd, m1, m2;

	(void)state;
	regions_ab();
	child_spawn(&c1);
	child_spawn(&c2);
	m1 = open_mem(c1.pid);
	m2 = open_mem(c2.pid);
	assert_true(m1 >= 0 && m2 >= 0);
	fd = kt_open();
	assert_int_equal(start_target(fd, m1, r_ab, 2, NULL), 0);
	assert_int_equal(start_target(fd, m2, r_ab, 2, NULL), -EBUSY);
	assert_int_equal(kt_stop(fd), 0);
	/* Stopped, it lets the first go and takes the second. */
	assert_int_equal(start_target(fd, m2, r_ab, 2, NULL), 0);
	assert_int_equal(child_int(&c1, 's'), 0);
	assert_int_equal(child_int(&c2, 's'), -EBUSY);
	/* nregions 0 with SPROFIL_TARGET stops, as STOP does. */
	assert_int_equal(start_target(fd, m2, r_ab, 0, NULL), 0);
	assert_int_equal(child_int(&c2, 's'), -EBUSY);
	close(fd);
	assert_int_equal(child_int(&c2, 's'), 0);
	close(m1);
	close(m2);
	child_end(&c1);
	child_end(&c2);
}

/* Callers of the sizes before outside sampling still profile themselves. */
static void test_outside_old_sizes(void **state)
{
	const uint32_t sizes[] = { 32, 56 };
	struct sprofil_status st;
	int fd = kt_open();

	(void)state;
	regions_ab();
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct sprofil_start a = {
			.size = sizes[i],
			.flags = SPROFIL_UINT,
			.regions = (uintptr_t)r_ab,
			.nregions = 2,
			.period_ns = PERIOD_NS,
		};

		assert_int_equal(start_args(fd, &a), 0);
		wl_spin_cpu(wl_work_a, chunk, 0.05);
		assert_int_equal(kt_status(fd, &st), 0);
		print_message("# START of %u bytes: state %#x, %llu samples\n",
			      sizes[i], st.state,
			      (unsigned long long)st.samples);
		assert_true(st.state & SPROFIL_STATE_ENABLED);
		assert_true(st.samples > 0);
		assert_int_equal(kt_stop(fd), 0);
	}
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outside_samples_a_child),
		cmocka_unit_test(test_outside_session_ends_with_the_target),
		cmocka_unit_test(test_outside_caller_chains),
		cmocka_unit_test(test_outside_samples_a_static_program),
		cmocka_unit_test(test_outside_refusals),
		cmocka_unit_test(test_outside_needs_ptrace_access),
		cmocka_unit_test(test_outside_one_target_a_file),
		cmocka_unit_test(test_outside_old_sizes),
	};

	return cmocka_run_group_tests_name("sprofil outside sampling", tests,
					   setup, NULL);
}
