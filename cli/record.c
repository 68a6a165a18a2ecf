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
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sprofil/events.h>

#include "sprofil.h"

struct record_opts {
	const char *output;		/* as the user wrote it */
	const char *hz, *backend, *modules, *sigdump;
	const char *event, *count;	/* -e NAME, -c N, or NULL */
	pid_t attach;			/* -p PID, or 0 */
	bool no_callers, threads;
	bool no_unwind;			/* --no-unwind or SPROFIL_UNWIND=0 */
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

/* The run's servers, for its processes' environment. */
struct record_serve {
	const char *bpf_share;		/* SPROFIL_BPF_SHARE, or NULL */
	const char *unwind_dir;		/* SPROFIL_UNWIND_DIR, or NULL */
	const char *unwind_server;	/* SPROFIL_UNWIND_SERVER, or NULL */
};

static __attribute__((noreturn)) void run_child(const struct record_opts *o,
						const char *lib,
						const struct record_serve *sv,
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
	set_env("SPROFIL_BPF_SHARE", sv->bpf_share);
	/* Tables from the run's server, or only those the user set. */
	set_env("SPROFIL_UNWIND_DIR", sv->unwind_dir);
	set_env("SPROFIL_UNWIND_SERVER", sv->unwind_server);
	if (!sv->unwind_server)
		unsetenv("SPROFIL_UNWIND_SERVER");
	if (o->no_unwind)
		unsetenv("SPROFIL_UNWIND_DIR");
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
	size_t suffix = 0, n;

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
	/* The others are <stem>.<program>.<pid>, and .gmon if it has it. */
	n = strlen(shown);
	if (n > strlen(CLI_SUFFIX) &&
	    !strcmp(shown + n - strlen(CLI_SUFFIX), CLI_SUFFIX))
		suffix = strlen(CLI_SUFFIX);
	if (f->n == 1)
		fprintf(stderr, "sprofil: profile in %s; read it with: sprofil report %s\n",
			shown, shown);
	else if (o->dir)
		fprintf(stderr, "sprofil: %zu profiles, one per process, in %s (%s is the first process's); the whole tree: sprofil report %s%s (one process: sprofil report %s)\n",
			f->n, o->output, shown, o->output, sep, shown);
	else
		fprintf(stderr, "sprofil: profile in %s, and %zu of other processes beside it (<name>.<program>.<pid>); read it with: sprofil report %s (the whole tree: sprofil report --combined %s %.*s.*%s)\n",
			shown, f->n - 1, shown, shown, (int)(strlen(shown) - suffix),
			shown, suffix ? CLI_SUFFIX : "");
	return 0;
}

/* ^C during -p: stop sampling, write the profile, leave the target. */
static volatile sig_atomic_t record_interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	record_interrupted = 1;
}

enum { OPT_BACKEND = 256, OPT_MODULES, OPT_SIGDUMP, OPT_THREADS,
       OPT_NO_CALLERS, OPT_NO_UNWIND, OPT_HELP, OPT_VERSION };

