/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The profile files sprofil writes and reads, defined once: GNU gmon.out
 * (version 1) and the sprofil extension.  The -pg runtime and the
 * library's dumps (libsprofil/pg/gmon_write.c), the analyzer's reader and
 * writer (gprof/gmon_read.c, gmon_write.c) and the tests include this
 * header, as <sys/gmon_out.h> serves glibc's writer and GNU's reader.
 * docs/gmon-format.md is the specification; this is its code.
 *
 * Nothing in either format is aligned, so records are (de)serialized
 * field by field at the offsets below, never through a struct.
 */
#ifndef SPROFIL_GMON_FORMAT_H
#define SPROFIL_GMON_FORMAT_H

/* Both formats: cookie, u32 version, 12 zero bytes. */
#define GMF_COOKIE		"gmon"
#define GMF_HEADER_SIZE		20
#define GMF_GNU_VERSION		1u
#define GMF_BSD44_VERSION	0x00051879u	/* 4.4BSD, read only */
/*
 * "SP" and the minor revision; GNU gprof refuses it.  Revision 2 added
 * the sparse histogram record (tag 6), which is what writers write;
 * revision 1 files (dense histograms only) still read.  Revision 3 added
 * the event record (tag 8): a profile sampled on an event other than CPU
 * time is written as revision 3, so that a reader that does not know
 * the record refuses it rather than read its counts as seconds; a CPU
 * time profile stays revision 2.  gmon_codec.h's gmf_ext_revision()
 * tells them apart, in either byte order.
 */
#define GMF_EXT_MAJOR		0x5350u
#define GMF_EXT_VERSION		0x53500002u	/* a CPU time profile */
#define GMF_EXT_VERSION_3	0x53500003u	/* with an event record */
#define GMF_EXT_VERSION_1	0x53500001u

/* GNU records: a one-byte tag, then the fields (ptr = sizeof(void *)). */
#define GMF_GNU_TAG_TIME_HIST	0
#define GMF_GNU_TAG_CG_ARC	1
#define GMF_GNU_TAG_BB_COUNT	2
#define GMF_GNU_DIMEN_LEN	15		/* "seconds", NUL-padded */
#define GMF_GNU_ARC_COUNT_MAX	2147483647u	/* what a u32 count clamps to */

/* Extension records: u32 tag, u64 body size, then the body. */
#define GMF_EXT_RECORD_HEAD	12
#define GMF_TAG_MODULE		1
#define GMF_TAG_HIST		2
#define GMF_TAG_ARCS		3
#define GMF_TAG_CALLERS		4
#define GMF_NO_MODULE		0xffffffffu	/* absolute addresses */

/* Tag 1, module: fixed part, then the name and the build-id bytes. */
#define GMF_MODULE_FIXED	24
#define GMF_MODULE_MAIN		0x1u		/* flags: the main executable */

/* Tag 2, histogram: fixed part, then nbuckets u16 or u32 counts. */
#define GMF_HIST_FIXED		48
/*
 * Tag 6 (revision 2), sparse histogram: tag 2's fixed part, then varints
 * (LEB128): nruns, and per run of nonzero buckets its gap (zero buckets
 * since the end of the run before, or since bucket 0), its length and
 * its counts.  gmon_codec.h encodes and decodes it.
 */
#define GMF_TAG_HIST_SPARSE	6

/* Tag 3, arcs: u64 narcs, then narcs arcs of this size. */
#define GMF_ARCS_FIXED		8
#define GMF_ARC_SIZE		32

