// SPDX-License-Identifier: GPL-2.0
/*
 * libsprofil's environment and glibc's sprofil bugs, on whichever backend
 * SPROFIL_BACKEND names (the suite runs on each):
 *  - SPROFIL_HZ sets the period every backend uses, a bad value warns;
 *  - SPROFIL_BACKEND: an unknown name falls back to auto, a backend that
 *    cannot run is an error, not a silent fallback;
 *  - the settings are the environment's when the library loaded: a
 *    setenv() by the program changes nothing (so each setting above is
 *    checked in a fresh exec of this program; the backend is also chosen
 *    once per process and a fork child keeps its parent's);
 *  - an application's own SIGPROF / ITIMER_PROF keeps working;
 *  - glibc's sprofil misfiles samples when they change region, crashes
 *    on a sample below its lowest region without an overflow bin, and
 *    reports a 10 ms tick: none of that here (its double free on
 *    re-enable is test_lifecycle's stop-and-restart).
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <sprofil.h>
#include <sprofil/mapping.h>
#include "lib_test.h"

static uint64_t chunk;

static int group_setup(void **state)
{
	(void)state;
	chunk = wl_calibrate(1.0) / 1000 + 1;	/* about 1 ms of work */
	return 0;
}

static int stop_profiling(void **state)
{
	(void)state;
	return sprofil(NULL, 0, NULL, 0);
}

/* Runs this program again as "<self> @role" with @env set; 0 expected. */
static void in_fresh_process(const char *role, const char *const *env)
{
	assert_int_equal(lt_run_self(role, env), 0);
}

/* The period and the sample count at SPROFIL_HZ=500 (in a fresh process). */
static void hz_500_is_honoured(void **state)
{
	const unsigned int flags = PROF_UINT;
	struct prof p = lt_func_region(wl_work_a, flags);
	struct timeval tv;
	struct sprofil_info i;
	double cpu;

	(void)state;
	/* Read at load time: the program's own setenv() changes nothing. */
	setenv("SPROFIL_HZ", "100", 1);
	assert_int_equal(sprofil(&p, 1, &tv, flags), 0);
	assert_int_equal(tv.tv_sec, 0);
	assert_int_equal(tv.tv_usec, 2000);
	i = lt_info();
	print_message("# SPROFIL_HZ=500 on %s: period %llu ns\n", i.backend,
		      (unsigned long long)i.period_ns);
	assert_int_equal(i.period_ns, 2000000);
	cpu = wl_spin_cpu(wl_work_a, chunk, 0.6);
	i = lt_info();
	/*
	 * The signal backend's CPU timers expire on the tick: at 500 Hz the
	 * periods between ticks are credited as overruns, so the count still
	 * follows CPU time.
	 */
	print_message("# %llu samples in %.3f s of CPU: %.3f of expected\n",
		      (unsigned long long)i.samples, cpu,
		      i.samples * 0.002 / cpu);
	/*
	 * Under qemu TCG (SPROFIL_TEST_TCG), no accuracy oracle, 20 %: the
	 * period is what this tests (0.897 seen on 6.12 with two VMs and
	 * other jobs on two host CPUs); a wrong period is off by 5 times.
	 */
	assert_true(fabs(i.samples * 0.002 / cpu - 1) <=
		    (getenv("SPROFIL_TEST_TCG") ? 0.2 : 0.1));
	free(p.pr_base);
}

/* SPROFIL_HZ=fast (in a fresh process): the period of LT_DEFAULT_NS. */
static void a_bad_hz_gives_the_default(void **state)
{
	const unsigned int flags = PROF_UINT;
	struct prof p = lt_func_region(wl_work_a, flags);
	const char *want = getenv("LT_DEFAULT_NS");
	struct timeval tv;

	(void)state;
	assert_non_null(want);
	assert_int_equal(sprofil(&p, 1, &tv, flags), 0);
	assert_int_equal(lt_info().period_ns,
			 tv.tv_sec * 1000000000ull + tv.tv_usec * 1000ull);
	assert_int_equal(lt_info().period_ns, strtoull(want, NULL, 10));
	free(p.pr_base);
}

