// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gprof: GNU gprof's command line, and its phases (pipeline.c) over
 * sprofil's readers.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <libiberty.h>
#include <demangle.h>

#include "pipeline/pipeline.h"
#include "read/threads.h"
#include "pipeline/tree_report.h"
#include "diff/diff.h"

enum {
	OPTION_DEMANGLE = 256,
	OPTION_NO_DEMANGLE,
	OPTION_INLINE_FILE_NAMES,
	OPTION_EXTRACT_MODULE,
	OPTION_EXTRACT_TO,
	OPTION_EXPORT,
	OPTION_ESTIMATED_TIMES,
	OPTION_DEBUG_FILE_DIRECTORY,
	OPTION_THREADS,
	OPTION_THREAD,
	OPTION_NODE_THRESHOLD,
	OPTION_EDGE_THRESHOLD,
	OPTION_RENDER,
	OPTION_COMBINED,
	OPTION_PROGRAM,
	OPTION_STRICT,
	OPTION_PER_PROCESS,
	OPTION_OUTPUT_DIR,
};

static const struct option long_options[] = {
	{ "line", no_argument, NULL, 'l' },
	{ "no-static", no_argument, NULL, 'a' },
	{ "ignore-non-functions", no_argument, NULL, 'D' },
	{ "external-symbol-table", required_argument, NULL, 'S' },
	{ "annotated-source", optional_argument, NULL, 'A' },
	{ "no-annotated-source", optional_argument, NULL, 'J' },
	{ "flat-profile", optional_argument, NULL, 'p' },
	{ "no-flat-profile", optional_argument, NULL, 'P' },
	{ "graph", optional_argument, NULL, 'q' },
	{ "no-graph", optional_argument, NULL, 'Q' },
	{ "exec-counts", optional_argument, NULL, 'C' },
	{ "no-exec-counts", optional_argument, NULL, 'Z' },
	{ "function-ordering", no_argument, NULL, 'r' },
	{ "file-ordering", required_argument, NULL, 'R' },
	{ "file-info", no_argument, NULL, 'i' },
	{ "sum", no_argument, NULL, 's' },
	{ "all-lines", no_argument, NULL, 'x' },
	{ "demangle", optional_argument, NULL, OPTION_DEMANGLE },
	{ "no-demangle", no_argument, NULL, OPTION_NO_DEMANGLE },
	{ "directory-path", required_argument, NULL, 'I' },
	{ "display-unused-functions", no_argument, NULL, 'z' },
	{ "inline-file-names", no_argument, NULL, OPTION_INLINE_FILE_NAMES },
	{ "min-count", required_argument, NULL, 'm' },
	{ "print-path", no_argument, NULL, 'L' },
	{ "separate-files", no_argument, NULL, 'y' },
	{ "static-call-graph", no_argument, NULL, 'c' },
	{ "table-length", required_argument, NULL, 't' },
	{ "time", required_argument, NULL, 'n' },
	{ "no-time", required_argument, NULL, 'N' },
	{ "width", required_argument, NULL, 'w' },
	{ "brief", no_argument, NULL, 'b' },
	{ "debug", optional_argument, NULL, 'd' },
	{ "help", no_argument, NULL, 'h' },
	{ "file-format", required_argument, NULL, 'O' },
	{ "traditional", no_argument, NULL, 'T' },
	{ "version", no_argument, NULL, 'v' },
	{ "extract-module", required_argument, NULL, OPTION_EXTRACT_MODULE },
	{ "extract-to", required_argument, NULL, OPTION_EXTRACT_TO },
	{ "export", required_argument, NULL, OPTION_EXPORT },
	{ "threads", no_argument, NULL, OPTION_THREADS },
	{ "thread", required_argument, NULL, OPTION_THREAD },
	{ "estimated-times", no_argument, NULL, OPTION_ESTIMATED_TIMES },
	{ "debug-file-directory", required_argument, NULL,
	  OPTION_DEBUG_FILE_DIRECTORY },
	{ "node-threshold", required_argument, NULL, OPTION_NODE_THRESHOLD },
	{ "edge-threshold", required_argument, NULL, OPTION_EDGE_THRESHOLD },
	{ "render", required_argument, NULL, OPTION_RENDER },
	{ "combined", no_argument, NULL, OPTION_COMBINED },
	{ "program", required_argument, NULL, OPTION_PROGRAM },
	{ "strict", no_argument, NULL, OPTION_STRICT },
	{ "per-process", no_argument, NULL, OPTION_PER_PROCESS },
	{ "output-dir", required_argument, NULL, OPTION_OUTPUT_DIR },
	{ NULL, 0, NULL, 0 }
};

