// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Merging caller tables (callers_merge.h): a source node's chain is read
 * from the node up to the root, then filed into the destination from the
 * root down, so that every parent is in the destination before its
 * children, as spc_file() files a chain.
 */
#include "callers_merge.h"

/* An xlate entry: destination index + 1, and whether the chain is cut. */
#define SPC_XLATE_CUT	0x80000000u
#define SPC_XLATE_SLOT	(SPC_XLATE_CUT - 1)

int spc_merge_node(const struct spc_merge *m, __u32 i, __u32 n)
{
	/* The chain's nodes, innermost first; two more: cut and thread. */
	__u32 path[SPROFIL_MAX_DEPTH + 2];
	__u32 parent = SPC_ROOT, j = i, p, len = 0, cut = 0;
	const struct spc_table *dst = m->dst;
	long slot = SPC_FULL;

	if (!n)
		return 0;
	if (i > m->src_mask)
		goto bad;
	for (;;) {
		if (m->xlate && m->xlate[j]) {
			parent = (m->xlate[j] & SPC_XLATE_SLOT) - 1 +
				 SPC_PARENT_BIAS;
			cut = m->xlate[j] & SPC_XLATE_CUT;
			slot = parent - SPC_PARENT_BIAS;
			break;
		}
		if (len == SPROFIL_MAX_DEPTH + 2)
			goto bad;
		path[len++] = j;
		p = spc_load_acquire((__u32 *)&m->src[j].parent);
		if (p == SPC_ROOT)
			break;
		if (p < SPC_PARENT_BIAS || p == SPC_BUSY ||
		    p - SPC_PARENT_BIAS > m->src_mask)
			goto bad;
		j = p - SPC_PARENT_BIAS;
	}
	/*
	 * A chain is cut below the truncated node, which is a top node or
	 * the child of a thread's (SPROFIL_THREADS): its pc is no user pc.
	 */
	while (len) {
		j = path[--len];
		if (m->src[j].pc == SPC_PC_TRUNCATED)
			cut = SPC_XLATE_CUT;
		slot = spc_node_find_add(dst, parent, m->src[j].pc);
		if (slot < 0)
			goto lost;
		if (m->xlate)
			m->xlate[j] = ((__u32)slot + 1) | cut;
		parent = (__u32)slot + SPC_PARENT_BIAS;
	}
	spc_node_count(&dst->node[slot], n);
	spc_add64(&dst->hdr->samples, n);
	if (cut)
		spc_add64(&dst->hdr->truncated, n);
	return 0;
lost:
	spc_add64(slot == SPC_STUCK ? &dst->hdr->busy : &dst->hdr->lost, n);
	return (int)slot;
bad:
	spc_add64(&dst->hdr->lost, n);
	return -EINVAL;
}

int spc_merge_table(const struct spc_table *dst, const struct spc_table *src,
		    __u32 *xlate)
{
	struct spc_merge m = {
		.dst = dst,
		.src = src->node,
		.src_mask = src->mask,
		.xlate = xlate,
	};
	int err, first = 0;
	__u32 i;

	for (i = 0; i <= src->mask; i++) {
		err = spc_merge_node(&m, i, src->node[i].count);
		if (err && !first)
			first = err;
	}
	spc_add64(&dst->hdr->lost, src->hdr->lost);
	spc_add64(&dst->hdr->busy, src->hdr->busy);
	return first;
}
