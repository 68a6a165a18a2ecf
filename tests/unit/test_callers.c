// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of include/sprofil/callers.h: the caller table's geometry,
 * its filing (exact counts, shared prefixes, a full table, saturation,
 * truncated chains) and the frame walk's rules on synthetic stacks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include <cmocka.h>

/* The walk reads synthetic stacks: a frame record is two words at fp. */
struct fake_stack {
	__u64 base;		/* address of words[0] */
	__u64 *words;
	size_t nwords;
	__u64 text_lo, text_hi;
};

static int fake_read(void *ctx, __u64 fp, __u64 rec[2])
{
	struct fake_stack *s = ctx;
	__u64 i = (fp - s->base) / 8;

	if (fp < s->base || i + 2 > s->nwords)
		return -1;
	rec[0] = s->words[i];
	rec[1] = s->words[i + 1];
	return 0;
}

static int fake_known(void *ctx, __u64 pc)
{
	struct fake_stack *s = ctx;

	return pc >= s->text_lo && pc < s->text_hi;
}

/* The text the leaf rule reads: up to two call instructions. */
static __u64 call_at[2];
static __u8 call_insn[2][5];

static int fake_code(void *ctx, __u64 addr, __u8 code[8])
{
	(void)ctx;
	memset(code, 0x90, 8);
	for (int c = 0; c < 2; c++)
		for (int i = 0; i < 8; i++)
			if (call_at[c] && addr + i >= call_at[c] &&
			    addr + i < call_at[c] + 5)
				code[i] = call_insn[c][addr + i - call_at[c]];
	return 0;
}

#define SPC_READ_FRAME(ctx, fp, rec)	fake_read((ctx), (fp), (rec))
#define SPC_TEXT_KNOWN(ctx, pc)		fake_known((ctx), (pc))
#define SPC_READ_CODE(ctx, addr, code)	fake_code((ctx), (addr), (code))
#include <sprofil/callers.h>

struct table {
	struct spc_table t;
	void *mem;
};

static struct table new_table(__u32 nodes, __u32 depth)
{
	struct table tb;
	__u32 got;

	tb.mem = calloc(1, spc_table_bytes(nodes));
	assert_non_null(tb.mem);
	assert_int_equal(spc_geometry(spc_table_bytes(nodes), depth, &got), 0);
	assert_int_equal(got, nodes);
	tb.t.hdr = tb.mem;
	tb.t.node = (struct spc_node *)(tb.t.hdr + 1);
	tb.t.mask = nodes - 1;
	tb.t.depth = depth;
	return tb;
}

static __u64 count_of(const struct spc_table *t, const __u64 *chain,
			 __u32 len, int truncated)
{
	__u32 parent = SPC_ROOT;
	__u32 slot, probe;
	int i;

	if (truncated) {
		/* Look it up the way a reader does: a linear scan. */
		for (slot = 0; slot <= t->mask; slot++)
			if (t->node[slot].parent == SPC_ROOT &&
			    t->node[slot].pc == SPC_PC_TRUNCATED)
				break;
		if (slot > t->mask)
			return 0;
		parent = slot + SPC_PARENT_BIAS;
	}
	for (i = len - 1; i >= 0; i--) {
		for (probe = 0, slot = 0; slot <= t->mask; slot++)
			if (t->node[slot].parent == parent &&
			    t->node[slot].pc == chain[i]) {
				probe = 1;
				break;
			}
		if (!probe)
			return 0;
		parent = slot + SPC_PARENT_BIAS;
	}
	return t->node[parent - SPC_PARENT_BIAS].count;
}

static void test_geometry(void **state)
{
	__u32 nodes;

	(void)state;
	assert_int_equal(sizeof(struct spc_header), 64);
	assert_int_equal(sizeof(struct spc_node), 16);
	assert_int_equal(spc_geometry(spc_table_bytes(16), 1, &nodes), 0);
	assert_int_equal(nodes, 16);
	/* Rounded down to a power of two. */
	assert_int_equal(spc_geometry(spc_table_bytes(1000), 64, &nodes), 0);
	assert_int_equal(nodes, 512);
	assert_int_equal(spc_geometry(spc_table_bytes(15), 8, &nodes), -EINVAL);
	assert_int_equal(spc_geometry(spc_table_bytes(64), 0, &nodes), -EINVAL);
	assert_int_equal(spc_geometry(spc_table_bytes(64), SPROFIL_MAX_DEPTH + 1,
				      &nodes), -EINVAL);
	assert_int_equal(spc_geometry(spc_table_bytes(64), SPROFIL_MAX_DEPTH,
				      &nodes), 0);
}

