// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sp_check_buffers() (backend.h): before the signal or bpf backend
 * stores into a buffer from userland, sprofil() refuses one where a store
 * would fault, with EFAULT, rather than crash the program at its first
 * sample there.
 *
 * The check must not commit the buffer: a histogram covers a whole text
 * (megabytes for a large program), a run samples a few hundred pages of
 * it, and the kernel commits anonymous memory only on a page's first
 * store.  So in a buffer of more than a few pages, private and shared
 * anonymous memory is checked by its mapping alone (/proc/self/maps:
 * mapped, writable), where a store cannot fault.  A file mapping can (a page past the end of the file is SIGBUS),
 * so its pages are probed as before: each page's first byte in range is
 * read and written back through the kernel, which fails with EFAULT
 * where a store would fault, and changes nothing.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include "backend.h"

/* Pages checked per process_vm_readv()/writev() call (UIO_MAXIOV). */
#define SP_CHECK_BATCH	1024
/*
 * Buffers up to this size are probed page by page whatever their
 * mapping: reading /proc/self/maps costs some 30 us, two system calls a
 * few, and committing 16 pages is nothing.
 */
#define SP_PROBE_MAX	(64u << 10)

/* The page probe, for [base, base + size) of a file mapping. */
static int sp_probe_pages(uintptr_t base, uint64_t size)
{
	struct iovec remote[SP_CHECK_BATCH], local;
	char bytes[SP_CHECK_BATCH];
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t addr = base, end = base + size;
	size_t k;
	ssize_t got;

	while (addr < end) {
		for (k = 0; k < SP_CHECK_BATCH && addr < end; k++) {
			remote[k].iov_base = (void *)addr;
			remote[k].iov_len = 1;
			addr = (addr & ~(page - 1)) + page;
		}
		local.iov_base = bytes;
		local.iov_len = k;
		got = process_vm_readv(getpid(), &local, 1, remote, k, 0);
		if (got < 0)
			return -errno;
		if ((size_t)got != k)
			return -EFAULT;
		got = process_vm_writev(getpid(), &local, 1, remote, k, 0);
		if (got < 0)
			return -errno;
		if ((size_t)got != k)
			return -EFAULT;
	}
	return 0;
}

/*
 * [base, base + size) against the mappings of /proc/self/maps, in
 * address order: no gap, every mapping writable, file mappings probed.
 */
static int sp_check_buffer(FILE *maps, uintptr_t base, uint64_t size)
{
	uintptr_t addr = base, end = base + size, lo, hi, top;
	unsigned long long inode;
	char perms[8], line[512];
	int err;

	if (!size)
		return 0;
	if (end < base)
		return -EFAULT;
	rewind(maps);
	while (addr < end && fgets(line, sizeof(line), maps)) {
		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s %*s %*s %llu",
			   &lo, &hi, perms, &inode) != 4)
			return -EIO;
		/* The rest of a long line (a long path). */
		while (!strchr(line, '\n') && fgets(line, sizeof(line), maps))
			;
		if (hi <= addr)
			continue;
		if (lo > addr || perms[1] != 'w')
			return -EFAULT;
		top = hi < end ? hi : end;
		if (inode) {
			err = sp_probe_pages(addr, top - addr);
			if (err)
				return err;
		}
		addr = top;
	}
	return addr < end ? -EFAULT : 0;
}

int sp_check_buffers(const struct sprofil_region *r, unsigned int n)
{
	FILE *maps = NULL;
	unsigned int i;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		if (r[i].scale < 2)
			continue;
		/* A few pages are probed: cheaper than reading the maps. */
		if (r[i].size <= SP_PROBE_MAX) {
			err = sp_probe_pages((uintptr_t)r[i].base, r[i].size);
			continue;
		}
		if (!maps)
			maps = fopen("/proc/self/maps", "re");
		if (!maps)
			return -errno;
		err = sp_check_buffer(maps, (uintptr_t)r[i].base, r[i].size);
	}
	if (maps)
		fclose(maps);
	return err;
}
