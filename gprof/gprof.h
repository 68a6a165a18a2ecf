/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sprofil's gprof: the data model shared by the analyzer's parts.
 *
 * The pipeline is GNU gprof's, because the numbers must be GNU's:
 *   options (main.c) -> symbols of every module (symtab.c, source.c for
 *   -l) -> symspecs (symspec.c) -> profile files (gmon_read.c) ->
 *   histogram to symbols (hist.c) -> call graph (callgraph.c) ->
 *   reports (hist.c flat, cg_print.c graph and index, source.c -A/-C,
 *   modules.c module table).
 *
 * Each part takes the profile it works on (struct profile, below) and,
 * where an option changes what it does, the options (options.h), both
 * as arguments: the analyzer keeps no profile in globals.
 *
 * Addresses.  Every address the analyzer handles is a *unified* address:
 * a module's link-time address plus the module's base, MODULE_BASE(m).
 * Module 0 is the executable named on the command line and has base 0,
 * so for a GNU gmon.out unified addresses are exactly GNU's.  Further
 * modules (the sprofil extension's shared objects) sit in disjoint
 * 2^44-byte windows above it, so one sorted symbol table and one lookup
 * serve every module.
 */
#ifndef GPROF_GPROF_H
#define GPROF_GPROF_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "options.h"

struct profile;
struct thread_prof;
struct thread_leaf;
struct profile_file;
struct core_module;
struct line_sym;
struct dmod;
struct arc_spec;

#define MODULE_SHIFT 44
#define MODULE_BASE(m) ((uint64_t)(m) << MODULE_SHIFT)
#define ADDR_MODULE(a) ((unsigned int)((a) >> MODULE_SHIFT))
#define ADDR_LINK(a) ((a) & ((UINT64_C(1) << MODULE_SHIFT) - 1))

/* Output styles, as GNU's -p -q -C -A -i -r -R -s select them. */
enum {
	STYLE_FLAT_PROFILE = 1 << 0,
	STYLE_CALL_GRAPH = 1 << 1,
	STYLE_SUMMARY_FILE = 1 << 2,
	STYLE_EXEC_COUNTS = 1 << 3,
	STYLE_ANNOTATED_SOURCE = 1 << 4,
	STYLE_GMON_INFO = 1 << 5,
	STYLE_FUNCTION_ORDER = 1 << 6,
	STYLE_FILE_ORDER = 1 << 7,
};


/* ---- symbols ---- */

struct source_file {
	const char *name;	/* as DWARF names it */
	uint64_t ncalls;	/* -A: calls into functions of this file */
	int num_lines;		/* -A: lines annotated */
	struct sym **line;	/* -A: the symbol of each line (annotate.c) */
	unsigned int order;	/* -A: 1 + place in GNU's file order */
	struct source_file *next;
};

struct arc;

struct sym {
	uint64_t addr;		/* unified entry address */
	uint64_t end_addr;	/* last unified address (inclusive) */
	const char *name;	/* raw (mangled) name; NULL for a cycle */
	struct source_file *file;	/* NULL if unknown */
	int line_num;		/* 0 if unknown */
	unsigned int module;	/* index into the module table */
	unsigned int is_func:1;	/* a function entry (not a -l line) */
	unsigned int is_static:1;	/* a local (STB_LOCAL) symbol */
	unsigned int is_bb_head:1;
	unsigned int src_known:1;	/* file/line_num looked up already */
	unsigned int is_gap:1;	/* code past every symbol's st_size */
	unsigned int size_known:1;	/* size is st_size, not a section's */
	/* Multi-module gaps: st_size, else up to its section's end; 0: ? */
	uint64_t size;
	uint64_t ncalls;	/* calls into it (arcs), or bb executions */
	int nuses;		/* -A/-C bookkeeping */

	struct {
		double time;	/* ticks credited by the histogram */
		uint64_t scaled_addr;	/* addr / 2, GNU's UNIT */
	} hist;

	struct {
		uint64_t self_calls;	/* recursive calls to itself */
		double child_time;	/* ticks in children */
		int index;		/* [N] in the graph, 0 if none */
		int top_order;		/* topological order (dfn) */
		bool print_flag;
		struct {
			double fract;	/* share of its time propagated */
			double self;	/* self time propagated */
			double child;	/* child time propagated */
		} prop;
		struct {
			int num;	/* cycle number, 0 if none */
			struct sym *head;	/* cycle's sym, or itself */
			struct sym *next;	/* next member of the cycle */
		} cyc;
		struct arc *parents;	/* arcs calling it */
		struct arc *children;	/* arcs it makes */
	} cg;

	/* Basic-block counts (tag 2 records, -l), allocated on first use. */
	struct sym_bb *bb;

	struct sym *next;	/* chains: -A, -r, symspec matches */
};

/* A symbol's first NBBS basic blocks and their execution counts. */
#define NBBS 10
struct sym_bb {
	uint64_t addr[NBBS];
	uint64_t calls[NBBS];
};

static inline uint64_t sym_bb_addr(const struct sym *s, int i)
{
	return s->bb ? s->bb->addr[i] : 0;
}

static inline uint64_t sym_bb_calls(const struct sym *s, int i)
{
	return s->bb ? s->bb->calls[i] : 0;
}

/* A table sorted by address; lookups by address are binary searches. */
struct sym_table {
	size_t len;
	struct sym *base;
};

/* Finds the symbol whose [addr, end_addr] holds @addr, or NULL. */
struct sym *sym_lookup(const struct sym_table *t, uint64_t addr);
/* Sorts, drops duplicates as GNU does and sets end_addr. */
void symtab_finalize(struct profile *prof, struct sym_table *t);

/* ---- modules ---- */

struct module {
	char *path;		/* the ELF file read for its symbols */
	char *recorded;		/* the name in the profile (may differ) */
	unsigned char *build_id;
	size_t build_id_len;
	uint64_t load_bias;	/* as the profile recorded it */
	const char *profile;	/* the profile file that named it first */
	bool is_main;
	bool absolute;		/* stands for addresses in no module */
	bool loaded;		/* its symbols were read */
	bool is_vdso;		/* the kernel's vDSO, read from memory */
	bool overhead;		/* the profiler itself (libsprofil) */
	char *debug_path;	/* the separate debug file read, or NULL */
	char *why;		/* why not, one line, when !loaded */
	char *label;		/* "<name>", its one symbol, when !loaded */
	uint64_t text_low, text_high;	/* unified [) of its .text */
	uint64_t hist_low, hist_high;	/* unified [) its histograms cover */
	uint64_t exec_low, exec_high;	/* unified [) of its code segments */
	double time;		/* ticks in it (module table) */
	uint64_t calls;		/* calls into it (module table) */
};


/* ---- the profile read from the files ---- */

struct hist_record {
	uint64_t lowpc, highpc;	/* unified, [lowpc, highpc) */
	uint64_t num_bins;
	unsigned int bucket_size;	/* bytes per count: 2 (GNU) or 4 */
	unsigned int scale;	/* extension: profil scale; GNU: 0 */
	double bin_scale;	/* GNU: ((highpc-lowpc)/2)/num_bins */
	uint32_t *sample;	/* num_bins counts, summed over files */
};


/* Which kinds of data the profile files held. */
enum {
	INPUT_HISTOGRAM = 1, INPUT_CALL_GRAPH = 2, INPUT_BB_COUNTS = 4,
	INPUT_CALLERS = 8,	/* caller samples (tag-4 records) */
};

/* ---- call graph ---- */

struct arc {
	struct sym *parent;
	struct sym *child;
	uint64_t count;
	double time;		/* time inherited along the arc */
	double child_time;	/* child time inherited along the arc */
	struct arc *next_parent;	/* next arc into the same child */
	struct arc *next_child;	/* next arc out of the same parent */
	int has_been_placed;	/* -r */
	bool uncounted;		/* seen only in caller samples: no count */
};


/* Adds @count calls from @parent to @child (merging an existing arc). */
void arc_add(struct profile *prof, struct sym *parent, struct sym *child,
	     uint64_t count);
struct arc *arc_lookup(struct profile *prof, struct sym *parent,
		       struct sym *child);
/*
 * Forgets every arc of the profile and every cycle (profile_reset(): the
 * fuzz target); arcs sym_id_parse() made between symspec symbols stay.
 */
void arcs_reset(struct profile *prof);
/* Called for each arc read: maps pcs to symbols and filters (-k). */
void cg_tally(struct profile *prof, uint64_t from_pc, uint64_t self_pc,
	      uint64_t count);
/*
 * Numbers, finds cycles, propagates time; returns syms by [index], an
 * array the caller owns (cg_print() only reads it).
 */
struct sym **cg_assemble(struct profile *prof, const struct gprof_options *opt);
void cg_print(struct profile *prof, const struct gprof_options *opt,
	      struct sym **timesortsym);
void cg_print_index(struct profile *prof, const struct gprof_options *opt);
void cg_print_function_ordering(struct profile *prof);
void cg_print_file_ordering(struct profile *prof);
/*
 * Sorts @n pointers at @base as glibc's qsort (a merge sort) does, so
 * that ties and even inconsistent comparisons order things as in GNU.
 */
void cg_sort(void *base, size_t n, int (*cmp)(const void *, const void *));

/*
 * -R: the map file's lines "file.o:... function", read by
 * read_function_mappings() (GNU's core_init calls it first).  When it is
 * in use, core_create_function_syms() keeps, of the functions a map line
 * names, only the first of each file, named after the file: s->name =
 * map->file_name (that pointer is what marks a symbol as mapped).
 */
struct function_map {
	char *function_name;
	char *file_name;
	bool is_first;		/* first line of its file in the map */
};
void read_function_mappings(struct profile *prof, const char *path);
/* The map line of function @name, or NULL (GNU's bsearch). */
struct function_map *symbol_map_find(struct profile *prof, const char *name);
bool sym_is_mapped(struct profile *prof, const struct sym *s);
/* Forgets -R's map (profile_free()). */
void function_map_reset(struct profile *prof);

/* ---- caller samples (caller_tree.c, cg_measured.c) ---- */

#define CALLER_NONE UINT32_MAX		/* caller_node.parent of a top node */
#define CALLER_ABSOLUTE UINT32_MAX	/* caller_node.module: in no module */

/* One calling context of the merged tree; parents come first. */
struct caller_node {
	uint64_t pc;		/* link-time in module, else absolute */
	uint32_t module;	/* module index, or CALLER_ABSOLUTE */
	uint32_t parent;	/* node index, or CALLER_NONE */
	uint64_t count;		/* samples whose chain ends here */
};

/* The caller samples of every profile file read, summed. */
struct caller_tree {
	struct caller_node *node;
	size_t len, cap;
	uint32_t truncated_top;	/* the top node of cut chains, or NONE */
	uint64_t lost, busy;	/* samples the writers could not file */
	uint64_t dropped;	/* samples of malformed chains, left out */
	uint64_t dropped_chains;	/* and those chains */
	uint64_t period_ns;	/* the sampling period of every record */
	unsigned int depth;	/* the largest depth of a record */
	unsigned int records;	/* tag-4 records read */
};

struct gmf_cursor;
/*
 * Merges the tag-4 record under @c into the tree; @map gives the
 * analyzer's module of each module record of the file.  A problem
 * fails @c with one line.
 */
void callers_parse(struct profile *prof, const struct gprof_options *opt,
		   struct gmf_cursor *c,
		   const unsigned int *map,
		   unsigned int nmap);
void callers_reset(struct profile *prof);
/* The top node of cut chains (module absolute, pc 1, no parent). */
bool caller_node_truncated(const struct caller_node *n);
/*
 * The function of node @n's pc, or NULL: as a sampled pc when @leaf,
 * else as a return address (the call before it).  cg_measured.c.
 */
struct sym *caller_node_function(struct profile *prof,
				 const struct caller_node *n, bool leaf);
/*
 * What function @s (NULL: unknown) says of a cut chain it is the
 * outermost frame of: 0, nothing (a library, the start code); 1, main,
 * so that the chain lacks only the C library's start code and counts
 * as complete; 2, another function of the program.  cg_measured.c.
 */
int caller_frame_entry(const struct sym *s);
/*
 * --extract-module: the chains through module @m, into @t (its nodes'
 * module 0 for @m, absolute for the rest): their frames in @m at their
 * link-time pcs, each run of frames elsewhere as one frame in no module
 * at pc 0 (passed over by the analysis, as code without symbols), the
 * truncated top kept.  Returns the samples left out: no frame in @m.
 */
uint64_t callers_of_module(struct profile *prof, unsigned int m,
			   struct caller_tree *t);
/*
 * What a tree built apart from @from (the profile's) says of the
 * recording: its lost, busy and dropped samples, period, depth, records.
 */
void caller_tree_counts_copy(struct caller_tree *to,
			     const struct caller_tree *from);
/* A node of a tree built apart, added at its end (its parent before it). */
uint32_t caller_tree_add(struct caller_tree *t, uint32_t parent,
			 uint32_t module, uint64_t pc);
/* The samples of tree @t, and of them those of cut chains (-s). */
void callers_totals(const struct caller_tree *t, uint64_t *samples,
		    uint64_t *truncated);

/* What the measured call graph was made of, for its header. */
struct caller_stats {
	uint64_t complete, truncated;	/* samples by their chain */
	uint64_t lost, busy;		/* samples the writers lost */
	uint64_t dropped;	/* samples of malformed chains, not read */
	uint64_t unknown;	/* samples with no frame in a known function */
	uint64_t overhead;	/* samples taken in the profiler's code */
	/* truncated by the module the chain stopped in; [nmodules]: none */
	uint64_t *cut_in;
	bool has_counts;	/* the profile has call counts (-pg) */
};
/*
 * Before cg_assemble(): decides measured_times and adds the arcs the
 * chains show that the call counts did not (count 0, uncounted);
 * @has_counts: the profile had call counts (-pg's arcs).
 */
void cg_measured_arcs(struct profile *prof, const struct gprof_options *opt,
		      bool has_counts);
/*
 * In cg_assemble(), after the cycles are known and the flags
 * propagated: sets every time of the graph from the caller samples.
 */
void cg_measured_times(struct profile *prof);
/* Whether @s's calls are unknown: all its callers are uncounted arcs. */
bool sym_calls_unknown(struct profile *prof, const struct sym *s);

/* ---- symspecs (-e -E -f -F -k -n -N -p -P -q -Q -A -J -C -Z) ---- */

enum table_id {
	INCL_GRAPH, EXCL_GRAPH, INCL_ARCS, EXCL_ARCS, INCL_FLAT, EXCL_FLAT,
	INCL_TIME, EXCL_TIME, INCL_ANNO, EXCL_ANNO, INCL_EXEC, EXCL_EXEC,
	NUM_TABLES
};

void sym_id_add(const char *spec, enum table_id which);
void sym_id_parse(struct profile *prof, const struct gprof_options *opt);
bool sym_id_arc_is_present(struct profile *prof, struct sym_table *t,
			   struct sym *from,
			   struct sym *to);
/* Forgets the symbols the symspecs matched in @prof (profile_free()). */
void sym_id_reset(struct profile *prof);
/* GNU's: the profiling runtime's functions excluded from every report. */
void sym_id_add_defaults(void);
/* Forgets the symspecs sym_id_add() took. */
void sym_id_free(void);

/* ---- the profile ---- */

/*
 * One program's profile: its modules and their symbols, what the
 * profile files held, and what the analysis made of it.  Every part
 * takes the profile it works on; profile_init() makes an empty one and
 * profile_free() frees all it holds.
 */
struct profile {
	struct sym_table symtab;	/* every symbol of every module */
	struct module *modules;
	unsigned int nmodules;
	/* True when the profile named modules beyond the executable. */
	bool multi_module;
	/* The file being read, whose module records module_add() takes. */
	const char *module_profile;
	/* Pointer size and byte order of GNU files: the executable's. */
	unsigned int gmon_ptr_size;
	bool gmon_big_endian;

	struct hist_record *hist_records;
	unsigned int num_hist_records;
	double hz;		/* samples per second (prof_rate) */
	char hist_dimension[16];
	char hist_dimension_abbrev;
	int gmon_input;		/* INPUT_*: what the files held */

	unsigned int num_cycles;
	struct sym *cycle_header;	/* num_cycles + 1, [0] unused */
	struct arc **arcs;	/* every arc but the self-calls (-r, -R) */
	size_t numarcs, arcs_cap;
	/* Sum of the self time the call graph shows (GNU's print_time). */
	double print_time;
	double total_time;	/* ticks, the profiler's left out */
	/* Ticks in the profiler's own code (modules[].overhead), left out. */
	double overhead_time;

	/* The caller samples of every profile file read, summed. */
	struct caller_tree callers;
	/* The call graph's times come from the caller samples. */
	bool measured_times;
	struct caller_stats caller_stats;
	struct thread_prof *threads;
	uint32_t nthreads;

	/* -R's map, by function_name, and its file names' one block. */
	struct function_map *symbol_map;
	unsigned int symbol_map_count;
	char *map_names;
	size_t map_names_len;
	/* The symspecs' symbols, the arc specs' callees and ranges. */
	struct sym_table syms[NUM_TABLES];
	struct sym_table right_ids;
	struct arc_spec *arc_specs;
	size_t narc_specs;
	/* Every source_file made so far (by sym_source), newest first. */
	struct source_file *first_src_file;
	/* No report section printed yet: the next one has no form feed. */
	bool first_output;
	/* Why the last phase that returned an error failed (one line). */
	char error[512];

	/*
	 * The parts' own bookkeeping, kept here so that profiles do not
	 * share it.  The files read (gmon_read.c):
	 */
	struct profile_file *files;
	int nfiles;
	unsigned int outside;	/* module_outside()'s module, 0 before */
	/* A file's GNU call arcs, and those whose callee is in no symbol. */
	uint64_t file_arcs, file_stray_arcs;
	double gnu_hist_scale;	/* the GNU records' common bin width */
	bool have_gnu_hist;	/* one was read yet */
	uint64_t ext_period;	/* the extension histograms' period, or 0 */
	/*
	 * What a sample counts (include/sprofil/events.h): SPROFIL_EVENT_*
	 * of the files' event record, 0 (CPU time) without one, and its
	 * period in events; the files read so far, all of one event.
	 */
	uint32_t event_type;
	uint64_t event_period;
	int event_files;
	/* Each module's ELF file, symbol table room (symtab.c). */
	struct core_module *core;
	unsigned int ncore;	/* modules when core_init() ran */
	size_t sym_cap;		/* symtab.base's room */
	char **gap_names;	/* the gaps' names (sym_gaps.c) */
	size_t ngap_names;
	/* -l's symbols in the making (line_syms.c). */
	struct line_sym *lsyms;
	size_t nlsyms, lsym_cap;
	/* Source files by name, each module's DWARF (lines.c). */
	struct source_file **sf_hash;
	size_t sf_hash_size;	/* a power of two */
	size_t sf_count;
	struct dmod *dmods;
	unsigned int ndmods;
	/* Arcs by (parent, child) (callgraph.c). */
	struct arc **arc_hash;
	size_t arc_hash_size;	/* a power of two, or 0 */
	size_t arc_hash_used;
	/* Caller nodes by (parent, module, pc) (caller_tree.c). */
	uint32_t *node_hash;
	size_t node_hash_size;	/* a power of two, or 0 */
	/* Each caller node's functions (cg_measured.c). */
	struct sym **node_caller, **node_leaf, **node_known;
	/* The chains' ends by thread (threads.c). */
	struct thread_leaf *leaves;
	size_t nleaves, leaves_cap;
	uint32_t threads_cap;
	uint64_t per_thread_records;	/* callers records with threads */
};

/* An empty profile. */
void profile_init(struct profile *prof);
/* Frees everything @prof holds (it can be initialized again). */
void profile_free(struct profile *prof);
/* Sets @prof's error to the message @fmt says; returns -1. */
int profile_error(struct profile *prof, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- the phases over one profile (pipeline.c) ---- */

/*
 * Reads the executable's and every module's symbols, then the @n
 * profile files @files (gmon.out when none) into @prof; 0, or -1 and
 * why in prof->error.
 */
int profile_read(struct profile *prof, const struct gprof_options *opt,
		 const char *const *files, int n);
/*
 * Decides whether the call graph is measured from caller samples or
 * estimated from call counts; returns whether the files had call counts.
 */
bool profile_prepare(struct profile *prof, const struct gprof_options *opt);
/* The STYLE_* reports to print: the options', else what the files hold. */
int report_style(const struct profile *prof, const struct gprof_options *opt);
/*
 * Histograms to symbols and the call graph; returns the symbols by
 * [index] (to free), or NULL when there is no call graph to report.
 */
struct sym **profile_analyze(struct profile *prof,
			     const struct gprof_options *opt, bool counted);
/* Prints the @style reports of @prof on stdout, in GNU's order. */
void report_print(struct profile *prof, const struct gprof_options *opt,
		  int style, struct sym **cg);

/* ---- errors and allocation (util.c) ---- */

/* Prints "gprof: <fmt>\n" on stderr and exits 1. */
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2),
						 noreturn));
