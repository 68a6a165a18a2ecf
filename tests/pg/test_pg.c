// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libsprofil's gcc -pg runtime (mcount, __fentry__, __monstartup,
 * _mcleanup), end to end: run the -pg programs built next to this driver
 * (tests/pg/pg_*.c) in a fresh temporary directory and read the files
 * they write back with GNU gprof, the oracle.  The same binary runs on
 * the host (SPROFIL_BACKEND=signal) and in the VM (SPROFIL_BACKEND=kmod),
 * where the programs are copied into the payload next to it.
 *
 * Call counts are asserted exactly: libsprofil must drop no arc.  Where
 * glibc's own runtime is known to get it wrong (arcs dropped by threads,
 * the exec'd program killed by SIGPROF), its result is printed for
 * contrast and not asserted.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <sprofil/gmon_format.h>
#include "prog_run.h"
#include "workload.h"
#include "pg_manyarcs.h"
#include "pg_report.h"

static int setup(void **state)
{
	(void)state;
	return wl_enter_tmpdir("test_pg");
}

static int teardown(void **state)
{
	(void)state;
	return wl_leave_tmpdir();
}

/* libsprofil must export the whole -pg runtime, or nothing here works. */
static void libsprofil_exports_the_pg_runtime(void **state)
{
	static const char *const syms[] = {
		"mcount", "_mcount", "__fentry__", "__monstartup",
		"monstartup", "_mcleanup", "moncontrol",
	};
	void *h;
	int missing = 0;

	(void)state;
	print_message("# %s\n", libpath);
	h = dlopen(libpath, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		print_message("# dlopen: %s\n", dlerror());
	assert_non_null(h);
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *s = dlsym(h, syms[i]);
		Dl_info info = { 0 };

		/* dlsym may find libc's: it must be libsprofil's own. */
		if (!s || !dladdr(s, &info) || !info.dli_fname ||
		    !strstr(info.dli_fname, "libsprofil")) {
			print_message("# %s: not exported by libsprofil%s%s\n",
				      syms[i], s ? ", found in " : "",
				      s ? info.dli_fname : "");
			missing++;
		}
	}
	dlclose(h);
	assert_int_equal(missing, 0);
}

/*
 * The programs linked with -lsprofil must get their runtime from it and
 * not from libc (which exports mcount too): the dynamic linker says which.
 */
static void check_binds(const char *prog, const char *const *syms,
			const char *const env[])
{
	const char *argv[] = { prog, NULL };
	struct prog_run r;
	char want[128];

	run(&r, argv, env);
	assert_exited_ok(&r);
	for (int i = 0; syms[i]; i++) {
		const char *l = r.out;
		int found = 0;

		snprintf(want, sizeof(want), "`%s'", syms[i]);
		while ((l = strstr(l, want))) {
			const char *bol = l;

			while (bol > r.out && bol[-1] != '\n')
				bol--;
			print_message("# %.*s\n", (int)(strchr(l, '\n') ?
				      strchr(l, '\n') - bol : (long)strlen(bol)), bol);
			if (memmem(bol, l - bol, "libsprofil", 10))
				found = 1;
			l++;
		}
		if (!found)
			print_message("# %s: %s is not bound to libsprofil\n",
				      prog, syms[i]);
		assert_true(found);
	}
}

static void pg_programs_bind_their_runtime_to_libsprofil(void **state)
{
	static const char *const env[] = { "LD_DEBUG=bindings", NULL };
	static const char *const mc[] = { "__monstartup", "mcount", NULL };
	static const char *const fe[] = { "__monstartup", "__fentry__", NULL };

	(void)state;
	check_binds("pg-shape", mc, env);
	check_binds("pg-shape-fentry", fe, env);
}

static void preload_binds_glibc_pg_program_to_libsprofil(void **state)
{
	static const char *const mc[] = { "__monstartup", "mcount", NULL };
	char preload[PATH_MAX + 16];
	const char *env[] = { "LD_DEBUG=bindings", preload, NULL };

	(void)state;
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", libpath);
	check_binds("pg-shape-glibc", mc, env);
}

static void shape_counts_exact_with_mcount(void **state)
{
	const char *argv[] = { "pg-shape", NULL };
	struct prog_run r;

	(void)state;
	run(&r, argv, NULL);
	assert_exited_ok(&r);
	assert_int_equal(dir_entries("."), 1);
	assert_file("gmon.out");
	check_shape("pg-shape", "gmon.out");
}

static void shape_counts_exact_with_fentry(void **state)
{
	const char *argv[] = { "pg-shape-fentry", NULL };
	struct prog_run r;

	(void)state;
	run(&r, argv, NULL);
	assert_exited_ok(&r);
	assert_int_equal(dir_entries("."), 1);
	assert_file("gmon.out");
	check_shape("pg-shape-fentry", "gmon.out");
}

static void shape_counts_exact_preloaded_onto_glibc_pg_binary(void **state)
{
	const char *argv[] = { "pg-shape-glibc", NULL };
	char preload[PATH_MAX + 16];
	const char *env[] = { preload, NULL };
	struct prog_run r;

	(void)state;
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", libpath);
	run(&r, argv, env);
	assert_exited_ok(&r);
	assert_int_equal(dir_entries("."), 1);
	assert_file("gmon.out");
	check_shape("pg-shape-glibc", "gmon.out");
}


static void threads_4x1000000_calls_counted_exactly(void **state)
{
	long calls, arcs;

	(void)state;
	calls = thread_calls("pg-threads", NULL, &arcs);
	assert_int_equal(calls, 4000000);
	assert_int_equal(arcs, 4000000);
}