static int parse(int argc, char **argv, struct record_opts *o)
{
	static const struct option longs[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "freq", required_argument, NULL, 'F' },
		{ "event", required_argument, NULL, 'e' },
		{ "count", required_argument, NULL, 'c' },
		{ "backend", required_argument, NULL, OPT_BACKEND },
		{ "modules", required_argument, NULL, OPT_MODULES },
		{ "sigdump", required_argument, NULL, OPT_SIGDUMP },
		{ "threads", no_argument, NULL, OPT_THREADS },
		{ "no-callers", no_argument, NULL, OPT_NO_CALLERS },
		{ "no-unwind", no_argument, NULL, OPT_NO_UNWIND },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->output = CLI_DEFAULT_OUTPUT;
	o->no_unwind = getenv("SPROFIL_UNWIND") &&
		       !strcmp(getenv("SPROFIL_UNWIND"), "0");
	/* '+': the program's own options are not ours. */
	while ((c = getopt_long(argc, argv, "+o:F:p:e:c:h", longs, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!*optarg) {
				cli_error("-o: empty output name");
				return -1;
			}
			o->output = optarg;
			break;
		case 'p':
			if (!all_digits(optarg) || atol(optarg) < 1 ||
			    atol(optarg) > INT_MAX) {
				cli_error("-p %s: not a process id", optarg);
				return -1;
			}
			o->attach = (pid_t)atol(optarg);
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
		case 'e':
			if (spe_lookup(optarg) < 0) {
				cli_error("-e %s: not an event (cpu-clock, page-faults, minor-faults, major-faults, context-switches, cycles, instructions, cache-misses, branch-misses)",
					  optarg);
				return -1;
			}
			o->event = optarg;
			break;
		case 'c':
			if (!all_digits(optarg) || !strtoull(optarg, NULL, 10) ||
			    strlen(optarg) > 15) {
				cli_error("-c %s: not a count of events from 1 to 10^15",
					  optarg);
				return -1;
			}
			o->count = optarg;
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
		case OPT_NO_UNWIND:
			o->no_unwind = true;
			break;
		case 'h':
		case OPT_HELP:
			fputs("usage: sprofil record [-o FILE|DIR/] [-F HZ | -e EVENT [-c N]] [--backend NAME] [--modules LIST] [--sigdump SIG] [--threads] [--no-callers] [--no-unwind] [--] PROGRAM [ARGS...]\n"
			      "       sprofil record -p PID [-o FILE|DIR/] [-F HZ | -e EVENT [-c N]] [--backend NAME] [--modules LIST] [--no-callers] [-- COMMAND [ARGS...]]\n"
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
	/*
	 * A rate is of time, a count of events: each goes with its own
	 * kind of event only.
	 */
	if (o->event && spe_lookup(o->event) != SPROFIL_EVENT_CPU_CLOCK &&
	    o->hz) {
		cli_error("-F %s: %s is counted, not timed: give its period in events with -c N",
			  o->hz, o->event);
		return -1;
	}
	if (o->count && (!o->event ||
			 spe_lookup(o->event) == SPROFIL_EVENT_CPU_CLOCK)) {
		cli_error("-c %s: a period in events needs -e EVENT other than cpu-clock (whose rate is -F HZ)",
			  o->count);
		return -1;
	}
	/* Threads are told apart by the chains' top nodes. */
	if (o->threads && o->no_callers) {
		cli_error("--threads needs caller chains: drop --no-callers");
		return -1;
	}
	if (o->attach)
		return optind;
	if (optind >= argc) {
		cli_error("record: no program given (sprofil record [options] -- PROGRAM [ARGS...])");
		return -1;
	}
	return optind;
}

/* Where the profile of process @pid, program @name, sampled from outside goes. */
static void outside_path(const struct record_opts *o, const char *name,
			 pid_t pid, char *buf, size_t size)
{
	if (o->dir)
		snprintf(buf, size, "%s%s.%d%s", o->abs, name, (int)pid,
			 CLI_SUFFIX);
	else
		snprintf(buf, size, "%s", o->abs);
}

/* The name of process @pid (its comm), for a file name. */
static void comm_of(pid_t pid, char *name, size_t size)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f || !fgets(name, (int)size, f))
		snprintf(name, size, "pid");
	if (f)
		fclose(f);
	name[strcspn(name, "\n/")] = '\0';
}

/*
 * record -p: samples until the command @cmdv (NULL: none) ends, the
 * target ends, or ^C (SIGINT, also SIGTERM and SIGHUP); the command is
 * ended with SIGTERM if it still runs.  Signals are taken only while
 * waiting (ppoll), so that none is lost before.
 */
static const int attach_sigs[] = { SIGINT, SIGTERM, SIGHUP };

/* From the start of -p: a ^C while sampling starts ends it at once. */
static void attach_catch(void)
{
	struct sigaction sa = { .sa_handler = on_interrupt };
	unsigned int i;

	for (i = 0; i < 3; i++)
		sigaction(attach_sigs[i], &sa, NULL);
}

static void attach_wait(char **cmdv, pid_t target)
{
	const int *sigs = attach_sigs;
	struct pollfd pfd[2];
	sigset_t block, old;
	pid_t cmd = -1;
	unsigned int i, n = 0;
	int fd;

	sigemptyset(&block);
	for (i = 0; i < 3; i++)
		sigaddset(&block, sigs[i]);
	sigprocmask(SIG_BLOCK, &block, &old);
	fd = (int)syscall(SYS_pidfd_open, target, 0);
	if (fd >= 0)
		pfd[n++] = (struct pollfd){ .fd = fd, .events = POLLIN };
	if (cmdv && *cmdv) {
		fflush(NULL);
		cmd = fork();
		if (!cmd) {
			sigprocmask(SIG_SETMASK, &old, NULL);
			for (i = 0; i < 3; i++)
				signal(sigs[i], SIG_DFL);
			execvp(cmdv[0], cmdv);
			cli_error("%s: %s", cmdv[0], strerror(errno));
			_exit(127);
		}
		fd = cmd > 0 ? (int)syscall(SYS_pidfd_open, cmd, 0) : -1;
		if (fd >= 0)
			pfd[n++] = (struct pollfd){ .fd = fd, .events = POLLIN };
	}
	/* No target to watch: it is gone already. */
	while (n && pfd[0].fd >= 0 && !record_interrupted &&
	       ppoll(pfd, n, NULL, &old) <= 0 && errno == EINTR)
		;
	if (cmd > 0) {
		kill(cmd, SIGTERM);
		while (waitpid(cmd, NULL, 0) < 0 && errno == EINTR)
			;
	}
	for (i = 0; i < n; i++)
		close(pfd[i].fd);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* Ends the bpf program server, if it was started. */
static void server_end(pid_t server, int lifeline)
{
	if (server <= 0)
		return;
	close(lifeline);
	while (waitpid(server, NULL, 0) < 0 && errno == EINTR)
		;
}

/*
 * The rest of a run sampled from outside (cli/outside.c): a statically
 * linked program @path, run with @argv, or the process of -p, while
 * the command @argv (if any) runs.  Returns record's exit status.
 */
static int record_outside(struct record_opts *o, const char *lib,
			  const char *path, char **argv)
{
	struct cli_outside c = { .hz = o->hz, .modules = o->modules,
				 .no_callers = o->no_callers };
	char what[PATH_MAX + 64], out[PATH_MAX * 2], pg[PATH_MAX + 64];
	char pgfile[PATH_MAX + 96], name[NAME_MAX + 1], share[64], chosen[16];
	char udir[PATH_MAX], usock[64];
	const char *base;
	struct record_files files;
	struct timespec start;
	int lifeline = -1, ulifeline = -1, status = 0, ret, r;
	pid_t target, server, userver = -1;
	siginfo_t si;
	size_t i;

	if (o->threads || o->sigdump) {
		cli_error("%s: not for a process sampled from outside (a static program, -p)",
			  o->threads ? "--threads" : "--sigdump");
		return 2;
	}
	if (o->attach) {
		attach_catch();
		if (cli_outside_allowed(o->attach))
			return 1;
		snprintf(what, sizeof(what), "-p %d", (int)o->attach);
	} else {
		snprintf(what, sizeof(what), "%s: statically linked", argv[0]);
	}
	r = cli_probe_outside(lib, o->backend, what, chosen, sizeof(chosen));
	if (r)
		return r;
	c.backend = chosen;
	if (output_prepare(o))
		return 1;
	/* The module needs no program loaded. */
	server = strcmp(chosen, "bpf") ? -1 :
		 cli_bpf_serve(share, sizeof(share), &lifeline);
	c.share = server > 0 ? share : NULL;
	/* Its modules' unwind tables, for chains through frameless code. */
	if (!o->no_callers && !o->no_unwind)
		userver = cli_unwind_serve(udir, sizeof(udir), usock,
					   sizeof(usock), &ulifeline);
	if (userver > 0) {
		c.unwind_dir = udir;
		c.unwind_server = usock;
	}
	clock_gettime(CLOCK_REALTIME_COARSE, &start);
	if (o->attach) {
		target = o->attach;
		comm_of(target, name, sizeof(name));
	} else {
		/* The -pg runtime's gmon.out, beside the profile. */
		snprintf(pg, sizeof(pg), "%.*s.sprofil-pg.%d",
			 (int)(strrchr(o->abs, '/') + 1 - o->abs), o->abs,
			 (int)getpid());
		target = cli_outside_spawn(path, argv, pg, &status);
		if (target < 0) {
			server_end(server, lifeline);
			server_end(userver, ulifeline);
			return WIFEXITED(status) && WEXITSTATUS(status) ?
			       WEXITSTATUS(status) : 1;
		}
		snprintf(pgfile, sizeof(pgfile), "%s.%d", pg, (int)target);
		base = strrchr(argv[0], '/');
		snprintf(name, sizeof(name), "%s", base ? base + 1 : argv[0]);
	}
	outside_path(o, name, target, out, sizeof(out));
	if (cli_outside_start(&c, target, out, o->attach ? NULL : pgfile)) {
		if (!o->attach) {
			/* Stopped before its first instruction: nothing ran. */
			kill(target, SIGKILL);
			cli_outside_release(target);
			while (waitpid(target, NULL, 0) < 0 && errno == EINTR)
				;
		}
		server_end(server, lifeline);
		server_end(userver, ulifeline);
		return 1;
	}
	if (o->attach) {
		attach_wait(argv, target);
	} else {
		/* ^C and ^\ are the program's; we stay to report. */
		signal(SIGINT, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
		cli_outside_release(target);
		/* Not reaped yet: its pid stays its own while it is sampled. */
		while (waitid(P_PID, target, &si, WEXITED | WNOWAIT) < 0 &&
		       errno == EINTR)
			;
	}
	ret = cli_outside_finish(&c);
	while (!o->attach && waitpid(target, &status, 0) < 0 && errno == EINTR)
		;
	server_end(server, lifeline);
	server_end(userver, ulifeline);
	find_files(o, &start, target, &files);
	r = summary(o, &files, o->attach ? what : argv[0], status);
	for (i = 0; i < files.n; i++)
		free(files.names[i]);
	free(files.names);
	if (!o->attach && WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	if (!o->attach && WEXITSTATUS(status))
		return WEXITSTATUS(status);
	return ret || r ? 1 : 0;
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
	struct record_serve sv = { NULL, NULL, NULL };
	char found[PATH_MAX], lib[PATH_MAX], path[PATH_MAX];
	char chosen[16], share[64], udir[PATH_MAX], usock[64];
	struct timespec start;
	int first, status, ret, lifeline = -1, ulifeline = -1;
	pid_t pid, server = -1, userver = -1;
	bool outside = false;
	size_t i;

	first = parse(argc, argv, &o);
	if (first < 0)
		return 2;
	if ((!o.attach && cli_program(argv[first], path, sizeof(path),
				      &outside)) ||
	    cli_find_lib(found, sizeof(found)))
		return 1;
	if (!realpath(found, lib)) {
		cli_error("%s: %s", found, strerror(errno));
		return 1;
	}
	drop_ld_profile();
	/*
	 * In our own environment: the probe, the program and the collector
	 * that samples from outside all take it from there.
	 */
	unsetenv("SPROFIL_EVENT");
	unsetenv("SPROFIL_EVENT_PERIOD");
	set_env("SPROFIL_EVENT", o.event);
	set_env("SPROFIL_EVENT_PERIOD", o.count);
	if (o.attach || outside)
		return record_outside(&o, lib, path, argv + first);
	if (cli_probe(lib, o.backend, chosen, sizeof(chosen)) ||
	    output_prepare(&o))
		return 1;
	if (!strcmp(chosen, "bpf"))
		server = cli_bpf_serve(share, sizeof(share), &lifeline);
	if (server > 0)
		sv.bpf_share = share;
	/*
	 * Every backend walks chains through code without frame pointers
	 * with unwind tables: built by the run's server, once per module,
	 * as its processes ask (docs/callers.md).
	 */
	if (!o.no_callers && !o.no_unwind)
		userver = cli_unwind_serve(udir, sizeof(udir), usock,
					   sizeof(usock), &ulifeline);
	if (userver > 0) {
		sv.unwind_dir = udir;
		sv.unwind_server = usock;
	}
	clock_gettime(CLOCK_REALTIME_COARSE, &start);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		cli_error("fork: %s", strerror(errno));
		return 1;
	}
	if (!pid)
		run_child(&o, lib, &sv, path, argv + first);
	/* ^C and ^\ are the program's; we stay to report. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			cli_error("waitpid: %s", strerror(errno));
			return 1;
		}
	server_end(server, lifeline);
	server_end(userver, ulifeline);
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
