/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sprofil's gprof: the data model shared by the analyzer's layers
 * (docs/gprof.md draws them; each includes only its own and lower
 * layers' headers).
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
#ifndef GPROF_MODEL_MODEL_H
#define GPROF_MODEL_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/options.h"
#include "util/util.h"

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

/*
 * What the reader read and the analysis has yet to file into the
 * symbols (analyze/tally.c): a call arc, at the pcs the file names
 * (unified), and a basic block's execution count.
 */
struct read_arc {
	uint64_t from_pc, self_pc, count;
};

struct read_bb {
	uint64_t addr, count;
};

/*
 * A callers (tag-4) record as read, for the analysis to merge into the
 * caller tree (and to choose the threads of): its bytes, its file's
 * module map (the analyzer's module of each module record) and byte
 * order, and the file it came from.
 */
struct read_callers {
	unsigned char *rec;
	size_t len;
	unsigned int *map;
	unsigned int nmap;
	bool swap;
	const char *file;
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

/* ---- symspecs (-e -E -f -F -k -n -N -p -P -q -Q -A -J -C -Z) ---- */

enum table_id {
	INCL_GRAPH, EXCL_GRAPH, INCL_ARCS, EXCL_ARCS, INCL_FLAT, EXCL_FLAT,
	INCL_TIME, EXCL_TIME, INCL_ANNO, EXCL_ANNO, INCL_EXEC, EXCL_EXEC,
	NUM_TABLES
};

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
	/* The arcs and block counts read and not yet tallied. */
	struct read_arc *read_arcs;
	size_t nread_arcs, read_arcs_cap;
	struct read_bb *read_bbs;
	size_t nread_bbs, read_bbs_cap;
	struct read_callers *read_callers;
	size_t nread_callers, read_callers_cap;
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

/* Sets @prof's error to the message @fmt says; returns -1. */
int profile_error(struct profile *prof, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

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

#endif /* GPROF_MODEL_MODEL_H */
