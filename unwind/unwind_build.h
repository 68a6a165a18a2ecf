/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The unwind table builder (include/sprofil/unwind_table.h): a module's
 * CFI, interpreted by elfutils' libdw, compiled into the table the walk
 * reads.  Userland only, and never in libsprofil.so or libsprofil.a:
 * libdw stays out of every profiled process (docs/callers.md).
 */
#ifndef SPROFIL_UNWIND_BUILD_H
#define SPROFIL_UNWIND_BUILD_H

#include <stddef.h>
#include <stdint.h>
#include <libelf.h>

#include <sprofil/unwind_table.h>

/* What a build found, for the tool's report and the tests. */
struct spu_build_stats {
	uint64_t text_bytes;	/* executable section bytes covered */
	uint64_t none_bytes;	/* of them, in rows without information */
	uint64_t gap_bytes;	/* of those, with no FDE at all */
	uint32_t rows;
	uint32_t rules;		/* distinct rules */
	uint32_t plt_entries;	/* PLT entries expanded from one expression */
	uint32_t signal_rows;
	uint32_t unexpressed;	/* CFI states no row could express */
	int debug_frame;	/* a separate debug file's .debug_frame used */
};

/*
 * Builds the table of the module in @elf; @debug, when not NULL, is its
 * separate debug file, whose .debug_frame fills what .eh_frame leaves out.
 * Returns a malloc'ed table of *@bytes, or NULL with errno set (EINVAL
 * for a module that is not x86-64 ELF or has no executable code, ENOMEM)
 * and a message in @err.
 */
struct spu_header *spu_build(Elf *elf, Elf *debug, size_t *bytes,
			     struct spu_build_stats *st, char *err,
			     size_t errlen);

/*
 * The same for the file @path, with its separate debug file found by
 * build-id under /usr/lib/debug/.build-id/ when installed.
 */
struct spu_header *spu_build_file(const char *path, size_t *bytes,
				  struct spu_build_stats *st, char *err,
				  size_t errlen);

/* The name of a walk's SPU_CUT_* result, for messages and tests. */
const char *spu_cut_name(int reason);

#endif /* SPROFIL_UNWIND_BUILD_H */
