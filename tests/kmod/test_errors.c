// SPDX-License-Identifier: GPL-2.0
/*
 * In-VM tests of sprofil.ko: bad input to SPROFIL_IOC_START gets a precise
 * errno and changes nothing (docs/contract.md).
 *
 * "Changes nothing" is checked against a live session, not just asserted
 * from the return value: before every bad call the process already
 * profiles wl_work_a into a 32-bit buffer at 1 ms.  The bad call asks for
 * something different (another buffer, another period, other flags), so a
 * START that half-happened would show: after the rejection, the session
 * must still be enabled with the same period and region count, its
 * counters must not have been reset, no page may have been pinned or left
 * pinned, and a short workload must still count into the old buffer at
 * the old rate.
 */
#include <errno.h>
#include <grp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "kmod_test.h"

#define BASE_PERIOD_NS	1000000ULL	/* the live session's period */
#define BAD_PERIOD_NS	3000000ULL	/* what the bad calls ask for */
#define CHECK_SECONDS	0.2		/* CPU spent verifying the session */
#define PAGE		4096

/* The session every test starts from, set up by start_session(). */
static struct {
	int fd;
	uint32_t *buf;		/* its buckets (SPROFIL_UINT) */
	size_t bytes;
	struct sprofil_region r;
} live;

/* Iterations of wl_work_a taking about 5 ms of CPU. */
static uint64_t chunk;

/* Counters that a rejected START must leave alone. */
struct snapshot {
	struct sprofil_status st;
	uint64_t in_buf;	/* sum of live.buf */
	long pinned;		/* module-wide pinned pages */
	long sessions;		/* module-wide sessions */
};

/*
 * Runs wl_work_a until @seconds of CPU have passed: the work is bounded by
 * CPU time, not by iterations, because the VM's speed varies with the
 * load other VMs put on the host.
 */
static double spin_a(double seconds)
{
	double t0 = wl_cpu_seconds(), t;

	do {
		wl_work_a(chunk);
		t = wl_cpu_seconds() - t0;
	} while (t < seconds);
	return t;
}

static uint64_t live_sum(void)
{
	return wl_sum(live.buf, SPROFIL_UINT, 0, live.bytes / 4);
}

static int take_snapshot(struct snapshot *s)
{
	int err = kt_status(live.fd, &s->st);

	KT_CHECK(err == 0, "status: %s", strerror(-err));
	s->in_buf = live_sum();
	s->pinned = kt_module_param("pinned_pages");
	s->sessions = kt_module_param("sessions");
	return 0;
}

/*
 * Checks that the session is the one of @before and still works.  Returns
 * 0 or the line of the failed check (after printing it), so that a forked
 * child, which must not use cmocka's assertions, can report it too.
 */
static int check_unchanged(const struct snapshot *before, const char *what)
{
	struct sprofil_status st;
	uint64_t samples0, buf0, dsamples, dbuf;
	double t, u0, user, ratio;
	int err;

	err = kt_status(live.fd, &st);
	KT_CHECK(err == 0, "status: %s", strerror(-err));
	KT_CHECK(st.state & SPROFIL_STATE_ENABLED, "state %#x", st.state);
	KT_CHECK(st.period_ns == BASE_PERIOD_NS, "period %llu ns",
	      (unsigned long long)st.period_ns);
	KT_CHECK(st.nregions == 1, "nregions %u", st.nregions);
	KT_CHECK(st.regions_off == 0, "regions_off %u", st.regions_off);
	/* A START that went through would have reset the counters. */
	KT_CHECK(st.samples >= before->st.samples, "samples %llu -> %llu",
	      (unsigned long long)before->st.samples,
	      (unsigned long long)st.samples);
	KT_CHECK(kt_module_param("pinned_pages") == before->pinned,
	      "pinned pages %ld -> %ld", before->pinned,
	      kt_module_param("pinned_pages"));
	KT_CHECK(kt_module_param("sessions") == before->sessions,
	      "sessions %ld -> %ld", before->sessions,
	      kt_module_param("sessions"));

	/*
	 * The old region still counts, at the old rate.  The module credits
	 * every period of CPU time a late timer skipped (the host may stop
	 * a vCPU while guest time runs on), so samples x period tracks the
	 * user CPU time: a 3 ms period would give a third of it.
	 */
	samples0 = st.samples;
	buf0 = live_sum();
	u0 = kt_user_seconds();
	t = spin_a(CHECK_SECONDS);
	user = kt_user_seconds() - u0;
	err = kt_status(live.fd, &st);
	KT_CHECK(err == 0, "status: %s", strerror(-err));
	dsamples = st.samples - samples0;
	dbuf = live_sum() - buf0;
	ratio = dsamples * (BASE_PERIOD_NS / 1e9) / user;
	print_message("# after %s: %.3f s CPU (%.3f s user), +%llu samples (x period = %.2f of user CPU), +%llu in the old buffer\n",
		      what, t, user, (unsigned long long)dsamples, ratio,
		      (unsigned long long)dbuf);
	KT_CHECK(st.period_ns == BASE_PERIOD_NS, "period %llu ns",
	      (unsigned long long)st.period_ns);
	KT_CHECK(ratio >= 0.75 && ratio <= 1.33,
	      "samples x period / user CPU = %.2f", ratio);
	/* Never more samples than CPU time allows (one period of slack). */
	KT_CHECK(dsamples * (BASE_PERIOD_NS / 1e9) <=
	      t * 1.05 + BASE_PERIOD_NS / 1e9,
	      "samples x period / CPU = %.2f",
	      dsamples * (BASE_PERIOD_NS / 1e9) / t);
	/* Nearly all of it runs in wl_work_a, the only region. */
	KT_CHECK(dbuf <= dsamples && dbuf >= dsamples * 8 / 10,
	      "buffer +%llu for +%llu samples", (unsigned long long)dbuf,
	      (unsigned long long)dsamples);
	return 0;
}

