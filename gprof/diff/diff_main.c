// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sprofil-gprof --diff [options] BASE NEW (what `sprofil diff` runs):
 * which functions got slower between two builds, how sure that is, and
 * a gate for CI.  Exit 0: the gate passed (or none was asked for);
 * 1: something grew more than --fail-above at --confidence; 2: bad
 * input, said in one line.  docs/diff.md.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diff.h"

/*
 * The analyzer's fatal() (resource limits, broken invariants) exits 1,
 * which a CI gate would read as "slower": until the diff is done, any
 * exit is bad input's 2.
 */
static bool diff_done;

static void exit_bad(void)
{
	if (!diff_done) {
		fflush(NULL);
		_exit(DIFF_BAD);
	}
}

enum {
	OPT_FAIL_ABOVE = 256, OPT_CONFIDENCE, OPT_MIN_SAMPLES, OPT_NORMALIZE,
	OPT_FORCE, OPT_FORMAT, OPT_TOP, OPT_NO_DEMANGLE,
	OPT_DEBUG_FILE_DIRECTORY, OPT_PPROF, OPT_LINES,
};

static const struct option long_options[] = {
	{ "fail-above", required_argument, NULL, OPT_FAIL_ABOVE },
	{ "confidence", required_argument, NULL, OPT_CONFIDENCE },
	{ "min-samples", required_argument, NULL, OPT_MIN_SAMPLES },
	{ "normalize", no_argument, NULL, OPT_NORMALIZE },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "debug-file-directory", required_argument, NULL,
	  OPT_DEBUG_FILE_DIRECTORY },
	{ "pprof", required_argument, NULL, OPT_PPROF },
	{ "lines", no_argument, NULL, OPT_LINES },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void usage(FILE *f)
{
	fputs("usage: sprofil diff [--fail-above=PCT] [--confidence=PCT] [--min-samples=N]\n"
	      "\t[--normalize] [--force] [--format=text|json|markdown|folded|flamegraph]\n"
	      "\t[--top=N] [--lines] [--pprof=PREFIX] [--no-demangle] BASE NEW\n"
	      "BASE and NEW: a profile, a directory of a recorded tree, or several\n"
	      "runs of one workload as RUN,RUN,...; functions matched by name,\n"
	      "with --lines source lines by file and line too.  With caller\n"
	      "chains, measured inclusive times and arcs are compared as well.\n"
	      "Exit 0, or 1 when a function or the total grew more than PCT with\n"
	      "the confidence (default 99%, corrected for the number of tests),\n"
	      "2 on bad input.  --pprof writes PREFIX.base.pb.gz and PREFIX.new.pb.gz\n"
	      "for `go tool pprof -diff_base'.  See docs/diff.md.\n", f);
}

static int bad_number(const char *whoami, const char *option, const char *arg)
{
	fprintf(stderr, "%s: %s: `%s' is not a valid value\n", whoami, option,
		arg);
	return DIFF_BAD;
}

static int parse(struct diff_options *opt, int argc, char **argv)
{
	char *end;
	double v;
	int ch;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", long_options, NULL)) != -1) {
		errno = 0;
		switch (ch) {
		case OPT_FAIL_ABOVE:
			v = strtod(optarg, &end);
			if (errno || end == optarg || (*end && strcmp(end, "%")) ||
			    !(v >= 0))
				return bad_number(opt->g.whoami, "--fail-above",
						  optarg);
			opt->fail_above = v;
			break;
		case OPT_CONFIDENCE:
			v = strtod(optarg, &end);
			if (errno || end == optarg || (*end && strcmp(end, "%")) ||
			    !(v > 0 && v < 100))
				return bad_number(opt->g.whoami, "--confidence",
						  optarg);
			opt->confidence = v / 100;
			break;
		case OPT_MIN_SAMPLES:
			opt->min_samples = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-')
				return bad_number(opt->g.whoami,
						  "--min-samples", optarg);
			break;
		case OPT_TOP:
			opt->top = (unsigned int)strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-')
				return bad_number(opt->g.whoami, "--top",
						  optarg);
			break;
		case OPT_NORMALIZE:
			opt->normalize = true;
			break;
		case OPT_FORCE:
			opt->force = true;
			break;
		case OPT_LINES:
			opt->lines = true;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "text"))
				opt->format = DF_TEXT;
			else if (!strcmp(optarg, "json"))
				opt->format = DF_JSON;
			else if (!strcmp(optarg, "markdown"))
				opt->format = DF_MARKDOWN;
			else if (!strcmp(optarg, "folded"))
				opt->format = DF_FOLDED;
			else if (!strcmp(optarg, "flamegraph"))
				opt->format = DF_FLAME;
			else
				return bad_number(opt->g.whoami, "--format",
						  optarg);
			break;
		case OPT_NO_DEMANGLE:
			opt->g.demangle = false;
			break;
		case OPT_PPROF:
			if (!*optarg)
				return bad_number(opt->g.whoami, "--pprof",
						  optarg);
			opt->pprof = optarg;
			break;
		case OPT_DEBUG_FILE_DIRECTORY:
			opt->g.debug_file_directory = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(DIFF_OK);
		default:
			fprintf(stderr, "%s: unknown option `%s'\n",
				opt->g.whoami, argv[optind - 1]);
			usage(stderr);
			return DIFF_BAD;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "%s: give two sides, BASE and NEW\n",
			opt->g.whoami);
		usage(stderr);
		return DIFF_BAD;
	}
	return -1;
}

int diff_main(int argc, char **argv)
{
	struct diff_options opt;
	struct dside base, new;
	struct diff d;
	int status;

	memset(&opt, 0, sizeof(opt));
	gprof_options_init(&opt.g);
	opt.g.whoami = "sprofil diff";
	fatal_set_name(opt.g.whoami);
	opt.confidence = 0.99;
	opt.fail_above = -1;
	opt.min_samples = 20;
	opt.top = 25;
	status = parse(&opt, argc, argv);
	if (status >= 0)
		return status;
	/* JSON, folded stacks and flame graphs are for programs: every row. */
	if (opt.format != DF_TEXT && opt.format != DF_MARKDOWN)
		opt.top = 0;
	atexit(exit_bad);
	sym_id_add_defaults();
	status = DIFF_BAD;
	if (diff_side_load(&base, argv[optind], &opt, "base"))
		goto out_sym;
	if (diff_side_load(&new, argv[optind + 1], &opt, "new"))
		goto out_base;
	if (diff_build(&d, &base, &new, &opt))
		goto out;
	switch (opt.format) {
	case DF_TEXT:
		diff_print_text(&d);
		break;
	case DF_JSON:
		diff_print_json(&d);
		break;
	case DF_MARKDOWN:
		diff_print_markdown(&d);
		break;
	case DF_FOLDED:
		diff_print_folded(&d);
		break;
	case DF_FLAME:
		diff_print_flame(&d);
		break;
	}
	status = d.failed ? DIFF_GATE : DIFF_OK;
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: standard output: %s\n", opt.g.whoami,
			strerror(errno));
		status = DIFF_BAD;
	}
out:
	diff_free(&d);
	diff_side_free(&new);
out_base:
	diff_side_free(&base);
out_sym:
	sym_id_free();
	diff_done = true;
	return status;
}
