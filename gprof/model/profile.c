// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A profile's life: made empty, filled by the readers and the analysis,
 * freed whole, so that a program can hold several at once or read one
 * after another (the fuzz targets).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/model.h"

void profile_init(struct profile *prof)
{
	*prof = (struct profile){
		.module_profile = "",
		.first_output = true,
		/* The executable's, until core_init() has read it. */
		.gmon_ptr_size = 8,
		.callers = { .truncated_top = CALLER_NONE },
	};
}

int profile_error(struct profile *prof, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verrorf(prof->error, sizeof(prof->error), fmt, ap);
	va_end(ap);
	return -1;
}