/* The name fatal()'s messages start with, "gprof" until set. */
void fatal_set_name(const char *name);
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
/* @n * @size bytes, fatal when the product overflows (counts from files). */
void *xmallocarray(size_t n, size_t size);
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);

/* ---- names (names.c) ---- */

/* GNU's print_name_only: name, (file:line) decorations; returns width. */
size_t print_name_only(struct profile *prof, const struct gprof_options *opt,
		       FILE *f, struct sym *s);
/* GNU's print_name: name, " <cycle N>", " [N]" or " (N)". */
void print_name(struct profile *prof, const struct gprof_options *opt, FILE *f,
		struct sym *s);

/* ---- histograms and the flat profile (hist.c) ---- */

void hist_assign_samples(struct profile *prof);
/*
 * The last symbol at or below @addr (binary search; 0 when none is):
 * the first whose range, up to the next symbol, could hold it.
 */
size_t hist_sym_at(struct profile *prof, uint64_t addr);
/* The unified [lo, hi) that bin @i of @r counted (empty: none). */
void hist_bin_bounds(struct profile *prof, const struct hist_record *r,
		     uint64_t i, uint64_t *lo,
		     uint64_t *hi);
void hist_print(struct profile *prof, const struct gprof_options *opt);

/* ---- source lines (lines.c, libdw; annotate.c for -A -C) ---- */

