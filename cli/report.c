// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sprofil report [gprof options] [[PROGRAM] PROFILE...]: the analyzer
 * (sprofil-gprof, GNU gprof's options) on profiles written by record,
 * the program taken from the first profile's main module record, so
 * that no path needs typing.  Without a profile it reads the newest
 * "*.gmon" in the current directory: what record wrote last there.
 * A directory (what record -o DIR/ wrote), profiles of more than one
 * program, or --program/--strict/--output-dir ask for the combined
 * report of a process tree: the analyzer's --combined, each profile
 * naming its program (docs/gprof.md).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sprofil.h"

static bool is_elf(const char *path)
{
	unsigned char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool elf;

	if (fd < 0)
		return false;
	elf = read(fd, magic, 4) == 4 && !memcmp(magic, "\177ELF", 4);
	close(fd);
	return elf;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* Whether @arg names a profile file by its name (it may be corrupt). */
static bool profile_named(const char *arg)
{
	size_t n = strlen(arg), s = strlen(CLI_SUFFIX);

	return n > s && !strcmp(arg + n - s, CLI_SUFFIX) && !is_dir(arg);
}

/*
 * Whether the command asks for the combined report: an option only it
 * has, or trailing operands (profiles, directories) that hold a
 * directory or the profiles of more than one program.
 */
static bool combined(int argc, char **argv)
{
	char first[PATH_MAX] = "", prog[PATH_MAX];
	bool many = false;
	int i;

	bool one = false;

	for (i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--program", 9) ||
		    !strncmp(argv[i], "--output-dir", 12) ||
		    !strcmp(argv[i], "--strict") ||
		    !strcmp(argv[i], "--combined"))
			return true;
		/*
		 * -s and --extract-module write one program's file: several
		 * programs' profiles are then refused by the analyzer.
		 */
		if (!strcmp(argv[i], "--sum") ||
		    !strncmp(argv[i], "--extract-module", 16) ||
		    (argv[i][0] == '-' && argv[i][1] != '-' &&
		     strchr(argv[i] + 1, 's')))
			one = true;
	}
	for (i = argc - 1; i > 0 && argv[i][0] != '-'; i--) {
		int found;

		if (is_dir(argv[i]))
			return true;
		found = cli_profile_program(argv[i], prog, sizeof(prog));
		if (found < 0 && !profile_named(argv[i]))
			break;
		if (found <= 0)
			continue;
		if (first[0] && strcmp(first, prog) && !one)
			many = true;
		snprintf(first, sizeof(first), "%s", prog);
	}
	return many;
}

/* The newest regular "*.gmon" here, into @name; 0 or -1. */
static int newest_profile(char *name, size_t size)
{
	struct timespec newest = { 0, 0 };
	struct dirent *de;
	struct stat st;
	DIR *d = opendir(".");
	size_t s = strlen(CLI_SUFFIX);
	int ret = -1;

	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (n <= s || strcmp(de->d_name + n - s, CLI_SUFFIX) ||
		    stat(de->d_name, &st) || !S_ISREG(st.st_mode))
			continue;
		if (ret && st.st_mtim.tv_sec < newest.tv_sec)
			;
		else if (!ret && (st.st_mtim.tv_sec < newest.tv_sec ||
				  (st.st_mtim.tv_sec == newest.tv_sec &&
				   st.st_mtim.tv_nsec <= newest.tv_nsec)))
			continue;
		newest = st.st_mtim;
		snprintf(name, size, "%s", de->d_name);
		ret = 0;
	}
	if (d)
		closedir(d);
	return ret;
}

