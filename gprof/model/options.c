// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The options' defaults (options.h): GNU gprof's, and sprofil's for the
 * options GNU does not have.
 */
#include "model/options.h"

void gprof_options_init(struct gprof_options *opt)
{
	*opt = (struct gprof_options){
		.whoami = "gprof",
		.a_out_name = "a.out",
		.output_width = 80,
		.print_descriptions = true,
		.demangle = true,
		.ignore_zeros = true,
		.bb_min_calls = 1,
		.bb_table_length = 10,
		.file_format = FF_AUTO,
		.node_threshold = 0.5,
		.edge_threshold = 0.1,
		.debug_file_directory = "/usr/lib/debug",
	};
}
