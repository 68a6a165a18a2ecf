// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include "kt_callers.h"

int kt_table_init(struct kt_table *t, uint64_t bytes, uint32_t depth)
{
	long page = sysconf(_SC_PAGESIZE);
	int err;

	memset(t, 0, sizeof(*t));
	err = spc_geometry(bytes, depth, &t->nodes);
	if (err)
		return err;
	t->map_bytes = (bytes + page - 1) / page * page;
	t->mem = mmap(NULL, t->map_bytes, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t->mem == MAP_FAILED) {
		t->mem = NULL;
		return -errno;
	}
	t->bytes = bytes;
	t->depth = depth;
	t->spc.hdr = t->mem;
	t->spc.node = (struct spc_node *)(t->spc.hdr + 1);
	t->spc.mask = t->nodes - 1;
	t->spc.depth = depth;
	t->spc.hdr->magic = SPC_MAGIC;
	t->spc.hdr->nodes = t->nodes;
	t->spc.hdr->depth = depth;
	return 0;
}

void kt_table_free(struct kt_table *t)
{
	if (t->mem)
		munmap(t->mem, t->map_bytes);
	t->mem = NULL;
}

int kt_start_callers(int fd, const struct sprofil_region *r, unsigned int n,
		     unsigned int flags, uint64_t *period_ns,
		     const struct kt_table *t)
{
	struct sprofil_start a = {
		.size = sizeof(a),
		.flags = flags,
		.regions = (uintptr_t)r,
		.nregions = n,
		.period_ns = period_ns ? *period_ns : 0,
	};

	if (t) {
		a.flags |= SPROFIL_CALLERS;
		a.callers = (uintptr_t)t->mem;
		a.callers_size = t->bytes;
		a.callers_depth = t->depth;
	}
	if (ioctl(fd, SPROFIL_IOC_START, &a))
		return -errno;
	if (period_ns)
		*period_ns = a.period_ns;
	return 0;
}

int kt_table_chains(const struct kt_table *t,
		    int (*fn)(void *arg, const struct kt_chain *c), void *arg)
{
	const struct spc_node *node = t->spc.node;
	struct kt_chain c;
	uint32_t i, p;
	int err;

	for (i = 0; i < t->nodes; i++) {
		if (!node[i].count || node[i].parent == SPC_BUSY ||
		    node[i].parent == SPC_FREE)
			continue;
		memset(&c, 0, sizeof(c));
		c.count = node[i].count;
		c.pc[c.len++] = node[i].pc;
		for (p = node[i].parent; p != SPC_ROOT;) {
			const struct spc_node *up;

			if (p < SPC_PARENT_BIAS ||
			    p - SPC_PARENT_BIAS >= t->nodes)
				return -1;
			up = &node[p - SPC_PARENT_BIAS];
			if (up->pc == SPC_PC_TRUNCATED && up->parent == SPC_ROOT) {
				c.truncated = 1;
				break;
			}
			if (c.len >= t->depth)
				return -1;
			c.pc[c.len++] = up->pc;
			p = up->parent;
		}
		err = fn(arg, &c);
		if (err)
			return err;
	}
	return 0;
}

__attribute__((noipa)) uint64_t kt_callee(uint64_t n)
{
	uint64_t x = n;

	/* Asking for the frame address makes gcc keep the frame. */
	__asm__ volatile("" : : "r"(__builtin_frame_address(0)));
	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

int kt_chain_has(const struct kt_chain *c, uintptr_t start, size_t size)
{
	for (uint32_t i = 0; i < c->len; i++)
		if (c->pc[i] >= start && c->pc[i] - start < size)
			return 1;
	return 0;
}

struct text_search {
	uintptr_t start;
	size_t size;
};

static int find_text(struct dl_phdr_info *info, size_t sz, void *arg)
{
	struct text_search *ts = arg;

	(void)sz;
	/* The first object is the executable. */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			ts->start = info->dlpi_addr + ph->p_vaddr;
			ts->size = ph->p_memsz;
			break;
		}
	}
	return 1;
}

void kt_exec_text(uintptr_t *start, size_t *size)
{
	struct text_search ts = { 0, 0 };

	dl_iterate_phdr(find_text, &ts);
	if (!ts.size)
		abort();
	/* Even, so 2-byte buckets start on an instruction boundary pair. */
	*start = ts.start & ~(uintptr_t)1;
	*size = (ts.size + 3) & ~(size_t)1;
}
