// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libsprofil's gcc -pg runtime under stress: runs the st-* programs
 * built next to this driver (tests/stress/st_*.c) in a fresh temporary
 * directory, on the backend SPROFIL_BACKEND names, and reads every
 * profile file they write with the project's reader, gmon-dump:
 *
 *  - a fork tree, dumps requested as it forks: every process writes its
 *    own file, holding exactly its own calls;
 *  - an exec chain: every image writes its profile before the next one
 *    starts, and none dies;
 *  - SPROFIL_SIGDUMP at a high rate from this process while threads
 *    call a -pg function: every call is in exactly one file (the dumps
 *    plus the final profile) and every file parses;
 *  - dlopen/dlclose of a -pg library in a loop: bounded in time, and
 *    every call of every load is kept.
 *
 * Each program runs in its own process group under a deadline; one that
 * does not finish is killed with its whole tree and reported as hung.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "workload.h"

/* Where this driver, the programs and gmon-dump are. */
static char bindir[PATH_MAX / 2];
static char gmon_dump[PATH_MAX];

/* A program running under the driver. */
struct proc {
	pid_t pid;		/* also its process group */
	int in;			/* its stdin, or -1 once closed */
	int out;		/* its stdout and stderr */
	char buf[1 << 20];
	size_t len;
	int status;
	bool hung;
	double t0, seconds;	/* wall time it took */
};

static struct proc proc;

/*
 * STRESS_TIME_SCALE (default 1) stretches every deadline: the sanitizer
 * builds start each process several times slower (run-sanitized).
 */
