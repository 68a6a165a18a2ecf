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

struct spu_table;

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

/*
 * The unwind tables of SPROFIL_UNWIND_DIR (signal_unwind.c): looked for
 * at each start with a caller table, for the modules loaded then (under
 * the backend's lock); in the handler, whether a table covers @pc, and
 * the walk over the tables from the interrupted registers, reading only
 * [@sp, @stack_end): 0 for a complete chain, or an SPU_CUT_* reason.
 */
void sp_unwind_load(void);
bool sp_unwind_covers(uintptr_t pc);
int sp_unwind_walk(__u64 pc, uintptr_t sp, __u64 fp, uintptr_t stack_end,
		   __u32 depth, __u64 *chain, __u32 *len);

/*
 * The tables of the modules loaded at the last sp_unwind_load(), for
 * the bpf backend, which copies them into its program's maps
 * (backend_bpf_unwind.c): at most @max into @out; their number.
 */
struct sp_unwind_table {
	uintptr_t bias;			/* the module's load bias */
	const struct spu_table *t;	/* checked, mapped for the process */
};

unsigned int sp_unwind_tables(struct sp_unwind_table *out, unsigned int max);

#endif /* LIBSPROFIL_SIGNAL_INTERNAL_H */
