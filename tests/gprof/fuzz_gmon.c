// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the analyzer's profile reader: the symbols of one
 * corpus program are loaded once, then every input is parsed as a
 * profile file from scratch.  gmon_parse() must return 0 or -1 with a
 * message, never crash, hang, leak memory growing without bound, or exit
 * (fatal() from inside the reader would end the fuzzer: a finding too).
 * A profile with caller samples is then analyzed (the measured call
 * graph of cg_measured.c), which must not fail either.  Each input is
 * also scanned as the combined report scans a tree's files
 * (tree_scan.c), alone and then against the symbols and modules the
 * parse left: a bad one must be refused with a reason.
 *
 * The executable is FUZZ_GMON_EXE from the environment, else the path
 * compiled in (FUZZ_EXE, tests.mk: build/tests/gprof/recur).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "pipeline/pipeline.h"
#include "pipeline/tree_report.h"

#ifndef FUZZ_EXE
#define FUZZ_EXE "build/tests/gprof/recur"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The options of a plain `gprof EXE gmon.out`. */
static struct gprof_options opt;
/* The executable's symbols, read once; each input's profile over them. */
static struct profile prof;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *exe = getenv("FUZZ_GMON_EXE");

	(void)argc;
	(void)argv;
	gprof_options_init(&opt);
	profile_init(&prof);
	opt.a_out_name = exe ? exe : FUZZ_EXE;
	core_init(&prof, &opt, opt.a_out_name);
	core_create_function_syms(&prof, &opt);
	return 0;
}

/* The combined report's scan of a tree's file (tree_scan.c). */
static void tree_scan_input(const uint8_t *data, size_t size)
{
	struct tree_proc tp;

	tree_scan_buf(&tp, "fuzz.1.gmon", data, size);
	if (tp.bad && !tp.bad[0])
		abort();	/* a refusal must say why */
	tree_scan_top_buf(&tp, data, size, &prof, &opt);
	tree_proc_free(&tp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];

	profile_reset(&prof);
	err[0] = '\0';
	if (gmon_parse(&prof, &opt, data, size, "fuzz.out", err, sizeof(err))) {
		if (!err[0])
			abort();	/* a failure must say why */
		tree_scan_input(data, size);
		return 0;
	}
	tree_scan_input(data, size);
	/*
	 * What was read is filed into the symbols and the caller tree, as
	 * profile_read() does; a malformed callers record fails here.
	 */
	prof.error[0] = '\0';
	if (profile_tally(&prof, &opt)) {
		if (!prof.error[0])
			abort();	/* a failure must say why */
		return 0;
	}
	/* Caller samples that were read are analyzed too. */
	if (prof.gmon_input & INPUT_CALLERS) {
		cg_measured_arcs(&prof, &opt,
				 prof.gmon_input & INPUT_CALL_GRAPH);
		free(cg_assemble(&prof, &opt));
	}
	return 0;
}
