/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the signal backend (backend_signal.c) offers to the interposers of
 * pthread_create (threads.c) and of the exec family (exec.c).  None of it
 * may be called from a signal handler.
 */
#ifndef LIBSPROFIL_SIGNAL_INTERNAL_H
#define LIBSPROFIL_SIGNAL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>
#include <linux/types.h>

/*
 * In a new thread, before its start routine: gives it a sampling timer if
 * signal sampling is on.  Returns 0 or a negative errno (the thread then
 * runs unsampled).
 */
int sp_signal_thread_started(void);

/*
 * In a thread about to exit: credits the CPU time it ran since its last
 * sample to the process-wide carry, which files a sample at @pc (the
 * thread's start routine) each time it completes a period, then deletes
 * the thread's clock, if it has one.
 */
void sp_signal_thread_exiting(uintptr_t pc);

/*
 * Just before an exec: if signal sampling is on in this process, deletes
 * every timer and drains the signals they already queued, so that the new
 * program is not killed by one of them.  Returns true if it did; the
 * caller must then call sp_signal_after_failed_exec() if the exec returns.
 * Between the two, the backend's lock is held.
 */
bool sp_signal_before_exec(void);

/* The exec failed: sampling resumes as it was.  errno is preserved. */
void sp_signal_after_failed_exec(void);

/*
 * Before [start, start + len) is unmapped, made read-only or dropped:
 * turns off the regions whose buffer is there and waits until no signal
 * handler is storing into them.  Async-signal-safe and lock-free.
 */
void sp_signal_memory_changing(uintptr_t start, size_t len);

/*
 * Caller chains of the signal backend (signal_callers.c).  A thread
 * records its stack's bounds before its start routine runs; the main
 * thread's are read from /proc/self/maps at each start (a no-op after
 * the first in a process); a fork child forgets what was the parent's.
 */
void sp_callers_thread_stack(void);
void sp_callers_main_stack(void);
void sp_callers_forget_stack(void);

struct spc_table;
struct spm_map;

/*
 * In the handler (async-signal-safe, lock-free): walks the chain of the
 * interrupted thread from @uc (NULL: none, the chain is @pc alone and
 * truncated) and files @n samples of it into @t, under the calling
 * thread's node if @per_thread (SPROFIL_THREADS); return addresses in a
 * region of @map are known text.
 */
void sp_callers_file(const struct spc_table *t, const struct spm_map *map,
		     const ucontext_t *uc, __u64 pc, __u32 n, bool per_thread);

#endif /* LIBSPROFIL_SIGNAL_INTERNAL_H */