/*
 * Issues a START that must fail with @err, then checks nothing changed:
 * the errno, no period written back, the live session intact.
 */
static int expect_rejected(const struct sprofil_region *r, unsigned int n,
			   unsigned int flags, uint64_t period, int err,
			   const char *what)
{
	struct snapshot before;
	uint64_t p = period;
	int rc;

	rc = take_snapshot(&before);
	if (rc)
		return rc;
	rc = kt_start(live.fd, r, n, flags, &p);
	print_message("# %s: START returned %d (%s), expected %d (%s)\n", what,
		      rc, strerror(-rc), -err, strerror(err));
	KT_CHECK(rc == -err, "errno");
	KT_CHECK(p == period, "period written back on failure: %llu",
	      (unsigned long long)p);
	return check_unchanged(&before, what);
}

static int group_setup(void **state)
{
	(void)state;
	chunk = wl_calibrate(0.005);
	return 0;
}

static int start_session(void **state)
{
	struct wl_func fa = wl_func_extent(wl_work_a);
	uint64_t period = BASE_PERIOD_NS;

	(void)state;
	live.fd = kt_open();
	/* One 32-bit bucket per 4 bytes of wl_work_a: cannot saturate. */
	live.bytes = (fa.size + 3) / 4 * 4;
	live.buf = wl_map(live.bytes, PROT_READ | PROT_WRITE);
	if (!live.buf)
		return -1;
	live.r = kt_region(live.buf, live.bytes, fa.start, 0x10000);
	if (kt_start(live.fd, &live.r, 1, SPROFIL_UINT, &period) ||
	    period != BASE_PERIOD_NS) {
		print_message("# cannot start the live session\n");
		return -1;
	}
	/* Counters well above zero, so a reset would be seen. */
	spin_a(0.05);
	return 0;
}

static int stop_session(void **state)
{
	(void)state;
	kt_stop(live.fd);
	close(live.fd);
	munmap(live.buf, live.bytes);
	return 0;
}

/* A valid region over wl_work_b in a fresh buffer, for bad variations. */
static struct sprofil_region other_region(void *buf, size_t bytes)
{
	return kt_region(buf, bytes, wl_func_extent(wl_work_b).start, 0x10000);
}

static void test_unknown_flags_einval(void **state)
{
	uint32_t *buf = wl_map(PAGE, PROT_READ | PROT_WRITE);
	struct sprofil_region r = other_region(buf, PAGE);

	(void)state;
	assert_non_null(buf);
	assert_int_equal(expect_rejected(&r, 1, SPROFIL_UINT | 0x4,
					 BAD_PERIOD_NS, EINVAL, "flag 0x4"), 0);
	assert_int_equal(expect_rejected(&r, 1, 0x80000000u, BAD_PERIOD_NS,
					 EINVAL, "flag 0x80000000"), 0);
	assert_int_equal(wl_sum(buf, SPROFIL_UINT, 0, PAGE / 4), 0);
	munmap(buf, PAGE);
}

