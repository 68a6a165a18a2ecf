/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The analyzer's options: what the command line (main.c) asked for,
 * filled while it is parsed and only read after that.  Every part that
 * an option changes takes them as a const pointer, so that nothing but
 * the parser can change them and two profiles can be read with options
 * of their own.
 */
#ifndef GPROF_OPTIONS_H
#define GPROF_OPTIONS_H

#include <stdbool.h>

/* -O: how profile files are read. */
enum file_format { FF_AUTO, FF_MAGIC, FF_BSD, FF_BSD44, FF_PROF };

/* Output styles, as GNU's -p -q -C -A -i -r -R -s select them. */
enum {
	STYLE_FLAT_PROFILE = 1 << 0,
	STYLE_CALL_GRAPH = 1 << 1,
	STYLE_SUMMARY_FILE = 1 << 2,
	STYLE_EXEC_COUNTS = 1 << 3,
	STYLE_ANNOTATED_SOURCE = 1 << 4,
	STYLE_GMON_INFO = 1 << 5,
	STYLE_FUNCTION_ORDER = 1 << 6,
	STYLE_FILE_ORDER = 1 << 7,
};

struct gprof_options {
	const char *whoami;	/* messages start with it (argv[0]) */
	const char *a_out_name;	/* the executable (module 0) */
	int output_style;	/* STYLE_* the user asked for, 0: default */
	int user_specified;	/* STYLE_* named by an option, on or off */
	int output_width;	/* -w */
	bool bsd_style_output;	/* -T */
	bool print_descriptions;	/* !-b */
	bool demangle;
	bool ignore_zeros;	/* !-z */
	bool ignore_static_funcs;	/* -a */
	bool ignore_non_functions;	/* -D */
	bool ignore_direct_calls;	/* -c */
	bool line_granularity;	/* -l (and -s) */
	bool print_path;	/* -L */
	bool inline_file_names;
	bool bb_annotate_all_lines;	/* -x */
	bool create_annotation_files;	/* -y */
	unsigned long bb_min_calls;	/* -m */
	int bb_table_length;	/* -t */
	enum file_format file_format;	/* -O */
	const char *function_mapping_file;	/* -R */
	const char *external_symbol_table;	/* -S */
	const char *extract_module;	/* --extract-module */
	const char *extract_to;		/* --extract-to */
	const char *export_format;	/* --export, or NULL */
	/* --node-threshold, --edge-threshold: percent of the time (dot). */
	double node_threshold, edge_threshold;
	const char *render_format;	/* --render, or NULL */
	/*
	 * --estimated-times: GNU's propagation by call counts even when
	 * the profile has caller samples.
	 */
	bool estimated_times;
	/* --debug-file-directory: the root of separate debug files. */
	const char *debug_file_directory;
	/* --threads: print the per-thread table instead of the reports. */
	bool threads_report;
	/* --thread=TID|NAME: the threads reported on, or NULL for all. */
	const char *thread_selection;
	/*
	 * --combined: the operands are profiles of any programs, or their
	 * directories (tree_report.c), not an executable and its profiles.
	 */
	bool combined;
	/* --program=NAME|PID: that program's or process's usual report. */
	const char *program;
	/* --strict: a profile that cannot be read stops the report. */
	bool strict;
	/*
	 * --per-process: the combined exports (folded, pprof) by process,
	 * each file read alone, not by program.
	 */
	bool per_process;
	/*
	 * --output-dir=DIR: the combined --export=callgrind or dot, one
	 * file per program in DIR (tree_files.c), or NULL.
	 */
	const char *output_dir;
};

/* GNU's defaults: what an empty command line asks for. */
void gprof_options_init(struct gprof_options *opt);

#endif /* GPROF_OPTIONS_H */
