/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The unwind table server of a record run (unwind_serve.c). */
#ifndef SPROFIL_UNWIND_SERVE_H
#define SPROFIL_UNWIND_SERVE_H

#include <stddef.h>

/* Writes a table as @dir/<@hex>.spu, atomically, mode 0644. */
int spu_write_named(const char *dir, const char *hex, const void *t,
		    size_t bytes, char *err, size_t errlen);

/* Serves table requests on abstract socket @name into @dir. */
int spu_serve(const char *name, const char *dir);

#endif
