/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unwind tables for a test (tests/lib/test_unwind.c,
 * tests/bpf/test_bpf_unwind.c): sprofil-unwind run on every module the
 * test has loaded, into a directory of its own.
 */
#ifndef SPROFIL_TEST_UNWIND_TABLES_H
#define SPROFIL_TEST_UNWIND_TABLES_H

#include <stdint.h>

/*
 * Runs @tool -O @dir on every module loaded but the vDSO (the
 * executable by its path) and on @extra (a path, or NULL), its output
 * to @out ("/dev/null", or "&2"): 0 or the tool's status.
 */
int ut_build_tables(const char *tool, const char *dir, const char *extra,
		    const char *out);
/* Removes @dir and the files in it. */
void ut_remove_dir(const char *dir);
/* Copies the files of @from into the existing @to (mode 0644): 0 or -1. */
int ut_copy_dir(const char *from, const char *to);

struct spu_table;

/* A loaded module's table, read from a directory ut_build_tables() made. */
struct ut_module {
	uintptr_t bias;			/* the module's load bias */
	struct spu_table *t;		/* checked (malloc()ed, with its bytes) */
	const char *name;		/* its path ("" for the executable) */
};

/*
 * The tables in @dir of the modules loaded now that have a build-id and
 * a table: at most @max into @mods; their number, or -1 after a message
 * on stderr (a table that cannot be read or fails spu_table_view()).
 */
int ut_load_tables(const char *dir, struct ut_module *mods, unsigned int max);
void ut_free_tables(struct ut_module *mods, unsigned int n);

struct spu_rule;

/*
 * The rule at run-time address @addr in the tables of @mods, as a
 * walk's SPU_FIND_RULE hook takes it: 0, or -1 if none covers it.
 */
int ut_rule_of(const struct ut_module *mods, unsigned int n, uint64_t addr,
	       struct spu_rule *rule);

#endif /* SPROFIL_TEST_UNWIND_TABLES_H */