static void sprofil_hz_sets_the_period_of_every_backend(void **state)
{
	static const char *const hz_500[] = { "SPROFIL_HZ=500", NULL };
	const unsigned int flags = PROF_UINT;
	struct prof p = lt_func_region(wl_work_a, flags);
	char fallback[64];
	const char *hz_bad[] = { "SPROFIL_HZ=fast", fallback, NULL };

	(void)state;
	in_fresh_process("hz-500", hz_500);
	/* A rate that is not one warns and gives the default period. */
	assert_int_equal(sprofil(&p, 1, NULL, flags), 0);
	snprintf(fallback, sizeof(fallback), "LT_DEFAULT_NS=%llu",
		 (unsigned long long)lt_info().period_ns);
	assert_int_equal(sprofil(NULL, 0, NULL, 0), 0);
	free(p.pr_base);
	in_fresh_process("hz-bad", hz_bad);
}

static int unknown_backend_child(void)
{
	struct prof p = lt_func_region(wl_work_a, PROF_USHORT);
	const char *backend;
	int ret;

	if (sprofil(&p, 1, NULL, PROF_USHORT)) {
		free(p.pr_base);
		return 1;
	}
	backend = lt_info().backend;
	/* auto: kmod where the module is loaded, else bpf or signal. */
	if (access("/dev/sprofil", R_OK | W_OK) == 0)
		ret = strcmp(backend, "kmod") ? 2 : 0;
	else
		ret = strcmp(backend, "bpf") && strcmp(backend, "signal") ? 3 : 0;
	/* Stopped before it is freed: LeakSanitizer checks the exit. */
	sprofil(NULL, 0, NULL, 0);
	free(p.pr_base);
	return ret;
}

static void an_unknown_backend_name_falls_back_to_auto(void **state)
{
	static const char *const env[] = { "SPROFIL_BACKEND=nonesuch", NULL };

	(void)state;
	in_fresh_process("unknown-backend", env);
}

static int missing_kmod_child(void)
{
	struct prof p;
	int ret;

	if (access("/dev/sprofil", F_OK) == 0)
		return 0;	/* the module is here: nothing to refuse */
	p = lt_func_region(wl_work_a, PROF_USHORT);
	if (sprofil(&p, 1, NULL, PROF_USHORT) == 0) {
		sprofil(NULL, 0, NULL, 0);
		ret = 1;
	} else {
		ret = errno == ENODEV ? 0 : 2;
	}
	/* The refused buffer is ours to free (LeakSanitizer found it). */
	free(p.pr_base);
	return ret;
}

static void a_backend_that_cannot_run_is_an_error(void **state)
{
	static const char *const env[] = { "SPROFIL_BACKEND=kmod", NULL };

	(void)state;
	in_fresh_process("missing-kmod", env);
}

static volatile sig_atomic_t app_sigprofs;

static void app_sigprof(int sig)
{
	(void)sig;
	app_sigprofs++;
}

/* The application's own profiling timer is left to it. */
static void the_applications_sigprof_keeps_working(void **state)
{
	struct itimerval it = { { 0, 10000 }, { 0, 10000 } };
	struct prof p = lt_func_region(wl_work_a, PROF_UINT);
	struct sigaction sa = { .sa_handler = app_sigprof };
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	struct sprofil_info i;

	(void)state;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGPROF, &sa, NULL), 0);
	assert_int_equal(setitimer(ITIMER_PROF, &it, NULL), 0);
	assert_int_equal(sprofil(&p, 1, NULL, PROF_UINT), 0);
	wl_spin_cpu(wl_work_a, chunk, 0.5);
	i = lt_info();
	assert_int_equal(sprofil(NULL, 0, NULL, 0), 0);
	wl_spin_cpu(wl_work_a, chunk, 0.1);
	setitimer(ITIMER_PROF, &off, NULL);
	signal(SIGPROF, SIG_DFL);
	print_message("# %s: %llu samples; the application's SIGPROF ran %d times\n",
		      i.backend, (unsigned long long)i.samples,
		      (int)app_sigprofs);
	/*
	 * 0.6 s at 100 Hz: about 60, whatever libsprofil did.  Half of them
	 * is the bound: the kernel expires ITIMER_PROF only on a tick that
	 * finds the process running and re-arms it one interval at a time,
	 * so on a loaded host it lags (38 seen at a load of 10), while an
	 * application whose timer libsprofil took would see none.  A
	 * sanitizer build checks memory and threads: ThreadSanitizer holds
	 * an asynchronous signal until its next interception point.
	 */
	if (!getenv("SPROFIL_TEST_SANITIZED"))
		assert_true(app_sigprofs >= 30);
	else
		assert_true(app_sigprofs > 0);
	assert_true(i.samples >= 50);
	free(p.pr_base);
}