static void usage(const char *whoami, FILE *f, int status)
{
	fprintf(f,
"Usage: %s [-[abcDhilLrsTvwxyz]] [-[ABCeEfFJnNOpPqQRStZ][name]] [-I dirs]\n"
"\t[-d[num]] [-k from/to] [-m min-count] [-t table-length]\n"
"\t[--[no-]annotated-source[=name]] [--[no-]exec-counts[=name]]\n"
"\t[--[no-]flat-profile[=name]] [--[no-]graph[=name]]\n"
"\t[--[no-]time=name] [--all-lines] [--brief] [--debug[=level]]\n"
"\t[--function-ordering] [--file-ordering] [--inline-file-names]\n"
"\t[--directory-path=dirs] [--display-unused-functions]\n"
"\t[--file-format=name] [--file-info] [--help] [--line] [--min-count=n]\n"
"\t[--no-static] [--print-path] [--separate-files]\n"
"\t[--static-call-graph] [--sum] [--table-length=len] [--traditional]\n"
"\t[--version] [--width=n] [--ignore-non-functions]\n"
"\t[--demangle[=STYLE]] [--no-demangle] [--external-symbol-table=name]\n"
"\t[--extract-module=MODULE [--extract-to=FILE]]\n"
"\t[--export=callgrind|pprof|dot|json|folded|flamegraph|icicle]\n"
"\t[--node-threshold=PCT] [--edge-threshold=PCT] [--render=FORMAT]\n"
"\t[--estimated-times] [@FILE]\n"
"\t[--debug-file-directory=DIR] [--threads] [--thread=TID|NAME]\n"
"\t[image-file] [profile-file...]\n"
"   or: %s --combined [--program=NAME|PID] [--strict] [--per-process]\n"
"\t[--export=callgrind|dot --output-dir=DIR] [options] profile-or-directory...\n"
"Reads GNU gmon.out (also the BSD formats) and sprofil's multi-module\n"
"profiles, and several programs' at once (--combined: a process tree's\n"
"report); see sprofil-gprof(1).\n", whoami, whoami);
	exit(status);
}

/* A percentage from 0 to 100 into *@v: 0, or -1 and why in @err. */
static int percent_arg(const char *option, const char *arg, double *v,
		       char *err, size_t errlen)
{
	char *end;

	errno = 0;
	*v = strtod(arg, &end);
	if (errno || end == arg || *end || !(*v >= 0 && *v <= 100))
		return errorf(err, errlen,
			      "%s: `%s' is not a percentage from 0 to 100",
			      option, arg);
	return 0;
}

/*
 * -A -C -p and their negations: an optional symspec, else @style on
 * (@on) or off.
 */
static void style_option(struct gprof_options *opt, int style,
			 enum table_id table, bool on)
{
	if (optarg)
		sym_id_add(optarg, table);
	opt->user_specified |= style;
	if (on || optarg)
		opt->output_style |= style;
	else
		opt->output_style &= ~style;
}

/*
 * Fills @opt from the command line (@argc, @argv as expandargv() left
 * them); returns the index of the first operand, or -1 and why (one
 * line) in @err.
 */
