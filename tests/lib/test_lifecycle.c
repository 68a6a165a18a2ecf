// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * How profiling through libsprofil starts, stops, survives fork and exec,
 * and refuses bad input, on whichever backend SPROFIL_BACKEND picked.
 *
 * The classic man pages promise that profiling "remains on in child and
 * parent both after a fork", each into its own copy of the buffers, and
 * that exec turns it off; glibc breaks both (a re-enable double-frees, an
 * exec'd program dies of SIGPROF).  Bad input must get its errno and leave
 * the running profile as it was.
 *
 * Children never use cmocka's assertions (a failed one would longjmp into
 * the child's copy of the runner): CHECK() prints why and returns the
 * source line, which the child reports as its exit status.
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
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <sprofil/mapping.h>
#include "lib_test.h"

#define PAGE 4096
#define BIG (1 << 20)		/* a buffer of more than a few pages */

/* Iterations of lt_work_* taking about 10 ms of CPU. */
static uint64_t chunk;

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			print_message("# child check failed: %s: ", #cond); \
			print_message(__VA_ARGS__);			\
			print_message("\n");				\
			return __LINE__ > 255 ? 255 : __LINE__;		\
		}							\
	} while (0)

/*
 * What @p's buffer holds now.  The bpf backend copies its counts into the
 * buffers only when asked (docs/backends.md): ask first, on every backend
 * (on the others the buffers are always current and this does nothing).
 */
static uint64_t region_sum(const struct prof *p, unsigned int flags)
{
	if (sprofil_flush()) {
		print_message("# sprofil_flush: %s\n", strerror(errno));
		abort();
	}
	return wl_sum(p->pr_base, flags, 0, lt_nbuckets(p, flags));
}

/* Spins @fn for about @samples sampling periods of CPU time. */
static double spin_samples(uint64_t (*fn)(uint64_t), double samples)
{
	return wl_spin_cpu(fn, chunk, lt_seconds_for(samples));
}

/*
 * The same while stopped, at the period the last session had (a stopped
 * session need not report its period any more).
 */
static double spin_stopped(uint64_t (*fn)(uint64_t), double samples,
			   uint64_t period_ns)
{
	assert_true(period_ns > 0);
	return wl_spin_cpu(fn, chunk, samples * period_ns / 1e9);
}

static int group_setup(void **state)
{
	struct sprofil_info i;

	(void)state;
	chunk = wl_calibrate(0.01);
	if (sprofil_info(&i)) {
		print_message("# sprofil_info: %s\n", strerror(errno));
		return -1;
	}
	print_message("# backend %s\n", i.backend);
	return 0;
}

static int stop_profiling(void **state)
{
	(void)state;
	return sprofil(NULL, 0, NULL, 0);
}

/*
 * Stop keeps the buffer and the counters as they were; starting again on
 * the same buffer (which glibc's sprofil double-frees) counts on.
 */
static void stop_and_restart_with_sprofil(void **state)
{
	const unsigned int flags = PROF_UINT;
	struct prof p = lt_func_region(wl_work_a, flags);
	struct sprofil_info i, stopped;
	uint64_t s1, s2, s3, period;

	(void)state;
	for (int round = 0; round < 3; round++) {
		assert_int_equal(sprofil(&p, 1, NULL, flags), 0);
		i = lt_info();
		assert_true(i.enabled);
		assert_int_equal(i.nregions, 1);
		period = i.period_ns;
		s1 = region_sum(&p, flags);
		spin_samples(wl_work_a, 100);
		assert_int_equal(sprofil(NULL, 0, NULL, 0), 0);
		stopped = lt_info();
		s2 = region_sum(&p, flags);
		lt_print_info("stopped", &stopped);
		print_message("#   round %d: %llu -> %llu samples in wl_work_a\n",
			      round, (unsigned long long)s1,
			      (unsigned long long)s2);
		assert_false(stopped.enabled);
		assert_true(s2 - s1 >= 50);
		/* Since the last start: no more than this round added. */
		assert_true(stopped.samples >= s2 - s1);
		assert_true(stopped.samples <= s2 - s1 + stopped.misses);

		/* Stopped means stopped: nothing moves any more. */
		spin_stopped(wl_work_a, 50, period);
		s3 = region_sum(&p, flags);
		i = lt_info();
		assert_int_equal(s3, s2);
		assert_int_equal(i.samples, stopped.samples);
	}
	free(p.pr_base);
}