static void test_period_above_max_einval(void **state)
{
	uint32_t *buf = wl_map(PAGE, PROT_READ | PROT_WRITE);
	struct sprofil_region r = other_region(buf, PAGE);

	(void)state;
	assert_non_null(buf);
	assert_int_equal(expect_rejected(&r, 1, SPROFIL_UINT,
					 SPROFIL_MAX_PERIOD_NS + 1, EINVAL,
					 "period max + 1"), 0);
	munmap(buf, PAGE);
}

/* glibc accepts a scale above 0x10000 (LTP's profil01), and so do we. */
static void test_scale_above_one_accepted(void **state)
{
	uint32_t *buf = wl_map(PAGE, PROT_READ | PROT_WRITE);
	struct sprofil_region r = other_region(buf, PAGE);
	uint64_t period = BASE_PERIOD_NS;

	(void)state;
	assert_non_null(buf);
	r.scale = 0x20000;
	assert_int_equal(kt_start(live.fd, &r, 1, SPROFIL_UINT, &period), 0);
	r.scale = 0xffffffffu;
	assert_int_equal(kt_start(live.fd, &r, 1, SPROFIL_UINT, &period), 0);
	assert_int_equal(kt_stop(live.fd), 0);
	munmap(buf, PAGE);
}

static void test_zero_size_einval(void **state)
{
	uint32_t *buf = wl_map(PAGE, PROT_READ | PROT_WRITE);
	struct sprofil_region r = other_region(buf, 0);

	(void)state;
	assert_non_null(buf);
	assert_int_equal(expect_rejected(&r, 1, SPROFIL_UINT, BAD_PERIOD_NS,
					 EINVAL, "size 0"), 0);
	munmap(buf, PAGE);
}

static void test_odd_size_16bit_einval(void **state)
{
	uint16_t *buf = wl_map(PAGE, PROT_READ | PROT_WRITE);
	struct sprofil_region r = other_region(buf, 7);

	(void)state;
	assert_non_null(buf);
	assert_int_equal(expect_rejected(&r, 1, SPROFIL_USHORT, BAD_PERIOD_NS,
					 EINVAL, "16-bit size 7"), 0);
	assert_int_equal(wl_sum(buf, SPROFIL_USHORT, 0, PAGE / 2), 0);
	munmap(buf, PAGE);
}

static void test_size_6_32bit_einval(void **state)
{
	uint32_t *buf = wl_map(PAGE, PROT_READ | PROT_WRITE);
	struct sprofil_region r = other_region(buf, 6);

	(void)state;
	assert_non_null(buf);
	assert_int_equal(expect_rejected(&r, 1, SPROFIL_UINT, BAD_PERIOD_NS,
					 EINVAL, "32-bit size 6"), 0);
	assert_int_equal(wl_sum(buf, SPROFIL_UINT, 0, PAGE / 4), 0);
	munmap(buf, PAGE);
}

static void test_misaligned_base_einval(void **state)
{
	char *buf = wl_map(2 * PAGE, PROT_READ | PROT_WRITE);
	struct sprofil_region r;

	(void)state;
	assert_non_null(buf);
	r = other_region(buf + 2, PAGE);
	assert_int_equal(expect_rejected(&r, 1, SPROFIL_UINT, BAD_PERIOD_NS,
					 EINVAL, "32-bit base + 2"), 0);
	r = other_region(buf + 1, PAGE);
	assert_int_equal(expect_rejected(&r, 1, SPROFIL_USHORT,
					 BAD_PERIOD_NS, EINVAL,
					 "16-bit base + 1"), 0);
	assert_int_equal(wl_sum(buf, SPROFIL_UINT, 0, 2 * PAGE / 4), 0);
	munmap(buf, 2 * PAGE);
}

static void test_region_too_large_einval(void **state)
{
	uint32_t *buf = wl_map(PAGE, PROT_READ | PROT_WRITE);
	struct sprofil_region r = other_region(buf,
					       SPROFIL_MAX_REGION_BYTES + 4);

	(void)state;
	assert_non_null(buf);
	assert_int_equal(expect_rejected(&r, 1, SPROFIL_UINT, BAD_PERIOD_NS,
					 EINVAL, "size max + 4"), 0);
	munmap(buf, PAGE);
}

