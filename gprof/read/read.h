/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reader: the modules' ELF symbols and DWARF lines, -R's map and
 * the profile files, into the model (model/model.h).
 */
#ifndef GPROF_READ_READ_H
#define GPROF_READ_READ_H

#include <gelf.h>

#include "model/model.h"

/* Sorts, drops duplicates as GNU does and sets end_addr. */
void symtab_finalize(struct profile *prof, struct sym_table *t);

/* -R: reads map file @path; 0, or -1 and @prof's error. */
int read_function_mappings(struct profile *prof, const char *path);
/* The map line of function @name, or NULL (GNU's bsearch). */
struct function_map *symbol_map_find(struct profile *prof, const char *name);
bool sym_is_mapped(struct profile *prof, const struct sym *s);
/* Forgets -R's map (profile_free()). */
void function_map_reset(struct profile *prof);
/* Sorts the map by file name (-R's file ordering prints it so). */
void function_map_sort_by_file(struct profile *prof);


/* Fills s->file and s->line_num on first use (lazily; cheap after). */
void sym_source(struct profile *prof, const struct gprof_options *opt,
		struct sym *s);
/* -l: adds one symbol per source line of every module's text. */
void core_create_line_syms(struct profile *prof,
			   const struct gprof_options *opt);

/* The one source_file of @path (DWARF's spelling), made on first use. */
struct source_file *source_file_lookup_path(struct profile *prof,
					    const char *path);
/* A file made so far whose last path component is @filename, or NULL. */
struct source_file *source_file_lookup_name(struct profile *prof,
					    const char *filename);
/*
 * -A: looks up the source of every symbol and returns the files in the
 * order GNU prints them (the reverse of the order GNU meets them: function
 * symbols in .symtab order, then -l line symbols by address).
 */
size_t source_files_gnu_order(struct profile *prof,
			      const struct gprof_options *opt,
			      struct source_file ***out);

/*
 * Parses one profile file held in memory.  Returns 0, or -1 with one
 * line (without the file name) in @err.  Symbols must already exist:
 * the histograms are summed into them; arcs and basic-block counts are
 * kept as read (prof->read_arcs, read_bbs) for profile_tally().
 */
int gmon_parse(struct profile *prof, const struct gprof_options *opt,
	       const unsigned char *buf,
	       size_t len, const char *name,
	       char *err, size_t errlen);
/*
 * Reads the profile files named on the command line (gmon.out when
 * none) into memory and registers the load modules they name, so that
 * core_init() can read every module's symbols first.  0, or -1 and
 * @prof's error.
 */
int gmon_load_files(struct profile *prof, const char *const *names, int n);
/*
 * Parses file @i of those gmon_load_files() read (in order, each once);
 * 0, or -1 and @prof's error.
 */
int gmon_parse_file(struct profile *prof, const struct gprof_options *opt,
		    int i);

/*
 * The module standing for addresses in no load module (the extension's
 * module 0xffffffff); created on first use.
 */
unsigned int module_outside(struct profile *prof);
/*
 * -1 and @prof's error when the histograms or arcs of file @name cannot
 * be the executable's, else 0.
 */
int gmon_check_match(struct profile *prof, const struct gprof_options *opt,
		     const char *name);

/*
 * The fuzz targets load many files in one process: after
 * profile_reset(), these free in turn the DWARF and source files
 * (lines_reset), the ELF files and the symbol table (core_reset), and
 * the module table and the loaded profile files (modules_reset).
 */
void lines_reset(struct profile *prof);
void core_reset(struct profile *prof);
void modules_reset(struct profile *prof);

/* ---- ELF (symtab.c) ---- */

/* A symbol table section whose header was checked against its file. */
struct elf_symbols {
	Elf_Data *data;		/* the entries, all inside the file */
	size_t count;		/* entries, the null entry 0 included */
	size_t strndx;		/* its string table, which exists */
	const char *str_end;	/* the end of that string table's bytes */
};

/*
 * Reads symbol table section @scn of @elf: entries of the ELF class's
 * size, a section wholly inside the file, a string table that exists.
 * Returns NULL, or why the header lies (one line without the file name).
 */
const char *elf_symbols_read(Elf *elf, Elf_Scn *scn,
			     struct elf_symbols *out);
/* The .symtab of @elf, checked as above; false if it has none. */
bool elf_symtab(Elf *elf, struct elf_symbols *es);
/* The GNU build-id note of @elf: false if it has none. */
bool elf_build_id(Elf *elf, const unsigned char **id, size_t *len);

/* ---- where a module's symbols come from (module_files.c) ---- */

/* The name reports give module @mod: its file's basename, "[vdso]". */
const char *module_basename(const struct module *mod);
/* Whether a recorded module name is the kernel's vDSO. */
bool module_is_vdso_name(const char *recorded);
/*
 * This kernel's vDSO image when its build-id is @mod's (*@image is the
 * copy to free after elf_end()); else NULL and why.
 */
Elf *vdso_open(const struct module *mod, unsigned char **image,
	       const char **why);
/*
 * A libdwfl session that finds separate debug files under
 * debug_file_directory, as gdb does (never through debuginfod).
 */
struct Dwfl;
struct Dwfl *debug_dwfl_begin(const struct gprof_options *opt);
/* The separate debug file of the ELF file at @path (malloc), or NULL. */
char *debug_file_find(const struct gprof_options *opt, const char *path);
/* Whether module @m is libsprofil: by name, or it defines its API. */
bool module_is_profiler(struct profile *prof, unsigned int m, Elf *elf,
			const struct elf_symbols *es);
/*
 * Multi-module profiles: a pseudo-function "module+0xOFFSET" for each
 * stretch of code past the st_size of the symbols before it (sym_gaps.c).
 */
void symtab_add_gaps(struct profile *prof);
/* Makes @base (@len symbols, malloc'd, sorted, ends set) the symtab. */
void symtab_adopt(struct profile *prof, struct sym *base, size_t len);
void sym_gaps_reset(struct profile *prof);

/*
 * Reads the executable (module 0) and every module the profile named;
 * these three return 0, or -1 and @prof's error.
 */
int core_init(struct profile *prof, const struct gprof_options *opt,
	      const char *a_out);
int core_create_function_syms(struct profile *prof,
			      const struct gprof_options *opt);
/* -S: symbols from an nm-style file ("ADDR TYPE NAME" lines). */
int core_create_syms_from(struct profile *prof, const char *path);
/* -c: keeps the text bytes of every module for core_text(). */
void core_get_text_space(struct profile *prof, const struct gprof_options *opt);
/* The .text sections' unified range of module @m (GNU's core_text_sect). */
uint64_t core_text_end(struct profile *prof, unsigned int m);
/*
 * The bytes of the text at unified [lo, hi), or NULL when that range is
 * not wholly inside one loaded module's section (-c reads them).
 */
const unsigned char *core_text(struct profile *prof, uint64_t lo, uint64_t hi);

#endif /* GPROF_READ_READ_H */
