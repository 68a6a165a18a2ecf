/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Writing a profile to disk, and the histogram geometry shared by
 * smonitor() and monitor().  docs/gmon-format.md specifies both file
 * formats sp_gmon_dump() writes, include/sprofil/gmon_format.h defines
 * their constants.
 */
#ifndef LIBSPROFIL_GMON_H
#define LIBSPROFIL_GMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * One histogram as it was handed to sprofil(): bucket i counts the pcs
 * whose index ((pc - low_pc) / bucket_size) * scale / 65536 is i.
 */
struct sp_hist {
	uintptr_t low_pc;		/* runtime address of bucket 0 */
	const void *buckets;
	size_t nbuckets;
	unsigned int bucket_size;	/* 2 (PROF_USHORT) or 4 (PROF_UINT) */
	uint32_t scale;			/* 2 .. 0x10000 */
	/*
	 * The buckets are still being sampled (no copy could be made):
	 * written dense, the one encoding whose size they cannot change.
	 */
	bool live;
};

/* One call arc, runtime addresses: @count calls from @from to @self. */
struct sp_arc {
	uintptr_t from;			/* return address in the caller */
	uintptr_t self;			/* pc just inside the callee */
	uint64_t count;
};

struct sp_callers_data;

/* Everything one dump writes (sp_gmon_dump_arcs() adds call arcs). */
struct sp_profile {
	const struct sp_hist *hist;
	size_t nhist;
	uint64_t period_ns;		/* true sampling period */
	unsigned int seq;		/* 0, or the SPROFIL_SIGDUMP dump number */
	/*
	 * The caller chains (gmon_callers.h), or NULL: a callers record in
	 * an extension file, or beside a GNU file in "<file>.callers".
	 */
	const struct sp_callers_data *callers;
	/*
	 * The threads record's rows (thread_table.h), taken when the dump
	 * began, so that their CPU times cover the sampled run and not the
	 * writing of its profile; NULL when not per thread.
	 */
	const struct sp_thread_rec *threads;
	size_t nthreads;
};

/*
 * Writes @p atomically to the file sp_gmon_path() names, as GNU gmon.out
 * when GNU gprof can read it, else in the sprofil extension; caller
 * chains go into the extension file, or beside a GNU one in
 * "<file>.callers" (an extension file), written first, so that a GNU
 * file is never beside another dump's chains.  Returns 0
 * (also when GPROFDIR="" asks for no output) or a negative errno, after
 * one line on stderr naming the file and the problem.
 */
int sp_gmon_dump(const struct sp_profile *p);

/*
 * sp_gmon_dump() with @narcs call arcs (sorted or not, no duplicates).
 * No dump writes over a file this process wrote: sp_gmon_path_seq()'s
 * name, or if that is one, the next "<name>.<n>" that is not.
 * The file is GNU gmon.out only if, besides the histogram rules, every
 * callee is in the main executable; arcs from callers outside it are
 * then left out, as glibc does (gprof could not name them).
 */
int sp_gmon_dump_arcs(const struct sp_profile *p, const struct sp_arc *arcs,
		      size_t narcs);

/*
 * The output file name: "<GPROFDIR>/<pid>.<progname>" if GPROFDIR is set,
 * else "<GMON_OUT_PREFIX>.<pid>" if that is set, else "gmon.out", or
 * "gmon.out.<pid>" in a forked child, so that it never overwrites the
 * file of its parent.
 * Returns 0, 1 when GPROFDIR is empty (no output wanted), or -ENAMETOOLONG.
 */
int sp_gmon_path(char *buf, size_t size);
/*
 * sp_gmon_path() for dump number @seq of SPROFIL_SIGDUMP: "<name>.<seq>",
 * so that no dump overwrites another; @seq 0 is the plain name, which the
 * final dump at exit (or exec) keeps.
 */
int sp_gmon_path_seq(char *buf, size_t size, unsigned int seq);

/*
 * record.c, `sprofil record`'s collector: whether SPROFIL_RECORD names
 * the output, and the name of this process image's dump @seq there
 * (docs/record.md); @ours tells the files this image already wrote.
 * Returns 0 or a negative errno.
 */
bool sp_recording(void);
int sp_record_path(char *buf, size_t size, unsigned int seq,
		   bool (*ours)(const char *path));

/*
 * The largest profil scale <= 0x10000 with which @text bytes fit in
 * @nbuckets buckets of @bucket_size bytes, in *scale, and in *used the
 * buckets that text reaches.  Returns 0, or -EINVAL when even scale 2
 * does not fit (the buffer is too small).
 */
