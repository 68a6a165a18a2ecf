// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What the -pg drivers (test_pg.c, test_pg_static.c) share: running the
 * programs built next to them and reading their profiles with GNU gprof,
 * the oracle (pg_report.h).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <sprofil/gmon_format.h>
#include "prog_run.h"
#include "pg_report.h"

char bindir[PATH_MAX / 2];
char libpath[PATH_MAX];
char gprof[PATH_MAX];

/* Big enough for LD_DEBUG=bindings; one run's output at a time. */
static char outbuf[8 << 20];

/* Finds the programs next to the driver, libsprofil and gprof. */
int locate(void)
{
	char real[PATH_MAX];

	if (prog_dir(bindir, sizeof(bindir)))
		return -1;

	/* In the VM payload the library sits next to the driver. */
	snprintf(libpath, sizeof(libpath), "%s/libsprofil.so.0", bindir);
	if (access(libpath, R_OK))
		snprintf(libpath, sizeof(libpath), "%s/../../lib/libsprofil.so",
			 bindir);
	if (!realpath(libpath, real))
		return -1;
	snprintf(libpath, sizeof(libpath), "%s", real);

	/* The payload has its own gprof; the host has one on PATH. */
	snprintf(gprof, sizeof(gprof), "%s/gprof", bindir);
	if (access(gprof, X_OK))
		snprintf(gprof, sizeof(gprof), "gprof");
	return 0;
}

void prog_path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", bindir, name);
}

/*
 * Runs @argv[0] (a program next to the driver, or an absolute path) in
 * the current directory with only the environment it needs (prog_run()):
 * GMON_OUT_PREFIX, GPROFDIR and LD_PRELOAD are thus set only when a test
 * asks for them in @env.  The tests print what they look for in
 * LD_DEBUG's flood, so 40 lines of output are shown.
 */
void run(struct prog_run *r, const char *const argv[],
		const char *const env[])
{
	char path[PATH_MAX];

	if (argv[0][0] == '/')
		snprintf(path, sizeof(path), "%s", argv[0]);
	else
		prog_path(path, sizeof(path), argv[0]);
	prog_run(r, path, argv, env, outbuf, sizeof(outbuf), 40);
}

void assert_exited_ok(const struct prog_run *r)
{
	assert_true(WIFEXITED(r->status));
	assert_int_equal(WEXITSTATUS(r->status), 0);
}

/*
 * Prints the entries of @path and returns how many profiles there are:
 * the caller chains beside a GNU file ("<file>.callers", written by
 * default) are not counted, but each must sit beside its profile.
 */
int dir_entries(const char *path)
{
	static const char suffix[] = GMF_CALLERS_SUFFIX;
	DIR *d = opendir(path);
	struct dirent *e;
	char main_file[PATH_MAX];
	size_t len;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		print_message("# %s/%s\n", path, e->d_name);
		len = strlen(e->d_name);
		if (len > sizeof(suffix) - 1 &&
		    !strcmp(e->d_name + len - (sizeof(suffix) - 1), suffix)) {
			snprintf(main_file, sizeof(main_file), "%s/%.*s", path,
				 (int)(len - (sizeof(suffix) - 1)), e->d_name);
			assert_int_equal(access(main_file, F_OK), 0);
			continue;
		}
		n++;
	}
	closedir(d);
	return n;
}

void assert_file(const char *path)
{
	if (access(path, R_OK))
		print_message("# %s: %s\n", path, strerror(errno));
	assert_int_equal(access(path, R_OK), 0);
}

/*
 * GNU gprof's report (@opt: "-p" flat profile or "-q" call graph, brief)
 * of @file written by program @prog.  Returns a malloc()ed string.
 */
char *gprof_report(const char *prog, const char *file,
			  const char *opt)
{
	char exe[PATH_MAX], cmd[3 * PATH_MAX];
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap);
	FILE *p;
	size_t got;

	assert_non_null(buf);
	prog_path(exe, sizeof(exe), prog);
	snprintf(cmd, sizeof(cmd), "LC_ALL=C '%s' -b %s '%s' '%s' 2>&1",
		 gprof, opt, exe, file);
	p = popen(cmd, "r");
	assert_non_null(p);
	while ((got = fread(buf + len, 1, cap - 1 - len, p)) > 0) {
		len += got;
		if (len == cap - 1) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
	}
	buf[len] = '\0';
	if (pclose(p)) {
		print_message("# %s failed:\n%s\n", cmd, buf);
		fail_msg("gprof could not read %s", file);
	}
	return buf;
}

/* Splits @line (modified) on blanks into at most @max tokens. */
int tokens(char *line, char **tok, int max)
{
	int n = 0;

	for (char *t = strtok(line, " \t"); t && n < max;
	     t = strtok(NULL, " \t"))
		tok[n++] = t;
	return n;
}

