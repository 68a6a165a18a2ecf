/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * sprofil: in-kernel PC-sampling profiler for the calling process.
 *
 * /dev/sprofil implements sprofil(2) (IRIX, HP-UX, glibc) for the process
 * that issues the ioctl: every thread's user-mode PC is sampled once per
 * period of the process's own CPU time and counted into the caller's
 * buffers.  With SPROFIL_TARGET the sampled process is another one, which
 * the caller may ptrace (below), and the buffers are still the caller's.
 * Bucket index for a PC inside a region:
 *
 *	((pc - offset) / bucket_size) * scale / 65536
 *
 * Every structure uses fixed-width fields with explicit padding, so 32-bit
 * and 64-bit callers share one layout (and compat_ptr_ioctl is correct).
 * Each argument structure starts with its own size: the kernel accepts any
 * size it knows of, zero-extends shorter (older) callers and rejects longer
 * ones whose extra bytes are not zero (copy_struct_from_user() rules).
 */
#ifndef _UAPI_LINUX_SPROFIL_H
#define _UAPI_LINUX_SPROFIL_H

#include <linux/ioctl.h>
#include <linux/types.h>

/*
 * Flags of struct sprofil_start.  The values equal glibc's PROF_USHORT,
 * PROF_UINT and PROF_FAST from <sys/profil.h>, so a sprofil() flags word
 * can be passed through unchanged.
 */
#define SPROFIL_USHORT		0x0	/* 16-bit buckets */
#define SPROFIL_UINT		0x1	/* 32-bit buckets */
#define SPROFIL_FAST		0x2	/* default period SPROFIL_FAST_DIVISOR
					 * times shorter than one tick
					 */
#define SPROFIL_CALLERS		0x4	/* also file each sample's user call
					 * chain into the caller table
					 * (include/sprofil/callers.h)
					 */
#define SPROFIL_THREADS		0x8	/* with SPROFIL_CALLERS: file each
					 * chain under its thread's top node,
					 * SPC_PC_THREAD + its thread id
					 * (per-thread profiles)
					 */
#define SPROFIL_TARGET		0x10	/* sample the process of target_fd
					 * rather than the caller: see
					 * SPROFIL_IOC_START
					 */
#define SPROFIL_START_FLAGS	(SPROFIL_UINT | SPROFIL_FAST | SPROFIL_CALLERS | \
				 SPROFIL_THREADS | SPROFIL_TARGET)

/*
 * struct sprofil_start.event_type: what a sampling period is made of.
 * Every event but the clock counts occurrences: a sample is taken every
 * event_period of them (0: 1), at the user PC of the thread the event
 * happened in, and period_ns is ignored (returned as 0).  The kernel-mode
 * events (context switches) are charged to the PC the thread will return
 * to in user mode.  The PMU events need a hardware counter: ENODEV where
 * the machine has none.  A backend that cannot count an event refuses it
 * with EOPNOTSUPP; the module counts the clock and the software events,
 * not the PMU's (docs/backends.md has the table).
 */
#define SPROFIL_EVENT_CPU_CLOCK		0	/* CPU time of the sampled
						 * threads, period_ns
						 */
#define SPROFIL_EVENT_PAGE_FAULTS	1	/* page faults, minor or major */
#define SPROFIL_EVENT_MINOR_FAULTS	2	/* page faults without I/O */
#define SPROFIL_EVENT_MAJOR_FAULTS	3	/* page faults that read a page */
#define SPROFIL_EVENT_CONTEXT_SWITCHES	4	/* the thread left its CPU */
#define SPROFIL_EVENT_CYCLES		5	/* PMU: CPU cycles */
#define SPROFIL_EVENT_INSTRUCTIONS	6	/* PMU: retired instructions */
#define SPROFIL_EVENT_CACHE_MISSES	7	/* PMU: last-level cache misses */
#define SPROFIL_EVENT_BRANCH_MISSES	8	/* PMU: mispredicted branches */
#define SPROFIL_EVENT_MAX		SPROFIL_EVENT_BRANCH_MISSES

#define SPROFIL_FAST_DIVISOR	4
#define SPROFIL_MIN_PERIOD_NS	100000ULL	/* 10 kHz */
#define SPROFIL_MAX_PERIOD_NS	1000000000ULL	/* 1 Hz */

#define SPROFIL_MAX_REGIONS	1024
/* Most frames of one call chain, the sampled pc included. */
#define SPROFIL_MAX_DEPTH	128
/* Largest buffer of one region; keeps every mapping sum inside 64 bits. */
#define SPROFIL_MAX_REGION_BYTES (1ULL << 40)

/*
 * One text region, the fixed-width form of glibc's struct prof.
 * An entry with scale < 2 is ignored.  The entry with offset 0 and scale 2
 * is the overflow bin: its first bucket counts samples in no region.
 */
struct sprofil_region {
	__u64 base;		/* user address of the bucket array */
	__u64 size;		/* bytes, a multiple of the bucket size */
	__u64 offset;		/* lowest PC of the region */
	__u32 scale;		/* 16.16 fixed point, any value (glibc) */
	__u32 reserved;		/* must be zero */
};

