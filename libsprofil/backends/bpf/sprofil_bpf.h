/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the BPF program (sprofil.bpf.c) and its loader (backend_bpf.c)
 * agree on: the sizes of the tables the loader fills in before loading,
 * and the layout of the lookup self-test's input and output.
 */
#ifndef LIBSPROFIL_SPROFIL_BPF_H
#define LIBSPROFIL_SPROFIL_BPF_H

#include <sprofil/mapping.h>
/* The program defines the walk's hooks first (sprofil.bpf.c). */
#include <sprofil/callers.h>

/* Room for the segments of SPROFIL_MAX_REGIONS regions: a power of two. */
#define SPB_MAX_SEGMENTS	SPM_MAX_SEGMENTS(SPROFIL_MAX_REGIONS)
/* The first step of the segment search: the largest power of two <= it. */
#define SPB_SEARCH_TOP		SPB_MAX_SEGMENTS
/* Steps of the search: SPB_SEARCH_TOP, its half, ..., 1. */
#define SPB_SEARCH_STEPS	(__builtin_ctz(SPB_SEARCH_TOP) + 1)

_Static_assert((SPB_MAX_SEGMENTS & (SPB_MAX_SEGMENTS - 1)) == 0,
	       "the segment table is indexed with a mask");
_Static_assert((SPROFIL_MAX_REGIONS & (SPROFIL_MAX_REGIONS - 1)) == 0,
	       "the region table is indexed with a mask");

/*
 * A process's counters: a hash of the buckets it hit, so that its memory
 * grows with the samples, not with the text.  At most this many buckets
 * in one session: the hash's table of heads is allocated and zeroed
 * whole when the process starts (1 MiB; at 2^18 buckets it was 8 % of
 * the CPU of a recorded tree of short processes).  A sample of a bucket
 * beyond them is counted in spb_proc.lost, and reported as a miss.
 */
#define SPB_MAX_COUNTERS	(1u << 16)
/* Keys of the buckets counted lately, for the fold (spb_proc.ring). */
#define SPB_RING		4096

/* Threads whose last sample the program remembers (an LRU of them). */
#define SPB_MAX_THREADS		65536
/* Processes one loaded program samples at once (docs/backends.md). */
#define SPB_MAX_PROCS		8192

/* PCs one run of the lookup self-test files. */
#define SPB_TEST_PCS		256

/*
 * One region set as the program reads it.  The program has two, in its
 * writable data: the loader fills the one not in use and flips sp_cur, so
 * that a new set replaces the old without a new program or new counters.
 * Set k counts into sp_counts at k * sp_half + first[r].
 */
struct spb_set {
	__u32 shift;
	__u32 nsegments;
	struct spm_segment segment[SPB_MAX_SEGMENTS];
	struct spm_region region[SPROFIL_MAX_REGIONS];
	__u32 first[SPROFIL_MAX_REGIONS];	/* each region's first counter */
};

/*
 * One profiled process's state: the single element of its inner map of
 * sp_procs, keyed by its process id, which the library maps and writes
 * as it wrote the program's global data when every process loaded a
 * program of its own.  The two region sets: the library fills the one
 * not in use and flips cur, so that a new set replaces the old between
 * two samples.  Set k counts into the process's counters at
 * k * half + first[r].  Counting starts only when the library sets on,
 * after every thread has its counter.
 */
struct spb_proc {
	struct spb_set set[2];
	__u32 cur;
	__u32 on;
	/*
	 * The profiler's own work, whose CPU time is not the program's:
	 * the library's folding thread, and a thread setting up a new
	 * session while the old one samples.  Their samples are filed at
	 * own_pc, a pc of libsprofil's text, with no chain beyond it and
	 * under no thread's node, so that they count as its overhead
	 * (docs/record.md); own_pc 0 leaves them out.
	 */
	__u32 quiet_tid;
	__u32 busy_tid;
	__u32 percpu;		/* per-CPU clocks: one period per sample */
	__u32 half;		/* counters per set */
	/*
	 * Caller chains (docs/callers.md): the tree's mask (nodes - 1),
	 * the frames kept per chain (0: no chains), 1 to walk with
	 * bpf_get_stack() instead (bench/), each chain under its thread.
	 */
	__u32 cmask;
	__u32 cdepth;
	__u32 cwalk;
	__u32 cthreads;
	/*
	 * The tree's generation (spb_gen(), when its maps were made): the
	 * program's cache of nodes found (sp_cfound) holds a node for a
	 * process id and a generation.  0: not to be cached.
	 */
	__u64 cgen;
	__u64 own_pc;
	__u64 samples[2];
	__u64 misses[2];
	__u64 lost[2];		/* samples of buckets the hash had no room for */
	struct spc_header chdr;
	/*
	 * The key + 1 of each bucket counted, in order, at ring_head++ (mod
	 * SPB_RING): the fold reads and zeroes the slots since its last
	 * pass, and reads every counter when more were written than the
	 * ring holds.
	 */
	__u32 ring_head;
	/*
	 * 1: the event happens in kernel mode (a context switch), whose
	 * regs are the kernel's: the sample is the thread's user regs.
	 */
	__u32 uregs;
	__u32 ring[SPB_RING];
};