static void test_too_many_regions_einval(void **state)
{
	unsigned int n = SPROFIL_MAX_REGIONS + 1;
	struct sprofil_region *r = calloc(n, sizeof(*r));
	uint32_t *buf = wl_map(PAGE, PROT_READ | PROT_WRITE);

	(void)state;
	assert_non_null(r);
	assert_non_null(buf);
	/* Every entry valid: only their number is wrong. */
	for (unsigned int i = 0; i < n; i++)
		r[i] = other_region(buf, PAGE);
	assert_int_equal(expect_rejected(r, n, SPROFIL_UINT, BAD_PERIOD_NS,
					 EINVAL, "1025 regions"), 0);
	assert_int_equal(wl_sum(buf, SPROFIL_UINT, 0, PAGE / 4), 0);
	munmap(buf, PAGE);
	free(r);
}

static void test_unreadable_region_array_efault(void **state)
{
	void *gone = wl_map(PAGE, PROT_READ | PROT_WRITE);

	(void)state;
	assert_non_null(gone);
	assert_int_equal(munmap(gone, PAGE), 0);
	assert_int_equal(expect_rejected(gone, 1, SPROFIL_UINT, BAD_PERIOD_NS,
					 EFAULT, "region array unmapped"), 0);
}

static void test_read_only_buffer_efault(void **state)
{
	uint32_t *buf = wl_map(PAGE, PROT_READ);
	struct sprofil_region r = other_region(buf, PAGE);

	(void)state;
	assert_non_null(buf);
	assert_int_equal(expect_rejected(&r, 1, SPROFIL_UINT, BAD_PERIOD_NS,
					 EFAULT, "PROT_READ buffer"), 0);
	assert_int_equal(wl_sum(buf, SPROFIL_UINT, 0, PAGE / 4), 0);
	munmap(buf, PAGE);
}

static void test_unmapped_buffer_efault(void **state)
{
	void *gone = wl_map(PAGE, PROT_READ | PROT_WRITE);
	struct sprofil_region r = other_region(gone, PAGE);

	(void)state;
	assert_non_null(gone);
	assert_int_equal(munmap(gone, PAGE), 0);
	assert_int_equal(expect_rejected(&r, 1, SPROFIL_UINT, BAD_PERIOD_NS,
					 EFAULT, "unmapped buffer"), 0);
}

/*
 * Only the last page of the buffer is missing: the pages pinned before the
 * failure must be released (check_unchanged() compares pinned_pages).
 */
static void test_partly_unmapped_buffer_efault(void **state)
{
	char *buf = wl_map(4 * PAGE, PROT_READ | PROT_WRITE);
	struct sprofil_region r = other_region(buf, 4 * PAGE);

	(void)state;
	assert_non_null(buf);
	assert_int_equal(munmap(buf + 3 * PAGE, PAGE), 0);
	assert_int_equal(expect_rejected(&r, 1, SPROFIL_UINT, BAD_PERIOD_NS,
					 EFAULT, "last page unmapped"), 0);
	assert_int_equal(wl_sum(buf, SPROFIL_UINT, 0, 3 * PAGE / 4), 0);
	munmap(buf, 3 * PAGE);
}

/*
 * Runs in a forked child, which has no session of its own: starts one as
 * root, then becomes an unprivileged user with a small RLIMIT_MEMLOCK and
 * asks to pin more than that.  Returns the exit status: 0 or the line of
 * the failed check.
 */
static int memlock_child(void)
{
	const size_t big = 256 * PAGE, small = PAGE;
	const struct rlimit lim = { 16 * PAGE, 16 * PAGE };
	uint64_t period = BASE_PERIOD_NS;
	struct sprofil_region r;
	struct snapshot before;
	void *buf;
	int rc;

	/* The copy of the parent's buffer is this process's own memory. */
	rc = kt_start(live.fd, &live.r, 1, SPROFIL_UINT, &period);
	KT_CHECK(rc == 0, "start as root: %s", strerror(-rc));
	spin_a(0.05);

	KT_CHECK(setrlimit(RLIMIT_MEMLOCK, &lim) == 0, "setrlimit: %m");
	KT_CHECK(setgroups(0, NULL) == 0, "setgroups: %m");
	KT_CHECK(setgid(65534) == 0, "setgid: %m");
	KT_CHECK(setuid(65534) == 0, "setuid: %m");
	KT_CHECK(geteuid() == 65534, "euid %d", (int)geteuid());

	buf = wl_map(big, PROT_READ | PROT_WRITE);
	KT_CHECK(buf, "mmap: %m");
	r = other_region(buf, big);
	rc = take_snapshot(&before);
	if (rc)
		return rc;
	rc = kt_start(live.fd, &r, 1, SPROFIL_UINT, &period);
	print_message("# 256 pages over a 16-page RLIMIT_MEMLOCK, no CAP_IPC_LOCK: START returned %d (%s)\n",
		      rc, strerror(-rc));
	KT_CHECK(rc == -ENOMEM, "errno");
	KT_CHECK(wl_sum(buf, SPROFIL_UINT, 0, big / 4) == 0, "buffer written");
	rc = check_unchanged(&before, "ENOMEM");
	if (rc)
		return rc;

	/* The limit, not the lost privileges, made it fail. */
	r = other_region(buf, small);
	rc = kt_start(live.fd, &r, 1, SPROFIL_UINT, &period);
	KT_CHECK(rc == 0, "one page within the limit: %s", strerror(-rc));
	return 0;
}

