/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Merging one caller table (a calling context tree of
 * <sprofil/callers.h>) into another: the bpf backend's fold moves its
 * program's tree into the caller's table with it, and any other code
 * that files chains into a table of its own (a fork child's, a thread's)
 * can do the same.  The destination is filed with the header's own
 * spc_node_find_add() and spc_node_count(), so a merged sample is in the
 * destination exactly as if spc_file() had filed its chain there.
 */
#ifndef LIBSPROFIL_CALLERS_MERGE_H
#define LIBSPROFIL_CALLERS_MERGE_H

#include <sprofil/callers.h>

/*
 * One merge of a source tree into a destination table.  @xlate, if not
 * NULL, has one entry per source node (src_mask + 1), zeroed before the
 * first merge into this destination: it remembers where each source node
 * went, so that a chain already merged costs one lookup.  It is valid as
 * long as both trees keep their nodes.
 */
struct spc_merge {
	const struct spc_table *dst;
	const struct spc_node *src;
	__u32 src_mask;
	__u32 *xlate;
};

/*
 * Files @n samples counted in source node @i into the destination: its
 * chain is resolved from the root down (parents before children), each
 * node found or added in the destination, and @n added to the last one,
 * saturating.  dst->hdr->samples grows by @n, and truncated too when the
 * chain hangs under SPC_PC_TRUNCATED.  Returns 0; or SPC_FULL or
 * SPC_STUCK with the samples counted in dst->hdr->lost or busy; or
 * -EINVAL, counted as lost, for a source chain that is not a tree's (a
 * parent out of range, unpublished, or a loop).
 */
int spc_merge_node(const struct spc_merge *m, __u32 i, __u32 n);

/*
 * Merges every counted node of @src into @dst (src's counts are left
 * as they are) and adds src's lost and busy counters to dst's.  @xlate
 * as for struct spc_merge, or NULL.  Returns 0, or the first error of
 * spc_merge_node() (every node is merged regardless).
 */
int spc_merge_table(const struct spc_table *dst, const struct spc_table *src,
		    __u32 *xlate);

#endif /* LIBSPROFIL_CALLERS_MERGE_H */
