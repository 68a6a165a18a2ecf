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
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
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

/* One line of /proc/self/maps, as far as the check needs it. */
/*
 * The mappings of /proc/self/maps, read once for all the buffers of a
 * start: a program that has loaded many modules starts with one buffer
 * per module, and rescanning the file for each (dlopen-heavy programs
 * such as ar with its plugins) cost more than their whole run.
 */
/* By hand: sscanf() took half the user time of a recorded /bin/true. */
bool sp_parse_mapping(const char *s, struct sp_mapping *m)
{
	char *end;

	m->lo = (uintptr_t)strtoull(s, &end, 16);
	if (end == s || *end != '-')
		return false;
	s = end + 1;
	m->hi = (uintptr_t)strtoull(s, &end, 16);
	if (end == s || *end != ' ')
		return false;
	s = end + 1;
	if (strnlen(s, 5) < 5 || s[4] != ' ')
		return false;
	m->writable = s[1] == 'w';
	s += 5;
	strtoull(s, &end, 16);			/* the offset */
	if (end == s || *end != ' ')
		return false;
	end = strchr(end + 1, ' ');		/* past the device */
	if (!end)
		return false;
	s = end + 1;
	m->file = strtoull(s, &end, 10) != 0;	/* the inode */
	return end != s;
}

static int sp_read_mappings(struct sp_mapping **out, size_t *n)
{
	struct sp_mapping *m = NULL, *grown, one;
	size_t cap = 0, k = 0;
	char line[512];
	FILE *maps;
	int err = 0;

	maps = fopen("/proc/self/maps", "re");
	if (!maps)
		return -errno;
	while (fgets(line, sizeof(line), maps)) {
		if (!sp_parse_mapping(line, &one)) {
			err = -EIO;
			break;
		}
		/* The rest of a long line (a long path). */
		while (!strchr(line, '\n') && fgets(line, sizeof(line), maps))
			;
		if (k == cap) {
			cap = cap ? 2 * cap : 256;
			grown = realloc(m, cap * sizeof(*m));
			if (!grown) {
				err = -ENOMEM;
				break;
			}
			m = grown;
		}
		m[k++] = one;
	}
	fclose(maps);
	if (err) {
		free(m);
		return err;
	}
	*out = m;
	*n = k;
	return 0;
}

/*
 * [base, base + size) against the @n mappings @m, in address order (as
 * the kernel lists them): no gap, every mapping writable, file mappings
 * probed.
 */
static int sp_check_buffer(const struct sp_mapping *m, size_t n,
			   uintptr_t base, uint64_t size)
{
	uintptr_t addr = base, end = base + size, top;
	size_t lo = 0, hi = n, mid;
	int err;

	if (!size)
		return 0;
	if (end < base)
		return -EFAULT;
	/* The first mapping that ends above base. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (m[mid].hi <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && addr < end; lo++) {
		if (m[lo].lo > addr || !m[lo].writable)
			return -EFAULT;
		top = m[lo].hi < end ? m[lo].hi : end;
		if (m[lo].file) {
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
	struct sp_mapping *maps = NULL;
	size_t nmaps = 0;
	bool read = false;
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
		if (!read) {
			err = sp_read_mappings(&maps, &nmaps);
			if (err)
				break;
			read = true;
		}
		err = sp_check_buffer(maps, nmaps, (uintptr_t)r[i].base,
				      r[i].size);
	}
	free(maps);
	return err;
}

int sp_check_buffers_and_table(const struct sprofil_region *r,
			       unsigned int n,
			       const struct sp_callers *callers)
{
	struct sprofil_region *all;
	int err;

	if (!callers)
		return sp_check_buffers(r, n);
	all = malloc((n + 1) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	memcpy(all, r, n * sizeof(*all));
	all[n] = (struct sprofil_region){
		.base = (uintptr_t)callers->table,
		.size = callers->bytes, .scale = 2,
	};
	err = sp_check_buffers(all, n + 1);
	free(all);
	return err;
}