static void threads_counted_exactly_preloaded_onto_glibc_pg_binary(void **state)
{
	char preload[PATH_MAX + 16];
	const char *env[] = { preload, NULL };
	long calls, arcs, glibc;

	(void)state;
	/* For contrast: glibc's own mcount drops arcs under contention. */
	glibc = thread_calls("pg-threads-glibc", NULL, &arcs);
	print_message("# glibc's own runtime counted %ld of 4000000 calls\n",
		      glibc);

	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", libpath);
	calls = thread_calls("pg-threads-glibc", env, &arcs);
	assert_int_equal(calls, 4000000);
	assert_int_equal(arcs, 4000000);
}


static void fork_writes_one_file_per_process(void **state)
{
	const char *argv[] = { "pg-fork", NULL };
	char fa[64], fb[64];
	int a, b, parent;
	struct prog_run r;

	(void)state;
	run(&r, argv, NULL);
	assert_exited_ok(&r);
	fork_pids(&r, &a, &b, &parent);
	assert_int_equal(dir_entries("."), 3);
	snprintf(fa, sizeof(fa), "gmon.out.%d", a);
	snprintf(fb, sizeof(fb), "gmon.out.%d", b);
	assert_file("gmon.out");
	assert_file(fa);
	assert_file(fb);
	check_fork_files("pg-fork", "gmon.out", fa, fb);
}

static void fork_with_gmon_out_prefix_writes_prefix_pid(void **state)
{
	const char *argv[] = { "pg-fork", NULL };
	const char *env[] = { "GMON_OUT_PREFIX=p", NULL };
	char fa[64], fb[64], fp[64];
	int a, b, parent;
	struct prog_run r;

	(void)state;
	run(&r, argv, env);
	assert_exited_ok(&r);
	fork_pids(&r, &a, &b, &parent);
	assert_int_equal(dir_entries("."), 3);
	snprintf(fp, sizeof(fp), "p.%d", parent);
	snprintf(fa, sizeof(fa), "p.%d", a);
	snprintf(fb, sizeof(fb), "p.%d", b);
	assert_file(fp);
	assert_file(fa);
	assert_file(fb);
	check_fork_files("pg-fork", fp, fa, fb);
}

/*
 * The profiling timer is not inherited by fork: a child must be sampled
 * all the same (glibc's shows "no time accumulated").
 */
static void fork_children_are_sampled(void **state)
{
	const char *argv[] = { "pg-fork", NULL };
	const char *env[] = { "GMON_OUT_PREFIX=p", NULL };
	static const char *const work[] = { "parent_work", "a_work", "b_work" };
	int pid[3];
	char file[64], *p;
	struct prog_run r;

	(void)state;
	run(&r, argv, env);
	assert_exited_ok(&r);
	fork_pids(&r, &pid[1], &pid[2], &pid[0]);
	for (int i = 0; i < 3; i++) {
		snprintf(file, sizeof(file), "p.%d", pid[i]);
		assert_file(file);
		p = gprof_report("pg-fork", file, "-p");
		print_message("# %s:\n", file);
		assert_true(flat_line(p, work[i]).self > 0);
		/* No time inherited from the parent's histogram either. */
		for (int j = 0; j < 3; j++)
			if (j != i)
				assert_true(flat_line(p, work[j]).self == 0);
		free(p);
	}
}

/* Runs @prog (pg-exec or pg-exec-glibc), which execs pg-cpu. */
static void run_exec(struct prog_run *r, const char *prog)
{
	char cpu[PATH_MAX];
	const char *argv[] = { prog, cpu, NULL };

	prog_path(cpu, sizeof(cpu), "pg-cpu");
	run(r, argv, NULL);
}

static void exec_runs_new_program_and_dumps_pre_exec_profile(void **state)
{
	struct prog_run r;
	char *p;

	(void)state;
	/* For contrast: glibc's runtime gets the new program killed. */
	run_exec(&r, "pg-exec-glibc");
	if (WIFSIGNALED(r.status))
		print_message("# under glibc's runtime pg-cpu died of %s\n",
			      strsignal(WTERMSIG(r.status)));
	unlink("gmon.out");

	run_exec(&r, "pg-exec");
	assert_exited_ok(&r);
	assert_non_null(strstr(r.out, "pg-cpu done"));
	/* pg-cpu is not -pg: the one file is pg-exec's, written at exec. */
	assert_int_equal(dir_entries("."), 1);
	assert_file("gmon.out");
	p = gprof_report("pg-exec", "gmon.out", "-p");
	assert_int_equal(flat_line(p, "pre_exec_work").calls, 20);
	free(p);
}

/* The naming of docs/gmon-format.md, for a -pg program. */
static void gmon_out_prefix_names_file_prefix_pid(void **state)
{
	const char *argv[] = { "pg-shape", NULL };
	const char *env[] = { "GMON_OUT_PREFIX=pfx", NULL };
	char file[64];
	struct prog_run r;

	(void)state;
	run(&r, argv, env);
	assert_exited_ok(&r);
	assert_int_equal(dir_entries("."), 1);
	snprintf(file, sizeof(file), "pfx.%d", (int)r.pid);
	assert_file(file);
	check_shape("pg-shape", file);
}

