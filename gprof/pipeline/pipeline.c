// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * GNU gprof's phases over one profile, for main.c and for any program
 * that holds several profiles: read (symbols, then the profile files),
 * prepare and analyze (histograms to symbols, the call graph), report.
 *
 * The phases run in GNU's order because several results depend on it:
 * symbols are read before the profile files (symspecs are resolved
 * against them, arcs are tallied into them while reading), gmon.sum is
 * written before any analysis, and the reports come out flat profile,
 * call graph, index (-T: call graph first).
 */
#include <stdlib.h>
#include <string.h>

#include "pipeline/pipeline.h"
#include "read/threads.h"

int profile_read(struct profile *prof, const struct gprof_options *opt,
		 const char *const *files, int n)
{
	int i;

	/*
	 * The profile files name the modules whose symbols are needed, so
	 * they are loaded (not yet parsed) before the symbols are read.
	 */
	if (gmon_load_files(prof, files, n) ||
	    core_init(prof, opt, opt->a_out_name))
		return -1;
	if (opt->ignore_direct_calls)
		core_get_text_space(prof, opt);
	if (opt->external_symbol_table) {
		if (core_create_syms_from(prof, opt->external_symbol_table))
			return -1;
	} else if (opt->line_granularity) {
		core_create_line_syms(prof, opt);
	} else if (core_create_function_syms(prof, opt)) {
		return -1;
	}

	sym_id_parse(prof, opt);
	/* Each file's arcs and counts are filed before the next is read. */
	for (i = 0; i < prof->nfiles; i++) {
		int r = gmon_parse_file(prof, opt, i);

		/* The file's own error first; the tally's is one without. */
		if (r) {
			char why[sizeof(prof->error)];

			memcpy(why, prof->error, sizeof(why));
			profile_tally(prof, opt);
			memcpy(prof->error, why, sizeof(why));
			return -1;
		}
		if (profile_tally(prof, opt))
			return -1;
	}
	if (threads_apply_selection(prof, opt))
		return -1;
	return 0;
}

int profile_prepare(struct profile *prof, const struct gprof_options *opt,
		    bool *counted)
{
	/*
	 * Caller samples give a call graph of their own (measured), unless
	 * GNU's estimate is asked for, which needs -pg's call counts.
	 */
	if ((prof->gmon_input & INPUT_CALLERS) && opt->estimated_times &&
	    !(prof->gmon_input & INPUT_CALL_GRAPH))
		return profile_error(prof, "--estimated-times: the profile has no call counts to estimate from (its program was not built with -pg); leave the option out for the call graph its caller samples measure");
	*counted = (prof->gmon_input & INPUT_CALL_GRAPH) != 0;
	if ((prof->gmon_input & INPUT_CALLERS) && !opt->estimated_times)
		prof->gmon_input |= INPUT_CALL_GRAPH;
	return 0;
}

int report_style(const struct profile *prof, const struct gprof_options *opt)
{
	int style = opt->output_style;

	if (style == 0) {
		if (prof->gmon_input & (INPUT_HISTOGRAM | INPUT_CALL_GRAPH)) {
			if (prof->gmon_input & INPUT_HISTOGRAM)
				style |= STYLE_FLAT_PROFILE;
			if (prof->gmon_input & INPUT_CALL_GRAPH)
				style |= STYLE_CALL_GRAPH;
		} else {
			style = STYLE_EXEC_COUNTS;
		}
		style &= ~opt->user_specified;
	}
	return style;
}

struct sym **profile_analyze(struct profile *prof,
			     const struct gprof_options *opt, bool counted)
{
	if (prof->gmon_input & INPUT_HISTOGRAM)
		hist_assign_samples(prof);
	if (prof->gmon_input & INPUT_CALLERS)
		cg_measured_arcs(prof, opt, counted);
	if ((prof->gmon_input & INPUT_CALL_GRAPH) || opt->export_format)
		return cg_assemble(prof, opt);
	return NULL;
}

int report_print(struct profile *prof, const struct gprof_options *opt,
		 int style, struct sym **cg)
{
	if ((style & STYLE_FLAT_PROFILE) &&
	    !(prof->gmon_input & INPUT_HISTOGRAM))
		return profile_error(prof, "gmon.out file is missing histogram");
	if ((style & STYLE_CALL_GRAPH) &&
	    !(prof->gmon_input & INPUT_CALL_GRAPH))
		return profile_error(prof,
				     "gmon.out file is missing call-graph data");

	if (cg && (style & STYLE_CALL_GRAPH) && opt->bsd_style_output)
		cg_print(prof, opt, cg);
	if (style & STYLE_FLAT_PROFILE)
		hist_print(prof, opt);
	if (cg && (style & STYLE_CALL_GRAPH)) {
		if (!opt->bsd_style_output)
			cg_print(prof, opt, cg);
		cg_print_index(prof, opt);
	}
	if (style & STYLE_EXEC_COUNTS)
		print_exec_counts(prof, opt);
	if (style & STYLE_ANNOTATED_SOURCE)
		print_annotated_source(prof, opt);
	if (style & STYLE_FUNCTION_ORDER)
		cg_print_function_ordering(prof);
	if (style & STYLE_FILE_ORDER)
		cg_print_file_ordering(prof);
	if (prof->multi_module &&
	    (style & (STYLE_FLAT_PROFILE | STYLE_CALL_GRAPH)))
		modules_print(prof, opt);
	return 0;
}

void profile_reset(struct profile *prof)
{
	unsigned int i;
	size_t s;

	for (i = 0; i < prof->num_hist_records; i++)
		free(prof->hist_records[i].sample);
	free(prof->hist_records);
	prof->hist_records = NULL;
	prof->num_hist_records = 0;
	prof->have_gnu_hist = false;
	prof->ext_period = 0;
	prof->hz = 0;
	prof->gmon_input = 0;
	callers_reset(prof);
	for (s = 0; s < prof->symtab.len; s++) {
		struct sym *sym = &prof->symtab.base[s];

		sym->ncalls = 0;
		sym->hist.time = 0;
		free(sym->bb);
		sym->bb = NULL;
		memset(&sym->cg, 0, sizeof(sym->cg));
	}
	arcs_reset(prof);
	profile_tally_forget(prof);
}

void profile_free(struct profile *prof)
{
	profile_reset(prof);
	threads_reset(prof);
	sym_id_reset(prof);
	function_map_reset(prof);
	lines_reset(prof);
	core_reset(prof);
	modules_reset(prof);
	free(prof->arcs);
	/* Freed by the analysis when it ran to its end. */
	free(prof->node_caller);
	free(prof->node_leaf);
	free(prof->node_known);
	free(prof->lsyms);
	free(prof->caller_stats.cut_in);
	profile_init(prof);
}