/*
 * profil() through a pointer, for the classic stop profil(NULL, 0, 0, 0):
 * glibc's <unistd.h> declares the buffer nonnull, so a direct call with
 * NULL is undefined for the compiler and UBSan (nonnull-attribute) flags
 * it; attributes are not part of a pointer's type, so this call is not
 * (volatile: nor may the compiler turn it back into a direct one).
 */
static int (*const volatile profil_unchecked)(unsigned short *, size_t,
					      size_t, unsigned int) = profil;

/* The same with the classic profil(): scale 0 and a NULL buffer stop it. */
static void stop_and_restart_with_profil(void **state)
{
	struct prof p = lt_func_region(wl_work_a, PROF_USHORT);
	uint64_t s1, s2, period;

	(void)state;
	for (int round = 0; round < 3; round++) {
		assert_int_equal(profil(p.pr_base, p.pr_size, p.pr_off,
					p.pr_scale), 0);
		period = lt_info().period_ns;
		s1 = region_sum(&p, PROF_USHORT);
		spin_samples(wl_work_a, 100);
		s2 = region_sum(&p, PROF_USHORT);
		print_message("# profil round %d: %llu -> %llu\n", round,
			      (unsigned long long)s1, (unsigned long long)s2);
		assert_true(s2 - s1 >= 50);
		/* The classic stop: a NULL buffer. */
		if (round == 1)
			assert_int_equal(profil_unchecked(NULL, 0, 0, 0), 0);
		else
			assert_int_equal(profil(p.pr_base, p.pr_size,
						p.pr_off, 0), 0);
		assert_false(lt_info().enabled);
		spin_stopped(wl_work_a, 50, period);
		assert_int_equal(region_sum(&p, PROF_USHORT), s2);
	}
	free(p.pr_base);
}

/* A second sprofil() replaces the region set; the old one stops at once. */
static void a_new_call_replaces_the_region_set(void **state)
{
	const unsigned int flags = PROF_UINT;
	struct prof pa = lt_func_region(wl_work_a, flags);
	struct prof pb = lt_func_region(wl_work_b, flags);
	uint64_t a1, b1;

	(void)state;
	assert_int_equal(sprofil(&pa, 1, NULL, flags), 0);
	spin_samples(wl_work_a, 50);
	assert_int_equal(sprofil(&pb, 1, NULL, flags), 0);
	a1 = region_sum(&pa, flags);
	spin_samples(wl_work_a, 50);
	spin_samples(wl_work_b, 100);
	b1 = region_sum(&pb, flags);
	print_message("# wl_work_a %llu (frozen), wl_work_b %llu\n",
		      (unsigned long long)a1, (unsigned long long)b1);
	assert_true(a1 >= 25);
	assert_int_equal(region_sum(&pa, flags), a1);
	assert_true(b1 >= 50);
	assert_int_equal(lt_info().nregions, 1);
	free(pa.pr_base);
	free(pb.pr_base);
}

/*
 * The child of fork() runs wl_work_b and the parent wl_work_a, both
 * profiled into their own copy of the same buffers: the child's copy gains
 * wl_work_b's samples and keeps wl_work_a's count from the fork; the
 * parent's never sees wl_work_b and keeps counting wl_work_a.
 */
static int fork_child(struct prof *p, unsigned int flags, uint64_t a_at_fork)
{
	struct sprofil_info i;
	uint64_t a, b;
	double cpu, want;

	cpu = spin_samples(wl_work_b, 150);
	i = lt_info();
	a = region_sum(&p[0], flags);
	b = region_sum(&p[1], flags);
	want = cpu / (i.period_ns / 1e9);
	print_message("# child: %.3f s CPU (~%.0f periods), wl_work_a %llu (at fork %llu), wl_work_b %llu\n",
		      cpu, want, (unsigned long long)a,
		      (unsigned long long)a_at_fork, (unsigned long long)b);
	lt_print_info("child", &i);
	CHECK(i.enabled, "the child is not profiled");
	CHECK(a == a_at_fork, "wl_work_a changed in the child");
	CHECK(b >= want / 2, "too few samples in the child's wl_work_b");
	return 0;
}