/*
 * glibc bug 1: after a sample changes region, glibc files it with the
 * overflow bin's mapping, into a wrong bucket.  Alternate often between
 * two regions: every sample must be in its own function's buckets.
 */
static void samples_changing_region_are_not_misfiled(void **state)
{
	const unsigned int flags = PROF_UINT;
	struct prof p[2] = {
		lt_func_region(wl_work_a, flags),
		lt_func_region(wl_work_b, flags),
	};
	uint64_t sa, sb;
	double end;

	(void)state;
	assert_int_equal(sprofil(p, 2, NULL, flags), 0);
	/* Half a millisecond in each, for about 400 samples' CPU time. */
	end = wl_thread_seconds() + lt_seconds_for(400);
	do {
		wl_work_a(chunk / 2);
		wl_work_b(chunk / 2);
	} while (wl_thread_seconds() < end);
	assert_int_equal(sprofil(NULL, 0, NULL, 0), 0);
	sa = wl_sum(p[0].pr_base, flags, 0, lt_nbuckets(&p[0], flags));
	sb = wl_sum(p[1].pr_base, flags, 0, lt_nbuckets(&p[1], flags));
	print_message("# alternating: %llu in wl_work_a, %llu in wl_work_b\n",
		      (unsigned long long)sa, (unsigned long long)sb);
	/* The regions are exactly the functions: no bucket outside them. */
	assert_true(sa >= 50 && sb >= 50);
	assert_int_equal(lt_info().samples, sa + sb + lt_info().misses);
	free(p[0].pr_base);
	free(p[1].pr_base);
}

/*
 * glibc bug 2: a sample below the lowest region, with no overflow bin,
 * crashes glibc's handler.  Here it is a miss.
 */
static void a_sample_below_every_region_is_a_miss(void **state)
{
	const unsigned int flags = PROF_USHORT;
	struct prof p = lt_func_region(kt_lib_work, flags);
	struct sprofil_info i;

	(void)state;
	/* The executable's text lies below the shared library's. */
	assert_true((uintptr_t)wl_work_a < (uintptr_t)p.pr_off);
	assert_int_equal(sprofil(&p, 1, NULL, flags), 0);
	wl_spin_cpu(wl_work_a, chunk, 0.5);
	assert_int_equal(sprofil(NULL, 0, NULL, 0), 0);
	i = lt_info();
	print_message("# below the region: %llu samples, %llu misses\n",
		      (unsigned long long)i.samples,
		      (unsigned long long)i.misses);
	assert_true(i.samples >= 50);
	assert_int_equal(i.misses, i.samples);
	assert_int_equal(wl_sum(p.pr_base, flags, 0, lt_nbuckets(&p, flags)),
			 0);
	free(p.pr_base);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(sprofil_hz_sets_the_period_of_every_backend,
					  stop_profiling),
		cmocka_unit_test(an_unknown_backend_name_falls_back_to_auto),
		cmocka_unit_test(a_backend_that_cannot_run_is_an_error),
		cmocka_unit_test_teardown(the_applications_sigprof_keeps_working,
					  stop_profiling),
		cmocka_unit_test_teardown(samples_changing_region_are_not_misfiled,
					  stop_profiling),
		cmocka_unit_test_teardown(a_sample_below_every_region_is_a_miss,
					  stop_profiling),
	};

	const struct CMUnitTest hz_500[] = {
		cmocka_unit_test_teardown(hz_500_is_honoured, stop_profiling),
	};
	const struct CMUnitTest hz_bad[] = {
		cmocka_unit_test_teardown(a_bad_hz_gives_the_default,
					  stop_profiling),
	};

	if (argc == 2 && !strcmp(argv[1], "hz-500"))
		return cmocka_run_group_tests(hz_500, group_setup, NULL);
	if (argc == 2 && !strcmp(argv[1], "hz-bad"))
		return cmocka_run_group_tests(hz_bad, NULL, NULL);
	if (argc == 2 && !strcmp(argv[1], "unknown-backend"))
		return unknown_backend_child();
	if (argc == 2 && !strcmp(argv[1], "missing-kmod"))
		return missing_kmod_child();
	return cmocka_run_group_tests(tests, group_setup, NULL);
}
