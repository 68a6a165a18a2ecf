/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the bpf backend (backend_bpf.c) offers to libsprofil's interposed
 * memory calls (memory.c) and thread creation (threads.c).
 */
#ifndef LIBSPROFIL_BACKEND_BPF_H
#define LIBSPROFIL_BACKEND_BPF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Before [start, start + len) is unmapped, made read-only or dropped:
 * folds what the regions whose buffer is there counted, then turns them
 * off.  Takes the backend's lock when it is sampling: not for a signal
 * handler.
 */
void sp_bpf_memory_changing(uintptr_t start, size_t len);

/*
 * In a new thread of the program, before its start routine (threads.c):
 * gives it a counter of its own, as the loader gives every thread it
 * finds.  Takes the backend's lock when it is sampling.
 */
void sp_bpf_thread_started(void);

/*
 * In a thread about to exit (threads.c): closes the counter it was given
 * and adds the CPU time it ran since
 * its counter's last period, estimated as its CPU time modulo the period
 * (its inherited counter started with it), to a process-wide carry that
 * files a sample at @pc (the thread's start routine) each time it
 * completes a period.  Takes the backend's lock when it is sampling.
 */
void sp_bpf_thread_exiting(uintptr_t pc);

/*
 * Sampling from outside (outside.c, docs/record.md): the sessions
 * started from now on sample process @pid, its threads found in
 * /proc/PID/task and the ones they create, instead of this process;
 * 0 goes back to this process.  Before the first sprofil() only.
 */
void sp_bpf_set_target(pid_t pid);

#endif /* LIBSPROFIL_BACKEND_BPF_H */
