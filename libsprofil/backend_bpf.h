/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the bpf backend (backend_bpf.c) offers to libsprofil's interposed
 * memory calls (memory.c).
 */
#ifndef LIBSPROFIL_BACKEND_BPF_H
#define LIBSPROFIL_BACKEND_BPF_H

#include <stddef.h>
#include <stdint.h>

/*
 * Before [start, start + len) is unmapped, made read-only or dropped:
 * folds what the regions whose buffer is there counted, then turns them
 * off.  Takes the backend's lock when it is sampling: not for a signal
 * handler.
 */
void sp_bpf_memory_changing(uintptr_t start, size_t len);

#endif /* LIBSPROFIL_BACKEND_BPF_H */