static double time_scale(void)
{
	const char *env = getenv("STRESS_TIME_SCALE");
	double k = env ? atof(env) : 1;

	return k >= 1 ? k : 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int locate(void)
{
	char exe[PATH_MAX / 2], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return -1;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	*slash = '\0';
	snprintf(bindir, sizeof(bindir), "%s", exe);
	/* In the VM payload gmon-dump sits next to the driver. */
	snprintf(gmon_dump, sizeof(gmon_dump), "%s/gmon-dump", bindir);
	if (access(gmon_dump, X_OK))
		snprintf(gmon_dump, sizeof(gmon_dump),
			 "%s/../../gprof/gmon-dump", bindir);
	return access(gmon_dump, X_OK);
}

static int setup(void **state)
{
	(void)state;
	/* A program that dies leaves a closed pipe, not a dead driver. */
	signal(SIGPIPE, SIG_IGN);
	if (locate()) {
		fprintf(stderr, "test_stress_pg: no gmon-dump near %s\n",
			bindir);
		return -1;
	}
	return 0;
}

static int enter(void **state)
{
	(void)state;
	return wl_enter_tmpdir("test_stress_pg");
}

static void close_stdin(void);

static int leave(void **state)
{
	(void)state;
	/* A scenario that failed early leaves no process tree behind. */
	if (proc.pid > 0 && waitpid(proc.pid, &proc.status, WNOHANG) == 0) {
		print_message("# killing what is left of pid %d\n",
			      (int)proc.pid);
		kill(-proc.pid, SIGKILL);
		waitpid(proc.pid, &proc.status, 0);
	}
	if (proc.pid > 0) {
		close_stdin();
		if (proc.out >= 0)
			close(proc.out);
	}
	proc.pid = 0;
	return wl_leave_tmpdir();
}

/*
 * Starts program @name (next to the driver) with @argv (after argv[0])
 * in its own process group, with PATH, LC_ALL=C, the driver's SPROFIL_*
 * variables and @env (NULL-terminated NAME=VALUE list).
 */
static void start(const char *name, const char *const argv[],
		  const char *const env[])
{
	char path[PATH_MAX], *envp[64], *args[16];
	int in[2], out[2], n = 0, a = 0;

	snprintf(path, sizeof(path), "%s/%s", bindir, name);
	args[a++] = path;
	for (int i = 0; argv && argv[i] && a < 15; i++)
		args[a++] = (char *)argv[i];
	args[a] = NULL;
	for (char **e = environ; *e && n < 40; e++)
		/* *SAN_OPTIONS: the sanitizer builds (check-asan, -tsan). */
		if (!strncmp(*e, "SPROFIL_", 8) || !strncmp(*e, "PATH=", 5) ||
		    strstr(*e, "SAN_OPTIONS="))
			envp[n++] = *e;
	envp[n++] = "LC_ALL=C";
	for (int i = 0; env && env[i] && n < 62; i++)
		envp[n++] = (char *)env[i];
	envp[n] = NULL;

	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	memset(&proc, 0, sizeof(proc));
	proc.t0 = now();
	proc.pid = fork();
	assert_true(proc.pid >= 0);
	if (proc.pid == 0) {
		setpgid(0, 0);
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(out[1], 2);
		execve(path, args, envp);
		_exit(127);
	}
	setpgid(proc.pid, proc.pid);
	close(in[0]);
	close(out[1]);
	proc.in = in[1];
	proc.out = out[0];
	print_message("# started %s (pid %d):", name, (int)proc.pid);
	for (int i = 0; env && env[i]; i++)
		print_message(" %s", env[i]);
	for (int i = 0; argv && argv[i]; i++)
		print_message(" %s", argv[i]);
	print_message("\n");
}

/*
 * Reads the program's output until it holds @want (NULL: until every
 * process of the tree closed it) or @deadline passes.  Returns whether
 * it got there.
 */
static bool read_until(const char *want, double deadline, int poll_ms)
{
	while (!want || !strstr(proc.buf, want)) {
		struct pollfd p = { .fd = proc.out, .events = POLLIN };
		double left = deadline - now();
		ssize_t got;

		if (left <= 0)
			return false;
		if (poll(&p, 1, poll_ms >= 0 ? poll_ms :
			 (int)(left * 1000) + 1) <= 0) {
			if (poll_ms >= 0)
				return false;
			continue;
		}
		got = read(proc.out, proc.buf + proc.len,
			   sizeof(proc.buf) - 1 - proc.len);
		if (got <= 0)
			return !want;
		proc.len += got;
		proc.buf[proc.len] = '\0';
	}
	return true;
}

static void close_stdin(void)
{
	if (proc.in >= 0)
		close(proc.in);
	proc.in = -1;
}

/*
 * Waits for the whole tree until @deadline, then kills what is left.
 * Prints the output and the status.
 */
static void finish(double deadline)
{
	int lines = 0;

	close_stdin();
	if (!read_until(NULL, deadline, -1)) {
		proc.hung = true;
		kill(-proc.pid, SIGKILL);
	}
	assert_int_equal(waitpid(proc.pid, &proc.status, 0), proc.pid);
	if (!proc.hung && now() > deadline) {
		proc.hung = true;
		kill(-proc.pid, SIGKILL);
	}
	proc.seconds = now() - proc.t0;
	close(proc.out);
	proc.out = -1;
	for (char *l = proc.buf; *l; ) {
		size_t ll = strcspn(l, "\n");

		if (++lines > 60) {
			print_message("#   | ...\n");
			break;
		}
		print_message("#   | %.*s\n", (int)ll, l);
		l += ll + (l[ll] == '\n');
	}
	if (proc.hung)
		print_message("# HUNG: killed after %.1f s\n", proc.seconds);
	else if (WIFEXITED(proc.status))
		print_message("# exit %d after %.2f s\n",
			      WEXITSTATUS(proc.status), proc.seconds);
	else
		print_message("# killed by signal %d (%s) after %.2f s\n",
			      WTERMSIG(proc.status),
			      strsignal(WTERMSIG(proc.status)), proc.seconds);
	assert_false(proc.hung);
	assert_true(WIFEXITED(proc.status));
	assert_int_equal(WEXITSTATUS(proc.status), 0);
}

/* A counted function, from the program's "fn" line. */
struct fn {
	unsigned long start, size;
};

static struct fn find_fn(const char *name)
{
	struct fn f = { 0, 0 };
	char key[128];
	const char *l;

	snprintf(key, sizeof(key), "fn %s ", name);
	l = strstr(proc.buf, key);
	assert_non_null(l);
	assert_int_equal(sscanf(l + strlen(key), "%lx %lx", &f.start,
				&f.size), 2);
	assert_true(f.size > 0);
	return f;
}

/* Does module name @mod (gmon-dump's) stand for @module? */
static bool module_is(const char *mod, const char *module)
{
	size_t lm = strlen(mod), ln = strlen(module);

	if (!strcmp(mod, "exe"))	/* GNU files: the program alone */
		return !strncmp(module, "st-", 3);
	return lm > ln && mod[lm - ln - 1] == '/' &&
	       !strcmp(mod + lm - ln, module);
}

/* What one profile file holds for a function. */
struct file_counts {
	unsigned long long calls;	/* arcs into the function */
	int module_records;		/* "module" lines of the module */
	int hist_records;		/* its histogram records */
};

/*
 * Reads @file with gmon-dump, which must parse it whole, and adds up
 * the arcs into @f of @module (a program's or library's file name).
 */
static struct file_counts count_file(const char *file, const char *module,
				     struct fn f)
{
	struct file_counts c = { 0, 0, 0 };
	char cmd[PATH_MAX * 2], line[8192];
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "'%s' '%s' 2>&1", gmon_dump, file);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char from[4096], self[4096], *colon, *mod;
		unsigned long long n;
		unsigned long pc;

		if (!strncmp(line, "module ", 7)) {
			char *name = strrchr(line, ' ');

			name[strcspn(name, "\n")] = '\0';
			if (module_is(name + 1, module))
				c.module_records++;
			continue;
		}
		if (!strncmp(line, "hist ", 5)) {
			char name[4096];

			if (sscanf(line, "hist %4095s", name) == 1 &&
			    module_is(name, module))
				c.hist_records++;
			continue;
		}
		if (strncmp(line, "arc ", 4)) {
			if (strncmp(line, "format ", 7))
				print_message("# %s: %s", file, line);
			continue;
		}
		if (sscanf(line, "arc %4095s -> %4095s %llu", from, self,
			   &n) != 3)
			fail_msg("%s: odd gmon-dump line %s", file, line);
		colon = strrchr(self, ':');
		assert_non_null(colon);
		*colon = '\0';
		mod = self;
		pc = strtoul(colon + 1, NULL, 16);
		if (module_is(mod, module) && pc >= f.start &&
		    pc < f.start + f.size)
			c.calls += n;
	}
	st = pclose(p);
	if (st)
		print_message("# %s does not parse (gmon-dump status %#x)\n",
			      file, st);
	assert_int_equal(st, 0);
	return c;
}

