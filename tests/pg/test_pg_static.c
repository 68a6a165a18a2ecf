// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * gcc -pg programs linked statically (-static and -static-pie) with
 * libsprofil.a: they sample like dynamic ones, on every backend, and keep
 * the runtime's guarantees (exact arcs, threads, fork, exec, SIGDUMP).
 * The interposers reach glibc without a dynamic loader
 * (docs/backends.md, "Static programs").  The equivalents of glibc's
 * tst-gmon-static and tst-gmon-static-pie are the shape tests; GNU gprof
 * and ours both read their files.  Like test_pg, it runs on the host
 * (signal, bpf) and in the VM (kmod), the programs next to it.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "prog_run.h"
#include "workload.h"
#include "pg_report.h"

static int setup(void **state)
{
	(void)state;
	return wl_enter_tmpdir("test_pg_static");
}

static int teardown(void **state)
{
	(void)state;
	return wl_leave_tmpdir();
}

/* Our analyzer reads the file too: its flat profile names @func. */
static void ours_lists(const char *prog, const char *file, const char *func)
{
	char exe[PATH_MAX], ours[PATH_MAX], cmd[4 * PATH_MAX], line[512];
	bool found = false;
	FILE *p;

	snprintf(ours, sizeof(ours), "%s/../../gprof/gprof", bindir);
	if (access(ours, X_OK))
		snprintf(ours, sizeof(ours), "%s", gprof);
	prog_path(exe, sizeof(exe), prog);
	snprintf(cmd, sizeof(cmd), "'%s' -b -p '%s' '%s' 2>&1", ours, exe,
		 file);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		size_t len = strcspn(line, "\n");

		line[len] = '\0';
		if (len >= strlen(func) &&
		    !strcmp(line + len - strlen(func), func))
			found = true;
	}
	assert_int_equal(pclose(p), 0);
	if (!found)
		print_message("# %s does not list %s\n", ours, func);
	assert_true(found);
}

static void check_static_shape(const char *prog)
{
	const char *argv[] = { prog, NULL };
	struct prog_run r;

	run(&r, argv, NULL);
	assert_exited_ok(&r);
	/* "cannot start sampling" would mean call counts only. */
	assert_null(strstr(r.out, "cannot"));
	assert_int_equal(dir_entries("."), 1);
	assert_file("gmon.out");
	check_shape(prog, "gmon.out");
	ours_lists(prog, "gmon.out", "busy");
}

static void static_shape_samples_and_counts_exactly(void **state)
{
	(void)state;
	check_static_shape("pg-shape-static");
}

static void static_pie_shape_samples_and_counts_exactly(void **state)
{
	(void)state;
	check_static_shape("pg-shape-static-pie");
}

static void static_threads_counted_exactly(void **state)
{
	long calls, arcs;

	(void)state;
	calls = thread_calls("pg-threads-static", NULL, &arcs);
	assert_int_equal(calls, 4000000);
	assert_int_equal(arcs, 4000000);
}

/* Each thread's function holds at least half its thread's CPU time. */
static void static_threads_each_sampled(void **state)
{
	static const char *const func[] = { "thread_a", "thread_b", "thread_c" };
	const char *argv[] = { "pg-tburn-static", NULL };
	char name[32], *p, *at;
	struct prog_run r;
	double cpu;

	(void)state;
	run(&r, argv, NULL);
	assert_exited_ok(&r);
	p = gprof_report("pg-tburn-static", "gmon.out", "-p");
	for (int i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "%s ", func[i]);
		at = strstr(r.out, name);
		assert_non_null(at);
		cpu = atof(at + strlen(name));
		print_message("# %s: %.3f s of CPU, %.3f s sampled\n", func[i],
			      cpu, flat_line(p, func[i]).self);
		assert_true(flat_line(p, func[i]).self >= cpu / 2);
	}
	free(p);
}

static void static_fork_writes_one_sampled_file_per_process(void **state)
{
	const char *argv[] = { "pg-fork-static", NULL };
	const char *env[] = { "GMON_OUT_PREFIX=p", NULL };
	static const char *const work[] = { "parent_work", "a_work", "b_work" };
	char file[3][64], *p;
	int pid[3];
	struct prog_run r;

	(void)state;
	run(&r, argv, env);
	assert_exited_ok(&r);
	fork_pids(&r, &pid[1], &pid[2], &pid[0]);
	assert_int_equal(dir_entries("."), 3);
	for (int i = 0; i < 3; i++) {
		snprintf(file[i], sizeof(file[i]), "p.%d", pid[i]);
		assert_file(file[i]);
		p = gprof_report("pg-fork-static", file[i], "-p");
		assert_true(flat_line(p, work[i]).self > 0);
		free(p);
	}
	check_fork_files("pg-fork-static", file[0], file[1], file[2]);
}

static void static_exec_dumps_before_the_new_program(void **state)
{
	char cpu[PATH_MAX];
	const char *argv[] = { "pg-exec-static", cpu, NULL };
	struct prog_run r;
	char *p;

	(void)state;
	prog_path(cpu, sizeof(cpu), "pg-cpu");
	run(&r, argv, NULL);
	assert_exited_ok(&r);
	assert_non_null(strstr(r.out, "pg-cpu done"));
	assert_int_equal(dir_entries("."), 1);
	p = gprof_report("pg-exec-static", "gmon.out", "-p");
	assert_int_equal(flat_line(p, "pre_exec_work").calls, 20);
	free(p);
}

static void static_sigdump_dumps_on_the_signal(void **state)
{
	(void)state;
	check_sigdump_run("pg-sigdump-static");
}

#define PG_TEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		PG_TEST(static_shape_samples_and_counts_exactly),
		PG_TEST(static_pie_shape_samples_and_counts_exactly),
		PG_TEST(static_threads_counted_exactly),
		PG_TEST(static_threads_each_sampled),
		PG_TEST(static_fork_writes_one_sampled_file_per_process),
		PG_TEST(static_exec_dumps_before_the_new_program),
		PG_TEST(static_sigdump_dumps_on_the_signal),
	};

	if (locate()) {
		fprintf(stderr, "test_pg_static: cannot find the programs\n");
		return 1;
	}
	print_message("# programs in %s, gprof %s\n", bindir, gprof);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