/* Nodes per flag of sp_cdirty: the fold reads only flagged chunks. */
#define SPB_CNODE_CHUNK_SHIFT	8

/* The filing self-test (tests/bpf): chains and frames one run files. */
#define SPB_TEST_CHAINS		256
#define SPB_TEST_FRAMES		8192

/* One chain of the filing self-test: frames [first, first + len). */
struct spb_test_chain {
	__u32 first;
	__u32 len;
	__u32 truncated;
	__u32 n;		/* samples */
};

/* The most slots of each of the program's per-CPU caches. */
#define SPB_CACHE_SLOTS_MAX	4096

/*
 * The chain of the sample being filed, per CPU: too big for the BPF
 * stack's 512 bytes.
 */
struct spb_chain {
	__u64 pc[SPROFIL_MAX_DEPTH];
	__u32 len;
	__u32 truncated;
	/* Whose tree it is filed in: the key of sp_cfound's slots. */
	__u64 cgen;
	__u32 tgid;
	__u32 reserved;
};

/*
 * A process's unwind tables (include/sprofil/unwind_table.h), as the
 * program reads them: its inner map of sp_punwind, an array of 64-byte
 * elements that the library fills (backend_bpf_unwind.c).  Element 0 is
 * a struct spb_uhdr, elements 1 to nmods a struct spb_umod each, and the
 * tables follow as 4-byte words, word w in element w / 16: each table's
 * rules, page index and rows as its file has them.  A map replaces the
 * process's last one whole when its set of modules changes.
 */
#define SPB_UELEM		64
#define SPB_UWORDS		(SPB_UELEM / 4)	/* words per element */
/* Modules with a table one process's walk knows: a power of two. */
#define SPB_UMODS		64

/*
 * @gen names this map's tables among all the process's maps, before and
 * after it (the library's fill time, strictly increasing): the program's
 * cache of rules found (sp_urules) holds a rule for a process id and a
 * generation.  0: not to be cached.
 */
struct spb_uhdr {
	__u32 nmods;
	__u32 reserved0;
	__u64 gen;
	__u32 reserved[SPB_UWORDS - 4];
};

/* One mapped module with a table. */
struct spb_umod {
	__u64 lo, hi;		/* the runtime addresses its rows cover */
	__u64 base;		/* the runtime address of row offset 0 */
	__u32 rule;		/* word index of its first rule */
	__u32 page;		/* of its page index */
	__u32 row;		/* of its first row */
	__u32 nrules;
	__u32 npages;
	__u32 span;
	__u32 reserved[4];
};

_Static_assert(sizeof(struct spb_uhdr) == SPB_UELEM, "one element");
_Static_assert(sizeof(struct spb_umod) == SPB_UELEM, "one element");

/*
 * The unwind self-test (tests/bpf/test_bpf_unwind.c): one walk of the
 * calling process's stack with its tables in sp_punwind, from these
 * registers, and what spu_walk() said.
 */
struct spb_test_unwind {
	__u64 pc, sp, fp;
	__u32 depth;
	__s32 ret;
	__u32 len;
	__u32 reserved;
	__u64 chain[SPROFIL_MAX_DEPTH];
};

/* Result of the lookup self-test for one PC. */
struct spb_test_result {
	__s32 entry;		/* caller's entry index of the region, -1 */
	__u32 reserved;
	__u64 bucket;		/* bucket index inside that region */
};

#endif /* LIBSPROFIL_SPROFIL_BPF_H */