/* The next line of @*text in @buf, or NULL at the end. */
char *next_line(const char **text, char *buf, size_t size)
{
	size_t len;

	if (!**text)
		return NULL;
	len = strcspn(*text, "\n");
	snprintf(buf, size, "%.*s", (int)(len < size ? len : size - 1), *text);
	*text += len + ((*text)[len] == '\n');
	return buf;
}


/*
 * @func's line of the flat profile (gprof -b -p).  Its columns are
 * "%time cumulative self [calls self/call total/call] name"; the call
 * columns are blank for a function mcount never saw.
 */
struct flat flat_line(const char *report, const char *func)
{
	struct flat f = { 0, 0, 0, -1 };
	char line[512], copy[512], *tok[16];
	const char *t = report;
	int n;

	while (next_line(&t, line, sizeof(line))) {
		strcpy(copy, line);
		n = tokens(copy, tok, 16);
		if ((n != 4 && n != 7) || strcmp(tok[n - 1], func))
			continue;
		f.listed = 1;
		f.pct = atof(tok[0]);
		f.self = atof(tok[2]);
		if (n == 7)
			f.calls = atol(tok[3]);
		print_message("# gprof -p: %s\n", line);
	}
	if (!f.listed)
		print_message("# gprof -p: %s is not listed\n", func);
	return f;
}

/*
 * From the call graph (gprof -b -q): the total calls of @func (its
 * primary line "[i] %time self children called name [i]") and, if
 * @parent is given, the calls from @parent (@func's parent line
 * "self children called/total parent [j]").  -1 when gprof shows none.
 */
long cg_calls(const char *report, const char *func,
		     const char *parent)
{
	char line[512], copy[512], *tok[16];
	char parents[32][512];
	const char *t = report;
	int nparents = 0, n;
	long calls = -1;

	while (next_line(&t, line, sizeof(line))) {
		if (line[0] == '-') {		/* the end of an entry */
			nparents = 0;
			continue;
		}
		if (line[0] != '[') {
			if (nparents < 32)
				strcpy(parents[nparents++], line);
			continue;
		}
		strcpy(copy, line);
		n = tokens(copy, tok, 16);
		if (n < 6 || strcmp(tok[n - 2], func))
			continue;
		print_message("# gprof -q: %s\n", line);
		if (!parent) {
			/* "4000000" or, for recursion, "n+m". */
			calls = n == 7 ? strtol(tok[4], NULL, 10) : -1;
			continue;
		}
		for (int i = 0; i < nparents; i++) {
			strcpy(copy, parents[i]);
			n = tokens(copy, tok, 16);
			if (n == 5 && !strcmp(tok[3], parent) &&
			    strchr(tok[2], '/')) {
				print_message("# gprof -q: %s\n", parents[i]);
				calls = strtol(tok[2], NULL, 10);
			}
		}
	}
	if (calls < 0)
		print_message("# gprof -q: no calls of %s%s%s\n", func,
			      parent ? " from " : "", parent ? parent : "");
	return calls;
}

/*
 * The glibc gmon test shape in @file written by @prog: exact call counts
 * in both reports, every arc from the right caller, and busy() sampled.
 */
void check_shape(const char *prog, const char *file)
{
	char *p = gprof_report(prog, file, "-p");
	char *q = gprof_report(prog, file, "-q");
	struct flat busy;

	assert_int_equal(flat_line(p, "f1").calls, 2000);
	assert_int_equal(flat_line(p, "f2").calls, 1000);
	assert_int_equal(flat_line(p, "f3").calls, 1);
	busy = flat_line(p, "busy");
	assert_int_equal(busy.calls, 1);
	/* Half a second of CPU and nothing else to speak of. */
	assert_true(busy.self > 0);
	assert_true(busy.pct >= 50);

	assert_int_equal(cg_calls(q, "f1", NULL), 2000);
	assert_int_equal(cg_calls(q, "f2", NULL), 1000);
	assert_int_equal(cg_calls(q, "f3", NULL), 1);
	/*
	 * glibc records a caller rounded down to 16 bytes, which can name
	 * the function before it; the parents must be exact.
	 */
	assert_int_equal(cg_calls(q, "f1", "f2"), 2000);
	assert_int_equal(cg_calls(q, "f2", "f3"), 1000);
	assert_int_equal(cg_calls(q, "f3", "main"), 1);
	assert_int_equal(cg_calls(q, "busy", "main"), 1);
	free(p);
	free(q);
}

