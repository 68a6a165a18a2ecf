/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The few bpf(2) map commands every profiled process makes, as raw
 * system calls.  libbpf has them, but linking it maps libbpf, libelf and
 * libz into every process of a tree, which only the one that loads the
 * program needs (docs/backends.md, "One program for a process tree"):
 * the library takes the program from a server, or loads it through its
 * loader plugin (backend_bpf_loader.c).  Each returns what libbpf's
 * namesake does: a descriptor or 0, else -1 with errno set.
 */
#ifndef LIBSPROFIL_BPF_SYSCALL_H
#define LIBSPROFIL_BPF_SYSCALL_H

#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>

static inline long spb_sys(enum bpf_cmd cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static inline int spb_map_create(enum bpf_map_type type, uint32_t key_size,
				 uint32_t value_size, uint32_t max_entries,
				 uint32_t flags)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = type;
	a.key_size = key_size;
	a.value_size = value_size;
	a.max_entries = max_entries;
	a.map_flags = flags;
	return (int)spb_sys(BPF_MAP_CREATE, &a);
}

static inline int spb_map_lookup(int fd, const void *key, void *value)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)fd;
	a.key = (uintptr_t)key;
	a.value = (uintptr_t)value;
	return (int)spb_sys(BPF_MAP_LOOKUP_ELEM, &a);
}

static inline int spb_map_update(int fd, const void *key, const void *value,
				 uint64_t flags)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)fd;
	a.key = (uintptr_t)key;
	a.value = (uintptr_t)value;
	a.flags = flags;
	return (int)spb_sys(BPF_MAP_UPDATE_ELEM, &a);
}

static inline int spb_map_delete(int fd, const void *key)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)fd;
	a.key = (uintptr_t)key;
	return (int)spb_sys(BPF_MAP_DELETE_ELEM, &a);
}

/*
 * Up to *@count entries after batch position @in (NULL: the first) into
 * @keys and @values, the next position in @out, the number read in
 * *@count; -1 with ENOENT after the last batch (which may still hold
 * entries).
 */
static inline int spb_map_lookup_batch(int fd, const void *in, void *out,
				       void *keys, void *values,
				       uint32_t *count)
{
	union bpf_attr a;
	int err;

	memset(&a, 0, sizeof(a));
	a.batch.map_fd = (uint32_t)fd;
	a.batch.in_batch = (uintptr_t)in;
	a.batch.out_batch = (uintptr_t)out;
	a.batch.keys = (uintptr_t)keys;
	a.batch.values = (uintptr_t)values;
	a.batch.count = *count;
	err = (int)spb_sys(BPF_MAP_LOOKUP_BATCH, &a);
	*count = a.batch.count;
	return err;
}

#endif /* LIBSPROFIL_BPF_SYSCALL_H */
