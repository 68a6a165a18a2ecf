/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The unwind tables of the process's modules (unwind_load.c), which
 * every backend that walks chains uses: the signal handler walks them
 * in the process, the bpf backend copies them into its program's maps,
 * the kmod backend hands them to the module at START.
 */
#ifndef LIBSPROFIL_UNWIND_LOAD_H
#define LIBSPROFIL_UNWIND_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

struct spu_table;

/*
 * The unwind tables of SPROFIL_UNWIND_DIR (unwind_load.c): looked for
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
 * (backend_bpf_unwind.c), and the kmod backend, which hands them to the
 * module (backend_kmod.c): at most @max into @out; their number.
 */
struct sp_unwind_table {
	uintptr_t bias;			/* the module's load bias */
	const struct spu_table *t;	/* checked, mapped for the process */
};

unsigned int sp_unwind_tables(struct sp_unwind_table *out, unsigned int max);

/*
 * While another process is sampled (sp_set_target(), outside.c): its
 * @n modules @m (kept by the caller until the next call; NULL: none),
 * whose tables sp_unwind_load() takes instead of this process's.
 */
struct sp_target_module;
void sp_unwind_set_target(const struct sp_target_module *m, size_t n);

#endif /* LIBSPROFIL_UNWIND_LOAD_H */
