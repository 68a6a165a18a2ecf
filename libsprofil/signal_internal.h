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

#endif /* LIBSPROFIL_SIGNAL_INTERNAL_H */