static void test_exact_counts_and_shared_prefix(void **state)
{
	struct table tb = new_table(64, 8);
	const __u64 a[] = { 0x1010, 0x2020, 0x3030 };	/* leaf first */
	const __u64 b[] = { 0x1040, 0x2020, 0x3030 };
	const __u64 c[] = { 0x2020, 0x3030 };
	__u32 used = 0, i;

	(void)state;
	for (i = 0; i < 7; i++)
		assert_int_equal(spc_file(&tb.t, a, 3, 0, 1, 0), 0);
	assert_int_equal(spc_file(&tb.t, b, 3, 0, 5, 0), 0);
	assert_int_equal(spc_file(&tb.t, c, 2, 0, 2, 0), 0);
	assert_int_equal(count_of(&tb.t, a, 3, 0), 7);
	assert_int_equal(count_of(&tb.t, b, 3, 0), 5);
	assert_int_equal(count_of(&tb.t, c, 2, 0), 2);
	for (i = 0; i <= tb.t.mask; i++)
		used += tb.t.node[i].parent != SPC_FREE;
	/* 0x3030, 0x2020 shared; two leaves. */
	assert_int_equal(used, 4);
	assert_int_equal(tb.t.hdr->samples, 14);
	assert_int_equal(tb.t.hdr->truncated, 0);
	assert_int_equal(tb.t.hdr->lost, 0);
	free(tb.mem);
}

/*
 * SPROFIL_THREADS: each thread's chains under its own top node, the cut
 * ones under a truncated node of that thread; the same chain of two
 * threads is two leaves.
 */
static void test_threads_on_top(void **state)
{
	struct table tb = new_table(64, 8);
	const __u64 a[] = { 0x1010, 0x2020 };
	const __u64 t7[] = { 0x1010, 0x2020, spc_thread_pc(7) };
	const __u64 t9[] = { 0x1010, 0x2020, spc_thread_pc(9) };
	const __u64 t9cut[] = { 0x1010, 0x2020, SPC_PC_TRUNCATED,
				spc_thread_pc(9) };
	__u32 tid = 0, tops = 0, i;

	(void)state;
	assert_int_equal(spc_file(&tb.t, a, 2, 0, 3, spc_thread_pc(7)), 0);
	assert_int_equal(spc_file(&tb.t, a, 2, 0, 5, spc_thread_pc(9)), 0);
	assert_int_equal(spc_file(&tb.t, a, 2, 1, 2, spc_thread_pc(9)), 0);
	assert_int_equal(count_of(&tb.t, t7, 3, 0), 3);
	assert_int_equal(count_of(&tb.t, t9, 3, 0), 5);
	assert_int_equal(count_of(&tb.t, t9cut, 4, 0), 2);
	assert_int_equal(count_of(&tb.t, a, 2, 0), 0);
	for (i = 0; i <= tb.t.mask; i++)
		if (tb.t.node[i].parent == SPC_ROOT) {
			tops++;
			assert_true(spc_pc_thread(tb.t.node[i].pc, &tid));
			assert_true(tid == 7 || tid == 9);
		}
	assert_int_equal(tops, 2);
	assert_false(spc_pc_thread(0x7fffffffe000ull, &tid));
	assert_false(spc_pc_thread(SPC_PC_TRUNCATED, &tid));
	assert_int_equal(tb.t.hdr->samples, 10);
	assert_int_equal(tb.t.hdr->truncated, 2);
	free(tb.mem);
}