int cli_report(int argc, char **argv)
{
	char gprof[PATH_MAX], prog[PATH_MAX], deflt[NAME_MAX + 1];
	char **args;
	int first, nopts, n = 0, i, found;
	const char *user_prog = NULL;
	char *files_default[1];
	char **files;
	int nfiles;

	/* Ours, not the analyzer's: report's own usage comes first. */
	if (argc == 2 && (!strcmp(argv[1], "--help") ||
			  !strcmp(argv[1], "-h"))) {
		fputs("usage: sprofil report [sprofil-gprof options] [[PROGRAM] PROFILE...]\n"
		      "   or: sprofil report [--program=NAME|PID] [--strict] DIR/|PROFILE...\n"
		      "Reads the profiles (default: the newest *" CLI_SUFFIX " here) with the\n"
		      "program and modules named in them.  The options are GNU gprof's\n"
		      "plus sprofil's: -b brief, -p flat profile, -q call graph, -l lines,\n"
		      "--estimated-times, --export=FORMAT.\n"
		      "A directory (record -o DIR/) or several programs' profiles: the\n"
		      "process tree, each program's totals and one flat profile across\n"
		      "them; --program=NAME|PID|NAME@PID: that one's full report;\n"
		      "--export=callgrind|dot --output-dir=DIR: a file per program.\n"
		      "sprofil " SPROFIL_VERSION "; see sprofil(1) and sprofil-gprof(1).\n",
		      stdout);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--version")) {
		puts("sprofil " SPROFIL_VERSION);
		return 0;
	}
	if (cli_find_gprof(gprof, sizeof(gprof)))
		return 1;
	if (combined(argc, argv)) {
		args = calloc(argc + 2, sizeof(*args));
		if (!args) {
			cli_error("out of memory");
			return 1;
		}
		unsetenv("LD_PROFILE");
		args[n++] = gprof;
		args[n++] = "--combined";
		for (i = 1; i < argc; i++)
			args[n++] = argv[i];
		execv(gprof, args);
		cli_error("%s: %s", gprof, strerror(errno));
		return 1;
	}
	/* The profiles: the trailing arguments that are profile files. */
	for (first = argc; first > 1 &&
	     cli_profile_program(argv[first - 1], prog, sizeof(prog)) >= 0;
	     first--)
		;
	nopts = first - 1;
	if (nopts > 0 && first < argc && argv[first - 1][0] != '-' &&
	    is_elf(argv[first - 1])) {
		user_prog = argv[first - 1];
		nopts--;
	}
	files = argv + first;
	nfiles = argc - first;
	/* A last operand that is no file is a typo, not an option's value. */
	if (!nfiles && argc > 1 && argv[argc - 1][0] != '-' &&
	    access(argv[argc - 1], F_OK)) {
		cli_error("%s: %s", argv[argc - 1], strerror(errno));
		return 1;
	}
	if (!nfiles && argc > 1 && argv[argc - 1][0] != '-' &&
	    is_elf(argv[argc - 1])) {
		user_prog = argv[argc - 1];
		nopts--;
	}
	if (!nfiles) {
		if (newest_profile(deflt, sizeof(deflt))) {
			cli_error("no profile given, and no *%s here (sprofil record writes %s)",
				  CLI_SUFFIX, CLI_DEFAULT_OUTPUT);
			return 1;
		}
		fprintf(stderr, "sprofil: reading %s\n", deflt);
		files_default[0] = deflt;
		files = files_default;
		nfiles = 1;
	}
	found = cli_profile_program(files[0], prog, sizeof(prog));
	if (found < 0) {
		cli_error("%s: not a profile", files[0]);
		return 1;
	}
	if (!user_prog && !found) {
		cli_error("%s names no program (a GNU gmon.out): sprofil report PROGRAM %s",
			  files[0], files[0]);
		return 1;
	}
	args = calloc(nopts + nfiles + 3, sizeof(*args));
	if (!args) {
		cli_error("out of memory");
		return 1;
	}
	/* It would wake ld.so's own profiler in the analyzer. */
	unsetenv("LD_PROFILE");
	args[n++] = gprof;
	for (i = 1; i <= nopts; i++)
		args[n++] = argv[i];
	args[n++] = user_prog ? (char *)user_prog : prog;
	for (i = 0; i < nfiles; i++)
		args[n++] = files[i];
	execv(gprof, args);
	cli_error("%s: %s", gprof, strerror(errno));
	return 1;
}