static int parse_options(struct gprof_options *opt, int argc, char **argv,
			 char *err, size_t errlen)
{
	int ch;
	const char *env;

	while ((ch = getopt_long(argc, argv,
		"aA::bBcC::d::De:E:f:F:hiI:J::k:lLm:n:N:O:p::P::q::Q::rR:sS:t:Tvw:xyzZ::",
				 long_options, NULL)) != -1) {
		switch (ch) {
		case 'a':
			opt->ignore_static_funcs = true;
			break;
		case 'A':
			style_option(opt, STYLE_ANNOTATED_SOURCE, INCL_ANNO,
				     true);
			break;
		case 'b':
			opt->print_descriptions = false;
			break;
		case 'B':
			opt->output_style |= STYLE_CALL_GRAPH;
			opt->user_specified |= STYLE_CALL_GRAPH;
			break;
		case 'c':
			opt->ignore_direct_calls = true;
			break;
		case 'C':
			style_option(opt, STYLE_EXEC_COUNTS, INCL_EXEC, true);
			break;
		case 'd':
			/* GNU's -d needs a DEBUG build of gprof too. */
			fprintf(stderr, "%s: debugging output is not supported; "
				"-d ignored\n", opt->whoami);
			break;
		case 'D':
			opt->ignore_non_functions = true;
			break;
		case 'E':
			sym_id_add(optarg, EXCL_TIME);
			sym_id_add(optarg, EXCL_GRAPH);
			break;
		case 'e':
			sym_id_add(optarg, EXCL_GRAPH);
			break;
		case 'F':
			sym_id_add(optarg, INCL_TIME);
			sym_id_add(optarg, INCL_GRAPH);
			break;
		case 'f':
			sym_id_add(optarg, INCL_GRAPH);
			break;
		case 'h':
			usage(opt->whoami, stdout, 0);
			break;
		case 'i':
			opt->output_style |= STYLE_GMON_INFO;
			opt->user_specified |= STYLE_GMON_INFO;
			break;
		case 'I':
			source_search_append(optarg);
			break;
		case 'J':
			style_option(opt, STYLE_ANNOTATED_SOURCE, EXCL_ANNO,
				     false);
			break;
		case 'k':
			sym_id_add(optarg, EXCL_ARCS);
			break;
		case 'l':
			opt->line_granularity = true;
			break;
		case 'L':
			opt->print_path = true;
			break;
		case 'm':
			opt->bb_min_calls = strtoul(optarg, NULL, 10);
			break;
		case 'n':
			sym_id_add(optarg, INCL_TIME);
			break;
		case 'N':
			sym_id_add(optarg, EXCL_TIME);
			break;
		case 'O':
			switch (optarg[0]) {
			case 'a':
				opt->file_format = FF_AUTO;
				break;
			case 'm':
				opt->file_format = FF_MAGIC;
				break;
			case 'b':
				opt->file_format = FF_BSD;
				break;
			case '4':
				opt->file_format = FF_BSD44;
				break;
			case 'p':
				return errorf(err, errlen,
					      "file format `prof' is not supported");
			default:
				return errorf(err, errlen,
					      "unknown file format %s",
					      optarg);
			}
			break;
		case 'p':
			style_option(opt, STYLE_FLAT_PROFILE, INCL_FLAT, true);
			break;
		case 'P':
			style_option(opt, STYLE_FLAT_PROFILE, EXCL_FLAT, false);
			break;
		case 'q':
			style_option(opt, STYLE_CALL_GRAPH,
				     optarg && strchr(optarg, '/') ?
				     INCL_ARCS : INCL_GRAPH, true);
			break;
		case 'Q':
			style_option(opt, STYLE_CALL_GRAPH,
				     optarg && strchr(optarg, '/') ?
				     EXCL_ARCS : EXCL_GRAPH, false);
			break;
		case 'r':
			opt->output_style |= STYLE_FUNCTION_ORDER;
			opt->user_specified |= STYLE_FUNCTION_ORDER;
			break;
		case 'R':
			opt->output_style |= STYLE_FILE_ORDER;
			opt->user_specified |= STYLE_FILE_ORDER;
			opt->function_mapping_file = optarg;
			break;
		case 's':
			opt->output_style |= STYLE_SUMMARY_FILE;
			opt->user_specified |= STYLE_SUMMARY_FILE;
			break;
		case 'S':
			opt->external_symbol_table = optarg;
			break;
		case 't':
			opt->bb_table_length = atoi(optarg);
			if (opt->bb_table_length < 0)
				opt->bb_table_length = 0;
			break;
		case 'T':
			opt->bsd_style_output = true;
			break;
		case 'v':
			printf("%s (sprofil) %s (GNU gprof 2.40 compatible)\n",
			       opt->whoami, SPROFIL_VERSION);
			printf("Based on BSD gprof, copyright 1983 Regents of the University of California.\n");
			printf("This program is free software.  This program has absolutely no warranty.\n");
			exit(0);
		case 'w':
			opt->output_width = atoi(optarg);
			if (opt->output_width < 1)
				opt->output_width = 1;
			break;
		case 'x':
			opt->bb_annotate_all_lines = true;
			break;
		case 'y':
			opt->create_annotation_files = true;
			break;
		case 'z':
			opt->ignore_zeros = false;
			break;
		case 'Z':
			style_option(opt, STYLE_EXEC_COUNTS, EXCL_EXEC, false);
			break;
		case OPTION_DEMANGLE:
			opt->demangle = true;
			if (optarg) {
				enum demangling_styles style =
					cplus_demangle_name_to_style(optarg);

				if (style == unknown_demangling)
					return errorf(err, errlen,
						      "unknown demangling style `%s'",
						      optarg);
				cplus_demangle_set_style(style);
			}
			break;
		case OPTION_NO_DEMANGLE:
			opt->demangle = false;
			break;
		case OPTION_INLINE_FILE_NAMES:
			opt->inline_file_names = true;
			break;
		case OPTION_EXTRACT_MODULE:
			opt->extract_module = optarg;
			break;
		case OPTION_EXTRACT_TO:
			opt->extract_to = optarg;
			break;
		case OPTION_EXPORT:
			if (!export_format_known(optarg))
				return errorf(err, errlen,
					      "--export: unknown format `%s' (callgrind, pprof, dot, json, folded, flamegraph or icicle)",
					      optarg);
			opt->export_format = optarg;
			break;
		case OPTION_ESTIMATED_TIMES:
			opt->estimated_times = true;
			break;
		case OPTION_DEBUG_FILE_DIRECTORY:
			opt->debug_file_directory = optarg;
			break;
		case OPTION_THREADS:
			opt->threads_report = true;
			break;
		case OPTION_THREAD:
			if (!*optarg)
				return errorf(err, errlen,
					      "--thread: give a thread id or name");
			opt->thread_selection = optarg;
			break;
		case OPTION_NODE_THRESHOLD:
			if (percent_arg("--node-threshold", optarg,
					&opt->node_threshold, err, errlen))
				return -1;
			break;
		case OPTION_EDGE_THRESHOLD:
			if (percent_arg("--edge-threshold", optarg,
					&opt->edge_threshold, err, errlen))
				return -1;
			break;
		case OPTION_RENDER:
			opt->render_format = optarg;
			break;
		case OPTION_COMBINED:
			opt->combined = true;
			break;
		case OPTION_PROGRAM:
			if (!*optarg)
				return errorf(err, errlen,
					      "--program: give a program's name or a pid");
			opt->program = optarg;
			opt->combined = true;
			break;
		case OPTION_STRICT:
			opt->strict = true;
			break;
		case OPTION_PER_PROCESS:
			opt->per_process = true;
			break;
		case OPTION_OUTPUT_DIR:
			if (!*optarg)
				return errorf(err, errlen,
					      "--output-dir: give a directory");
			opt->output_dir = optarg;
			break;
		default:
			usage(opt->whoami, stderr, 1);
		}
	}

	if ((opt->user_specified & STYLE_FUNCTION_ORDER) &&
	    (opt->user_specified & STYLE_FILE_ORDER))
		return errorf(err, errlen,
			      "only one of --function-ordering and --file-ordering may be specified");
	if (opt->extract_to && !opt->extract_module)
		return errorf(err, errlen,
			      "--extract-to needs --extract-module");
	if (opt->render_format &&
	    (!opt->export_format || strcmp(opt->export_format, "dot")))
		return errorf(err, errlen,
			      "--render draws the call graph: it goes with --export=dot");

	/* gmon.sum keeps basic-block counts only per line symbol. */
	if (opt->output_style & STYLE_SUMMARY_FILE)
		opt->line_granularity = true;

	env = getenv("GPROF_PATH");
	if (env)
		source_search_append(env);

	if (opt->strict && !opt->combined)
		return errorf(err, errlen,
			      "--strict goes with --combined (several programs' profiles)");
	if (opt->per_process && (!opt->combined || opt->program ||
				 !opt->export_format ||
				 (strcmp(opt->export_format, "folded") &&
				  strcmp(opt->export_format, "pprof"))))
		return errorf(err, errlen,
			      "--per-process goes with --combined and --export=folded or pprof");
	if (opt->output_dir && (!opt->combined || opt->program ||
				!opt->export_format ||
				(strcmp(opt->export_format, "callgrind") &&
				 strcmp(opt->export_format, "dot"))))
		return errorf(err, errlen,
			      "--output-dir goes with --combined and --export=callgrind or dot (a file per program)");
	if (opt->combined && !opt->program &&
	    ((opt->output_style & STYLE_SUMMARY_FILE) || opt->extract_module))
		return errorf(err, errlen,
			      "%s writes one program's profile: name it with --program=NAME",
			      opt->extract_module ? "--extract-module" : "-s");
	if (opt->combined && !opt->program &&
	    (opt->threads_report || opt->thread_selection))
		return errorf(err, errlen,
			      "--thread and --threads are one program's: name it with --program=NAME");
	/* --combined: each profile names its program. */
	if (optind < argc && !opt->combined)
		opt->a_out_name = argv[optind++];
	return optind;
}

