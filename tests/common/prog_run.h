/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Running the programs under test from a cmocka driver (tests/pg): where
 * the driver is (the programs sit next to it, on the host and in the VM
 * payload), and one run of a program with a controlled environment and
 * its output captured.
 */
#ifndef SPROFIL_TEST_PROG_RUN_H
#define SPROFIL_TEST_PROG_RUN_H

#include <stddef.h>
#include <sys/types.h>

/* The directory of the running driver into @buf; 0, or -1. */
int prog_dir(char *buf, size_t size);

/* What one run of a program gave. */
struct prog_run {
	pid_t pid;
	int status;		/* as waitpid() gives it */
	char *out;		/* its stdout and stderr, NUL-terminated */
};

/*
 * Runs @path with the arguments @argv[1...] (NULL-terminated) in the
 * current directory, with only the environment it needs: PATH, the
 * driver's SPROFIL_* variables (the backend) and *SAN_OPTIONS (the
 * sanitizer builds), LC_ALL=C, and @env, NAME=VALUE pairs that take the
 * place of the driver's variables of the same name.  Its stdout and
 * stderr go into @out (@size bytes); how it ended and its first
 * @max_lines lines of output are printed as the test's messages.  Fails
 * the test when the program cannot be started.
 */
void prog_run(struct prog_run *r, const char *path, const char *const argv[],
	      const char *const env[], char *out, size_t size, int max_lines);

#endif /* SPROFIL_TEST_PROG_RUN_H */