static void test_truncated_chains_apart(void **state)
{
	struct table tb = new_table(64, 8);
	const __u64 a[] = { 0x1010, 0x2020 };

	(void)state;
	assert_int_equal(spc_file(&tb.t, a, 2, 1, 3, 0), 0);
	assert_int_equal(spc_file(&tb.t, a, 2, 0, 4, 0), 0);
	assert_int_equal(count_of(&tb.t, a, 2, 1), 3);
	assert_int_equal(count_of(&tb.t, a, 2, 0), 4);
	assert_int_equal(tb.t.hdr->samples, 7);
	assert_int_equal(tb.t.hdr->truncated, 3);
	free(tb.mem);
}

static void test_full_table_counts_lost_keeps_rest_exact(void **state)
{
	struct table tb = new_table(16, 4);
	__u64 chain[1], filed = 0, lost = 0, i;

	(void)state;
	for (i = 0; i < 40; i++) {
		chain[0] = 0x1000 + 16 * i;
		if (spc_file(&tb.t, chain, 1, 0, 1, 0) == 0)
			filed++;
		else
			lost++;
	}
	assert_true(filed <= 16);
	assert_int_equal(filed + lost, 40);
	assert_int_equal(tb.t.hdr->samples, filed);
	assert_int_equal(tb.t.hdr->lost, lost);
	/* What is in stays exact. */
	for (i = 0; i < 40; i++) {
		chain[0] = 0x1000 + 16 * i;
		if (count_of(&tb.t, chain, 1, 0))
			assert_int_equal(spc_file(&tb.t, chain, 1, 0, 2, 0), 0);
	}
	assert_int_equal(tb.t.hdr->samples, 3 * filed);
	free(tb.mem);
}

/*
 * A chain of one return address repeated (deep recursion, or a frame
 * record loop the walk cuts at SPROFIL_MAX_DEPTH) differs node to node
 * only in the parent.  It must spread over the table: a hash whose low
 * bits ignored the parent's high bits put every node in one cluster and
 * lost such chains in a table of 32768 nodes after 33 of them.
 */
static void test_repeated_return_address_spreads(void **state)
{
	struct table tb = new_table(32768, SPROFIL_MAX_DEPTH);
	__u64 chain[SPROFIL_MAX_DEPTH];
	__u32 i, used = 0;

	(void)state;
	chain[0] = 0x5555555554d0ull;
	for (i = 1; i < SPROFIL_MAX_DEPTH; i++)
		chain[i] = 0x555555555491ull;
	assert_int_equal(spc_file(&tb.t, chain, SPROFIL_MAX_DEPTH, 1, 1, 0), 0);
	assert_int_equal(count_of(&tb.t, chain, SPROFIL_MAX_DEPTH, 1), 1);
	assert_int_equal(tb.t.hdr->lost, 0);
	for (i = 0; i <= tb.t.mask; i++)
		used += tb.t.node[i].parent != SPC_FREE;
	assert_int_equal(used, SPROFIL_MAX_DEPTH + 1);
	free(tb.mem);
}

static void test_count_saturates(void **state)
{
	struct table tb = new_table(16, 4);
	const __u64 a[] = { 0x1010 };

	(void)state;
	assert_int_equal(spc_file(&tb.t, a, 1, 0, 0xfffffff0u, 0), 0);
	assert_int_equal(spc_file(&tb.t, a, 1, 0, 0x100, 0), 0);
	assert_int_equal(count_of(&tb.t, a, 1, 0), 0xffffffffu);
	free(tb.mem);
}

/* A stack of frame records at 0x7000.. growing up the chain. */
static __u64 words[64];

static struct fake_stack stack_of(void)
{
	struct fake_stack s = {
		.base = 0x7000, .words = words, .nwords = 64,
		.text_lo = 0x400000, .text_hi = 0x500000,
	};

	memset(words, 0, sizeof(words));
	return s;
}

/* Frame record at word @i: caller's fp (an address, or 0), return address. */
static void frame(int i, __u64 next_fp, __u64 ra)
{
	words[i] = next_fp;
	words[i + 1] = ra;
}

#define AT(i)	(0x7000 + 8 * (__u64)(i))