static void gprofdir_names_file_dir_pid_progname(void **state)
{
	const char *argv[] = { "pg-shape", NULL };
	/* GPROFDIR wins over GMON_OUT_PREFIX. */
	const char *env[] = { "GPROFDIR=prof", "GMON_OUT_PREFIX=ignored",
			      NULL };
	char file[64];
	struct prog_run r;

	(void)state;
	assert_int_equal(mkdir("prof", 0755), 0);
	run(&r, argv, env);
	assert_exited_ok(&r);
	assert_int_equal(dir_entries("."), 1);
	assert_int_equal(dir_entries("prof"), 1);
	snprintf(file, sizeof(file), "prof/%d.pg-shape", (int)r.pid);
	assert_file(file);
	check_shape("pg-shape", file);
}

static void gprofdir_empty_writes_nothing(void **state)
{
	const char *argv[] = { "pg-shape", NULL };
	const char *env[] = { "GPROFDIR=", NULL };
	struct prog_run r;

	(void)state;
	run(&r, argv, env);
	assert_exited_ok(&r);
	assert_int_equal(dir_entries("."), 0);
}

static void sigdump_two_dumps_second_holds_only_work_after_first(void **state)
{
	(void)state;
	check_sigdump_run("pg-sigdump");
}

/* The dumps follow the naming rules: here "<GMON_OUT_PREFIX>.<pid>.<n>". */
static void sigdump_numbers_files_after_gmon_out_prefix(void **state)
{
	/* The program puts its pid in for %d, to know what to wait for. */
	const char *argv[] = { "pg-sigdump", "pfx.%d", NULL };
	const char *env[] = { "SPROFIL_SIGDUMP=SIGUSR1", "GMON_OUT_PREFIX=pfx",
			      NULL };
	char name[64], file[80];
	struct prog_run r;

	(void)state;
	run(&r, argv, env);
	assert_exited_ok(&r);
	snprintf(name, sizeof(name), "pfx.%d", (int)r.pid);
	assert_int_equal(dir_entries("."), 3);
	snprintf(file, sizeof(file), "%s.1", name);
	check_sigdump_file("pg-sigdump", file, 1, 0, 0);
	snprintf(file, sizeof(file), "%s.2", name);
	check_sigdump_file("pg-sigdump", file, 0, 1, 0);
	check_sigdump_file("pg-sigdump", name, 0, 0, 1);
}

/* A value that names no signal: one warning, and the program runs on. */
static void sigdump_invalid_signal_warns_once_and_is_ignored(void **state)
{
	const char *argv[] = { "pg-sigdump", "-", NULL };
	const char *env[] = { "SPROFIL_SIGDUMP=NOSUCHSIG", NULL };
	struct prog_run r;
	char *w;

	(void)state;
	run(&r, argv, env);
	assert_exited_ok(&r);
	w = strstr(r.out, "SPROFIL_SIGDUMP=NOSUCHSIG");
	assert_non_null(w);
	assert_null(strstr(w + 1, "SPROFIL_SIGDUMP"));
	assert_int_equal(dir_entries("."), 1);
	check_sigdump_file("pg-sigdump", "gmon.out", 1, 1, 1);
}

/* Where LD_DEBUG=libs says it calls the init of the module ending in @name. */
static const char *init_call(const char *out, const char *name)
{
	const char *l;
	size_t len = strlen(name);

	for (l = strstr(out, "calling init: "); l;
	     l = strstr(l + 1, "calling init: ")) {
		size_t ll = strcspn(l, "\n");

		if (ll >= len && !strncmp(l + ll - len, name, len))
			return l;
	}
	return NULL;
}

/*
 * SPROFIL_SIGDUMP dumps racing with fork(), with __monstartup called
 * first by a -pg library's _init (libpgearly.so, initialised before
 * libsprofil as libz is): fork's handlers once took the writer's lock
 * before the runtime's, a dump the other way round, and the program
 * hung (pg-sigfork's alarm() ends it then, with SIGALRM).
 */
static void sigdump_racing_fork_does_not_deadlock(void **state)
{
	const char *once[] = { "pg-sigfork", "0", NULL };
	const char *argv[] = { "pg-sigfork", "50", NULL };
	const char *debug[] = { "LD_DEBUG=libs", NULL };
	const char *env[] = { "SPROFIL_SIGDUMP=USR1", NULL };
	const char *early, *lib;
	struct prog_run r;

	(void)state;
	/* The scenario: the -pg library's _init runs before ours. */
	run(&r, once, debug);
	assert_exited_ok(&r);
	early = init_call(r.out, "/libpgearly.so");
	lib = init_call(r.out, "/libsprofil.so.0");
	assert_non_null(early);
	assert_non_null(lib);
	assert_true(early < lib);
	unlink("gmon.out");

	for (int i = 0; i < 3; i++) {
		run(&r, argv, env);
		assert_exited_ok(&r);
	}
	/* Dumps were written (each signal one, or merged with the next). */
	assert_true(dir_entries(".") > 1);
	assert_file("gmon.out.1");
}

/*
 * gmon-dump's listing of @file (docs/gmon-format.md): next to the
 * driver in the VM, in build/gprof on the host.  A malloc()ed string.
 */
