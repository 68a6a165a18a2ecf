// SPDX-License-Identifier: GPL-2.0
/*
 * sprofil_event() and SPROFIL_EVENT (include/sprofil.h), on whichever
 * backend SPROFIL_BACKEND names (the suite runs on each):
 *  - a bad name or a period with cpu-clock: EINVAL, nothing changes;
 *  - page faults are filed in the function that faults, about one sample
 *    per page it touches, on every backend (the module's counter is in
 *    the kernel, the others' perf events);
 *  - a PMU event where the machine has no PMU: ENOENT, no sampling; the
 *    module refuses PMU events with EOPNOTSUPP (NMI context);
 *  - context switches are filed where the thread sleeps (kmod, bpf); the
 *    signal backend refuses them with EOPNOTSUPP;
 *  - sprofil_event(NULL, 0) goes back to CPU time;
 *  - SPROFIL_EVENT in the environment does the same from the start, and
 *    a bad one makes every start fail rather than sample CPU time.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>
#include <cmocka.h>
#include <sprofil.h>
#include "lib_test.h"

#define PAGES	4000
/*
 * Faults beyond the pages touched: ASan's shadow of the buffer, an eighth
 * of its size, faults in too (the sanitized build, check-asan).
 */
#if defined(__SANITIZE_ADDRESS__)
#define EXTRA_FAULTS	(PAGES / 8 + 20)
#else
#define EXTRA_FAULTS	20
#endif

/*
 * One write per page of a fresh mapping, huge pages off: a fault each.
 * Exported: lt_func_region() finds its extent in the dynamic symbols.
 */
__attribute__((noipa)) void touch_pages(size_t pages);
__attribute__((noipa)) void touch_pages(size_t pages)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t i, len = pages * (size_t)page;
	char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(buf != MAP_FAILED);
	madvise(buf, len, MADV_NOHUGEPAGE);
	for (i = 0; i < len; i += (size_t)page)
		((volatile char *)buf)[i] = 1;
	munmap(buf, len);
}

/*
 * @naps sleeps of 200 us, each a system call made right here (not in
 * libc's wrapper), so that a context switch's user PC is in this
 * function.  Exported, as touch_pages().
 */
__attribute__((noipa)) void nap_often(int naps);
__attribute__((noipa)) void nap_often(int naps)
{
	struct timespec ts = { 0, 200000 };

	for (int i = 0; i < naps; i++) {
#ifdef __x86_64__
		long ret = SYS_nanosleep;

		__asm__ volatile("syscall"
				 : "+a"(ret)
				 : "D"(&ts), "S"(NULL)
				 : "rcx", "r11", "memory");
#else
		nanosleep(&ts, NULL);
#endif
	}
}

static int stop_profiling(void **state)
{
	(void)state;
	sprofil_event(NULL, 0);
	return sprofil(NULL, 0, NULL, 0);
}

static uint64_t sum(const struct prof *p)
{
	const unsigned int *b = p->pr_base;
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < p->pr_size / sizeof(*b); i++)
		n += b[i];
	return n;
}

static bool is_kmod(void)
{
	struct sprofil_info info = lt_info();

	return info.backend && !strcmp(info.backend, "kmod");
}