static void test_over_memlock_limit_enomem(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	fflush(stdout);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		status = memlock_child();
		fflush(stdout);
		_exit(status > 255 ? 255 : status);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	/* Non-zero: a source line of memlock_child() (mod 256). */
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_unknown_ioctl_enotty(void **state)
{
	const unsigned long cmds[] = {
		_IO(SPROFIL_IOC_MAGIC, 0),
		_IO(SPROFIL_IOC_MAGIC, 4),
		_IOWR(SPROFIL_IOC_MAGIC, 9, struct sprofil_start),
		_IO('T', 1),	/* TCGETS, as isatty() sends */
	};
	struct sprofil_start arg = { .size = sizeof(arg) };
	struct snapshot before;

	(void)state;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		assert_int_equal(take_snapshot(&before), 0);
		errno = 0;
		assert_int_equal(ioctl(live.fd, cmds[i], &arg), -1);
		print_message("# ioctl %#lx: %s\n", cmds[i], strerror(errno));
		assert_int_equal(errno, ENOTTY);
		assert_int_equal(check_unchanged(&before, "ENOTTY"), 0);
	}
}

static void test_short_args_size_einval(void **state)
{
	uint32_t *buf = wl_map(PAGE, PROT_READ | PROT_WRITE);
	struct sprofil_region r = other_region(buf, PAGE);
	const uint32_t sizes[] = { 0, 4, 16, 24, 31 };
	struct snapshot before;

	(void)state;
	assert_non_null(buf);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		/* Everything else valid: only the size is wrong. */
		struct sprofil_start a = {
			.size = sizes[i],
			.flags = SPROFIL_UINT,
			.regions = (uintptr_t)&r,
			.nregions = 1,
			.period_ns = BAD_PERIOD_NS,
		};

		assert_int_equal(take_snapshot(&before), 0);
		errno = 0;
		assert_int_equal(ioctl(live.fd, SPROFIL_IOC_START, &a), -1);
		print_message("# args size %u: %s\n", sizes[i],
			      strerror(errno));
		assert_int_equal(errno, EINVAL);
		assert_int_equal(check_unchanged(&before, "short args"), 0);
	}
	assert_int_equal(wl_sum(buf, SPROFIL_UINT, 0, PAGE / 4), 0);
	munmap(buf, PAGE);
}

static void test_start_reserved_nonzero_einval(void **state)
{
	uint32_t *buf = wl_map(PAGE, PROT_READ | PROT_WRITE);
	struct sprofil_region r = other_region(buf, PAGE);
	struct sprofil_start a = {
		.size = sizeof(a),
		.flags = SPROFIL_UINT,
		.regions = (uintptr_t)&r,
		.nregions = 1,
		.reserved = 1,
		.period_ns = BAD_PERIOD_NS,
	};
	struct snapshot before;

	(void)state;
	assert_non_null(buf);
	assert_int_equal(take_snapshot(&before), 0);
	errno = 0;
	assert_int_equal(ioctl(live.fd, SPROFIL_IOC_START, &a), -1);
	print_message("# sprofil_start.reserved = 1: %s\n", strerror(errno));
	assert_int_equal(errno, EINVAL);
	assert_int_equal(check_unchanged(&before, "start.reserved"), 0);
	assert_int_equal(wl_sum(buf, SPROFIL_UINT, 0, PAGE / 4), 0);
	munmap(buf, PAGE);
}

