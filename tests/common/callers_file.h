/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tests' reader of a profile's callers record (tag 4 of
 * docs/gmon-format.md), in an extension file or the ".callers" sidecar
 * of a GNU one, into a struct ct_tree (callers_tree.h).  Module i's
 * link-time address pc becomes CT_PC(i, pc), so that chains across
 * modules compare in one address space; a node in no module keeps its
 * absolute pc.  Checks what the format promises: every node after its
 * parent, the counts summing to the samples, modules named before use.
 */
#ifndef SPROFIL_TEST_CALLERS_FILE_H
#define SPROFIL_TEST_CALLERS_FILE_H

#include <stdint.h>
#include "callers_tree.h"

#define CT_PC(module, pc)	(((uint64_t)(module) + 1) << 48 | (pc))
#define CT_MAX_MODULES		64

struct ct_file {
	uint32_t version;		/* of the file's header */
	int has_callers;		/* a callers record was found */
	uint32_t depth;
	uint64_t period_ns;
	uint32_t nmodules;
	struct {
		char name[512];
		uint32_t flags;
		uint64_t load_bias;	/* run-time address of link-time 0 */
	} module[CT_MAX_MODULES];
};

/*
 * Reads @path into @f and, if it has a callers record, @t.  Returns 0,
 * or -1 after saying on stderr what is wrong with the file.
 */
int ct_from_file(struct ct_tree *t, struct ct_file *f, const char *path);

/* The index of the module whose name ends with @suffix, or -1. */
int ct_module(const struct ct_file *f, const char *suffix);

#endif /* SPROFIL_TEST_CALLERS_FILE_H */