/*
 * An error returned up to here: its one line on stderr, after what
 * stdout holds; returns the exit status.
 */
static int fail(const struct gprof_options *opt, const char *why)
{
	fflush(stdout);
	fprintf(stderr, "%s: %s\n", opt->whoami, why);
	return 1;
}

/* Whether stdout took everything; else the exit status, said. */
static int stdout_status(const struct gprof_options *opt)
{
	char why[256];

	if (!fflush(stdout) && !ferror(stdout))
		return 0;
	snprintf(why, sizeof(why), "standard output: %s", strerror(errno));
	return fail(opt, why);
}

/* The phases (pipeline.c) over the @n profile files @files. */
static int run(struct profile *prof, const struct gprof_options *opt,
	       const char *const *files, int n)
{
	struct sym **cg;
	bool counted;
	int style, r;

	if (profile_read(prof, opt, files, n))
		return fail(opt, prof->error);
	if (opt->threads_report) {
		threads_print(prof, opt);
		return stdout_status(opt);
	}

	if (opt->extract_module) {
		if (gmon_extract_module(prof, opt, opt->extract_module,
					opt->extract_to ? opt->extract_to :
					NULL))
			return fail(opt, prof->error);
		return 0;
	}

	if (profile_prepare(prof, opt, &counted))
		return fail(opt, prof->error);
	style = report_style(prof, opt);
	if ((style & STYLE_SUMMARY_FILE) &&
	    gmon_out_write(prof, opt, "gmon.sum"))
		return fail(opt, prof->error);

	cg = profile_analyze(prof, opt, counted);
	if (opt->export_format)
		r = export_rendered(prof, opt);
	else
		r = report_print(prof, opt, style, cg);
	free(cg);
	if (r)
		return fail(opt, prof->error);
	return stdout_status(opt);
}