static void test_walk_complete_chain(void **state)
{
	struct fake_stack s = stack_of();
	__u64 chain[8];
	__u32 len;

	(void)state;
	frame(0, AT(4), 0x400100);
	frame(4, AT(8), 0x400200);
	frame(8, 0, 0x400300);
	assert_int_equal(spc_walk(&s, 0x400010, AT(0), AT(0), 0, 8, chain,
				  &len), 0);
	assert_int_equal(len, 4);
	assert_int_equal(chain[0], 0x400010);
	assert_int_equal(chain[3], 0x400300);
}

static void test_walk_cut_rules(void **state)
{
	struct fake_stack s = stack_of();
	__u64 chain[8];
	__u32 len;

	(void)state;
	/* A loop: the caller's frame is not above this one. */
	frame(0, AT(4), 0x400100);
	frame(4, AT(0), 0x400200);
	assert_int_equal(spc_walk(&s, 0x400010, AT(0), AT(0), 0, 8, chain,
				  &len), 1);
	assert_int_equal(len, 3);
	/* Misaligned. */
	frame(0, AT(4) + 3, 0x400100);
	assert_int_equal(spc_walk(&s, 0x400010, AT(0), AT(0), 0, 8, chain,
				  &len), 1);
	assert_int_equal(len, 2);
	/* Below sp. */
	assert_int_equal(spc_walk(&s, 0x400010, AT(0), AT(2), 0, 8, chain,
				  &len), 1);
	assert_int_equal(len, 1);
	/* Beyond the known stack end. */
	frame(0, AT(40), 0x400100);
	frame(40, 0, 0x400200);
	assert_int_equal(spc_walk(&s, 0x400010, AT(0), AT(0), AT(41), 8,
				  chain, &len), 1);
	assert_int_equal(len, 2);
	/* Unreadable. */
	frame(0, AT(200), 0x400100);
	assert_int_equal(spc_walk(&s, 0x400010, AT(0), AT(0), 0, 8, chain,
				  &len), 1);
	assert_int_equal(len, 2);
	/* Depth limit. */
	frame(0, AT(4), 0x400100);
	frame(4, AT(8), 0x400200);
	frame(8, 0, 0x400300);
	assert_int_equal(spc_walk(&s, 0x400010, AT(0), AT(0), 0, 3, chain,
				  &len), 1);
	assert_int_equal(len, 3);
	/* Exactly deep enough: complete. */
	assert_int_equal(spc_walk(&s, 0x400010, AT(0), AT(0), 0, 4, chain,
				  &len), 0);
	assert_int_equal(len, 4);
}

static void test_walk_stops_in_unknown_code(void **state)
{
	struct fake_stack s = stack_of();
	__u64 chain[8];
	__u32 len;

	(void)state;
	/* main called from libc, whose frame is the outermost: complete. */
	frame(0, 0, 0x7f0000001234);
	assert_int_equal(spc_walk(&s, 0x400010, AT(0), AT(0), 0, 8, chain,
				  &len), 0);
	assert_int_equal(len, 2);
	assert_int_equal(chain[1], 0x7f0000001234);
	/*
	 * Anything else beyond unknown code: cut.  Debian's qsort() leaves a
	 * small integer there, glibc 2.36 calls main() with 1: neither is
	 * told from the other by the value.
	 */
	frame(0, 1, 0x7f0000001234);
	assert_int_equal(spc_walk(&s, 0x400010, AT(0), AT(0), 0, 8, chain,
				  &len), 1);
	/* A callback from qsort(), which kept its caller's frame: cut. */
	frame(0, AT(4), 0x7f0000001234);
	frame(4, 0, 0x400300);
	assert_int_equal(spc_walk(&s, 0x400010, AT(0), AT(0), 0, 8, chain,
				  &len), 1);
	assert_int_equal(len, 2);
}

/*
 * A record whose return-address word is no user address (code built
 * without frame pointers keeps data in the register: cc1's stacks gave
 * 1 and 0xffffffffffff00f1) is no frame: the chain is cut before it, and
 * no chain ever holds a marker pc (SPC_PC_TRUNCATED, a thread's) below
 * its top.
 */