/*
 * Adds up @f's calls over @base and its dumps "@base.<n>"; the final
 * file @base must exist.  Returns the calls, and the number of files
 * in @nfiles.
 */
static unsigned long long count_with_dumps(const char *base,
					   const char *module, struct fn f,
					   int *nfiles)
{
	unsigned long long calls = 0;
	size_t lb = strlen(base);
	bool final = false;
	struct dirent *e;
	DIR *d = opendir(".");

	assert_non_null(d);
	*nfiles = 0;
	while ((e = readdir(d))) {
		const char *rest = e->d_name + lb;

		if (strncmp(e->d_name, base, lb))
			continue;
		if (*rest == '.' && rest[1] &&
		    strspn(rest + 1, "0123456789") == strlen(rest + 1))
			;	/* a dump */
		else if (*rest)
			continue;
		else
			final = true;
		calls += count_file(e->d_name, module, f).calls;
		(*nfiles)++;
	}
	closedir(d);
	if (!final)
		print_message("# %s: no final profile\n", base);
	assert_true(final);
	return calls;
}

/* ---- fork tree ---- */

static void fork_tree(void **state)
{
	const char *argv[] = { "3", "3", NULL };
	const char *env[] = { "GMON_OUT_PREFIX=tree", "SPROFIL_SIGDUMP=USR1",
			      NULL };
	int nodes = 0, bad = 0, files = 0;
	struct fn f;
	const char *l;

	(void)state;
	start("st-forktree", argv, env);
	finish(now() + 40 * time_scale());
	f = find_fn("node_work");
	for (l = proc.buf; (l = strstr(l, "node ")); l++) {
		char base[64];
		unsigned long long got;
		int pid, calls, nf;

		if (l != proc.buf && l[-1] != '\n')
			continue;
		assert_int_equal(sscanf(l, "node %d %d", &pid, &calls), 2);
		snprintf(base, sizeof(base), "tree.%d", pid);
		got = count_with_dumps(base, "st-forktree", f, &nf);
		files += nf;
		if (got != (unsigned long long)calls) {
			print_message("# pid %d: %llu calls in %d files, made %d\n",
				      pid, got, nf, calls);
			bad++;
		}
		nodes++;
	}
	print_message("# %d processes, %d files, %.2f s\n", nodes, files,
		      proc.seconds);
	/* 1 + 3 + 9 + 27 */
	assert_int_equal(nodes, 40);
	assert_int_equal(bad, 0);
}

/* ---- exec chain ---- */

