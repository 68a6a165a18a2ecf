/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sprofil command (docs/record.md): `sprofil record` runs a program
 * with libsprofil preloaded as a collector, `sprofil report` reads what
 * it wrote with the analyzer.  One file per part:
 *   main.c       the subcommands
 *   record.c     record's options, the run and its summary line
 *   program.c    finding the program and refusing what cannot be preloaded
 *   probe.c      whether the backend asked for can sample here, through
 *   probe_helper.c  sprofil-probe, the one dynamic program of the set
 *   locate.c     libsprofil.so and the analyzer, found from our own path
 *   report.c     report's files, program and command line
 *   profile.c    what a profile file says about its program
 *   outside.c    a static program or a running process (-p), sampled
 *                from outside by sprofil-outside (outside_helper.c)
 */
#ifndef SPROFIL_CLI_H
#define SPROFIL_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The default output of record, and the suffix of every file it writes. */
#define CLI_DEFAULT_OUTPUT	"sprofil.gmon"
#define CLI_SUFFIX		".gmon"

int cli_record(int argc, char **argv);
int cli_report(int argc, char **argv);
/* sprofil diff: the analyzer's --diff (gprof/diff/); exit 0, 1 or 2. */
int cli_diff(int argc, char **argv);

/*
 * Resolves @name as execvp() would into @path; checks that it can be
 * profiled by preloading, or, when *@outside is set, from outside (a
 * statically linked program: *@outside set).  Returns 0, or prints one
 * line naming the problem and returns -1.
 */
int cli_program(const char *name, char *path, size_t size, bool *outside);

/*
 * Starts and stops sampling once in a child process with @lib on
 * backend @backend (NULL: auto), the backend chosen into @chosen.
 * Returns 0, or prints one line naming why no backend can sample and
 * returns -1.
 */
int cli_probe(const char *lib, const char *backend, char *chosen,
	      size_t size);

/*
 * Which backend samples from outside for @what (the start of the line
 * that says why not): --backend @backend (NULL: auto, which tries kmod,
 * then bpf), into @chosen.  Returns 0, 2 for a backend that cannot
 * (usage), or 1 when none can here, after one line.
 */
int cli_probe_outside(const char *lib, const char *backend,
		      const char *what, char *chosen, size_t size);

/* A process sampled from outside (outside.c). */
struct cli_outside {
	const char *backend;			/* kmod or bpf */
	const char *hz, *modules, *share;	/* NULL: the default */
	/* The run's unwind tables and their server, or NULL: none. */
	const char *unwind_dir, *unwind_server;
	bool no_callers;
	pid_t collector;			/* sprofil-outside */
	int ctl;				/* its stdin: closed, it stops */
};

/*
 * Starts sprofil-outside sampling @pid into @path (with the call arcs
 * of @pg_file, the GNU gmon.out of a -pg program, when given) and waits
 * until it samples.  Returns 0, or -1 after one line.
 */
int cli_outside_start(struct cli_outside *c, pid_t pid, const char *path,
		      const char *pg_file);
/* Stops it: it writes the profile.  Returns 0, or -1 (it said why). */
int cli_outside_finish(struct cli_outside *c);

/*
 * Runs @path with @argv stopped at its first instruction (ptrace), its
 * -pg runtime's gmon.out going to @pg_prefix.<pid>; returns its pid, or
 * -1 after one line (*@status then holds its wait status, if it ran).
 */
pid_t cli_outside_spawn(const char *path, char **argv, const char *pg_prefix,
			int *status);
/* Lets the stopped @pid run, no longer traced. */
void cli_outside_release(pid_t pid);

/*
 * Whether this user may sample process @pid: 0, or -1 after one line
 * (no such process, another user's, ptrace rules).
 */
int cli_outside_allowed(pid_t pid);

/*
 * Starts the run's bpf program server: its pid, the socket's @name and
 * the pipe end that keeps it alive, or -1 (probe.c).
 */
pid_t cli_bpf_serve(char *name, size_t size, int *lifeline);

/* The servers' common start (probe.c): a socket name, the helper run. */
void cli_socket_name(const char *what, char *name, size_t size);
pid_t cli_serve(const char *helper, char *const argv[], int *lifeline);

/*
 * The run's unwind tables (unwind_cache.c): @dir, the per-user cache
 * made ready and checked, and its server started (-1: none, after a
 * line saying why; chains then stop where frame pointers do).
 */
pid_t cli_unwind_serve(char *dir, size_t dsize, char *name, size_t nsize,
		       int *lifeline);

/* Paths next to our own executable; 0, or -1 after one line on stderr. */
int cli_find_lib(char *path, size_t size);
int cli_find_gprof(char *path, size_t size);
int cli_find_probe(char *path, size_t size);
int cli_find_outside(char *path, size_t size);
int cli_find_unwind(char *path, size_t size);

/*
 * The main executable a profile file names (the module record flagged
 * main), into @path.  Returns 1 when found, 0 for a profile that names
 * none (a GNU gmon.out), -1 when @file is not a profile.
 */
int cli_profile_program(const char *file, char *path, size_t size);

/* Prints "sprofil: " and the message, one line. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