static void test_walk_never_records_a_marker(void **state)
{
	const __u64 bad[] = {
		SPC_PC_TRUNCATED, 2, SPC_USER_PC_MIN - 1,
		spc_thread_pc(0), spc_thread_pc(4242), ~0ull,
		0xffffffffffff00f1ull, SPC_USER_PC_END,
		0x8000000000000000ull,
	};
	struct fake_stack s = stack_of();
	__u64 chain[8];
	__u32 len, tid;
	size_t i;

	(void)state;
	assert_false(spc_user_pc(SPC_PC_TRUNCATED));
	assert_true(spc_user_pc(SPC_USER_PC_MIN));
	assert_true(spc_user_pc(0x7ffffffff000ull));
	assert_true(spc_user_pc(SPC_USER_PC_END - 1));
	assert_false(spc_pc_thread(SPC_USER_PC_END - 1, &tid));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(spc_user_pc(bad[i]));
		/* In unknown code as the first caller, then deeper. */
		frame(0, AT(4), bad[i]);
		assert_int_equal(spc_walk(&s, 0x400010, AT(0), AT(0), 0, 8,
					  chain, &len), 1);
		assert_int_equal(len, 1);
		frame(0, AT(4), 0x400100);
		frame(4, 0, bad[i]);
		assert_int_equal(spc_walk(&s, 0x400010, AT(0), AT(0), 0, 8,
					  chain, &len), 1);
		assert_int_equal(len, 2);
		assert_int_equal(chain[1], 0x400100);
		/* Known text that the words happen to be in: the same. */
		s.text_lo = 0;
		s.text_hi = ~0ull;
		assert_int_equal(spc_walk(&s, 0x400010, AT(0), AT(0), 0, 8,
					  chain, &len), 1);
		assert_int_equal(len, 2);
		s.text_lo = 0x400000;
		s.text_hi = 0x500000;
	}
}

/*
 * Whoever files a chain, a word that is no user address is no frame:
 * the frames inside it are filed as a cut chain, under the thread's node
 * when there is one, and a sampled pc that is none is counted in the
 * truncated node itself.
 */
static void test_file_cuts_at_a_marker(void **state)
{
	struct table tb = new_table(64, 8);
	const __u64 mid[] = { 0x1010, SPC_PC_TRUNCATED, 0x3030 };
	const __u64 thr[] = { 0x1010, spc_thread_pc(5), 0x3030 };
	const __u64 leaf[] = { ~0ull, 0x2020 };
	const __u64 inner[] = { 0x1010 };
	const __u64 t5cut[] = { 0x1010, SPC_PC_TRUNCATED, spc_thread_pc(5) };
	__u32 i, tid;

	(void)state;
	assert_int_equal(spc_file(&tb.t, mid, 3, 0, 2, 0), 0);
	assert_int_equal(spc_file(&tb.t, thr, 3, 0, 3, 0), 0);
	assert_int_equal(count_of(&tb.t, inner, 1, 1), 5);
	assert_int_equal(spc_file(&tb.t, leaf, 2, 0, 4, 0), 0);
	assert_int_equal(spc_file(&tb.t, mid, 3, 0, 1, spc_thread_pc(5)), 0);
	assert_int_equal(count_of(&tb.t, t5cut, 3, 0), 1);
	assert_int_equal(tb.t.hdr->samples, 10);
	assert_int_equal(tb.t.hdr->truncated, 10);
	for (i = 0; i <= tb.t.mask; i++) {
		const struct spc_node *n = &tb.t.node[i];

		if (n->parent == SPC_FREE)
			continue;
		/* The sampled pc ~0: its samples in the truncated node. */
		if (n->parent == SPC_ROOT && n->pc == SPC_PC_TRUNCATED)
			assert_int_equal(n->count, 4);
		if (n->parent == SPC_ROOT)
			continue;
		assert_true(n->pc != SPC_PC_TRUNCATED ||
			    spc_pc_thread(tb.t.node[n->parent -
					  SPC_PARENT_BIAS].pc, &tid));
		assert_false(spc_pc_thread(n->pc, &tid));
	}
	free(tb.mem);
}

/* Direct call @c at @at into @target: e8 and rel32 from its end. */
static void call_insn_at(int c, __u64 at, __u64 target)
{
	__s32 rel = (__s32)(target - (at + 5));

	call_at[c] = at;
	call_insn[c][0] = 0xe8;
	memcpy(&call_insn[c][1], &rel, 4);
}