static void fork_profiles_parent_and_child_into_their_own_copies(void **state)
{
	const unsigned int flags = PROF_UINT;
	struct prof p[2] = {
		lt_func_region(wl_work_a, flags),
		lt_func_region(wl_work_b, flags),
	};
	struct sprofil_info i;
	uint64_t a0, a1, b1;
	double cpu;
	pid_t pid;
	int status;

	(void)state;
	assert_int_equal(sprofil(p, 2, NULL, flags), 0);
	spin_samples(wl_work_a, 50);
	a0 = region_sum(&p[0], flags);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(fork_child(p, flags, a0));
	cpu = spin_samples(wl_work_a, 150);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	i = lt_info();
	a1 = region_sum(&p[0], flags);
	b1 = region_sum(&p[1], flags);
	lt_print_info("parent", &i);
	print_message("# parent: %.3f s CPU after fork, wl_work_a %llu -> %llu, wl_work_b %llu; child status %#x\n",
		      cpu, (unsigned long long)a0, (unsigned long long)a1,
		      (unsigned long long)b1, status);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_true(i.enabled);
	assert_int_equal(b1, 0);
	assert_true(a1 - a0 >= cpu / (i.period_ns / 1e9) / 2);
	free(p[0].pr_base);
	free(p[1].pr_base);
}

/*
 * helper_exec next to this binary, named with the same prefix: in the VM
 * payload this is lib-test_lifecycle and its helper lib-helper_exec (a
 * plain helper_exec there is the module suite's, with other arguments).
 */
static void helper_path(char *path, size_t size)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash, *name;

	assert_true(n > 0);
	self[n] = '\0';
	slash = strrchr(self, '/');
	assert_non_null(slash);
	*slash = '\0';
	name = strstr(slash + 1, "test_");
	assert_non_null(name);
	*name = '\0';
	assert_true(snprintf(path, size, "%s/%shelper_exec", self, slash + 1) <
		    (int)size);
	if (access(path, X_OK))
		fail_msg("no %s", path);
}

/*
 * A profiling process (here the fork child, profiled through the
 * library's re-arming) execs a program that runs unprofiled: it must run
 * to its normal end, not die of a sampling signal.
 */
static void exec_runs_the_new_program_normally(void **state)
{
	const unsigned int flags = PROF_UINT;
	struct prof p = lt_func_region(wl_work_a, flags);
	char path[PATH_MAX];
	pid_t pid;
	int status;

	(void)state;
	helper_path(path, sizeof(path));
	assert_int_equal(sprofil(&p, 1, NULL, flags), 0);
	spin_samples(wl_work_a, 10);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* Spins with sampling on, so that signals may be in flight. */
		spin_samples(wl_work_a, 20);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	print_message("# %s: status %#x%s%s\n", path, status,
		      WIFSIGNALED(status) ? ", killed by " : "",
		      WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "");
	assert_false(WIFSIGNALED(status));
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* The parent goes on profiling. */
	assert_true(lt_info().enabled);
	free(p.pr_base);
}

/*
 * Profiling that must survive every bad call below: wl_work_a into a
 * 32-bit region.
 */
static struct prof good;
static struct sprofil_info good_info;

static void start_good(void)
{
	good = lt_func_region(wl_work_a, PROF_UINT);
	assert_int_equal(sprofil(&good, 1, NULL, PROF_UINT), 0);
	good_info = lt_info();
}

/* The failed call changed nothing: same session, still counting. */
static void check_still_profiling(const char *what)
{
	uint64_t before = region_sum(&good, PROF_UINT);
	struct sprofil_info i0 = lt_info(), i1;

	spin_samples(wl_work_a, 20);
	i1 = lt_info();
	if (!i1.enabled || i1.period_ns != good_info.period_ns ||
	    i1.nregions != 1 || i1.samples <= i0.samples ||
	    region_sum(&good, PROF_UINT) <= before)
		lt_print_info(what, &i1);
	assert_true(i1.enabled);
	assert_int_equal(i1.period_ns, good_info.period_ns);
	assert_int_equal(i1.nregions, 1);
	assert_true(i1.samples > i0.samples);
	assert_true(region_sum(&good, PROF_UINT) > before);
}

