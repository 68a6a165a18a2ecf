// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The signal backend's caller chains (docs/callers.md): from the
 * interrupted registers in the handler's ucontext, the frame-pointer walk
 * of include/sprofil/callers.h, reading only inside the interrupted
 * thread's own stack, filed with spc_file().
 *
 * Why the stack bounds: the handler has no non-faulting load, so a frame
 * record is read only where memory is known to be mapped, between the
 * interrupted stack pointer and the end of the thread's stack.  Each
 * thread records its stack's bounds before its start routine runs
 * (pthread_getattr_np() in threads.c's wrapper, outside any handler);
 * the main thread's come from /proc/self/maps at the first start, as
 * glibc computes them, and it takes them on its first sample.  A thread
 * whose bounds are unknown (made without pthread_create, or before the
 * library was loaded), or that runs on another stack (sigaltstack,
 * swapcontext), gets a chain of its pc alone, filed as truncated.
 * A sample in a module with an unwind table (unwind_load.c) is walked
 * with the tables instead, inside the same bounds.
 *
 * Everything the handler touches is lock-free and async-signal-safe: two
 * initial-exec TLS words, plain loads inside the bounds, and the filing's
 * atomics.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <sprofil/mapping.h>

#include "backend.h"
#include "signal_internal.h"
#include "unwind_load.h"

/*
 * This thread's stack, [lo, hi); hi == 0: not known yet; hi == 1: looked
 * at and not known.  Initial-exec, so that the handler's access is one
 * load with no call into the dynamic linker.
 */
#define SP_STACK_UNKNOWN	1u

static __thread uintptr_t sp_stack_lo
	__attribute__((tls_model("initial-exec")));
static __thread uintptr_t sp_stack_hi
	__attribute__((tls_model("initial-exec")));

/* This thread's id, 0 until its first sample asks (gettid() is safe). */
static __thread pid_t sp_tid __attribute__((tls_model("initial-exec")));

/* The main thread's, set once under the backend's lock; hi 0 if none. */
static _Atomic uintptr_t sp_main_lo, sp_main_hi;
static _Atomic pid_t sp_main_pid;

void sp_callers_thread_stack(void)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;

	if (pthread_getattr_np(pthread_self(), &attr))
		return;
	if (!pthread_attr_getstack(&attr, &addr, &size) && size) {
		sp_stack_lo = (uintptr_t)addr;
		sp_stack_hi = (uintptr_t)addr + size;
	}
	pthread_attr_destroy(&attr);
}

/*
 * The main thread's stack, as glibc's pthread_getattr_np() computes it:
 * the end of the [stack] mapping, and below it as far as RLIMIT_STACK
 * lets it grow, but not into the mapping below it.  Read from
 * /proc/self/maps, so that it works from any thread.
 */
void sp_callers_main_stack(void)
{
	uintptr_t prev_end = 0, lo = 0, hi = 0;
	struct sp_mapping m;
	struct rlimit rl;
	char line[512];
	FILE *f;

	if (atomic_load(&sp_main_pid) == getpid())
		return;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!sp_parse_mapping(line, &m))
			continue;
		if (strstr(line, "[stack]")) {
			hi = m.hi;
			lo = prev_end;
			break;
		}
		prev_end = m.hi;
	}
	fclose(f);
	if (!hi)
		return;
	if (!getrlimit(RLIMIT_STACK, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < hi && hi - rl.rlim_cur > lo)
		lo = hi - rl.rlim_cur;
	atomic_store(&sp_main_lo, lo);
	atomic_store(&sp_main_hi, hi);
	atomic_store(&sp_main_pid, getpid());
}

/*
 * The end of this thread's stack if @sp lies inside it, else 0.  The
 * first sample of a thread without bounds asks the kernel whether it is
 * the main thread (gettid() is async-signal-safe), and keeps the answer.
 */
static uintptr_t sp_stack_end(uintptr_t sp)
{
	uintptr_t hi = sp_stack_hi;

	if (!hi) {
		pid_t pid = atomic_load_explicit(&sp_main_pid,
						 memory_order_relaxed);

		if (pid && syscall(SYS_gettid) == pid) {
			sp_stack_lo = atomic_load(&sp_main_lo);
			sp_stack_hi = atomic_load(&sp_main_hi);
		} else {
			sp_stack_hi = SP_STACK_UNKNOWN;
		}
		hi = sp_stack_hi;
	}
	if (hi == SP_STACK_UNKNOWN || sp < sp_stack_lo || sp >= hi)
		return 0;
	return hi;
}

void sp_callers_forget_stack(void)
{
	/* A fork child's only thread keeps its stack; its pid changes. */
	if (sp_stack_hi == SP_STACK_UNKNOWN)
		sp_stack_hi = 0;
	sp_tid = 0;
	atomic_store(&sp_main_pid, 0);
}

/*
 * Inside [sp, stack end): the walk checked it (spc_frame_readable()).
 * Saved registers, never a sanitizer's redzone; still not instrumented,
 * as the frames read are other functions'.
 */
__attribute__((no_sanitize_address))
static inline int sp_read_frame(__u64 fp, __u64 rec[2])
{
	const __u64 *p = (const __u64 *)(uintptr_t)fp;

	rec[0] = p[0];
	rec[1] = p[1];
	return 0;
}

/*
 * The leaf rule's look at a call instruction (callers.h): known text is
 * a profiled region, which need not be mapped (profil() may cover any
 * range), so the bytes are read by a system call that fails rather than
 * faults.  It is made only when the word at sp is in known text.
 */
static int sp_read_code(__u64 addr, __u8 code[8])
{
	struct iovec local = { .iov_base = code, .iov_len = 8 };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr,
				.iov_len = 8 };

	int saved = errno, bad;

	/* In a signal handler: the interrupted code's errno stays. */
	bad = process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != 8;
	errno = saved;
	return bad;
}

#define SPC_READ_FRAME(ctx, fp, rec)	sp_read_frame((fp), (rec))
#define SPC_READ_CODE(ctx, addr, code)	sp_read_code((addr), (code))
#define SPC_TEXT_KNOWN(ctx, pc) \
	(spm_lookup((const struct spm_map *)(ctx), (pc)) >= 0)
#include <sprofil/callers.h>

void sp_callers_file(const struct spc_table *t, const struct spm_map *map,
		     const ucontext_t *uc, __u64 pc, __u32 n, bool per_thread)
{
	__u64 chain[SPROFIL_MAX_DEPTH];
	__u32 len = 1;
	uintptr_t sp, end;
	int cut = 1;

	chain[0] = pc;
	if (uc) {
		sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
		end = sp_stack_end(sp);
		/*
		 * A module with an unwind table is walked with it, through
		 * code without frame pointers; others by their records.
		 */
		if (end && sp_unwind_covers(pc))
			cut = sp_unwind_walk(pc, sp,
					     (__u64)uc->uc_mcontext.gregs[REG_RBP],
					     end, t->depth, chain, &len) != 0;
		else if (end)
			cut = spc_walk((void *)map, pc,
				       (__u64)uc->uc_mcontext.gregs[REG_RBP],
				       sp, end, t->depth, chain, &len);
	}
	if (per_thread && !sp_tid)
		sp_tid = (pid_t)syscall(SYS_gettid);
	spc_file(t, chain, len, cut, n, per_thread ? spc_thread_pc(sp_tid) : 0);
}