static void bad_events_are_refused(void **state)
{
	(void)state;
	errno = 0;
	assert_int_equal(sprofil_event("no-such-event", 0), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(sprofil_event("cpu-clock", 5), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(sprofil_event("page-faults", 0), 0);
	assert_int_equal(sprofil_event(NULL, 0), 0);
}

/* Samples @pages faults in touch_pages(); the samples there. */
static uint64_t sample_faults(struct prof *p, size_t pages, int *err)
{
	struct timeval tv = { 1, 1 };

	*p = lt_func_region((void *)touch_pages, PROF_UINT);
	*err = 0;
	if (sprofil(p, 1, &tv, PROF_UINT)) {
		*err = errno;
		return 0;
	}
	/* A period of events is no time. */
	assert_int_equal(tv.tv_sec, 0);
	assert_int_equal(tv.tv_usec, 0);
	touch_pages(pages);
	sprofil(NULL, 0, NULL, 0);
	return sum(p);
}

static void page_faults_land_in_the_faulting_function(void **state)
{
	struct prof p;
	uint64_t n;
	int err;

	(void)state;
	assert_int_equal(sprofil_event("page-faults", 1), 0);
	n = sample_faults(&p, PAGES, &err);
	free(p.pr_base);
	assert_int_equal(err, 0);
	print_message("# %llu samples for %d pages touched\n",
		      (unsigned long long)n, PAGES);
	assert_true(n >= PAGES * 95 / 100 && n <= PAGES * 105 / 100 + EXTRA_FAULTS);
}

static void a_period_of_ten_counts_every_tenth(void **state)
{
	struct prof p;
	struct sprofil_info info;
	uint64_t n;
	int err;

	(void)state;
	assert_int_equal(sprofil_event("minor-faults", 10), 0);
	p = lt_func_region((void *)touch_pages, PROF_UINT);
	assert_int_equal(sprofil(&p, 1, NULL, PROF_UINT), 0);
	info = lt_info();
	assert_int_equal(info.period_ns, 10);
	touch_pages(PAGES);
	sprofil(NULL, 0, NULL, 0);
	n = sum(&p);
	free(p.pr_base);
	(void)err;
	assert_true(n >= PAGES / 10 * 90 / 100 && n <= PAGES / 10 * 110 / 100 + 5);
}

/*
 * A context switch happens in the kernel and is filed at the user PC the
 * thread returns to: each nap is one (and rarely a preemption more).
 * The signal backend refuses the event (docs/backends.md).
 */
static void context_switches_land_where_the_thread_sleeps(void **state)
{
	struct prof p;
	uint64_t n;
	int err = 0;

	(void)state;
#ifndef __x86_64__
	skip();
#endif
	assert_int_equal(sprofil_event("context-switches", 1), 0);
	p = lt_func_region((void *)nap_often, PROF_UINT);
	if (sprofil(&p, 1, NULL, PROF_UINT))
		err = errno;
	if (!strcmp(lt_info().backend, "signal")) {
		free(p.pr_base);
		assert_int_equal(err, EOPNOTSUPP);
		return;
	}
	assert_int_equal(err, 0);
	nap_often(200);
	sprofil(NULL, 0, NULL, 0);
	n = sum(&p);
	free(p.pr_base);
	print_message("# %llu context switches filed for 200 naps\n",
		      (unsigned long long)n);
	assert_true(n >= 180 && n <= 600);
}

static void a_pmu_event_without_a_pmu_is_an_error(void **state)
{
	struct prof p;
	int err;

	(void)state;
	if (!access("/sys/bus/event_source/devices/cpu", F_OK) ||
	    !access("/sys/bus/event_source/devices/cpu_core", F_OK))
		skip();
	assert_int_equal(sprofil_event("cycles", 0), 0);
	sample_faults(&p, 1, &err);
	free(p.pr_base);
	assert_int_equal(err, is_kmod() ? EOPNOTSUPP : ENOENT);
	assert_false(lt_info().enabled);
}

static void back_to_cpu_time(void **state)
{
	struct prof p = lt_func_region((void *)touch_pages, PROF_UINT);
	struct timeval tv = { 0, 0 };

	(void)state;
	assert_int_equal(sprofil_event("page-faults", 1), 0);
	assert_int_equal(sprofil_event(NULL, 0), 0);
	assert_int_equal(sprofil(&p, 1, &tv, PROF_UINT), 0);
	assert_true(tv.tv_sec || tv.tv_usec);
	assert_true(lt_info().period_ns >= 100000);
	sprofil(NULL, 0, NULL, 0);
	free(p.pr_base);
}

/* SPROFIL_EVENT=page-faults: the first start counts faults. */
static int env_child(void)
{
	struct prof p;
	uint64_t n;
	int err;

	n = sample_faults(&p, PAGES, &err);
	free(p.pr_base);
	fprintf(stderr, "# SPROFIL_EVENT=page-faults: %llu samples, err %d\n",
		(unsigned long long)n, err);
	return !err && n >= PAGES * 95 / 100 && n <= PAGES * 105 / 100 + EXTRA_FAULTS ?
	       0 : 1;
}

/* SPROFIL_EVENT=no-such: every start fails, none samples CPU time. */
static int bad_env_child(void)
{
	struct prof p = lt_func_region((void *)touch_pages, PROF_UINT);
	int ret = !sprofil(&p, 1, NULL, PROF_UINT) || errno != EINVAL;

	free(p.pr_base);
	return ret;
}

static void the_environment_chooses_the_event(void **state)
{
	const char *const env[] = { "SPROFIL_EVENT=page-faults",
				    "SPROFIL_EVENT_PERIOD", NULL };
	const char *const bad[] = { "SPROFIL_EVENT=no-such", NULL };

	(void)state;
	assert_int_equal(lt_run_self("env", env), 0);
	assert_int_equal(lt_run_self("bad-env", bad), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bad_events_are_refused),
		cmocka_unit_test_teardown(page_faults_land_in_the_faulting_function,
					  stop_profiling),
		cmocka_unit_test_teardown(a_period_of_ten_counts_every_tenth,
					  stop_profiling),
		cmocka_unit_test_teardown(context_switches_land_where_the_thread_sleeps,
					  stop_profiling),
		cmocka_unit_test_teardown(a_pmu_event_without_a_pmu_is_an_error,
					  stop_profiling),
		cmocka_unit_test_teardown(back_to_cpu_time, stop_profiling),
		cmocka_unit_test(the_environment_chooses_the_event),
	};

	if (argc == 2 && !strcmp(argv[1], "env"))
		return env_child();
	if (argc == 2 && !strcmp(argv[1], "bad-env"))
		return bad_env_child();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
