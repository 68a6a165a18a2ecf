/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Caller tables for the module's in-VM tests of SPROFIL_CALLERS: a
 * table in page-aligned memory formatted as include/sprofil/callers.h
 * says, the START that passes it, and a reader that turns the tree back
 * into chains (checking every link as it goes).
 */
#ifndef SPROFIL_KT_CALLERS_H
#define SPROFIL_KT_CALLERS_H

#include <stddef.h>
#include <stdint.h>
#include <sprofil/callers.h>

struct kt_table {
	void *mem;		/* mmap()ed, page-rounded */
	size_t map_bytes;
	uint64_t bytes;		/* passed as callers_size */
	uint32_t nodes;
	uint32_t depth;
	struct spc_table spc;	/* userland filer's view of the same table */
};

/* A table of @bytes for chains of @depth frames: 0 or -errno. */
int kt_table_init(struct kt_table *t, uint64_t bytes, uint32_t depth);
void kt_table_free(struct kt_table *t);

/* START with @t as the caller table (NULL: none); 0 or -errno. */
int kt_start_callers(int fd, const struct sprofil_region *r, unsigned int n,
		     unsigned int flags, uint64_t *period_ns,
		     const struct kt_table *t);

/* One chain read back from a table: chain[0] the sampled pc. */
struct kt_chain {
	uint64_t pc[SPROFIL_MAX_DEPTH];
	uint32_t len;
	int truncated;
	uint32_t count;
};

/*
 * Calls @fn for every node with a count, with the chain that ends there.
 * Returns 0, @fn's first nonzero return, or -1 if a link is broken (a
 * parent index outside the table, a path longer than the depth allows).
 */
int kt_table_chains(const struct kt_table *t,
		    int (*fn)(void *arg, const struct kt_chain *c), void *arg);

/* Whether any frame of @c lies in [start, start + size). */
int kt_chain_has(const struct kt_chain *c, uintptr_t start, size_t size);

/*
 * The callee of the tests: @n steps of the workloads' loop body, in a
 * leaf that keeps a frame record.  gcc gives a leaf that needs no stack
 * none, even with -fno-omit-frame-pointer, and a sample there would skip
 * its caller (the walk starts at the caller's record).
 */
uint64_t kt_callee(uint64_t n);

/* The executable's text (its first executable PT_LOAD). */
void kt_exec_text(uintptr_t *start, size_t *size);

#endif /* SPROFIL_KT_CALLERS_H */
