/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Several programs' profiles at once (--combined; `sprofil report DIR/`):
 * the profiles of a recorded process tree, each read into a profile of
 * its program (runs of one build summed), reported as a process table
 * and one flat profile across the programs (tree_report.c), or one
 * program's or process's files handed back for the usual report
 * (--program).  tree_scan.c reads what each file says of its process
 * and program, through the format's codec, without the symbols.
 */
#ifndef GPROF_TREE_REPORT_H
#define GPROF_TREE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pipeline/pipeline.h"

/* One profile file: its process, its program, its samples. */
struct tree_proc {
	char *path;		/* the profile file */
	uint32_t pid, ppid;	/* ppid 0: unknown */
	bool has_pid;		/* from the process record or the name */
	bool cpu_known;
	uint64_t cpu_ns;
	uint64_t start_ns;	/* 0: unknown */
	char comm[17];
	char *main_path;	/* the main module record's name */
	unsigned char *build_id;
	size_t build_id_len;
	uint64_t samples;	/* the histograms' counts, as the file has them */
	char *bad;		/* why the file is skipped, or NULL */
	bool gnu;		/* a GNU gmon.out, named by its sidecar */
	unsigned int program;	/* index of its program */
	char *top;		/* its function with most samples, or NULL */
	uint64_t top_samples;
	int parent;		/* row of its parent process, or -1 */
};

/*
 * Reads @path's process and program (module and process records) and
 * counts its histograms' samples; on a problem, p->bad says it (one
 * line without the file name).
 */
void tree_scan(struct tree_proc *p, const char *path);
/* The same of the file @path's bytes @buf (@len), already read. */
void tree_scan_buf(struct tree_proc *p, const char *path,
		   const unsigned char *buf, size_t len);
/*
 * The function of @prof (read from @p's program) with the most of @p's
 * own samples, into p->top (display name) and p->top_samples.
 */
void tree_scan_top(struct tree_proc *p, struct profile *prof,
		   const struct gprof_options *opt);
void tree_scan_top_buf(struct tree_proc *p, const unsigned char *buf,
		       size_t len, struct profile *prof,
		       const struct gprof_options *opt);
/*
 * A GNU gmon.out's samples and top function, from @prof, its own file
 * read alone: tree_scan() could not count them.
 */
void tree_scan_alone(struct tree_proc *p, struct profile *prof,
		     const struct gprof_options *opt);
void tree_proc_free(struct tree_proc *p);

/* --program's choice: the files to report on and their executable. */
struct tree_selection {
	char **files;
	int nfiles;
	char *a_out;
};

/*
 * --combined over @operands (profile files, directories of *.gmon):
 * prints the process table and the combined flat profile and returns
 * the exit status; with --program, fills @sel and returns -1 for
 * main.c's usual report of them.
 */
int tree_report(const struct gprof_options *opt, char *const *operands,
		int n, struct tree_selection *sel);
void tree_selection_free(struct tree_selection *sel);

/*
 * --export=callgrind or dot of the tree (tree_files.c): a file per
 * program in --output-dir, renamed into place only when all are whole.
 */
struct tree_files {
	const struct gprof_options *opt;
	bool made_dir;		/* the directory is ours, to take back */
	char *ext;		/* the files' extension */
	char **tmp, **final;	/* each file's temporary and final names */
	size_t n, cap;
};

/* The directory checked (made when missing); 0, or -1 and why in @err. */
int tree_files_begin(struct tree_files *tf, const struct gprof_options *opt,
		     char *err, size_t errlen);
/*
 * @prof (the program @label's, analyzed with @opt) exported into its
 * file, under a temporary name; 0, or -1 and why in @err.
 */
int tree_files_write(struct tree_files *tf, const char *label,
		     struct profile *prof, const struct gprof_options *opt,
		     char *err, size_t errlen);
/*
 * With @keep, every file renamed to its name, the names listed on
 * stdout; else (or when a rename fails: -1 and why in @err) none left.
 */
int tree_files_end(struct tree_files *tf, bool keep, char *err,
		   size_t errlen);

#endif /* GPROF_TREE_REPORT_H */
