/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The -pg drivers' shared runner and GNU gprof readers (pg_report.c). */
#ifndef SPROFIL_PG_REPORT_H
#define SPROFIL_PG_REPORT_H

#include <limits.h>
#include <stddef.h>
#include "prog_run.h"

/* Where the driver, the programs, gprof and libsprofil are (locate()). */
extern char bindir[PATH_MAX / 2];
extern char libpath[PATH_MAX];
extern char gprof[PATH_MAX];

/* A function's line of the flat profile. */
struct flat {
	int listed;
	double pct, self;
	long calls;		/* -1: no call count (not called via mcount) */
};

/* Finds the programs next to the driver, libsprofil and gprof. */
int locate(void);
void prog_path(char *buf, size_t size, const char *name);
/* Runs program @argv[0] next to the driver with only @env (prog_run()). */
void run(struct prog_run *r, const char *const argv[],
	 const char *const env[]);
void assert_exited_ok(const struct prog_run *r);
/* The profiles in directory @path (caller-chain files not counted). */
int dir_entries(const char *path);
void assert_file(const char *path);
/* GNU gprof -b @opt's report of @file by @prog: malloc()ed. */
char *gprof_report(const char *prog, const char *file, const char *opt);
int tokens(char *line, char **tok, int max);
char *next_line(const char **text, char *buf, size_t size);
struct flat flat_line(const char *report, const char *func);
long cg_calls(const char *report, const char *func, const char *parent);
/* pg_shape.c's exact counts and sampled busy() in @file. */
void check_shape(const char *prog, const char *file);
/* pg_threads.c's tick() calls in the profile @prog writes with @env. */
long thread_calls(const char *prog, const char *const env[],
		  long *from_worker);
/* pg_fork.c's processes: their pids, and each one's file. */
void fork_pids(const struct prog_run *r, int *a, int *b, int *parent);
void check_fork_file(const char *prog, const char *file, const char *own,
		     long n, const char *const absent[]);
void check_fork_files(const char *prog, const char *parent, const char *a,
		      const char *b);
/* pg_sigdump.c's dump @file: which of work_a, _b, _c it holds. */
void check_sigdump_file(const char *prog, const char *file, int a, int b,
			int c);
/* pg_sigdump.c @prog run with two SIGUSR1 dumps, then its exit's. */
void check_sigdump_run(const char *prog);

#endif