int sp_fit_scale(uint64_t text, uint64_t nbuckets, unsigned int bucket_size,
		 uint32_t *scale, uint64_t *used);

/*
 * gmon_buckets.c: the -pg runtime's histogram buffers of @n buckets of
 * @size bytes, committed only where a count is stored.  sp_buckets_alloc()
 * returns zeroed memory or NULL.  sp_buckets_clear() zeroes a buffer
 * that is being sampled, storing only to its nonzero buckets.
 * sp_buckets_copy() returns a copy of @h's counts in a buffer of its own
 * (sp_buckets_free() it), or NULL; with @take the counts copied leave
 * zeros behind, each taken atomically.
 */
void *sp_buckets_alloc(size_t n, unsigned int size);
void sp_buckets_free(const void *buckets, size_t n, unsigned int size);
void sp_buckets_clear(const void *buckets, size_t n, unsigned int size);
void *sp_buckets_copy(const struct sp_hist *h, bool take);

/* Shared by smonitor() and monitor(); @who prefixes the messages. */
struct text_region;
void sp_monitor_start(const char *who, const struct text_region *regions,
		      int nregions, void *buffer, size_t bufsize,
		      unsigned int flags);
void sp_monitor_stop(const char *who);

/*
 * The call-arc table of mcount.c (the gcc -pg runtime, gmon.c): room for
 * SPROFIL_MAX_ARCS distinct arcs (default 2^28), committed as used.
 */
int sp_arcs_init(void);
void sp_arcs_enable(int on);
void sp_arcs_reset(void);
/*
 * The arcs counted so far, each once, in a malloc()ed *arcs;
 * *lost calls were not counted because the table of *limit arcs was
 * full.  Returns the number of arcs or -ENOMEM.
 */
ssize_t sp_arcs_collect(struct sp_arc **arcs, uint64_t *lost, size_t *limit);
/*
 * sp_arcs_collect() that also takes the counts (and *lost) to zero, each
 * atomically, so that every call is in exactly one snapshot.
 */
ssize_t sp_arcs_snapshot_reset(struct sp_arc **arcs, uint64_t *lost,
			       size_t *limit);

/*
 * gmon.c, for smonitor.c: the monitor session's sprofil() replaced the
 * -pg runtime's sampling, whose samples are then discarded (HP-UX).
 */
void sp_gmon_monitor_started(void);
/*
 * gmon.c, for smonitor.c's dumps: the -pg runtime's arcs counted since
 * its last dump, taken to zero (so that _mcleanup writes only later
 * ones), in a malloc()ed *arcs; 0 and NULL when no -pg runtime runs in
 * this process; or -ENOMEM.
 */
ssize_t sp_gmon_monitor_arcs(struct sp_arc **arcs);
/* gmon.c: a -pg process writes its profile before exec (exec.c). */
void sp_gmon_before_exec(void);
/* gmon.c: dlopen.c saw modules come or go (dlopen, dlclose). */
void sp_gmon_modules_changed(void);
/*
 * gmon_write.c: a module dlclose() unmapped, so that the writer still
 * maps the addresses it profiled to it (link-time, with its name and
 * build-id).  The name and build-id are copied.
 *
 * Returns the module's place in the gone modules' own address range, a
 * load bias above every user address (SP_GONE_BASE up), the same for
 * every load of one file (name, build-id, layout), or 0 when there is no
 * room.  The -pg runtime moves the module's histogram and arcs there
 * (sp_arcs_move()), so that a module dlopen()ed again elsewhere, where
 * another module may have been, cannot mix up their addresses.
 */
#define SP_GONE_BASE	0xffff800000000000ul
#define SP_GONE_STRIDE	(1ul << 32)	/* the largest module moved */
uintptr_t sp_gmon_module_gone(const char *name, uintptr_t bias,
			      uintptr_t low, uintptr_t high,
			      const void *build_id, size_t len);
/*
 * mcount.c: the calls of every arc with an end in [@low, @high) (a
 * module dlclose() took away) moved to the arc whose ends there are
 * @delta higher (its place from sp_gmon_module_gone()).  Not for
 * mcount's path; no thread may be in that module's code.
 */
void sp_arcs_move(uintptr_t low, uintptr_t high, uintptr_t delta);

/*
 * SPROFIL_SIGDUMP: gmon.c writes the profile so far as dump @seq and
 * starts it again from zero (called by sigdump.c's dump thread); returns
 * 0 or a negative errno (-ESRCH: not profiling in this process).
 */
int sp_gmon_dump_reset(unsigned int seq);
/* sigdump.c: at monstartup, the signal handler and the dump thread. */
void sp_sigdump_start(void);

#endif /* LIBSPROFIL_GMON_H */
