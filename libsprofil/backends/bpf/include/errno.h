/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * BPF C has no libc: <sprofil/mapping.h> asks for <errno.h> only for the
 * E* values, which are the kernel's own.  (glibc's <errno.h> cannot be
 * used with -target bpf: it wants the 32-bit stubs of a non-x86-64 target.)
 */
#ifndef LIBSPROFIL_BPF_ERRNO_H
#define LIBSPROFIL_BPF_ERRNO_H

#include <linux/errno.h>

#endif /* LIBSPROFIL_BPF_ERRNO_H */