/* Fills s->file and s->line_num on first use (lazily; cheap after). */
void sym_source(struct profile *prof, const struct gprof_options *opt,
		struct sym *s);
/* -l: adds one symbol per source line of every module's text. */
void core_create_line_syms(struct profile *prof,
			   const struct gprof_options *opt);
void print_exec_counts(struct profile *prof, const struct gprof_options *opt);
void print_annotated_source(struct profile *prof,
			    const struct gprof_options *opt);
/* -I and GPROF_PATH: appends colon-separated directories for -A. */
void source_search_append(const char *dirs);
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

/* ---- basic blocks (tag 2 records; annotate.c) ---- */

/*
 * Files @count executions of the block at unified @addr into the symbol
 * holding it (first NBBS blocks a symbol), as GNU's bb_read_rec does;
 * without -l it only warns, once, that the counts are ignored.
 */
void bb_record(struct profile *prof, const struct gprof_options *opt,
	       uint64_t addr, uint64_t count);
/* gmon.sum: writes the tag-2 record of every block with a count. */
void bb_write(struct profile *prof, FILE *f);

/* ---- profile files (gmon_read.c) and gmon.sum (gmon_write.c) ---- */

/*
 * Parses one profile file held in memory.  Returns 0, or -1 with one
 * line (without the file name) in @err.  Symbols must already exist:
 * arcs are tallied into the call graph as they are read.
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
/* Parses the files gmon_load_files() read, in order; 0, or -1 (error). */
int gmon_parse_files(struct profile *prof, const struct gprof_options *opt);
/* --extract-module: writes one module's data as GNU gmon.out. */
void gmon_extract_module(struct profile *prof, const struct gprof_options *opt,
			 const char *module,
			 const char *to);
