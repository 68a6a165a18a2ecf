// SPDX-License-Identifier: GPL-2.0
/*
 * Unwind tables (include/sprofil/unwind_table.h): the walk through code
 * without frame pointers, for the chains of SPROFIL_CALLERS.
 *
 * START hands the tables of the process's modules over (struct
 * sprofil_unwind_module); each is copied into kernel memory, checked by
 * spu_table_view() and kept, sorted by run-time span, with the region
 * table that START publishes.  So the set is replaced whole with the
 * regions, a sample never sees half of it, and a bad table fails the
 * START (EINVAL) with nothing changed, as a bad region does.  The copies
 * are charged to the caller's memory cgroup (SPROFIL_GFP) and capped per
 * session by unwind_max_bytes: a table is about a tenth of its module's
 * text (docs/callers.md), so the default holds cc1's many times over.
 *
 * The walk runs in the sampling handler, with the same limits as the
 * frame-pointer walk (chains.c): stack words are read with
 * copy_from_user_nofault(), which neither faults nor sleeps and refuses
 * kernel addresses; spu_step() moves the stack pointer strictly up on
 * every ordinary step and the walk takes at most the session's depth
 * steps; a lookup is a binary search over at most SPROFIL_MAX_UNWIND
 * modules and one 64 KiB page's rows.  A table, however hostile, can
 * make a chain wrong but cannot make the walk fault, loop or run long.
 */
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>
#include <sprofil/unwind_table.h>
#include "sprofil.h"

/* One module's table: its run-time span and the checked copy. */
struct unwind_module {
	u64 lo, hi;		/* [bias + base, bias + base + span) */
	u64 bias;
	void *copy;
	struct spu_table view;
};

struct sprofil_unwind {
	u32 n;
	u64 bytes;		/* the copies' bytes, for the cap */
	struct unwind_module mod[];	/* sorted by lo, disjoint */
};

/* 64 MiB: cc1's table is 1.9 MB, python3's seven 445 KB in all. */
static ulong unwind_max_bytes = 64UL << 20;
module_param(unwind_max_bytes, ulong, 0644);
MODULE_PARM_DESC(unwind_max_bytes,
		 "bytes of unwind tables one session may hand over (E2BIG beyond)");

void sprofil_unwind_destroy(struct sprofil_unwind *u)
{
	u32 i;

	if (!u)
		return;
	for (i = 0; i < u->n; i++)
		kvfree(u->mod[i].copy);
	kvfree(u);
}

static int cmp_module(const void *a, const void *b)
{
	const struct unwind_module *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return 0;
}

/* Copies and checks entry @in into @m, within @max bytes in all. */
static int module_copy(struct sprofil_unwind *u, struct unwind_module *m,
		       const struct sprofil_unwind_module *in, u64 max)
{
	const struct spu_header *h;
	u64 lo;

	if (!in->bytes)
		return -EINVAL;
	if (in->bytes > max || u->bytes > max - in->bytes)
		return -E2BIG;
	m->copy = kvmalloc(in->bytes, SPROFIL_GFP | __GFP_NOWARN);
	if (!m->copy)
		return -ENOMEM;
	u->bytes += in->bytes;
	if (copy_from_user(m->copy, u64_to_user_ptr(in->table), in->bytes))
		return -EFAULT;
	h = m->copy;
	if (spu_table_view(h, in->bytes, &m->view) ||
	    check_add_overflow(in->bias, h->base, &lo) ||
	    lo + h->span < lo || lo + h->span > SPU_USER_PC_END)
		return -EINVAL;
	m->lo = lo;
	m->hi = lo + h->span;
	m->bias = in->bias;
	return 0;
}

/*
 * The tables of @args (START's, checked for SPROFIL_CALLERS and the
 * count by the ioctl layer): NULL when there are none, else a new set or
 * an ERR_PTR: EFAULT, EINVAL (a table spu_table_view() refuses, an empty
 * span, spans that overlap), E2BIG (beyond unwind_max_bytes), ENOMEM.
 */
struct sprofil_unwind *sprofil_unwind_create(const struct sprofil_start *args)
{
	struct sprofil_unwind_module *in;
	u64 max = READ_ONCE(unwind_max_bytes);
	struct sprofil_unwind *u;
	int err = 0;
	u32 i;

	if (!args->nunwind)
		return NULL;
	in = memdup_user(u64_to_user_ptr(args->unwind),
			 array_size(args->nunwind, sizeof(*in)));
	if (IS_ERR(in))
		return ERR_CAST(in);
	u = kvzalloc(struct_size(u, mod, args->nunwind), SPROFIL_GFP);
	if (!u) {
		kfree(in);
		return ERR_PTR(-ENOMEM);
	}
	for (i = 0; i < args->nunwind && !err; i++, u->n++)
		err = module_copy(u, &u->mod[i], &in[i], max);
	kfree(in);
	if (!err) {
		sort(u->mod, u->n, sizeof(u->mod[0]), cmp_module, NULL);
		for (i = 0; i < u->n && !err; i++)
			if (u->mod[i].lo >= u->mod[i].hi ||
			    (i && u->mod[i].lo < u->mod[i - 1].hi))
				err = -EINVAL;
	}
	if (err) {
		sprofil_unwind_destroy(u);
		return ERR_PTR(err);
	}
	return u;
}

/* The module whose span holds @addr, or NULL. */
static const struct unwind_module *module_at(const struct sprofil_unwind *u,
					     u64 addr)
{
	u32 lo = 0, hi = u->n;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (addr < u->mod[mid].lo)
			hi = mid;
		else if (addr >= u->mod[mid].hi)
			lo = mid + 1;
		else
			return &u->mod[mid];
	}
	return NULL;
}

bool sprofil_unwind_covers(const struct sprofil_unwind *u, u64 pc)
{
	return u && module_at(u, pc);
}

static int unwind_rule(const struct sprofil_unwind *u, u64 addr,
		       struct spu_rule *rule)
{
	const struct unwind_module *m = module_at(u, addr);
	long k;

	if (!m)
		return -1;
	k = spu_find(&m->view, addr - m->bias - m->view.hdr->base);
	if (k < 0)
		return -1;
	*rule = m->view.rule[k];
	return 0;
}

static int unwind_read(u64 addr, u64 *val)
{
	return copy_from_user_nofault(val, u64_to_user_ptr(addr),
				      sizeof(*val)) != 0;
}

#define SPU_FIND_RULE(ctx, addr, rule) \
	unwind_rule((const struct sprofil_unwind *)(ctx), (addr), (rule))
#define SPU_READ_WORD(ctx, addr, val)	unwind_read((addr), (val))
#include <sprofil/unwind_table.h>

/*
 * Walks the interrupted thread from @pc, @sp and @fp with the tables
 * into @chain (room for @depth), *@len frames: 0 when the chain reached
 * the outermost frame, else spu_walk()'s reason it was cut.  IRQs off,
 * the session's table held under RCU, the sampled mm the current one.
 */
int sprofil_unwind_walk(const struct sprofil_unwind *u, u64 pc, u64 sp,
			u64 fp, u32 depth, u64 *chain, u32 *len)
{
	return spu_walk((void *)u, pc, sp, fp, depth, chain, len);
}
