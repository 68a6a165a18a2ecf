/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The signal backend's caller chains (signal_callers.c), for the backend
 * itself (backend_signal.c).
 */
#ifndef LIBSPROFIL_SIGNAL_INTERNAL_H
#define LIBSPROFIL_SIGNAL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>
#include <linux/types.h>

/*
 * A thread records its stack's bounds before its start routine runs
 * (the backend's thread_started op); the main thread's are read from
 * /proc/self/maps at each start (a no-op after the first in a process);
 * a fork child forgets what was the parent's.
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
