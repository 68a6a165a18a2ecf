// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * munmap, mprotect, mremap and madvise, interposed for the signal and
 * bpf backends.  The kernel module learns through an mmu notifier that a
 * buffer is going away and turns its region off; a signal handler would
 * instead fault on its next store, and the bpf backend's fold on its
 * next one.  So before the memory changes, the backends are told
 * (their memory_changing op, backend.h), and the change itself is made with the raw system call, exactly as glibc's wrappers do.
 *
 * glibc's own calls (malloc, free) go to its internal symbols and are not
 * seen: freeing a buffer that is still being profiled remains the
 * caller's error, as it is with glibc's sprofil.
 */
#include <stdarg.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "backends/backend.h"

/* The userland writers of the buffers hear of it first. */
static void sp_memory_changing(void *addr, size_t len)
{
	sp_backends_memory_changing((uintptr_t)addr, len);
}

int munmap(void *addr, size_t len)
{
	sp_memory_changing(addr, len);
	return syscall(SYS_munmap, addr, len);
}

int mprotect(void *addr, size_t len, int prot)
{
	if (!(prot & PROT_WRITE))
		sp_memory_changing(addr, len);
	return syscall(SYS_mprotect, addr, len, prot);
}

/* Dropped pages come back as fresh zero pages: the counts would vanish. */
int madvise(void *addr, size_t len, int advice)
{
	if (advice == MADV_DONTNEED || advice == MADV_FREE ||
	    advice == MADV_REMOVE)
		sp_memory_changing(addr, len);
	return syscall(SYS_madvise, addr, len, advice);
}

void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	void *new_addr = NULL;
	va_list ap;

	if (flags & MREMAP_FIXED) {
		va_start(ap, flags);
		new_addr = va_arg(ap, void *);
		va_end(ap);
	}
	sp_memory_changing(old, old_len);
	return (void *)syscall(SYS_mremap, old, old_len, new_len, flags,
			       new_addr);
}