int main(int argc, char **argv)
{
	struct gprof_options options;
	struct profile profile;
	char **given = argv;
	char err[512];
	int first, status;

	/* `sprofil diff`: two profiles compared (gprof/diff/). */
	if (argc > 1 && !strcmp(argv[1], "--diff"))
		return diff_main(argc - 1, argv + 1);
	gprof_options_init(&options);
	if (argc > 0 && argv[0][0]) {
		const char *slash = strrchr(argv[0], '/');

		options.whoami = slash ? slash + 1 : argv[0];
	}
	fatal_set_name(options.whoami);
	expandargv(&argc, &argv);
	first = parse_options(&options, argc, argv, err, sizeof(err));
	sym_id_add_defaults();
	profile_init(&profile);
	if (first < 0) {
		status = fail(&options, err);
	} else if (options.combined) {
		struct tree_selection sel;

		/* --program: that program's files, reported as usual. */
		status = tree_report(&options, &argv[first], argc - first,
				     &sel);
		if (status < 0) {
			options.a_out_name = sel.a_out;
			status = run(&profile, &options,
				     (const char *const *)sel.files,
				     sel.nfiles);
		}
		tree_selection_free(&sel);
	} else {
		status = run(&profile, &options, first < argc ?
			     (const char *const *)&argv[first] : NULL,
			     first < argc ? argc - first : 0);
	}
	profile_free(&profile);
	sym_id_free();
	/* The options point into the arguments an @FILE expanded to. */
	if (argv != given)
		freeargv(argv);
	return status;
}