static char *gmon_dump(const char *file)
{
	char tool[PATH_MAX], cmd[2 * PATH_MAX + 16];
	char *buf = malloc(1 << 20);
	size_t len;
	FILE *p;

	assert_non_null(buf);
	prog_path(tool, sizeof(tool), "gmon-dump");
	if (access(tool, X_OK))
		prog_path(tool, sizeof(tool), "../../gprof/gmon-dump");
	snprintf(cmd, sizeof(cmd), "'%s' '%s' 2>&1", tool, file);
	p = popen(cmd, "r");
	assert_non_null(p);
	len = fread(buf, 1, (1 << 20) - 1, p);
	buf[len] = '\0';
	print_message("# %s:\n", cmd);
	/* Line by line, each a TAP comment. */
	for (const char *l = buf; *l; ) {
		size_t ll = strcspn(l, "\n");

		print_message("#   %.*s\n", (int)ll, l);
		l += ll + (l[ll] == '\n');
	}
	assert_int_equal(pclose(p), 0);
	return buf;
}

/* The samples gmon-dump counts in the histograms of @module (a suffix). */
static long dump_samples(const char *dump, const char *module)
{
	const char *l = dump;
	char name[PATH_MAX];
	long total = 0, n;
	unsigned int bsize;

	for (; (l = strstr(l, "\nhist ")); l++)
		if (sscanf(l + 6, "%4095s %u %*s %*s %*s samples %ld", name,
			   &bsize, &n) == 3 &&
		    strlen(name) >= strlen(module) &&
		    !strcmp(name + strlen(name) - strlen(module), module))
			total += n;
	return total;
}

/* Whether an arc from a module ending in @from to one ending in @to is there. */
static bool dump_arc(const char *dump, const char *from, const char *to)
{
	char pat[2 * PATH_MAX];

	snprintf(pat, sizeof(pat), "%s:0x", from);
	for (const char *l = dump; (l = strstr(l, "\narc ")); l++) {
		const char *a = strstr(l, pat), *arrow = strstr(l, " -> ");
		const char *eol = strchr(l + 1, '\n');

		if (a && arrow && a < arrow && (!eol || arrow < eol) &&
		    !strncmp(strchr(arrow + 4, ':') - strlen(to), to,
			     strlen(to)))
			return true;
	}
	return false;
}

/* How many lines of @dump start with @kind and name @module (a suffix). */
static int dump_records(const char *dump, const char *kind,
			const char *module)
{
	size_t klen = strlen(kind), mlen = strlen(module);
	int n = 0;

	for (const char *l = dump; *l; ) {
		size_t ll = strcspn(l, "\n");
		const char *m = l;

		while (!strncmp(l, kind, klen) && (m = strstr(m, module)) &&
		       m + mlen <= l + ll) {
			if (m + mlen == l + ll || m[mlen] == ' ') {
				n++;
				break;
			}
			m++;
		}
		l += ll + (l[ll] == '\n');
	}
	return n;
}

/* The count of the arc into the function at @self of @module, or -1. */
static long dump_arc_count(const char *dump, const char *module, int nth)
{
	char pat[PATH_MAX];
	long count;

	snprintf(pat, sizeof(pat), "%s:0x", module);
	for (const char *l = dump; (l = strstr(l, "\narc ")); l++) {
		const char *arrow = strstr(l, " -> ");
		const char *eol = strchr(l + 1, '\n');
		const char *to = arrow ? strstr(arrow, pat) : NULL;

		if (!to || (eol && to > eol) || nth--)
			continue;
		if (sscanf(strchr(to, ' '), "%ld", &count) == 1)
			return count;
	}
	return -1;
}

/*
 * A library dlopen()ed and dlclose()d 300 times is one module: one
 * module record, one histogram summing every cycle's samples, and arcs
 * counting every cycle's calls (it was 300 histograms, one per load).
 */
static void dlopen_loop_keeps_one_record_per_module(void **state)
{
	const char *argv[] = { "pg-dlloop", "300", NULL };
	struct prog_run r;
	long samples;
	char *d;

	(void)state;
	run(&r, argv, NULL);
	assert_exited_ok(&r);
	d = gmon_dump("gmon.out");
	assert_non_null(strstr(d, "format sprofil"));
	assert_int_equal(dump_records(d, "module ", "/libpgearly.so"), 1);
	assert_int_equal(dump_records(d, "hist ", "/libpgearly.so"), 1);
	samples = dump_samples(d, "/libpgearly.so");
	print_message("# libpgearly.so: %ld samples for 0.6 s of CPU\n",
		      samples);
	/* 0.6 s: 150 samples at 250 Hz, from every cycle, in one record. */
	assert_true(samples >= 40);
	/* pgearly_touch() and pgearly_burn(), once a cycle each. */
	assert_int_equal(dump_arc_count(d, "/libpgearly.so", 0), 300);
	assert_int_equal(dump_arc_count(d, "/libpgearly.so", 1), 300);
	free(d);
}

/*
 * The same loop, every other load pushed to another place, often one
 * page below the last, overlapping it: each arc is still one record
 * counting every cycle's calls (the arcs were kept by absolute address,
 * and a load's were filed under the other load's bias, or twice).
 */
static void dlopen_loop_moved_keeps_each_arc_once(void **state)
{
	const char *argv[] = { "pg-dlloop", "300", "move", NULL };
	struct prog_run r;
	int places = 0;
	const char *p;
	char *d;

	(void)state;
	run(&r, argv, NULL);
	assert_exited_ok(&r);
	p = strstr(r.out, "cycles, ");
	assert_non_null(p);
	assert_int_equal(sscanf(p, "cycles, %d places", &places), 1);
	print_message("# libpgearly.so loaded at %d places\n", places);
	/* Not vacuous: the library did move. */
	assert_true(places >= 2);
	d = gmon_dump("gmon.out");
	assert_int_equal(dump_records(d, "module ", "/libpgearly.so"), 1);
	assert_int_equal(dump_records(d, "hist ", "/libpgearly.so"), 1);
	assert_int_equal(dump_arc_count(d, "/libpgearly.so", 0), 300);
	assert_int_equal(dump_arc_count(d, "/libpgearly.so", 1), 300);
	/* Exactly two arcs into the library: no third at a wrong offset. */
	assert_int_equal(dump_arc_count(d, "/libpgearly.so", 2), -1);
	free(d);
}