struct sprofil_start {
	__u32 size;		/* sizeof(struct sprofil_start) */
	__u32 flags;		/* SPROFIL_START_FLAGS */
	__u64 regions;		/* user pointer to struct sprofil_region[] */
	__u32 nregions;		/* 0 stops profiling */
	__u32 reserved;		/* must be zero */
	__u64 period_ns;	/* in: wanted period, 0 = default;
				 * out: the period actually used
				 */
	/* With SPROFIL_CALLERS (else all zero): */
	__u64 callers;		/* user pointer to the caller table */
	__u64 callers_size;	/* its bytes (spc_geometry()) */
	__u32 callers_depth;	/* frames kept per chain, 1 to
				 * SPROFIL_MAX_DEPTH
				 */
	__u32 reserved2;	/* must be zero */
	/* With SPROFIL_TARGET (else zero): */
	__s32 target_fd;	/* an open file of /proc/PID/mem */
	/* What is sampled (revision 2, with the target): */
	__u32 event_type;	/* SPROFIL_EVENT_*, else EINVAL */
	__u64 event_config;	/* reserved for the event's parameter: 0 */
	__u64 event_period;	/* events per sample, 0 = 1; 0 with the
				 * clock, whose period is period_ns
				 */
	/* Unwind tables (revision 3; with SPROFIL_CALLERS, else zero): */
	__u64 unwind;		/* user pointer to
				 * struct sprofil_unwind_module[]
				 */
	__u32 nunwind;		/* its entries, 0 to SPROFIL_MAX_UNWIND */
	__u32 reserved3;	/* must be zero */
};

/*
 * One module's unwind table (include/sprofil/unwind_table.h), for walking
 * chains through code without frame pointers: its rows cover the run-time
 * addresses [bias + base, bias + base + span) of the table's header.  The
 * module copies the table at START, checks it (spu_table_view()) and
 * walks a sample with it when the sample's pc lies in that span.
 */
struct sprofil_unwind_module {
	__u64 bias;		/* the module's load bias */
	__u64 table;		/* user pointer to the table */
	__u64 bytes;		/* its size */
};

#define SPROFIL_MAX_UNWIND	256

/* struct sprofil_status.state bits */
#define SPROFIL_STATE_ENABLED	0x1	/* sampling is armed */

struct sprofil_status {
	__u32 size;		/* in: sizeof(struct sprofil_status) */
	__u32 state;		/* SPROFIL_STATE_* */
	__u64 period_ns;	/* sampling period of the current session:
				 * ns of CPU time, or events for an event
				 */
	__u64 samples;		/* user-mode samples taken */
	__u64 misses;		/* samples that fell in no region */
	__u64 saturated;	/* increments lost to a full bucket */
	__u32 nregions;		/* regions in use */
	__u32 regions_off;	/* regions turned off: buffer unmapped or
				 * no longer writable
				 */
};

/* Not in Documentation/userspace-api/ioctl/ioctl-number.rst as of 6.18. */
#define SPROFIL_IOC_MAGIC	0xB9

/*
 * Starts, or atomically replaces, profiling of the calling process: every
 * task using its mm (threads, and CLONE_VM children).  Errors, after which
 * nothing changed: EINVAL (bad arguments), EFAULT (a buffer that is not
 * the caller's writable memory), ENOMEM (RLIMIT_MEMLOCK of the user, the
 * memory cgroup's limit, or a page pinned by too many sessions), EINTR (a
 * fatal signal during the pin, the thread scan or the wait for the
 * session's lock), EBUSY (the process is being profiled from outside),
 * EOPNOTSUPP (a PMU event: this module counts the clock and the software
 * events), E2BIG (unwind tables of more bytes than the module's
 * unwind_max_bytes parameter allows a session).  EINVAL includes an
 * unwind table that spu_table_view() refuses, two whose spans overlap,
 * and unwind tables without SPROFIL_CALLERS.  The tables' copies are
 * charged to the memory cgroup, whose limit gives ENOMEM.
 *
 * With SPROFIL_TARGET, the process whose memory target_fd opened is
 * sampled instead, every thread of it and those it creates later, into
 * the caller's buffers, pinned as above.  target_fd is the caller's
 * proof of its right to: opening /proc/PID/mem takes the kernel's ptrace
 * check (PTRACE_MODE_ATTACH, security modules included), and the file
 * names that process's memory, not a pid that could be reused.  The
 * session is tied to this open file of /dev/sprofil: STOP and STATUS on
 * it act on the target's session, every later START on it must name
 * SPROFIL_TARGET too (one with nregions 0 stops, as STOP), and closing
 * it stops sampling.  The target's exit or exec ends the session; STATUS
 * then still reads its counters, with SPROFIL_STATE_ENABLED clear.  The
 * target's own START is refused with EBUSY meanwhile, and its own STOP
 * and STATUS do not see this session.  Buffers the caller unmaps while
 * they are in use are not turned off (regions_off stays 0): their pages
 * stay pinned until STOP, and what is counted into them is lost.
 * A file samples one process at a time: once the first is stopped or
 * gone, a START naming another moves the file to it.  Errors besides the
 * above: EBADF (target_fd is not open), EINVAL (not a /proc/PID/mem
 * file, or a START without SPROFIL_TARGET on a file that has one), ESRCH
 * (the file names no memory: a kernel thread's, or a process's that
 * exited or exec'd), EBUSY (the process profiles itself or another file
 * samples it, or this file still samples another process), EOPNOTSUPP
 * (the module could not learn at load how to recognize /proc/PID/mem).
 */
#define SPROFIL_IOC_START	_IOWR(SPROFIL_IOC_MAGIC, 1, struct sprofil_start)
/*
 * Stops profiling; counters stay readable through SPROFIL_IOC_STATUS.
 * EINTR: a fatal signal came while waiting for the session's lock, and
 * nothing changed (so does STATUS).
 */
#define SPROFIL_IOC_STOP	_IO(SPROFIL_IOC_MAGIC, 2)
/*
 * Reads the counters of the calling process's latest session, or of the
 * file's outside session (SPROFIL_TARGET).
 */
#define SPROFIL_IOC_STATUS	_IOWR(SPROFIL_IOC_MAGIC, 3, struct sprofil_status)

#endif /* _UAPI_LINUX_SPROFIL_H */
