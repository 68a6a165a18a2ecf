// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The program record runs: found as execvp() finds it, and refused
 * with one clear line when preloading cannot reach it: a setuid, setgid
 * or file-capability program runs in the loader's secure mode, which
 * ignores LD_PRELOAD of a library outside the system paths, and would
 * run unprofiled.  A static program has no loader to preload into: it
 * is sampled from outside (outside.c).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "sprofil.h"

/* @name along $PATH as execvp() does, into @path; 0 or an errno. */
static int search_path(const char *name, char *path, size_t size)
{
	const char *dirs = getenv("PATH"), *p, *end;
	int err = ENOENT;

	if (strchr(name, '/')) {
		if ((size_t)snprintf(path, size, "%s", name) >= size)
			return ENAMETOOLONG;
		return access(path, F_OK) ? errno : 0;
	}
	if (!dirs)
		dirs = "/usr/local/bin:/usr/bin:/bin";
	for (p = dirs; ; p = end + 1) {
		end = strchrnul(p, ':');
		if ((size_t)snprintf(path, size, "%.*s%s%s", (int)(end - p), p,
				     end == p ? "" : "/", name) < size) {
			struct stat st;

			if (!stat(path, &st) && S_ISREG(st.st_mode)) {
				if (!access(path, X_OK))
					return 0;
				err = EACCES;
			}
		}
		if (!*end)
			break;
	}
	return err;
}

/* What stops @path's ELF image from being preloaded, or NULL. */
static const char *elf_problem(const char *path)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	const char *why = "statically linked: no loader to inject the collector into";
	unsigned int i;

	if (fd < 0)
		return strerror(errno);
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG)) {
		why = "not an ELF program";
		goto out;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64) {
		why = "not an x86-64 program: libsprofil is x86-64 only";
		goto out;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff +
			  (off_t)i * eh.e_phentsize) != sizeof(ph)) {
			why = "truncated ELF program headers";
			goto out;
		}
		if (ph.p_type == PT_INTERP) {
			why = NULL;
			goto out;
		}
	}
out:
	close(fd);
	return why;
}

/* The interpreter a "#!" script names, into @interp; 1 if a script. */
static int script_interpreter(const char *path, char *interp, size_t size)
{
	char line[256];
	FILE *f = fopen(path, "re");
	size_t n;
	char *p, *end;

	if (!f)
		return 0;
	n = fread(line, 1, sizeof(line) - 1, f);
	fclose(f);
	line[n] = '\0';
	if (n < 2 || line[0] != '#' || line[1] != '!')
		return 0;
	for (p = line + 2; *p == ' ' || *p == '\t'; p++)
		;
	end = p + strcspn(p, " \t\n");
	*end = '\0';
	snprintf(interp, size, "%s", p);
	return 1;
}

int cli_program(const char *name, char *path, size_t size, bool *outside)
{
	char interp[PATH_MAX];
	const char *file = path;
	struct stat st;
	const char *why;
	int err, depth;

	err = search_path(name, path, size);
	if (err == ENOENT) {
		cli_error("%s: %s", name, strchr(name, '/') ?
			  "no such file" : "command not found");
		return -1;
	}
	if (err) {
		cli_error("%s: %s", name, err == EACCES ?
			  "not executable" : strerror(err));
		return -1;
	}
	if (stat(path, &st) || !S_ISREG(st.st_mode) || access(path, X_OK)) {
		cli_error("%s: not executable", name);
		return -1;
	}
	/* A script: the interpreter is what the loader starts. */
	for (depth = 0; depth < 4 &&
	     script_interpreter(file, interp, sizeof(interp)); depth++)
		file = interp;
	if (depth && stat(file, &st)) {
		cli_error("%s: its interpreter %s: %s", name, file,
			  strerror(errno));
		return -1;
	}
	if (((st.st_mode & S_ISUID) && st.st_uid != geteuid()) ||
	    ((st.st_mode & S_ISGID) && st.st_gid != getegid())) {
		cli_error("%s: set-user-ID or set-group-ID: the loader ignores LD_PRELOAD there, so it cannot be profiled", file);
		return -1;
	}
	if (getxattr(file, "security.capability", NULL, 0) > 0) {
		cli_error("%s: has file capabilities: the loader ignores LD_PRELOAD there, so it cannot be profiled", file);
		return -1;
	}
	why = elf_problem(file);
	/* No loader: sampled from outside instead, if the caller can. */
	*outside = why && !strncmp(why, "statically linked", 17);
	if (*outside)
		return 0;
	if (why) {
		cli_error("%s: %s", file, why);
		return -1;
	}
	return 0;
}