static void ld_profile_all_profiles_the_pg_library(void **state)
{
	const char *argv[] = { "pg-modmain", NULL };
	const char *env[] = { "LD_PROFILE=ALL", NULL };
	const char *gargv[] = { "pg-modmain-glibc", NULL };
	struct prog_run r;
	char *d, *rep;

	(void)state;
	run(&r, argv, env);
	assert_exited_ok(&r);
	d = gmon_dump("gmon.out");
	assert_non_null(strstr(d, "format sprofil"));
	/* 0.6 s in the library's hot function, 0.1 s in the callback. */
	assert_true(dump_samples(d, "/libpgmod.so") >
		    2 * dump_samples(d, "/pg-modmain"));
	assert_true(dump_arc(d, "/pg-modmain", "/libpgmod.so"));
	assert_true(dump_arc(d, "/libpgmod.so", "/pg-modmain"));
	free(d);
	/* The contrast, printed only: glibc's runtime loses the library. */
	unlink("gmon.out");
	run(&r, gargv, NULL);
	assert_exited_ok(&r);
	rep = gprof_report("pg-modmain-glibc", "gmon.out", "-p");
	print_message("# glibc's runtime, same program (no pgmod_hot time):\n");
	for (const char *l = rep; *l; ) {
		size_t ll = strcspn(l, "\n");

		print_message("#   %.*s\n", (int)ll, l);
		l += ll + (l[ll] == '\n');
	}
	free(rep);
}

static void ld_profile_names_select_modules(void **state)
{
	const char *argv[] = { "pg-modmain", NULL };
	const char *one[] = { "LD_PROFILE=libpgmod.so", NULL };
	const char *none[] = { "LD_PROFILE=", NULL };
	struct prog_run r;
	char *d;

	(void)state;
	run(&r, argv, one);
	assert_exited_ok(&r);
	d = gmon_dump("gmon.out");
	assert_true(dump_samples(d, "/libpgmod.so") > 0);
	assert_int_equal(dump_samples(d, "/pg-modmain"), 0);
	assert_int_equal(dump_samples(d, "libc.so.6"), 0);
	free(d);
	run(&r, argv, none);
	assert_exited_ok(&r);
	d = gmon_dump("gmon.out");
	assert_null(strstr(d, "\nhist "));
	/* The call counts are still there. */
	assert_true(dump_arc(d, "/pg-modmain", "/libpgmod.so"));
	free(d);
}

static void ld_profilebucket_size_picks_the_bucket_width(void **state)
{
	const char *argv[] = { "pg-modmain", NULL };
	const char *b32[] = { "LD_PROFILEBUCKET_SIZE=32", NULL };
	const char *b7[] = { "LD_PROFILEBUCKET_SIZE=7", NULL };
	struct prog_run r;
	char *d;

	(void)state;
	run(&r, argv, b32);
	assert_exited_ok(&r);
	d = gmon_dump("gmon.out");
	assert_non_null(strstr(d, "libpgmod.so 4 "));
	assert_null(strstr(d, "libpgmod.so 2 "));
	free(d);
	run(&r, argv, b7);
	assert_exited_ok(&r);
	assert_non_null(strstr(r.out, "LD_PROFILEBUCKET_SIZE=7 is not 16 or 32"));
	d = gmon_dump("gmon.out");
	assert_non_null(strstr(d, "libpgmod.so 2 "));
	free(d);
}

static void dlopen_dlclose_library_data_kept(void **state)
{
	const char *argv[] = { "pg-dlmod", "dlopen", NULL };
	struct prog_run r;
	char *d;

	(void)state;
	run(&r, argv, NULL);
	assert_exited_ok(&r);
	d = gmon_dump("gmon.out");
	assert_true(dump_samples(d, "/libpgmod.so") > 0);
	assert_true(dump_arc(d, "/pg-dlmod", "/libpgmod.so"));
	assert_true(dump_arc(d, "/libpgmod.so", "/pg-dlmod"));
	free(d);
}

/*
 * LD_PROFILE="": no histogram until smonitor().  pg-smonitor samples its
 * text with smonitor() around work A, then does work B and exits.  The
 * smonitor() dump holds A's samples and the arcs counted up to it; the
 * -pg runtime's dump at exit does not overwrite it: it goes to
 * gmon.out.1 and holds only B's arcs (and no histogram).
 */
static void smonitor_dump_keeps_arcs_and_exit_dump_goes_to_next_name(void **state)
{
	const char *argv[] = { "pg-smonitor", NULL };
	const char *env[] = { "LD_PROFILE=", NULL };
	struct prog_run r;
	struct flat f;
	char *p, *q, *d;

	(void)state;
	run(&r, argv, env);
	assert_exited_ok(&r);
	assert_int_equal(dir_entries("."), 2);
	p = gprof_report("pg-smonitor", "gmon.out", "-p");
	q = gprof_report("pg-smonitor", "gmon.out", "-q");
	f = flat_line(p, "work_a");
	assert_int_equal(f.calls, 1);
	assert_true(f.self > 0);
	assert_int_equal(cg_calls(q, "a1", "work_a"), 1000);
	assert_false(flat_line(p, "work_b").listed);
	assert_int_equal(cg_calls(q, "b1", NULL), -1);
	free(p);
	free(q);
	d = gmon_dump("gmon.out.1");
	assert_null(strstr(d, "\nhist "));
	assert_non_null(strstr(d, " 2000\n"));
	assert_null(strstr(d, " 1000\n"));
	free(d);
}