/* tick()'s calls in the profile that @prog writes when run with @env. */
long thread_calls(const char *prog, const char *const env[],
			 long *from_worker)
{
	const char *argv[] = { prog, NULL };
	long flat, graph;
	struct prog_run r;
	char *p, *q;

	run(&r, argv, env);
	assert_exited_ok(&r);
	assert_file("gmon.out");
	p = gprof_report(prog, "gmon.out", "-p");
	q = gprof_report(prog, "gmon.out", "-q");
	flat = flat_line(p, "tick").calls;
	graph = cg_calls(q, "tick", NULL);
	*from_worker = cg_calls(q, "tick", "worker");
	free(p);
	free(q);
	unlink("gmon.out");
	/* The two reports of one file agree whatever the runtime. */
	assert_int_equal(flat, graph);
	return graph;
}

/*
 * The pids pg-fork printed, one "<role> <pid>" line per process; any
 * other line (a runtime's complaint on stderr) is not one of them.
 */
void fork_pids(const struct prog_run *r, int *a, int *b, int *parent)
{
	char line[512], role[16];
	const char *t = r->out;
	int pid;

	*a = *b = *parent = -1;
	while (next_line(&t, line, sizeof(line))) {
		if (sscanf(line, "%15s %d", role, &pid) != 2)
			continue;
		if (!strcmp(role, "a"))
			*a = pid;
		else if (!strcmp(role, "b"))
			*b = pid;
		else if (!strcmp(role, "parent"))
			*parent = pid;
	}
	assert_true(*a > 0 && *b > 0 && *parent > 0);
	assert_int_equal(*parent, (int)r->pid);
}

/*
 * @file must hold @own's calls (@n of them) and no call of the other
 * processes' work: the post-fork work of the others, and for a child
 * the work its parent did before forking it.
 */
void check_fork_file(const char *prog, const char *file, const char *own,
		     long n, const char *const absent[])
{
	char *p = gprof_report(prog, file, "-p");

	print_message("# %s:\n", file);
	assert_int_equal(flat_line(p, own).calls, n);
	for (int i = 0; absent[i]; i++) {
		struct flat f = flat_line(p, absent[i]);

		assert_true(!f.listed || f.calls <= 0);
	}
	free(p);
}

void check_fork_files(const char *prog, const char *parent, const char *a,
		      const char *b)
{
	static const char *const not_parent[] = { "a_work", "b_work", NULL };
	static const char *const not_a[] = {
		"pre_work", "parent_work", "b_work", NULL
	};
	static const char *const not_b[] = {
		"pre_work", "parent_work", "a_work", NULL
	};
	char *p = gprof_report(prog, parent, "-p");

	assert_int_equal(flat_line(p, "pre_work").calls, 7);
	free(p);
	check_fork_file(prog, parent, "parent_work", 300, not_parent);
	check_fork_file(prog, a, "a_work", 100, not_a);
	check_fork_file(prog, b, "b_work", 200, not_b);
}

/*
 * SPROFIL_SIGDUMP: what one file of pg-sigdump holds, by piece of work:
 * @a, @b, @c are 1 if that piece must be there with its exact calls and
 * some CPU, 0 if nothing of it may be.
 */
void check_sigdump_file(const char *prog, const char *file, int a, int b,
			int c)
{
	static const char *const work[] = { "work_a", "work_b", "work_c" };
	static const char *const leaf[] = { "a1", "b1", "c1" };
	char *p = gprof_report(prog, file, "-p");
	char *q = gprof_report(prog, file, "-q");
	int want[] = { a, b, c };
	struct flat f;

	print_message("# %s: work_a %d, work_b %d, work_c %d\n", file, a, b, c);
	for (int i = 0; i < 3; i++) {
		f = flat_line(p, work[i]);
		if (want[i]) {
			assert_int_equal(f.calls, 1);
			assert_true(f.self > 0);
			assert_int_equal(cg_calls(q, leaf[i], work[i]),
					 1000 * (i + 1));
		} else {
			/* No call and no sample: gprof does not list it. */
			assert_false(f.listed);
			assert_int_equal(cg_calls(q, leaf[i], NULL), -1);
			assert_int_equal(cg_calls(q, work[i], NULL), -1);
		}
	}
	free(p);
	free(q);
}

void check_sigdump_run(const char *prog)
{
	const char *argv[] = { prog, "gmon.out", NULL };
	const char *env[] = { "SPROFIL_SIGDUMP=USR1", NULL };
	struct prog_run r;

	run(&r, argv, env);
	assert_exited_ok(&r);
	assert_int_equal(dir_entries("."), 3);
	check_sigdump_file(prog, "gmon.out.1", 1, 0, 0);
	check_sigdump_file(prog, "gmon.out.2", 0, 1, 0);
	/* The dump at exit keeps the plain name and holds the rest. */
	check_sigdump_file(prog, "gmon.out", 0, 0, 1);
}
