// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The combined report's exports that are one program's call graph
 * (--export=callgrind, dot; --render): one file per program, in
 * --output-dir's directory, named after the program's label
 * (cli-tree.callgrind, cc1[4f2a9c1e].dot).
 *
 * Each program's profile, its runs summed, goes through the exporter
 * of one profile as it is, with stdout sent to a file of its own for
 * the while.  The files are written under temporary names and renamed
 * only once every program's is whole, so that a failure (a full disk,
 * a directory that cannot be written) leaves none of them behind, nor
 * clobbers the files of an earlier run; a directory made for them goes
 * too.  The names written are listed on stdout, one a line.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipeline/tree_report.h"

int tree_files_begin(struct tree_files *tf, const struct gprof_options *opt,
		     char *err, size_t errlen)
{
	struct stat st;

	memset(tf, 0, sizeof(*tf));
	tf->opt = opt;
	if (!stat(opt->output_dir, &st)) {
		if (!S_ISDIR(st.st_mode))
			return errorf(err, errlen,
				      "--output-dir=%s: not a directory",
				      opt->output_dir);
	} else if (errno != ENOENT || mkdir(opt->output_dir, 0777)) {
		return errorf(err, errlen, "--output-dir=%s: %s",
			      opt->output_dir, strerror(errno));
	} else {
		tf->made_dir = true;
	}
	/* --render=svg:cairo: the file is an .svg. */
	tf->ext = xstrdup(opt->render_format ? opt->render_format :
			  opt->export_format);
	tf->ext[strcspn(tf->ext, ":")] = '\0';
	return 0;
}

/* @label as a file name: no '/' (a program's path may be in it). */
static char *file_name(const struct tree_files *tf, const char *label)
{
	const char *dir = tf->opt->output_dir;
	size_t len = strlen(dir), i;
	char *name = xmalloc(len + strlen(label) + strlen(tf->ext) + 3);
	char *base;

	sprintf(name, "%s%s", dir, len && dir[len - 1] == '/' ? "" : "/");
	base = name + strlen(name);
	for (i = 0; label[i]; i++)
		base[i] = label[i] == '/' ? '_' : label[i];
	sprintf(base + i, ".%s", tf->ext);
	return name;
}

/* Stdout into @fd while @prof is exported; 0, or -1 and prof->error. */
static int export_to(struct profile *prof, const struct gprof_options *opt,
		     int fd)
{
	int saved, r, e = 0;

	if (fflush(stdout))
		return profile_error(prof, "standard output: %s",
				     strerror(errno));
	saved = fcntl(1, F_DUPFD_CLOEXEC, 3);
	if (saved < 0 || dup2(fd, 1) < 0) {
		e = errno;
		if (saved >= 0)
			close(saved);
		return profile_error(prof, "redirecting stdout: %s",
				     strerror(e));
	}
	r = export_rendered(prof, opt);
	if ((fflush(stdout) || ferror(stdout)) && !r) {
		e = errno ? errno : EIO;
		r = -1;
	}
	clearerr(stdout);
	if (dup2(saved, 1) < 0 && !r) {
		e = errno;
		r = -1;
	}
	close(saved);
	if (e)
		profile_error(prof, "%s", strerror(e));
	return r;
}

int tree_files_write(struct tree_files *tf, const char *label,
		     struct profile *prof, const struct gprof_options *opt,
		     char *err, size_t errlen)
{
	char *name = file_name(tf, label), *tmp;
	const char *base = strrchr(name, '/') + 1;
	size_t i;
	int fd, r;

	for (i = 0; i < tf->n; i++)
		if (!strcmp(tf->final[i], name)) {
			errorf(err, errlen,
			       "--output-dir: two programs would write %s",
			       name);
			free(name);
			return -1;
		}
	tmp = xmalloc(strlen(name) + 10);
	sprintf(tmp, "%.*s.%s.XXXXXX", (int)(base - name), name, base);
	fd = mkstemp(tmp);
	if (fd < 0) {
		errorf(err, errlen, "%s: %s", name, strerror(errno));
		free(tmp);
		free(name);
		return -1;
	}
	if (tf->n == tf->cap) {
		tf->cap = tf->cap * 2 + 8;
		tf->tmp = xreallocarray(tf->tmp, tf->cap, sizeof(*tf->tmp));
		tf->final = xreallocarray(tf->final, tf->cap,
					  sizeof(*tf->final));
	}
	tf->tmp[tf->n] = tmp;
	tf->final[tf->n++] = name;
	r = export_to(prof, opt, fd);
	if (close(fd) && !r) {
		profile_error(prof, "%s", strerror(errno));
		r = -1;
	}
	if (r)
		errorf(err, errlen, "%s: %s", name, prof->error);
	return r;
}

int tree_files_end(struct tree_files *tf, bool keep, char *err,
		   size_t errlen)
{
	size_t i, done = 0;
	int r = 0;

	for (i = 0; keep && i < tf->n; i++, done++)
		if (rename(tf->tmp[i], tf->final[i])) {
			r = errorf(err, errlen, "%s: %s", tf->final[i],
				   strerror(errno));
			break;
		}
	/* A rename that failed takes back those made before it. */
	for (i = 0; i < tf->n; i++)
		if (r || i >= done)
			unlink(i < done ? tf->final[i] : tf->tmp[i]);
	if ((!keep || r) && tf->made_dir)
		rmdir(tf->opt->output_dir);
	for (i = 0; i < tf->n; i++) {
		if (keep && !r)
			printf("%s\n", tf->final[i]);
		free(tf->tmp[i]);
		free(tf->final[i]);
	}
	free(tf->tmp);
	free(tf->final);
	free(tf->ext);
	return r;
}