/*
 * pg_manyarcs.c: PGARCS_ARCS distinct arcs (sweep() -> pgarc_*), each
 * called PGARCS_ROUNDS times, from the executable (pg-manyarcs) or from
 * the -pg library libpgarcs.so (pg-arclib).
 */

/* The "libsprofil: N call arcs lost" line in @out, or NULL. */
static const char *lost_line(const char *out, unsigned long long *lost,
			     size_t *limit)
{
	const char *msg = strstr(out, "libsprofil: ");

	while (msg && sscanf(msg, "libsprofil: %llu call arcs lost: the arc table (%zu entries) is full",
			     lost, limit) != 2)
		msg = strstr(msg + 1, "libsprofil: ");
	return msg;
}

/*
 * Reads gmon-dump's listing of @file (too long to print) for the arcs
 * between two functions of @module (a suffix of the module's name; "exe"
 * for GNU gmon.out): how many were called @per_arc times (*at_rounds)
 * and more often (*above).  Returns the calls of all of them.
 */
static long long dump_module_arcs(const char *file, const char *module,
				  unsigned long long per_arc,
				  long *at_rounds, long *above)
{
	char tool[PATH_MAX], cmd[2 * PATH_MAX + 16], line[2 * PATH_MAX];
	char from[PATH_MAX], self[PATH_MAX];
	unsigned long long count;
	size_t ml = strlen(module);
	long long calls = 0;
	long arcs = 0;
	FILE *p;

	*at_rounds = *above = 0;
	prog_path(tool, sizeof(tool), "gmon-dump");
	if (access(tool, X_OK))
		prog_path(tool, sizeof(tool), "../../gprof/gmon-dump");
	snprintf(cmd, sizeof(cmd), "'%s' '%s' 2>&1", tool, file);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char *c;

		if (sscanf(line, "arc %4095s -> %4095s %llu", from, self,
			   &count) != 3)
			continue;
		/* "module:0xaddress": keep the module. */
		c = strrchr(from, ':');
		if (c)
			*c = '\0';
		c = strrchr(self, ':');
		if (c)
			*c = '\0';
		if (strlen(from) < ml || strlen(self) < ml ||
		    strcmp(from + strlen(from) - ml, module) ||
		    strcmp(self + strlen(self) - ml, module))
			continue;
		arcs++;
		calls += count;
		*at_rounds += count == per_arc;
		*above += count > per_arc;
	}
	assert_int_equal(pclose(p), 0);
	print_message("# %s: %ld arcs in %s, %lld calls; %ld arcs called %llu times, %ld more often\n",
		      file, arcs, module, calls, *at_rounds, per_arc, *above);
	return calls;
}

/*
 * Every one of sweep's PGARCS_ARCS arcs in @module is in @file, called
 * exactly PGARCS_ROUNDS times by each of @threads, and no arc more often
 * (an arc split in two, or counted twice, would show).
 */
static void check_manyarcs_dump(const char *file, const char *module,
				int threads)
{
	long at_rounds, above;

	dump_module_arcs(file, module, threads * PGARCS_ROUNDS, &at_rounds,
			 &above);
	assert_int_equal(at_rounds, PGARCS_ARCS);
	assert_int_equal(above, 0);
}

/*
 * GNU gprof's call graph of @prog and @file: every pgarc_* function is
 * there, each called PGARCS_NSITES * PGARCS_ROUNDS times (the primary
 * line "[i] %time self children called name [i]").  Returns the calls of
 * all of them, so that a caller expecting losses can check the sum.
 */
static long gprof_pgarc_calls(const char *prog, const char *file,
			      int *funcs, int *exact)
{
	char line[512], *tok[16], *q;
	const char *t;
	long calls = 0, c;

	*funcs = 0;
	*exact = 0;
	q = gprof_report(prog, file, "-q");
	for (t = q; next_line(&t, line, sizeof(line)); ) {
		if (line[0] != '[')
			continue;
		if (tokens(line, tok, 16) == 7 &&
		    !strncmp(tok[5], "pgarc_", 6)) {
			c = strtol(tok[4], NULL, 10);
			calls += c;
			(*funcs)++;
			*exact += c == PGARCS_NSITES * PGARCS_ROUNDS;
		}
	}
	free(q);
	print_message("# gprof -q %s: %ld calls of %d pgarc_* functions, %d with %d calls\n",
		      file, calls, *funcs, *exact,
		      PGARCS_NSITES * PGARCS_ROUNDS);
	return calls;
}

/*
 * 204,800 distinct arcs, far more than a table sized from the text
 * holds (libsprofil's before it grew lost calls from 65,536 arcs on):
 * the table grows, so none is lost and every count is exact, in the
 * dump and in GNU gprof's report.
 */