static void test_region_reserved_nonzero_einval(void **state)
{
	uint32_t *buf = wl_map(PAGE, PROT_READ | PROT_WRITE);
	struct sprofil_region r = other_region(buf, PAGE);

	(void)state;
	assert_non_null(buf);
	r.reserved = 0x80000000u;
	assert_int_equal(expect_rejected(&r, 1, SPROFIL_UINT, BAD_PERIOD_NS,
					 EINVAL, "region.reserved"), 0);
	/* Even on an entry that would otherwise be ignored (scale 0). */
	r.scale = 0;
	assert_int_equal(expect_rejected(&r, 1, SPROFIL_UINT, BAD_PERIOD_NS,
					 EINVAL, "ignored region.reserved"), 0);
	assert_int_equal(wl_sum(buf, SPROFIL_UINT, 0, PAGE / 4), 0);
	munmap(buf, PAGE);
}

static void test_two_overflow_bins_einval(void **state)
{
	uint32_t *buf = wl_map(PAGE, PROT_READ | PROT_WRITE);
	struct sprofil_region r[3];

	(void)state;
	assert_non_null(buf);
	r[0] = kt_region(buf, 4, 0, 2);
	r[1] = other_region(buf + 8, PAGE / 2);
	r[2] = kt_region(buf + 1, 4, 0, 2);
	assert_int_equal(expect_rejected(r, 3, SPROFIL_UINT, BAD_PERIOD_NS,
					 EINVAL, "two overflow bins"), 0);
	assert_int_equal(wl_sum(buf, SPROFIL_UINT, 0, PAGE / 4), 0);
	munmap(buf, PAGE);
}

/*
 * STOP and "START with no regions" on a process that never profiled: both
 * succeed and neither creates a session.  Run in a fresh child because
 * this process has one.
 */
static int never_profiled_child(void)
{
	long sessions = kt_module_param("sessions");
	struct sprofil_status st;
	int fd = kt_open(), rc;

	rc = kt_stop(fd);
	KT_CHECK(rc == 0, "stop: %s", strerror(-rc));
	rc = kt_start(fd, NULL, 0, 0, NULL);
	KT_CHECK(rc == 0, "start with 0 regions: %s", strerror(-rc));
	rc = kt_status(fd, &st);
	KT_CHECK(rc == 0, "status: %s", strerror(-rc));
	KT_CHECK(st.state == 0 && st.samples == 0 && st.nregions == 0,
	      "state %#x samples %llu nregions %u", st.state,
	      (unsigned long long)st.samples, st.nregions);
	KT_CHECK(kt_module_param("sessions") == sessions,
	      "sessions %ld -> %ld", sessions, kt_module_param("sessions"));
	return 0;
}

static void test_stop_when_never_profiled_returns_0(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	fflush(stdout);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		status = never_profiled_child();
		fflush(stdout);
		_exit(status > 255 ? 255 : status);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* A second STOP, after the session ended, is not an error either. */
static void test_stop_twice_returns_0(void **state)
{
	struct sprofil_status st;
	uint64_t samples;

	(void)state;
	assert_int_equal(kt_stop(live.fd), 0);
	assert_int_equal(kt_status(live.fd, &st), 0);
	samples = st.samples;
	assert_int_equal(st.state & SPROFIL_STATE_ENABLED, 0);
	assert_int_equal(kt_stop(live.fd), 0);
	assert_int_equal(kt_start(live.fd, NULL, 0, SPROFIL_UINT, NULL), 0);
	assert_int_equal(kt_status(live.fd, &st), 0);
	print_message("# after three stops: state %#x, %llu samples kept\n",
		      st.state, (unsigned long long)st.samples);
	assert_int_equal(st.state & SPROFIL_STATE_ENABLED, 0);
	/* The counters of the stopped session stay readable and unchanged. */
	assert_true(samples > 0);
	assert_int_equal(st.samples, samples);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, start_session, stop_session)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_unknown_flags_einval),
		T(test_period_above_max_einval),
		T(test_scale_above_one_accepted),
		T(test_zero_size_einval),
		T(test_odd_size_16bit_einval),
		T(test_size_6_32bit_einval),
		T(test_misaligned_base_einval),
		T(test_region_too_large_einval),
		T(test_too_many_regions_einval),
		T(test_unreadable_region_array_efault),
		T(test_read_only_buffer_efault),
		T(test_unmapped_buffer_efault),
		T(test_partly_unmapped_buffer_efault),
		T(test_over_memlock_limit_enomem),
		T(test_unknown_ioctl_enotty),
		T(test_short_args_size_einval),
		T(test_start_reserved_nonzero_einval),
		T(test_region_reserved_nonzero_einval),
		T(test_two_overflow_bins_einval),
		T(test_stop_when_never_profiled_returns_0),
		T(test_stop_twice_returns_0),
	};

	return cmocka_run_group_tests_name("sprofil errors", tests,
					   group_setup, NULL);
}
