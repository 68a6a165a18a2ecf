/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The analysis: histograms to symbols, the call graph (counted or
 * measured), the symspecs, over what the reader read (read/read.h).
 */
#ifndef GPROF_ANALYZE_ANALYZE_H
#define GPROF_ANALYZE_ANALYZE_H

#include "model/model.h"
#include "read/read.h"

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

/*
 * Files @count executions of the block at unified @addr into the symbol
 * holding it (first NBBS blocks a symbol), as GNU's bb_read_rec does;
 * without -l it only warns, once, that the counts are ignored.
 */
void bb_record(struct profile *prof, const struct gprof_options *opt,
	       uint64_t addr, uint64_t count);
/*
 * Files the arcs (cg_tally()), block counts (bb_record()) and callers
 * records (callers_parse(), which chooses --thread's threads) the
 * reader kept, in the order read, and forgets them; 0, or -1 and
 * @prof's error (a malformed callers record, named with its file).
 */
int profile_tally(struct profile *prof, const struct gprof_options *opt);
/* Frees what the reader kept, tallied or not (profile_reset()). */
void profile_tally_forget(struct profile *prof);

/* -c: adds count-0 arcs for the direct calls inside @parent. */
void find_call(struct profile *prof, struct sym *parent, uint64_t lowpc,
	       uint64_t highpc);
/* True when @addr lies inside a histogram record (GNU's check for -c). */
bool hist_check_address(struct profile *prof, uint64_t addr);

/* The bin width of the first record, in 2-byte units (GNU's scale). */
double hist_first_scale(struct profile *prof);
/* GNU's -p/-P rule: whether @s's time is shown (and counted). */
bool hist_flat_included(struct profile *prof, const struct sym *s);


/* ---- caller samples merged (caller_tree.c) and threads chosen ---- */

struct gmf_cursor;
/*
 * Merges the tag-4 record under @c into the tree (profile_tally(), for
 * the records the reader kept); @map gives the analyzer's module of each
 * module record of the file.  A problem fails @c with one line.
 */
void callers_parse(struct profile *prof, const struct gprof_options *opt,
		   struct gmf_cursor *c,
		   const unsigned int *map,
		   unsigned int nmap);
void callers_reset(struct profile *prof);
/* The top node of cut chains (module absolute, pc 1, no parent). */
bool caller_node_truncated(const struct caller_node *n);

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

/* Whether thread @t is one --thread names (every one without it). */
bool thread_is_selected(struct profile *prof, const struct gprof_options *opt,
			uint32_t t);

/*
 * After every file is read: with --thread, the histograms are rebuilt
 * from the selected threads' chains (the flat profile is then theirs);
 * fails when a per-thread option meets a profile without threads, or
 * the selection names none of them: -1 and @prof's error, else 0.
 */
int threads_apply_selection(struct profile *prof,
			    const struct gprof_options *opt);

/*
 * The merged tree with each selected thread's chains below a top node of
 * its own again (pc SPC_PC_THREAD + tid), for -s to write a per-thread
 * profile; false, @t untouched, when the profile has no threads.
 */
bool threads_tree(struct profile *prof, struct caller_tree *t);

#endif /* GPROF_ANALYZE_ANALYZE_H */