static void many_arcs_counted_exactly(void **state)
{
	const char *argv[] = { "pg-manyarcs", NULL };
	const char *gargv[] = { "pg-manyarcs-glibc", NULL };
	unsigned long long lost;
	int funcs, exact;
	size_t limit;
	long calls;
	struct prog_run r;

	(void)state;
	run(&r, argv, NULL);
	assert_exited_ok(&r);
	if (lost_line(r.out, &lost, &limit))
		fail_msg("%llu calls lost, table of %zu arcs", lost, limit);
	assert_file("gmon.out");
	check_manyarcs_dump("gmon.out", "exe", 1);
	calls = gprof_pgarc_calls("pg-manyarcs", "gmon.out", &funcs, &exact);
	assert_int_equal(funcs, PGARCS_NFUNCS);
	assert_int_equal(exact, PGARCS_NFUNCS);
	assert_int_equal(calls, PGARCS_CALLS);

	/* The contrast, printed only: glibc's runtime writes nothing. */
	unlink("gmon.out");
	run(&r, gargv, NULL);
	print_message("# glibc's runtime, same program: gmon.out %s\n",
		      access("gmon.out", R_OK) ? "not written" : "written");
}

/*
 * The same arcs in a -pg shared library: the table's size does not come
 * from the executable's text, so they all fit too.  GNU gprof reads the
 * library's part of the profile once the analyzer has extracted it (on
 * the host: the VM payload has GNU gprof but not the analyzer).
 */
static void many_arcs_in_pg_library_counted_exactly(void **state)
{
	const char *argv[] = { "pg-arclib", NULL };
	char tool[PATH_MAX], cmd[2 * PATH_MAX + 64];
	unsigned long long lost;
	int funcs, exact;
	size_t limit;
	long calls;
	struct prog_run r;

	(void)state;
	run(&r, argv, NULL);
	assert_exited_ok(&r);
	if (lost_line(r.out, &lost, &limit))
		fail_msg("%llu calls lost, table of %zu arcs", lost, limit);
	assert_file("gmon.out");
	check_manyarcs_dump("gmon.out", "/libpgarcs.so", 1);

	prog_path(tool, sizeof(tool), "../../gprof/gprof");
	if (access(tool, X_OK)) {
		print_message("# no analyzer here: GNU gprof's check is left to the host\n");
		return;
	}
	snprintf(cmd, sizeof(cmd), "'%s' --extract-module=libpgarcs.so '%s/pg-arclib' gmon.out",
		 tool, bindir);
	assert_int_equal(system(cmd), 0);
	assert_file("gmon.libpgarcs.so.out");
	calls = gprof_pgarc_calls("libpgarcs.so", "gmon.libpgarcs.so.out",
				  &funcs, &exact);
	assert_int_equal(funcs, PGARCS_NFUNCS);
	assert_int_equal(exact, PGARCS_NFUNCS);
	assert_int_equal(calls, PGARCS_CALLS);
}

/*
 * Four threads race to add the same 204,800 arcs: each is added once
 * and counts every thread's calls.  Then the same with SPROFIL_SIGDUMP's
 * signal every 10 ms, each dump taking the counts while arcs are being
 * added: the dumps and the exit's gmon.out together hold every call, no
 * call twice.  Within the executable the calls are sweep's, and each
 * thread's one call of pgarcs_run() and its PGARCS_ROUNDS of sweep().
 */
static void many_arcs_raced_by_threads_and_dumped_meanwhile(void **state)
{
	const char *argv[] = { "pg-manyarcs", "4", NULL };
	char sig[16];
	const char *dargv[] = { "pg-manyarcs", "4", sig, NULL };
	const char *env[] = { "SPROFIL_SIGDUMP=USR1", NULL };
	unsigned long long lost;
	long long all = 0;
	long at_rounds, above;
	int files = 0;
	size_t limit;
	struct dirent *e;
	struct prog_run r;
	DIR *d;

	(void)state;
	run(&r, argv, NULL);
	assert_exited_ok(&r);
	if (lost_line(r.out, &lost, &limit))
		fail_msg("%llu calls lost, table of %zu arcs", lost, limit);
	check_manyarcs_dump("gmon.out", "exe", 4);
	unlink("gmon.out");

	snprintf(sig, sizeof(sig), "%d", SIGUSR1);
	run(&r, dargv, env);
	assert_exited_ok(&r);
	if (lost_line(r.out, &lost, &limit))
		fail_msg("%llu calls lost, table of %zu arcs", lost, limit);
	d = opendir(".");
	assert_non_null(d);
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "gmon.out", 8))
			continue;
		all += dump_module_arcs(e->d_name, "exe", 4 * PGARCS_ROUNDS,
					&at_rounds, &above);
		files++;
	}
	closedir(d);
	print_message("# %d files, %lld calls in all\n", files, all);
	assert_true(files >= 2);
	assert_int_equal(all, 4LL * (PGARCS_CALLS + 1 + PGARCS_ROUNDS));
}

/*
 * Where the address space is limited (here RLIMIT_AS of 1 GB, the
 * programs inherit it), the table's reservation is halved until it fits
 * and stderr says for how many arcs: still far more than 204,800, so
 * none is lost.
 */