#define EXPECT_ERRNO(call, err)						\
	do {								\
		errno = 0;						\
		assert_int_equal((call), -1);				\
		if (errno != (err))					\
			print_message("# %s: errno %d (%s), wanted %s\n", \
				      #call, errno, strerror(errno), #err); \
		assert_int_equal(errno, (err));				\
		check_still_profiling(#call);				\
	} while (0)

/* One region over a small buffer of @bytes at @buf, for wl_work_b. */
static struct prof one(void *buf, size_t bytes, unsigned int scale)
{
	struct prof p = {
		.pr_base = buf,
		.pr_size = bytes,
		.pr_off = wl_func_extent(wl_work_b).start,
		.pr_scale = scale,
	};

	return p;
}

static void bad_input_gets_its_errno_and_changes_nothing(void **state)
{
	static uint32_t buf[64] __attribute__((aligned(16)));
	char *ro = wl_map(PAGE, PROT_READ);
	/*
	 * A page that is not memory the process can write: kept mapped
	 * without access rather than unmapped, because starting a backend
	 * may map memory of its own (bpf's counter array) into a hole.
	 */
	char *gone = wl_map(PAGE, PROT_NONE);
	struct prof p[2], *many;
	int nmany = SPROFIL_MAX_REGIONS + 1;

	(void)state;
	assert_non_null(ro);
	assert_non_null(gone);
	start_good();

	p[0] = one(buf, sizeof(buf), 0x10000);
	EXPECT_ERRNO(sprofil(p, -1, NULL, PROF_UINT), EINVAL);
	EXPECT_ERRNO(sprofil(p, INT_MIN, NULL, PROF_UINT), EINVAL);
	EXPECT_ERRNO(sprofil(p, 1, NULL, 0x100), EINVAL);
	EXPECT_ERRNO(sprofil(p, 1, NULL, PROF_UINT | 0x4), EINVAL);

	/* Any 32-bit scale is valid (glibc); pr_scale is a long. */
	p[0] = one(buf, sizeof(buf), 0x10000);
	p[0].pr_scale = (unsigned long)UINT_MAX + 1;
	EXPECT_ERRNO(sprofil(p, 1, NULL, PROF_UINT), EINVAL);

	/* Sizes and bases must be whole, aligned buckets. */
	p[0] = one(buf, 6, 0x10000);
	EXPECT_ERRNO(sprofil(p, 1, NULL, PROF_UINT), EINVAL);
	p[0] = one(buf, 3, 0x10000);
	EXPECT_ERRNO(sprofil(p, 1, NULL, PROF_USHORT), EINVAL);
	p[0] = one(buf, 0, 0x10000);
	EXPECT_ERRNO(sprofil(p, 1, NULL, PROF_UINT), EINVAL);
	p[0] = one((char *)buf + 2, 8, 0x10000);
	EXPECT_ERRNO(sprofil(p, 1, NULL, PROF_UINT), EINVAL);

	/* Two overflow bins cannot both count the misses. */
	p[0] = one(buf, 4, 2);
	p[0].pr_off = 0;
	p[1] = one(buf + 1, 4, 2);
	p[1].pr_off = 0;
	EXPECT_ERRNO(sprofil(p, 2, NULL, PROF_UINT), EINVAL);

	EXPECT_ERRNO(sprofil(NULL, 1, NULL, PROF_UINT), EFAULT);
	p[0] = one(ro, PAGE, 0x10000);
	EXPECT_ERRNO(sprofil(p, 1, NULL, PROF_UINT), EFAULT);
	EXPECT_ERRNO(profil((unsigned short *)ro, PAGE, p[0].pr_off,
			    0x10000), EFAULT);
	p[0] = one(gone, PAGE, 0x10000);
	EXPECT_ERRNO(sprofil(p, 1, NULL, PROF_UINT), EFAULT);
	/* A good region does not excuse a bad one next to it. */
	p[0] = one(buf, sizeof(buf), 0x10000);
	p[1] = one(ro, PAGE, 0x10000);
	EXPECT_ERRNO(sprofil(p, 2, NULL, PROF_UINT), EFAULT);

	many = calloc(nmany, sizeof(*many));
	assert_non_null(many);
	for (int k = 0; k < nmany; k++)
		many[k] = one(buf, 4, 0x10000);
	EXPECT_ERRNO(sprofil(many, nmany, NULL, PROF_UINT), EINVAL);
	/* The limit itself is fine: then the good profile comes back. */
	assert_int_equal(sprofil(many, SPROFIL_MAX_REGIONS, NULL, PROF_UINT),
			 0);
	assert_int_equal(lt_info().nregions, SPROFIL_MAX_REGIONS);
	free(many);
	assert_int_equal(sprofil(&good, 1, NULL, PROF_UINT), 0);
	check_still_profiling("restarted");

	munmap(ro, PAGE);
	munmap(gone, PAGE);
	free(good.pr_base);
}

/*
 * A buffer that becomes read-only while profiling turns its region off
 * (DESIGN.md section 2): the process goes on, nothing more is written
 * there once it is off, and the other region keeps counting.  Run in a child with the
 * default SIGSEGV action, so that a backend that writes anyway kills
 * the child rather than jumping into cmocka's handler mid-sample.
 */
static int read_only_child(void)
{
	const unsigned int flags = PROF_UINT;
	uint32_t *page = wl_map(PAGE, PROT_READ | PROT_WRITE);
	struct prof p[2];
	struct sprofil_info i;
	uint64_t a0, b0, a1, b1;

	signal(SIGSEGV, SIG_DFL);
	signal(SIGBUS, SIG_DFL);
	CHECK(page, "mmap");
	p[0] = lt_func_region(wl_work_a, flags);
	p[1] = lt_func_region(wl_work_b, flags);
	free(p[1].pr_base);
	p[1].pr_base = page;
	CHECK(p[1].pr_size <= PAGE, "wl_work_b is too big");
	CHECK(sprofil(p, 2, NULL, flags) == 0, "sprofil: %s",
	      strerror(errno));
	spin_samples(wl_work_b, 20);
	CHECK(mprotect(page, PAGE, PROT_READ) == 0, "mprotect");
	/*
	 * The module turns the region off from a worker it queues as
	 * mprotect() finishes (kmod/session.c: a protection change is
	 * checked, as NUMA balancing and KSM make them too), so a sample or
	 * two may still land first: under qemu TCG 24 -> 26.  Up to 20
	 * periods are allowed for that; the bpf and signal backends turn it
	 * off within mprotect() (libsprofil/interpose/memory.c).
	 */
	for (int k = 0; k < 20 && lt_info().regions_off != 1; k++)
		spin_samples(wl_work_a, 1);
	CHECK(lt_info().regions_off == 1,
	      "regions_off %u 20 periods after mprotect",
	      lt_info().regions_off);
	b0 = region_sum(&p[1], flags);
	spin_samples(wl_work_b, 50);
	a0 = region_sum(&p[0], flags);
	spin_samples(wl_work_a, 50);
	i = lt_info();
	a1 = region_sum(&p[0], flags);
	b1 = region_sum(&p[1], flags);
	lt_print_info("read-only buffer", &i);
	print_message("#   wl_work_b (read-only) %llu -> %llu, wl_work_a %llu -> %llu\n",
		      (unsigned long long)b0, (unsigned long long)b1,
		      (unsigned long long)a0, (unsigned long long)a1);
	CHECK(i.enabled, "profiling stopped");
	CHECK(i.regions_off == 1, "regions_off %u", i.regions_off);
	CHECK(b1 == b0, "the read-only buffer changed");
	CHECK(a1 - a0 >= 25, "the other region stopped counting");
	return 0;
}

static void a_buffer_made_read_only_turns_its_region_off(void **state)
{
	pid_t pid;
	int status;

	(void)state;
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(read_only_child());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	print_message("# child status %#x%s%s\n", status,
		      WIFSIGNALED(status) ? ", killed by " : "",
		      WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "");
	assert_false(WIFSIGNALED(status));
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* Pages of [p, p + bytes) that are resident (mincore). */
static size_t resident_pages(void *p, size_t bytes)
{
	unsigned char vec[BIG / PAGE];
	size_t n = 0;

	assert_int_equal(mincore(p, bytes, vec), 0);
	for (size_t k = 0; k < bytes / PAGE; k++)
		n += vec[k] & 1;
	return n;
}

/* sprofil() of @p fails with EFAULT. */
static void refused_efault(const struct prof *p, const char *what)
{
	int ret;

	errno = 0;
	ret = sprofil((struct prof *)p, 1, NULL, PROF_UINT);
	if (ret != -1 || errno != EFAULT)
		fail_msg("%s: sprofil() returned %d, errno %d (%s), not EFAULT",
			 what, ret, errno, strerror(errno));
}

/*
 * A large buffer is checked by its mapping (libsprofil/backends/buffer_check.c)
 * on the backends that store from userland: anonymous memory is taken
 * without a page of it being committed; read-only memory, a hole, and a
 * file mapping past the end of its file are refused as a small buffer
 * is.  The module pins every page, so its backend is not asked.
 */
static void a_large_buffer_is_checked_without_committing_it(void **state)
{
	char *big = wl_map(BIG, PROT_READ | PROT_WRITE);
	char *ro = wl_map(BIG, PROT_READ);
	char *hole = wl_map(BIG, PROT_READ | PROT_WRITE);
	char path[] = "/tmp/sprofil-lifecycle.XXXXXX";
	int fd = mkstemp(path);
	char *file;
	struct prof p;

	(void)state;
	assert_true(big && ro && hole && fd >= 0);
	unlink(path);
	assert_int_equal(ftruncate(fd, PAGE), 0);
	file = mmap(NULL, BIG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(file != MAP_FAILED);
	/* Not unmapped: a backend may map memory of its own into a hole. */
	assert_int_equal(mprotect(hole + BIG / 2, PAGE, PROT_NONE), 0);
	p = one(big, BIG, 0x10000);
	/* Far from any code: no sample lands there meanwhile. */
	p.pr_off = 0x1000;
	assert_int_equal(sprofil(&p, 1, NULL, PROF_UINT), 0);
	if (strcmp(lt_info().backend, "kmod"))
		assert_int_equal(resident_pages(big, BIG), 0);
	print_message("# %s: %zu of %d pages of the buffer resident after sprofil()\n",
		      lt_info().backend, resident_pages(big, BIG), BIG / PAGE);
	assert_int_equal(sprofil(NULL, 0, NULL, 0), 0);
	p.pr_base = ro;
	refused_efault(&p, "read-only");
	p.pr_base = hole;
	refused_efault(&p, "a page without access in the middle");
	p.pr_base = file;
	refused_efault(&p, "a file mapping past the end of its file");
	p.pr_size = PAGE;		/* within the file: fine */
	assert_int_equal(sprofil(&p, 1, NULL, PROF_UINT), 0);
	assert_int_equal(sprofil(NULL, 0, NULL, 0), 0);
	munmap(file, BIG);
	close(fd);
	munmap(big, BIG);
	munmap(ro, BIG);
	munmap(hole, BIG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(stop_and_restart_with_sprofil,
					  stop_profiling),
		cmocka_unit_test_teardown(stop_and_restart_with_profil,
					  stop_profiling),
		cmocka_unit_test_teardown(a_new_call_replaces_the_region_set,
					  stop_profiling),
		cmocka_unit_test_teardown(fork_profiles_parent_and_child_into_their_own_copies,
					  stop_profiling),
		cmocka_unit_test_teardown(exec_runs_the_new_program_normally,
					  stop_profiling),
		cmocka_unit_test_teardown(bad_input_gets_its_errno_and_changes_nothing,
					  stop_profiling),
		cmocka_unit_test_teardown(a_buffer_made_read_only_turns_its_region_off,
					  stop_profiling),
		cmocka_unit_test_teardown(a_large_buffer_is_checked_without_committing_it,
					  stop_profiling),
	};

	return cmocka_run_group_tests(tests, group_setup, NULL);
}
