// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sprofil record [options] [--] PROGRAM [ARGS...]: runs PROGRAM with
 * libsprofil preloaded as a collector (libsprofil/api/record.c), every
 * process of the run into a profile file of its own, then says in one
 * line where the profiles are and how to read them.  The exit status is
 * the program's (128 + N when signal N killed it, as shells give it).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sprofil.h"

struct record_opts {
	const char *output;		/* as the user wrote it */
	const char *hz, *backend, *modules, *sigdump;
	bool no_callers, threads;
	bool dir;			/* output is a directory */
	char abs[PATH_MAX];		/* output, absolute ('/'-ended: dir) */
};

/* Files record found written by the run. */
struct record_files {
	char **names;
	size_t n;
	size_t root;			/* the started process's, or n */
};

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* A signal by number or name (USR1, SIGUSR1), as SPROFIL_SIGDUMP takes. */
static bool signal_known(const char *s)
{
	int i;

	if (all_digits(s))
		return atoi(s) > 0 && atoi(s) < NSIG;
	if (!strncmp(s, "SIG", 3))
		s += 3;
	for (i = 1; i < NSIG; i++) {
		const char *abbrev = sigabbrev_np(i);

		if (abbrev && !strcmp(abbrev, s))
			return true;
	}
	return false;
}

/*
 * The output as an absolute path (the program may change directory), a
 * directory when it ends in '/' or is one; the directory is created if
 * missing; whether it can be written is tried with a file of our own.
 */
static int output_prepare(struct record_opts *o)
{
	char dir[PATH_MAX], probe[PATH_MAX + 32];
	const char *base = NULL;
	size_t len = strlen(o->output);
	struct stat st;
	int fd;

	o->dir = o->output[len - 1] == '/' ||
		 (!stat(o->output, &st) && S_ISDIR(st.st_mode));
	if (o->dir) {
		if (mkdir(o->output, 0777) && errno != EEXIST) {
			cli_error("%s: cannot create the directory: %s",
				  o->output, strerror(errno));
			return -1;
		}
		if (!realpath(o->output, dir)) {
			cli_error("%s: %s", o->output, strerror(errno));
			return -1;
		}
	} else {
		const char *slash = strrchr(o->output, '/');

		char parent[PATH_MAX];

		snprintf(parent, sizeof(parent), "%.*s", slash ?
			 (int)(slash - o->output) + 1 : 1,
			 slash ? o->output : ".");
		base = slash ? slash + 1 : o->output;
		if (!realpath(parent, dir)) {
			cli_error("%s: %s", o->output, strerror(errno));
			return -1;
		}
	}
	snprintf(probe, sizeof(probe), "%s/.sprofil-XXXXXX", dir);
	fd = mkstemp(probe);
	if (fd < 0) {
		cli_error("%s: cannot write there: %s", o->output,
			  strerror(errno));
		return -1;
	}
	close(fd);
	unlink(probe);
	if ((size_t)snprintf(o->abs, sizeof(o->abs), "%s/%s", dir,
			     o->dir ? "" : base) >= sizeof(o->abs)) {
		cli_error("%s: %s", o->output, strerror(ENAMETOOLONG));
		return -1;
	}
	/* The started process writes the file only if it is not there. */
	if (!o->dir && unlink(o->abs) && errno != ENOENT) {
		cli_error("%s: cannot replace it: %s", o->output,
			  strerror(errno));
		return -1;
	}
	return 0;
}

static void set_env(const char *name, const char *value)
{
	if (value && setenv(name, value, 1)) {
		perror("sprofil: setenv");
		_exit(127);
	}
}