static void exec_chain(void **state)
{
	char root[PATH_MAX];
	const char *argv[] = { "0", "7", root, NULL };
	char path[PATH_MAX + 32];
	int levels = 0, bad = 0, pid0 = -1;
	struct fn f;
	const char *l;

	(void)state;
	assert_non_null(getcwd(root, sizeof(root)));
	start("st-execchain", argv, NULL);
	finish(now() + 40 * time_scale());
	f = find_fn("level_work");
	for (l = proc.buf; (l = strstr(l, "level ")); l++) {
		int level, pid, calls;
		unsigned long long got;

		if (l != proc.buf && l[-1] != '\n')
			continue;
		assert_int_equal(sscanf(l, "level %d %d %d", &level, &pid,
					&calls), 3);
		if (pid0 < 0)
			pid0 = pid;
		assert_int_equal(pid, pid0);	/* one process throughout */
		assert_int_equal(level, levels);
		snprintf(path, sizeof(path), "%s/e%d/gmon.out", root, level);
		if (access(path, R_OK)) {
			print_message("# level %d wrote no %s\n", level, path);
			bad++;
		} else {
			got = count_file(path, "st-execchain", f).calls;
			if (got != (unsigned long long)calls) {
				print_message("# level %d: %llu calls in its profile, made %d\n",
					      level, got, calls);
				bad++;
			}
		}
		levels++;
	}
	print_message("# %d images, %.2f s\n", levels, proc.seconds);
	assert_int_equal(levels, 8);
	assert_int_equal(bad, 0);
}

/* ---- SIGDUMP at a high rate ---- */

static void sigdump_storm(void **state)
{
	const char *argv[] = { "4", "2", NULL };
	const char *env[] = { "SPROFIL_SIGDUMP=USR1", NULL };
	unsigned long long made, got;
	double deadline;
	int sent = 0, files;
	struct fn f;
	const char *l;

	(void)state;
	start("st-sigdump", argv, env);
	deadline = now() + 60 * time_scale();
	assert_true(read_until("ready\n", deadline, -1));
	/* As fast as this process can, a short breath every 16. */
	while (!strstr(proc.buf, "calls ") && now() < deadline) {
		if (kill(proc.pid, SIGUSR1))
			break;
		sent++;
		if (sent % 16 == 0)
			read_until("calls ", deadline, 1);
	}
	finish(deadline + 30);
	f = find_fn("hot");
	l = strstr(proc.buf, "calls ");
	assert_non_null(l);
	made = strtoull(l + 6, NULL, 10);
	got = count_with_dumps("gmon.out", "st-sigdump", f, &files);
	print_message("# %d signals sent, %d files (dumps + final), %llu calls made, %llu in the files, %.2f s\n",
		      sent, files, made, got, proc.seconds);
	assert_true(sent > 100);
	assert_true(files >= 2);
	assert_true(got == made);
}

/* ---- dlopen/dlclose loop ---- */

static void dlopen_loop(void **state)
{
	const char *argv[] = { "300", "5", NULL };
	struct file_counts c;
	long calls = 0;
	int cycles = 0;
	double secs = 0;
	struct fn f;
	const char *l;

	(void)state;
	start("st-dlloop", argv, NULL);
	finish(now() + 40 * time_scale());
	f = find_fn("dl_leaf");
	l = strstr(proc.buf, "cycles ");
	assert_non_null(l);
	assert_int_equal(sscanf(l, "cycles %d %ld %lf", &cycles, &calls,
				&secs), 3);
	c = count_file("gmon.out", "libst_dl.so", f);
	print_message("# %d cycles in %.2f s (%.1f ms each), %llu of %ld calls in the profile, %d module and %d histogram records of the library\n",
		      cycles, secs, cycles ? 1000 * secs / cycles : 0, c.calls,
		      calls, c.module_records, c.hist_records);
	assert_true(cycles >= 10);
	assert_true(c.calls == (unsigned long long)calls);
	/* Every reload of the same file is the same module again. */
	assert_true(c.module_records >= 1 && c.module_records <= 2);
	assert_true(c.hist_records >= 1 && c.hist_records <= 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(fork_tree, enter, leave),
		cmocka_unit_test_setup_teardown(exec_chain, enter, leave),
		cmocka_unit_test_setup_teardown(sigdump_storm, enter, leave),
		cmocka_unit_test_setup_teardown(dlopen_loop, enter, leave),
	};

	return cmocka_run_group_tests_name("stress_pg", tests, setup, NULL);
}
