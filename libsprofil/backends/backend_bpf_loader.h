/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The bpf backend's loader (backend_bpf_loader.c), as the library calls it. */
#ifndef LIBSPROFIL_BACKEND_BPF_LOADER_H
#define LIBSPROFIL_BACKEND_BPF_LOADER_H

#include "sprofil_load.h"

/* Where libsprofil.so finds it, relative to its own directory. */
#define SB_LOADER_PLUGIN	"sprofil/bpf-loader.so"

/*
 * Loads the program once per process: its descriptors into @fd, in the
 * order of enum spb_fd_index; 0 or a negative errno.
 */
int sprofil_bpf_loader_load(int fd[SPB_NFDS]);
typedef int (*sb_loader_fn)(int fd[SPB_NFDS]);

#endif /* LIBSPROFIL_BACKEND_BPF_LOADER_H */