static __attribute__((noreturn)) void run_child(const struct record_opts *o,
						const char *lib,
						const char *share,
						const char *path, char **argv)
{
	const char *pre = getenv("LD_PRELOAD");
	char preload[PATH_MAX * 2], pid[32];

	snprintf(preload, sizeof(preload), "%s%s%s", lib, pre && *pre ? ":" : "",
		 pre && *pre ? pre : "");
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	set_env("LD_PRELOAD", preload);
	set_env("SPROFIL_RECORD", o->abs);
	set_env("SPROFIL_RECORD_PID", pid);
	set_env("SPROFIL_MODULES", o->modules ? o->modules : "ALL");
	set_env("SPROFIL_HZ", o->hz);
	set_env("SPROFIL_BACKEND", o->backend);
	/* Every process of the run takes the bpf program from there. */
	set_env("SPROFIL_BPF_SHARE", share);
	set_env("SPROFIL_SIGDUMP", o->sigdump);
	if (o->no_callers)
		set_env("SPROFIL_CALLERS", "0");
	if (o->threads)
		set_env("SPROFIL_THREADS", "1");
	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	execv(path, argv);
	cli_error("%s: %s", argv[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

/* Whether @name is one record's run writes for output @o. */
static bool record_name(const struct record_opts *o, const char *name)
{
	size_t n = strlen(name), s = strlen(CLI_SUFFIX);
	const char *base, *dot;
	size_t blen;

	if (o->dir)
		return n > s && !strcmp(name + n - s, CLI_SUFFIX);
	base = strrchr(o->abs, '/') + 1;
	if (!strcmp(name, base))
		return true;
	/* "<stem>.<prog>.<pid>...<suffix>", stem = base minus ".gmon" */
	blen = strlen(base);
	dot = blen > s && !strcmp(base + blen - s, CLI_SUFFIX) ?
	      base + blen - s : base + blen;
	blen = dot - base;
	if (n <= blen + 1 || strncmp(name, base, blen) || name[blen] != '.')
		return false;
	return *dot ? n > s && !strcmp(name + n - s, CLI_SUFFIX) : true;
}

/* The profiles written since @start (realtime, coarse), newest last. */
static void find_files(const struct record_opts *o,
		       const struct timespec *start, pid_t root,
		       struct record_files *f)
{
	char dir[PATH_MAX], path[PATH_MAX * 2], tag[32];
	struct timespec newest = { 0, 0 };
	struct dirent *de;
	struct stat st;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s", o->abs);
	*strrchr(dir, '/') = '\0';
	snprintf(tag, sizeof(tag), ".%d", (int)root);
	f->names = NULL;
	f->n = 0;
	f->root = 0;
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		char **names;
		bool is_root;

		if (!record_name(o, de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) || !S_ISREG(st.st_mode) ||
		    st.st_mtim.tv_sec < start->tv_sec ||
		    (st.st_mtim.tv_sec == start->tv_sec &&
		     st.st_mtim.tv_nsec < start->tv_nsec))
			continue;
		names = realloc(f->names, (f->n + 1) * sizeof(*names));
		if (!names)
			break;
		f->names = names;
		f->names[f->n] = strdup(de->d_name);
		if (!f->names[f->n])
			break;
		/* The started process's: the file itself, or its pid's newest. */
		is_root = o->dir ? strstr(de->d_name, tag) != NULL :
			  !strcmp(de->d_name, strrchr(o->abs, '/') + 1);
		if (is_root && (o->dir ? st.st_mtim.tv_sec > newest.tv_sec ||
				(st.st_mtim.tv_sec == newest.tv_sec &&
				 st.st_mtim.tv_nsec >= newest.tv_nsec) : 1)) {
			newest = st.st_mtim;
			f->root = f->n;
		}
		f->n++;
	}
	if (d)
		closedir(d);
}

/*
 * The processes of a recorded tree write their profiles without fsync()
 * (libsprofil's write_atomic()): one syncfs() of the output's file system
 * here, once the tree has ended, makes them durable and reports a
 * write-back error none of them could see, for 1 fsync instead of 1,000
 * in a tree of 1,000 processes.
 */
static int sync_output(const struct record_opts *o)
{
	char dir[PATH_MAX];
	int fd, err = 0;

	snprintf(dir, sizeof(dir), "%s", o->abs);
	*strrchr(dir, '/') = '\0';
	fd = open(*dir ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || syncfs(fd))
		err = errno;
	if (fd >= 0)
		close(fd);
	if (err)
		cli_error("%s: the profiles may not have reached the disk: %s",
			  o->output, strerror(err));
	return err ? -1 : 0;
}

/* The one line at the end: where the profiles went, how to read them. */
static int summary(const struct record_opts *o, const struct record_files *f,
		   const char *prog, int status)
{
	char shown[PATH_MAX * 2];
	const char *sep = o->dir && o->output[strlen(o->output) - 1] != '/' ?
			  "/" : "";

	if (!f->n) {
		if (WIFSIGNALED(status))
			cli_error("no profile written: %s was killed by signal %d (%s) before it could write one; --sigdump SIG writes one on demand",
				  prog, WTERMSIG(status),
				  sigabbrev_np(WTERMSIG(status)) ?: "?");
		else
			cli_error("no profile written by %s (see the messages above)",
				  prog);
		return -1;
	}
	if (o->dir)
		snprintf(shown, sizeof(shown), "%s%s%s", o->output, sep,
			 f->names[f->root]);
	else
		snprintf(shown, sizeof(shown), "%s", o->output);
	if (f->n == 1)
		fprintf(stderr, "sprofil: profile in %s; read it with: sprofil report %s\n",
			shown, shown);
	else if (o->dir)
		fprintf(stderr, "sprofil: %zu profiles, one per process, in %s (%s is the first process's); read it with: sprofil report %s\n",
			f->n, o->output, shown, shown);
	else
		fprintf(stderr, "sprofil: profile in %s, and %zu of other processes beside it (<name>.<program>.<pid>); read it with: sprofil report %s\n",
			shown, f->n - 1, shown);
	return 0;
}

enum { OPT_BACKEND = 256, OPT_MODULES, OPT_SIGDUMP, OPT_THREADS,
       OPT_NO_CALLERS, OPT_HELP, OPT_VERSION };

static int parse(int argc, char **argv, struct record_opts *o)
{
	static const struct option longs[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "freq", required_argument, NULL, 'F' },
		{ "backend", required_argument, NULL, OPT_BACKEND },
		{ "modules", required_argument, NULL, OPT_MODULES },
		{ "sigdump", required_argument, NULL, OPT_SIGDUMP },
		{ "threads", no_argument, NULL, OPT_THREADS },
		{ "no-callers", no_argument, NULL, OPT_NO_CALLERS },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->output = CLI_DEFAULT_OUTPUT;
	/* '+': the program's own options are not ours. */
	while ((c = getopt_long(argc, argv, "+o:F:h", longs, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!*optarg) {
				cli_error("-o: empty output name");
				return -1;
			}
			o->output = optarg;
			break;
		case 'F':
			if (!all_digits(optarg) || atol(optarg) < 1 ||
			    atol(optarg) > 10000) {
				cli_error("-F %s: not a rate from 1 to 10000 Hz",
					  optarg);
				return -1;
			}
			o->hz = optarg;
			break;
		case OPT_BACKEND:
			if (strcmp(optarg, "auto") && strcmp(optarg, "kmod") &&
			    strcmp(optarg, "bpf") && strcmp(optarg, "signal")) {
				cli_error("--backend %s: not one of auto, kmod, bpf, signal",
					  optarg);
				return -1;
			}
			o->backend = optarg;
			break;
		case OPT_MODULES:
			o->modules = optarg;
			break;
		case OPT_SIGDUMP:
			if (!signal_known(optarg)) {
				cli_error("--sigdump %s: not a signal number or name",
					  optarg);
				return -1;
			}
			o->sigdump = optarg;
			break;
		case OPT_THREADS:
			o->threads = true;
			break;
		case OPT_NO_CALLERS:
			o->no_callers = true;
			break;
		case 'h':
		case OPT_HELP:
			fputs("usage: sprofil record [-o FILE|DIR/] [-F HZ] [--backend NAME] [--modules LIST] [--sigdump SIG] [--threads] [--no-callers] [--] PROGRAM [ARGS...]\n"
			      "sprofil " SPROFIL_VERSION "; see sprofil(1).\n",
			      stdout);
			exit(0);
		case OPT_VERSION:
			puts("sprofil " SPROFIL_VERSION);
			exit(0);
		default:
			return -1;
		}
	}
	/* Threads are told apart by the chains' top nodes. */
	if (o->threads && o->no_callers) {
		cli_error("--threads needs caller chains: drop --no-callers");
		return -1;
	}
	if (optind >= argc) {
		cli_error("record: no program given (sprofil record [options] -- PROGRAM [ARGS...])");
		return -1;
	}
	return optind;
}

/*
 * LD_PROFILE would wake ld.so's own profiler in the program (every PLT
 * call through it, .profile files in /var/tmp): it is not passed on.
 */
static void drop_ld_profile(void)
{
	const char *v = getenv("LD_PROFILE");

	if (v && *v)
		cli_error("LD_PROFILE=%s not passed to the program: it would turn on ld.so's own profiler; --modules selects modules",
			  v);
	unsetenv("LD_PROFILE");
}

int cli_record(int argc, char **argv)
{
	struct record_opts o = { .output = NULL };
	struct record_files files;
	char found[PATH_MAX], lib[PATH_MAX], path[PATH_MAX];
	char chosen[16], share[64];
	struct timespec start;
	int first, status, ret, lifeline = -1;
	pid_t pid, server = -1;
	size_t i;

	first = parse(argc, argv, &o);
	if (first < 0)
		return 2;
	if (cli_program(argv[first], path, sizeof(path)) ||
	    cli_find_lib(found, sizeof(found)))
		return 1;
	if (!realpath(found, lib)) {
		cli_error("%s: %s", found, strerror(errno));
		return 1;
	}
	drop_ld_profile();
	if (cli_probe(lib, o.backend, chosen, sizeof(chosen)) ||
	    output_prepare(&o))
		return 1;
	if (!strcmp(chosen, "bpf"))
		server = cli_bpf_serve(share, sizeof(share), &lifeline);
	clock_gettime(CLOCK_REALTIME_COARSE, &start);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		cli_error("fork: %s", strerror(errno));
		return 1;
	}
	if (!pid)
		run_child(&o, lib, server > 0 ? share : NULL, path,
			  argv + first);
	/* ^C and ^\ are the program's; we stay to report. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			cli_error("waitpid: %s", strerror(errno));
			return 1;
		}
	if (server > 0) {
		close(lifeline);
		while (waitpid(server, NULL, 0) < 0 && errno == EINTR)
			;
	}
	find_files(&o, &start, pid, &files);
	ret = summary(&o, &files, argv[first], status);
	if (files.n && sync_output(&o))
		ret = -1;
	for (i = 0; i < files.n; i++)
		free(files.names[i]);
	free(files.names);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	if (WEXITSTATUS(status))
		return WEXITSTATUS(status);
	return ret ? 1 : 0;
}
