/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Each module's DWARF as lines.c reads it, shared with line_syms.c (the
 * -l line symbols): the CUs of a module indexed by address, and the
 * line tables kept for the -l walk.
 */
#ifndef GPROF_DWARF_LINES_H
#define GPROF_DWARF_LINES_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdint.h>

struct source_file;
struct gprof_options;
struct profile;

/* A CU's line table, as read through one Dwarf handle. */
struct cu_lines {
	Dwarf_Die die;
	Dwarf_Lines *lines;	/* NULL when unreadable */
	size_t nlines;
	struct source_file **files;	/* by file index, filled lazily */
	size_t nfiles;
};

struct cu {
	Dwarf_Die die;
	Dwarf_Off off;
	struct cu_lines pl;	/* -l: kept, read through the module's handle */
	bool pl_read;
	uint64_t pl_last;	/* last address looked up in pl ... */
	size_t pl_hint;		/* ... and where that search ended */
	bool syms_done;		/* its function symbols were looked up */
};

/* One address range of a CU; CUs may cover several. */
struct cu_span {
	uint64_t lo, hi;	/* link-time, [lo, hi) */
	uint64_t max_hi;	/* greatest hi of this and the spans before */
	size_t cu;
};

struct dmod {
	bool opened;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf *dw;
	Elf *dbg_elf;		/* the ELF file holding the DWARF */
	struct cu *cus;
	size_t ncus;
	struct cu_span *spans;
	size_t nspans;
	/* The spans of CU i are spans[by_cu[cu_first[i] .. cu_first[i+1]]]. */
	size_t *by_cu, *cu_first;
};

/* Module @m's DWARF, opened on first use (its fields NULL if none). */
struct dmod *dmod_get(struct profile *prof, const struct gprof_options *opt,
		      unsigned int m);
/* The CU's table through the module's own handle, kept (for -l). */
struct cu_lines *cu_kept_lines(struct cu *cu);
/* The file and line of link-time @addr in @d; false when it has none. */
bool dmod_line(struct profile *prof, struct dmod *d, uint64_t addr,
	       struct source_file **file,
	       int *line);
/* The address of row @i of @cl's table. */
uint64_t row_addr(const struct cu_lines *cl, size_t i);

#endif /* GPROF_DWARF_LINES_H */