static void arc_table_fits_a_limited_address_space(void **state)
{
	const char *argv[] = { "pg-manyarcs", NULL };
	struct rlimit old, low;
	unsigned long long lost;
	size_t limit, room = 0;
	const char *msg;
	struct prog_run r;

	/* ASan's shadow memory alone needs more than the limit tested. */
	if (getenv("SPROFIL_TEST_SANITIZED")) {
		print_message("# an address-space limit cannot apply under a sanitizer\n");
		skip();
		return;
	}
	(void)state;
	assert_int_equal(getrlimit(RLIMIT_AS, &old), 0);
	low = old;
	low.rlim_cur = 1ul << 30;
	assert_int_equal(setrlimit(RLIMIT_AS, &low), 0);
	run(&r, argv, NULL);
	assert_int_equal(setrlimit(RLIMIT_AS, &old), 0);
	assert_exited_ok(&r);
	msg = strstr(r.out, "libsprofil: room for ");
	assert_non_null(msg);
	assert_int_equal(sscanf(msg, "libsprofil: room for %zu call arcs only",
				&room), 1);
	print_message("# room for %zu arcs under RLIMIT_AS of 1 GB\n", room);
	assert_true(room >= PGARCS_ARCS && room < 268435456);
	if (lost_line(r.out, &lost, &limit))
		fail_msg("%llu calls lost, table of %zu arcs", lost, limit);
	check_manyarcs_dump("gmon.out", "exe", 1);
}

/*
 * Above the bound (SPROFIL_MAX_ARCS lowers it, here to 65536) calls are
 * not dropped silently: libsprofil says how many it lost, still writes
 * gmon.out, and what it kept plus what it lost is every call made.  A
 * bound that is not a number is said so, and the default is used.
 */
static void arcs_beyond_the_bound_are_reported_lost(void **state)
{
	const char *argv[] = { "pg-manyarcs", NULL };
	const char *env[] = { "SPROFIL_MAX_ARCS=65536", NULL };
	const char *bad[] = { "SPROFIL_MAX_ARCS=lots", NULL };
	unsigned long long lost = 0;
	long kept, at_rounds, above;
	int funcs, exact;
	size_t limit = 0;
	long long all;
	struct prog_run r;

	(void)state;
	run(&r, argv, env);
	assert_exited_ok(&r);
	assert_non_null(lost_line(r.out, &lost, &limit));
	print_message("# lost %llu calls, table of %zu arcs\n", lost, limit);
	assert_int_equal(limit, 65536);
	assert_true(lost > 0);
	assert_file("gmon.out");
	kept = gprof_pgarc_calls("pg-manyarcs", "gmon.out", &funcs, &exact);
	/* At most @limit arcs fit, each called PGARCS_ROUNDS times. */
	assert_true(kept > 0 && kept <= (long)limit * PGARCS_ROUNDS);
	/*
	 * Every call within the executable: sweep's, main's one call of
	 * pgarcs_run() and its calls of sweep() (whose arc may come after
	 * the table is full too).
	 */
	all = dump_module_arcs("gmon.out", "exe", PGARCS_ROUNDS, &at_rounds,
			       &above);
	assert_int_equal(all + (long long)lost,
			 PGARCS_CALLS + 1 + PGARCS_ROUNDS);

	unlink("gmon.out");
	run(&r, argv, bad);
	assert_exited_ok(&r);
	assert_non_null(strstr(r.out, "SPROFIL_MAX_ARCS=lots is not a number of arcs"));
	assert_null(lost_line(r.out, &lost, &limit));
	check_manyarcs_dump("gmon.out", "exe", 1);
}

#define PG_TEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		PG_TEST(libsprofil_exports_the_pg_runtime),
		PG_TEST(pg_programs_bind_their_runtime_to_libsprofil),
		PG_TEST(preload_binds_glibc_pg_program_to_libsprofil),
		PG_TEST(shape_counts_exact_with_mcount),
		PG_TEST(shape_counts_exact_with_fentry),
		PG_TEST(shape_counts_exact_preloaded_onto_glibc_pg_binary),
		PG_TEST(threads_4x1000000_calls_counted_exactly),
		PG_TEST(threads_counted_exactly_preloaded_onto_glibc_pg_binary),
		PG_TEST(fork_writes_one_file_per_process),
		PG_TEST(fork_with_gmon_out_prefix_writes_prefix_pid),
		PG_TEST(fork_children_are_sampled),
		PG_TEST(exec_runs_new_program_and_dumps_pre_exec_profile),
		PG_TEST(gmon_out_prefix_names_file_prefix_pid),
		PG_TEST(gprofdir_names_file_dir_pid_progname),
		PG_TEST(gprofdir_empty_writes_nothing),
		PG_TEST(ld_profile_all_profiles_the_pg_library),
		PG_TEST(ld_profile_names_select_modules),
		PG_TEST(ld_profilebucket_size_picks_the_bucket_width),
		PG_TEST(dlopen_dlclose_library_data_kept),
		PG_TEST(smonitor_dump_keeps_arcs_and_exit_dump_goes_to_next_name),
		PG_TEST(sigdump_two_dumps_second_holds_only_work_after_first),
		PG_TEST(sigdump_numbers_files_after_gmon_out_prefix),
		PG_TEST(sigdump_invalid_signal_warns_once_and_is_ignored),
		PG_TEST(sigdump_racing_fork_does_not_deadlock),
		PG_TEST(dlopen_loop_keeps_one_record_per_module),
		PG_TEST(dlopen_loop_moved_keeps_each_arc_once),
		PG_TEST(many_arcs_counted_exactly),
		PG_TEST(many_arcs_in_pg_library_counted_exactly),
		PG_TEST(many_arcs_raced_by_threads_and_dumped_meanwhile),
		PG_TEST(arc_table_fits_a_limited_address_space),
		PG_TEST(arcs_beyond_the_bound_are_reported_lost),
	};

	if (locate()) {
		fprintf(stderr, "test_pg: cannot find the programs or libsprofil\n");
		return 1;
	}
	print_message("# programs in %s, libsprofil %s, gprof %s\n", bindir,
		      libpath, gprof);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