/*
 * The leaf tests' walk: pc 0x400810, fp at word 4, sp at word 0; checks
 * whether it was cut (@cut) and returns the chain's length.
 */
static __u32 leaf_walk(struct fake_stack *s, __u32 depth, __u64 *chain,
		       int cut)
{
	__u32 len;

	assert_int_equal(spc_walk(s, 0x400810, AT(4), AT(0), 0, depth, chain,
				  &len), cut);
	return len;
}

/*
 * A sample in a leaf with no frame record of its own: its return address
 * is the word at sp, fp is its caller's.  The caller is taken from sp
 * only when a direct call into code at or just below pc made it.
 */
static void test_walk_leaf_rule(void **state)
{
	struct fake_stack s = stack_of();
	__u64 chain[8];
	__u32 len;

	(void)state;
	words[0] = 0x400105;		/* at sp: the leaf's return address */
	frame(4, AT(8), 0x400200);	/* the caller's record, at fp */
	frame(8, 0, 0x400300);
	call_insn_at(0, 0x400100, 0x400800);
	len = leaf_walk(&s, 8, chain, 0);
	assert_int_equal(len, 4);
	assert_int_equal(chain[1], 0x400105);
	assert_int_equal(chain[2], 0x400200);
	assert_int_equal(chain[3], 0x400300);
	/* Depth 1: the pc alone. */
	len = leaf_walk(&s, 1, chain, 1);
	assert_int_equal(len, 1);
	/* No call before the word: a local, not a return address. */
	call_insn[0][0] = 0x90;
	len = leaf_walk(&s, 8, chain, 0);
	assert_int_equal(len, 3);
	assert_int_equal(chain[1], 0x400200);
	/* A call into code above pc, or too far below it: not this leaf's. */
	call_insn_at(0, 0x400100, 0x400900);
	len = leaf_walk(&s, 8, chain, 0);
	assert_int_equal(len, 3);
	call_insn_at(0, 0x400100, 0x400810 - SPC_LEAF_SPAN);
	len = leaf_walk(&s, 8, chain, 0);
	assert_int_equal(len, 3);
	/* A word at sp outside the known text. */
	call_insn_at(0, 0x400100, 0x400800);
	words[0] = 0x600105;
	len = leaf_walk(&s, 8, chain, 0);
	assert_int_equal(len, 3);
	/*
	 * A framed function's unwritten slot at sp, holding a return
	 * address an earlier call left (into a helper at 0x400700, below
	 * pc): the record at fp was made by a direct call into 0x400800,
	 * nearer below pc, so pc is in fp's owner and the slot is stale.
	 */
	words[0] = 0x400105;
	call_insn_at(0, 0x400100, 0x400700);
	call_insn_at(1, 0x4001fb, 0x400800);
	len = leaf_walk(&s, 8, chain, 0);
	assert_int_equal(len, 3);
	assert_int_equal(chain[1], 0x400200);
	/* The same words, fp's call into code above pc: a frameless leaf. */
	call_insn_at(1, 0x4001fb, 0x400900);
	len = leaf_walk(&s, 8, chain, 0);
	assert_int_equal(len, 4);
	assert_int_equal(chain[1], 0x400105);
	call_at[0] = call_at[1] = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_geometry),
		cmocka_unit_test(test_exact_counts_and_shared_prefix),
		cmocka_unit_test(test_truncated_chains_apart),
		cmocka_unit_test(test_threads_on_top),
		cmocka_unit_test(test_full_table_counts_lost_keeps_rest_exact),
		cmocka_unit_test(test_repeated_return_address_spreads),
		cmocka_unit_test(test_count_saturates),
		cmocka_unit_test(test_walk_complete_chain),
		cmocka_unit_test(test_walk_cut_rules),
		cmocka_unit_test(test_walk_stops_in_unknown_code),
		cmocka_unit_test(test_walk_never_records_a_marker),
		cmocka_unit_test(test_file_cuts_at_a_marker),
		cmocka_unit_test(test_walk_leaf_rule),
	};

	return cmocka_run_group_tests_name("callers", tests, NULL, NULL);
}