/* Creates the module table with module 0, the executable, if needed. */
void modules_init(struct profile *prof);
/*
 * The module of a module record (module_table.c): the executable
 * (module 0), or the module of the same path and build-id, or of the
 * same build-id (the same library at another path in another run), else
 * a new one.  A module of another build than an earlier file's cannot
 * be summed with it: UINT_MAX, and why (one line) in @why.
 */
unsigned int module_add(struct profile *prof, const char *name, size_t name_len,
			const unsigned char *id, size_t id_len, uint64_t bias,
			bool is_main, char *why, size_t whylen);
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
/* Forgets every profile read so far (the fuzz target parses many). */
void profile_reset(struct profile *prof);
/*
 * The fuzz targets load many files in one process: after
 * profile_reset(), these free in turn the DWARF and source files
 * (lines_reset), the ELF files and the symbol table (core_reset), and
 * the module table and the loaded profile files (modules_reset).
 */
void lines_reset(struct profile *prof);
void core_reset(struct profile *prof);
void modules_reset(struct profile *prof);
/* Reads a file with gmon_parse; any problem is fatal. */
void gmon_out_read(const char *path);
/* -s: writes gmon.sum. */
void gmon_out_write(struct profile *prof, const struct gprof_options *opt,
		    const char *path);

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
/* -c: adds count-0 arcs for the direct calls inside @parent. */
void find_call(struct profile *prof, struct sym *parent, uint64_t lowpc,
	       uint64_t highpc);
/* True when @addr lies inside a histogram record (GNU's check for -c). */
bool hist_check_address(struct profile *prof, uint64_t addr);

/* ---- --export (export.c) ---- */

bool export_format_known(const char *format);
/* Writes the analyzed profile in export_format on stdout. */
void export_profile(struct profile *prof, const struct gprof_options *opt);
/*
 * --render=FORMAT: render_start() sends stdout through `dot -TFORMAT`
 * (fatal, one line, when dot is not installed); render_finish() waits
 * for it and fails when it did.
 */
void render_start(const struct gprof_options *opt);
void render_finish(const struct gprof_options *opt);

/* ---- modules (modules.c) ---- */

/*
 * Multi-module reports (multi_module true): the flat profile and the call
 * graph get a module column ("%4u " before the name, header "mod "), and
 * modules_print() ends the report with the table of modules, including
 * those that could not be read and why.
 */
void modules_print(struct profile *prof, const struct gprof_options *opt);
/* The line saying what the profiler's own code took, if anything. */
bool overhead_print(struct profile *prof);

#endif /* GPROF_GPROF_H */
