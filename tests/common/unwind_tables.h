/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unwind tables for a test (tests/lib/test_unwind.c,
 * tests/bpf/test_bpf_unwind.c): sprofil-unwind run on every module the
 * test has loaded, into a directory of its own.
 */
#ifndef SPROFIL_TEST_UNWIND_TABLES_H
#define SPROFIL_TEST_UNWIND_TABLES_H

/*
 * Runs @tool -O @dir on every module loaded but the vDSO (the
 * executable by its path) and on @extra (a path, or NULL), its output
 * to @out ("/dev/null", or "&2"): 0 or the tool's status.
 */
int ut_build_tables(const char *tool, const char *dir, const char *extra,
		    const char *out);
/* Removes @dir and the files in it. */
void ut_remove_dir(const char *dir);

#endif /* SPROFIL_TEST_UNWIND_TABLES_H */