/*
 * Tag 4, callers: the calling context tree of the caller table
 * (include/sprofil/callers.h), with link-time addresses.  Fixed part:
 *	 0  u64	nnodes
 *	 8  u32	depth: most frames kept per chain
 *	12  u32	zero (reserved)
 *	16  u64	samples filed, complete or truncated
 *	24  u64	of them, truncated
 *	32  u64	samples lost: the table was full
 *	40  u64	samples lost: a slot stayed busy
 *	48  u64	period_ns: the true sampling period
 * then nnodes nodes of GMF_CALLER_NODE_SIZE bytes, every node after its
 * parent:
 *	 0  u32	parent: index of the parent node in this record, or
 *		GMF_CALLER_TOP for a chain's outermost frame
 *	 4  u32	module: index of a module record, or GMF_NO_MODULE
 *	 8  u64	pc: link-time in that module; the sampled pc for a chain's
 *		innermost frame, else a return address.  The top node with
 *		module GMF_NO_MODULE and pc SPC_PC_TRUNCATED holds the
 *		chains that were cut short.
 *	16  u64	count: samples whose chain ends at this node
 */
#define GMF_CALLERS_FIXED	56
#define GMF_CALLER_NODE_SIZE	24
#define GMF_CALLER_TOP		0xffffffffu

/*
 * Tag 5, threads: the threads of a per-thread profile, whose chains the
 * callers record files under top nodes of pc SPC_PC_THREAD + thread id
 * (include/sprofil/callers.h).  u64 nthreads, then nthreads records of
 * GMF_THREAD_SIZE bytes:
 *	 0  u32	thread id
 *	 4  u32	flags: GMF_THREAD_*
 *	 8  u64	CPU time, ns (user and system), if GMF_THREAD_CPU
 *	16  16	name, NUL-padded (the kernel's comm)
 * A thread id may appear more than once: ids are reused after a thread
 * exits.  A thread of the chains with no record here has no name.
 */
#define GMF_TAG_THREADS		5
#define GMF_THREADS_FIXED	8
#define GMF_THREAD_SIZE		32
#define GMF_THREAD_EXITED	0x1u		/* exited before the dump */
#define GMF_THREAD_CPU		0x2u		/* cpu_ns is known */

/*
 * Tag 7, process: which process wrote the profile, for the process tree
 * of a recorded run (sprofil report DIR/).  One record per file,
 * GMF_PROCESS_SIZE bytes (a reader ignores bytes after them):
 *	 0  u32	pid
 *	 4  u32	parent pid when the program started (0: unknown)
 *	 8  u32	flags: GMF_PROCESS_*
 *	12  u32	zero (reserved)
 *	16  u64	CPU time of the process, ns (user and system), when the
 *		dump began, if GMF_PROCESS_CPU
 *	24  u64	when the program started (exec, or fork), ns since the
 *		epoch, if GMF_PROCESS_START
 *	32  16	comm, NUL-padded (the kernel's name of the process)
 * Files without it (older ones, GNU gmon.out) still read: the process is
 * then known by the file name record writes, <comm>.<pid>.gmon.
 */
#define GMF_TAG_PROCESS		7
#define GMF_PROCESS_SIZE	48
#define GMF_PROCESS_CPU		0x1u		/* cpu_ns is known */
#define GMF_PROCESS_START	0x2u		/* start_ns is known */

/*
 * Tag 8 (revision 3), event: what each sample of the file counts, when
 * not CPU time.  One record per file, GMF_EVENT_SIZE bytes (a reader
 * ignores bytes after them):
 *	 0  u32	event: SPROFIL_EVENT_* (include/uapi/linux/sprofil.h,
 *		include/sprofil/events.h)
 *	 4  u32	zero (reserved)
 *	 8  u64	period: events per sample, the number the histogram and
 *		callers records then hold in their period_ns field
 *	16  16	name, NUL-padded, as perf spells it ("page-faults")
 * Files without it sample CPU time, every period_ns nanoseconds.
 */
#define GMF_TAG_EVENT		8
#define GMF_EVENT_SIZE		32

/*
 * Where a GNU gmon.out's caller data goes: the file's name with this
 * suffix, in the extension format (module records and one callers
 * record), so that the GNU file stays plain for GNU gprof.
 */
#define GMF_CALLERS_SUFFIX	".callers"

#endif /* SPROFIL_GMON_FORMAT_H */
