// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of include/sprofil/unwind_table.h: the table check, the
 * lookup and the step, each rule and each way a chain ends, on tables
 * and stacks written by hand (a fake stack of words at a fake address).
 * tests/unit/test_unwind_oracle.c checks the walk against libdw's
 * unwinder on real programs and tables the builder made.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/types.h>
#include <cmocka.h>

/* A stack of 64 words at STACK, and one table at module address 0. */
#define STACK		0x7ff000ull
#define NWORDS		64

struct fake {
	__u64 word[NWORDS];
	const struct spu_table *t;
	int reads;
};

static int fake_read(void *ctx, __u64 addr, __u64 *val)
{
	struct fake *f = ctx;

	f->reads++;
	if (addr < STACK || addr + 8 > STACK + 8 * NWORDS || addr & 7)
		return -1;
	*val = f->word[(addr - STACK) / 8];
	return 0;
}

static int fake_rule(void *ctx, __u64 addr, void *out);

#define SPU_READ_WORD(ctx, addr, val)	fake_read((ctx), (addr), (val))
#define SPU_FIND_RULE(ctx, addr, rule)	fake_rule((ctx), (addr), (rule))
#include <sprofil/unwind_table.h>

static int fake_rule(void *ctx, __u64 addr, void *out)
{
	struct fake *f = ctx;
	long i;

	if (addr < f->t->hdr->base)
		return -1;
	i = spu_find(f->t, addr - f->t->hdr->base);
	if (i < 0)
		return -1;
	memcpy(out, &f->t->rule[i], sizeof(struct spu_rule));
	return 0;
}

_Static_assert(sizeof(struct spu_header) == 64, "header size");
_Static_assert(sizeof(struct spu_rule) == 4, "rule size");
_Static_assert(sizeof(struct spu_row) == 4, "row size");
_Static_assert(offsetof(struct spu_header, base) == 16, "base");
_Static_assert(offsetof(struct spu_header, build_id) == 32, "build_id");

/* A row as the tests write it: its start and its rule. */
struct trow {
	__u32 start;
	struct spu_rule r;
};

/*
 * Lays out a table of @n rows (sorted) covering @span at @base into
 * @buf, one rule per row, as the builder's lay_out() does with its
 * distinct rules; returns its bytes.
 */
static __u64 make_table(const struct trow *in, __u32 n, __u32 span,
			__u64 base, void *buf)
{
	struct spu_header *h = buf;
	struct spu_rule *rule = (struct spu_rule *)(h + 1);
	__u32 *page = (__u32 *)(rule + n);
	__u32 np = spu_npages(span), p, i = 0, k;
	struct spu_row *row = (struct spu_row *)(page + np + 1);

	memset(h, 0, sizeof(*h));
	h->magic = SPU_MAGIC;
	h->version = SPU_VERSION;
	h->machine = SPU_MACHINE_X86_64;
	h->nrows = n;
	h->nrules = n;
	h->span = span;
	h->base = base;
	for (p = 0; p <= np; p++) {
		while (i < n && in[i].start >> SPU_PAGE_SHIFT < p)
			i++;
		page[p] = i;
	}
	page[np] = n;
	for (k = 0; k < n; k++) {
		rule[k] = in[k].r;
		row[k].low = (__u16)in[k].start;
		row[k].rule = (__u16)k;
	}
	return spu_table_bytes(n, span, n);
}

/*
 * The module of the tests, at 0x1000: a function 0x1000-0x1100 whose
 * body has CFA = sp + 24 and saves fp at CFA - 16; one with an fp-based
 * CFA (0x1100-0x1200, fp at CFA - 16); _start (0x1200-0x1210: end); a
 * gap (0x1210-0x1220: none); a signal trampoline (0x1220-0x1230); a
 * leaf (0x1230-0x1240: CFA = sp + 8, fp lost); then a function of 128
 * KiB, over pages 0, 1 and 2 (0x1240-0x21010), and one more row.
 */
static const struct trow rows[] = {
	{ 0x000, { 1, 0, SPU_CFA_SP } },		/* entry: sp + 8 */
	{ 0x004, { 3, -2, SPU_CFA_SP | SPU_FP_AT } },
	{ 0x100, { 2, -2, SPU_CFA_FP | SPU_FP_AT } },
	{ 0x200, { 0, 0, SPU_CFA_END } },
	{ 0x210, { 0, 0, SPU_CFA_NONE } },
	{ 0x220, { 20, 15, SPU_CFA_SIGNAL } },
	{ 0x230, { 1, 0, SPU_CFA_SP | SPU_FP_LOST } },
	{ 0x240, { 5, 0, SPU_CFA_SP } },
	{ 0x20010, { 6, 0, SPU_CFA_SP } },
};
#define NROWS	9
#define SPAN	0x20100

static __u64 buf[256];
static struct spu_table tab;
static __u64 tab_bytes;

static int setup_table(void **state)
{
	(void)state;
	tab_bytes = make_table(rows, NROWS, SPAN, 0x1000, buf);
	assert_true(tab_bytes <= sizeof(buf));
	return spu_table_view((struct spu_header *)buf, tab_bytes, &tab);
}

static void setup_fake(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	f->t = &tab;
}

static void test_find(void **state)
{
	(void)state;
	assert_int_equal(tab.npages, 3);
	assert_int_equal(spu_find(&tab, 0), 0);
	assert_int_equal(spu_find(&tab, 3), 0);
	assert_int_equal(spu_find(&tab, 4), 1);
	assert_int_equal(spu_find(&tab, 0xff), 1);
	assert_int_equal(spu_find(&tab, 0x100), 2);
	assert_int_equal(spu_find(&tab, 0x23f), 6);
	assert_int_equal(spu_find(&tab, 0x240), 7);
	/* Pages without rows of their own, or before their first row. */
	assert_int_equal(spu_find(&tab, 0xffff), 7);
	assert_int_equal(spu_find(&tab, 0x10000), 7);
	assert_int_equal(spu_find(&tab, 0x1ffff), 7);
	assert_int_equal(spu_find(&tab, 0x20000), 7);
	assert_int_equal(spu_find(&tab, 0x2000f), 7);
	assert_int_equal(spu_find(&tab, 0x20010), 8);
	assert_int_equal(spu_find(&tab, SPAN - 1), 8);
	assert_int_equal(spu_find(&tab, SPAN), -1);
	assert_int_equal(spu_find(&tab, ~0ull), -1);
}

/* Every byte of a table against a linear scan of its rows. */
static void test_find_every_offset(void **state)
{
	__u32 off, k;

	(void)state;
	for (off = 0; off < SPAN + 16; off++) {
		long want = -1;

		for (k = 0; k < NROWS; k++)
			if (rows[k].start <= off && off < SPAN)
				want = k;
		assert_int_equal(spu_find(&tab, off), want);
	}
	/* A first row above 0 leaves the bytes below it out. */
	{
		static __u64 b2[64];
		struct spu_table t2;
		__u64 n = make_table(&rows[1], 3, 0x210, 0, b2);

		assert_int_equal(spu_table_view((void *)b2, n, &t2), 0);
		assert_int_equal(spu_find(&t2, 3), -1);
		assert_int_equal(spu_find(&t2, 4), 0);
	}
}

/* A table made by @mutate from the good one must be refused. */
static void refused(void (*mutate)(struct spu_header *h), __u64 bytes)
{
	static __u64 copy[256];
	struct spu_table t = { 0 };

	memcpy(copy, buf, sizeof(copy));
	mutate((struct spu_header *)copy);
	assert_int_equal(spu_table_view((void *)copy, bytes, &t), -EINVAL);
	assert_null(t.hdr);		/* nothing filled in */
}

static struct spu_rule *rule_of(struct spu_header *h)
{
	return (struct spu_rule *)(h + 1);
}

static __u32 *page_of(struct spu_header *h)
{
	return (__u32 *)(rule_of(h) + h->nrules);
}

static struct spu_row *row_of(struct spu_header *h)
{
	return (struct spu_row *)(page_of(h) + spu_npages(h->span) + 1);
}

static void m_magic(struct spu_header *h) { h->magic++; }
static void m_version(struct spu_header *h) { h->version = 2; }
static void m_machine(struct spu_header *h) { h->machine = 183; }
static void m_nrows(struct spu_header *h) { h->nrows = SPU_MAX_ROWS + 1; }
static void m_nrules(struct spu_header *h) { h->nrules = SPU_MAX_RULES + 1; }
static void m_build_id(struct spu_header *h) { h->build_id_len = 33; }
static void m_wrap(struct spu_header *h) { h->base = ~0ull - 0x100; }
static void m_how(struct spu_header *h) { rule_of(h)[3].how = 5; }
static void m_fp_how(struct spu_header *h) { rule_of(h)[3].how = 0x19; }
static void m_high_how(struct spu_header *h) { rule_of(h)[3].how = 0x81; }
static void m_page0(struct spu_header *h) { page_of(h)[0] = 1; }
static void m_page_end(struct spu_header *h) { page_of(h)[3] = 8; }
static void m_page_order(struct spu_header *h) { page_of(h)[1] = 9; }
static void m_row_rule(struct spu_header *h) { row_of(h)[2].rule = 9; }
static void m_row_order(struct spu_header *h) { row_of(h)[3].low = 0x100; }
static void m_row_span(struct spu_header *h) { row_of(h)[8].low = 0x100; }

static void test_check(void **state)
{
	struct spu_table t;

	(void)state;
	assert_int_equal(spu_table_view((void *)buf, tab_bytes, &t), 0);
	assert_int_equal(spu_table_view((void *)buf, tab_bytes - 1, &t),
			 -EINVAL);
	assert_int_equal(spu_table_view((void *)buf, 10, &t), -EINVAL);
	refused(m_magic, tab_bytes);
	refused(m_version, tab_bytes);
	refused(m_machine, tab_bytes);	/* aarch64's rules are not these */
	refused(m_nrows, ~0ull);
	refused(m_nrules, ~0ull);
	refused(m_build_id, tab_bytes);
	refused(m_wrap, tab_bytes);	/* base + span wraps */
	refused(m_how, tab_bytes);	/* no such CFA rule */
	refused(m_fp_how, tab_bytes);	/* no such fp rule */
	refused(m_high_how, tab_bytes);
	refused(m_page0, tab_bytes);
	refused(m_page_end, tab_bytes);
	refused(m_page_order, tab_bytes);
	refused(m_row_rule, tab_bytes);	/* a rule beyond nrules */
	refused(m_row_order, tab_bytes);	/* equal starts */
	refused(m_row_span, tab_bytes);	/* a row beyond the span */
}

/* One frame of the sp-based function: [sp+8] fp, [sp+16] ra. */
static void test_step_sp(void **state)
{
	struct spu_regs r = { .pc = 0x1050, .sp = STACK + 8, .fp = 77,
			      .flags = SPU_REGS_FP_KNOWN | SPU_REGS_EXACT };
	struct fake f;

	(void)state;
	setup_fake(&f);
	f.word[2] = 0xabc0;		/* the saved fp at CFA - 16 */
	f.word[3] = 0x1150;		/* the return address at CFA - 8 */
	assert_int_equal(spu_step(&f, &r), SPU_STEP_CALLER);
	assert_int_equal(r.pc, 0x1150);
	assert_int_equal(r.sp, STACK + 32);
	assert_int_equal(r.fp, 0xabc0);
	assert_int_equal(r.flags, SPU_REGS_FP_KNOWN);

	/* On the entry instruction only the return address is pushed. */
	r = (struct spu_regs){ .pc = 0x1000, .sp = STACK + 24, .fp = 5,
			       .flags = SPU_REGS_FP_KNOWN | SPU_REGS_EXACT };
	assert_int_equal(spu_step(&f, &r), SPU_STEP_CALLER);
	assert_int_equal(r.pc, 0x1150);
	assert_int_equal(r.fp, 5);	/* unchanged: fp same */
	assert_int_equal(r.sp, STACK + 32);
}

/*
 * A return address is looked up at pc - 1: a call that ends its function
 * returns to the first byte of whatever follows, here the fp-based
 * function at 0x1100, and the frame is the caller's (row 1); an
 * interrupted pc at pc itself.
 */
static void test_return_address_lookup(void **state)
{
	struct spu_regs r = { .pc = 0x1100, .sp = STACK, .fp = 0,
			      .flags = 0 };
	struct fake f;

	(void)state;
	setup_fake(&f);
	f.word[1] = 0x4242;		/* saved fp at CFA - 16 */
	f.word[2] = 0x1234;		/* CFA = STACK + 24 by row 1 */
	assert_int_equal(spu_step(&f, &r), SPU_STEP_CALLER);
	assert_int_equal(r.pc, 0x1234);
	assert_int_equal(r.sp, STACK + 24);
	assert_int_equal(r.fp, 0x4242);
	assert_int_equal(r.flags, SPU_REGS_FP_KNOWN);

	/* The same pc interrupted: row 2, fp-based, and fp unknown. */
	r = (struct spu_regs){ .pc = 0x1100, .sp = STACK,
			       .flags = SPU_REGS_EXACT };
	assert_int_equal(spu_step(&f, &r), SPU_CUT_FP);
	assert_int_equal(r.pc, 0x1100);	/* unchanged on a cut */
}

static void test_step_fp(void **state)
{
	struct spu_regs r = { .pc = 0x1180, .sp = STACK, .fp = STACK + 40,
			      .flags = SPU_REGS_FP_KNOWN | SPU_REGS_EXACT };
	struct fake f;

	(void)state;
	setup_fake(&f);
	f.word[5] = STACK + 200;	/* [fp]: the caller's fp */
	f.word[6] = 0x1234;		/* [fp + 8]: the return address */
	assert_int_equal(spu_step(&f, &r), SPU_STEP_CALLER);
	assert_int_equal(r.pc, 0x1234);
	assert_int_equal(r.sp, STACK + 56);
	assert_int_equal(r.fp, STACK + 200);
	/* The leaf row loses fp: an fp-based caller is then cut. */
	f.word[7] = 0x1101;
	assert_int_equal(spu_step(&f, &r), SPU_STEP_CALLER);
	assert_int_equal(r.pc, 0x1101);
	assert_int_equal(r.flags, 0);
	assert_int_equal(spu_step(&f, &r), SPU_CUT_FP);
}

static void test_step_ends(void **state)
{
	struct spu_regs r = { .pc = 0x1205, .sp = STACK };
	struct fake f;

	(void)state;
	setup_fake(&f);
	assert_int_equal(spu_step(&f, &r), SPU_STEP_END);
	assert_int_equal(f.reads, 0);
	r.pc = 0x1215;			/* the gap */
	assert_int_equal(spu_step(&f, &r), SPU_CUT_NOINFO);
	r.pc = 0x1000 + SPAN + 1;	/* beyond the span */
	assert_int_equal(spu_step(&f, &r), SPU_CUT_NOROW);
	r.pc = 0x500;			/* below the module */
	assert_int_equal(spu_step(&f, &r), SPU_CUT_NOROW);
	/* A zero return address: the ABI's outermost frame. */
	r = (struct spu_regs){ .pc = 0x1231, .sp = STACK,
			       .flags = SPU_REGS_EXACT };
	assert_int_equal(spu_step(&f, &r), SPU_STEP_END);
	/* A kernel address or 1 is no return address. */
	f.word[0] = 0xffffffff81000000ull;
	assert_int_equal(spu_step(&f, &r), SPU_CUT_PC);
	f.word[0] = 1;
	assert_int_equal(spu_step(&f, &r), SPU_CUT_PC);
	/* Outside the stack: unreadable. */
	r.sp = STACK + 8 * NWORDS;
	assert_int_equal(spu_step(&f, &r), SPU_CUT_READ);
	/* The stack's last word is readable. */
	r = (struct spu_regs){ .pc = 0x1050, .sp = STACK + 8 * NWORDS - 24,
			       .flags = SPU_REGS_EXACT };
	f.word[NWORDS - 1] = 0x1230;
	assert_int_equal(spu_step(&f, &r), SPU_STEP_CALLER);
}

/*
 * Hostile rules: a CFA at or below sp (a table claiming a negative
 * frame, which would loop), or wrapping around the address space.
 */
static void test_step_stack_rules(void **state)
{
	static const struct trow bad[] = {
		{ 0x00, { 0, 0, SPU_CFA_SP } },
		{ 0x80, { -4, 0, SPU_CFA_FP } },
	};
	static __u64 b[32];
	struct spu_table t;
	__u64 n;
	struct spu_regs r = { .pc = 0x1010, .sp = STACK + 64,
			      .flags = SPU_REGS_FP_KNOWN | SPU_REGS_EXACT };
	struct fake f;

	(void)state;
	setup_fake(&f);
	n = make_table(bad, 2, 0x100, 0x1000, b);
	assert_int_equal(spu_table_view((void *)b, n, &t), 0);
	f.t = &t;
	assert_int_equal(spu_step(&f, &r), SPU_CUT_STACK);
	r.pc = 0x1090;
	r.fp = STACK + 64;		/* CFA = fp - 32 < sp */
	assert_int_equal(spu_step(&f, &r), SPU_CUT_STACK);
	r.sp = ~0ull - 4;		/* sp + 8 wraps */
	r.fp = ~0ull;
	assert_int_equal(spu_step(&f, &r), SPU_CUT_STACK);
	assert_int_equal(f.reads, 0);
}

/*
 * The signal trampoline: sp points at the kernel's ucontext, whose
 * saved rsp, rip and rbp are at sp + 160, sp + 168 and sp + 120; the pc
 * found is the interrupted one, looked up exactly.
 */
static void test_step_signal(void **state)
{
	struct spu_regs r = { .pc = 0x1221, .sp = STACK, .fp = 9,
			      .flags = 0 };
	struct fake f;

	(void)state;
	setup_fake(&f);
	f.word[15] = STACK + 400;	/* rbp */
	f.word[20] = STACK + 256;	/* rsp */
	f.word[21] = 0x1100;		/* rip: exact, the fp-based row */
	assert_int_equal(spu_step(&f, &r), SPU_STEP_CALLER);
	assert_int_equal(r.pc, 0x1100);
	assert_int_equal(r.sp, STACK + 256);
	assert_int_equal(r.fp, STACK + 400);
	assert_int_equal(r.flags, SPU_REGS_FP_KNOWN | SPU_REGS_EXACT);
	/* Looked up at 0x1100 (row 2), not 0x10ff (row 1). */
	f.word[51] = 0x1205;		/* [fp + 8] with fp = STACK + 400 */
	assert_int_equal(spu_step(&f, &r), SPU_STEP_CALLER);
	assert_int_equal(r.pc, 0x1205);
	assert_int_equal(r.sp, STACK + 416);
	/* A signal frame may move sp down (sigaltstack): allowed. */
	r = (struct spu_regs){ .pc = 0x1221, .sp = STACK + 128 };
	f.word[16 + 20] = STACK;
	f.word[16 + 21] = 0x1205;
	assert_int_equal(spu_step(&f, &r), SPU_STEP_CALLER);
	assert_int_equal(r.sp, STACK);
	/* An unreadable ucontext cuts. */
	r = (struct spu_regs){ .pc = 0x1221, .sp = STACK + 8 * NWORDS - 8 };
	assert_int_equal(spu_step(&f, &r), SPU_CUT_READ);
}

/*
 * A whole walk: leaf (0x1234) -> sp-based function -> fp-based one ->
 * _start, complete; the same with less depth, cut at the limit; and at
 * exactly the depth the complete chain needs, still complete.
 */
static void test_walk(void **state)
{
	__u64 chain[8];
	struct fake f;
	__u32 len;

	(void)state;
	setup_fake(&f);
	f.word[0] = 0x1060;		/* leaf's return, into row 1 */
	/* row 1's frame: CFA = STACK + 8 + 24 = STACK + 32 */
	f.word[2] = STACK + 48;		/* saved fp at CFA - 16 */
	f.word[3] = 0x1110;		/* return into the fp-based function */
	f.word[6] = STACK + 400;	/* [fp] */
	f.word[7] = 0x1208;		/* [fp + 8]: into _start */
	assert_int_equal(spu_walk(&f, 0x1234, STACK, 3, 8, chain, &len), 0);
	assert_int_equal(len, 4);
	assert_int_equal(chain[0], 0x1234);
	assert_int_equal(chain[1], 0x1060);
	assert_int_equal(chain[2], 0x1110);
	assert_int_equal(chain[3], 0x1208);
	assert_int_equal(spu_walk(&f, 0x1234, STACK, 3, 4, chain, &len), 0);
	assert_int_equal(len, 4);
	assert_int_equal(spu_walk(&f, 0x1234, STACK, 3, 3, chain, &len),
			 SPU_CUT_DEPTH);
	assert_int_equal(len, 3);
	assert_int_equal(spu_walk(&f, 0x1234, STACK, 3, 1, chain, &len),
			 SPU_CUT_DEPTH);
	assert_int_equal(len, 1);
	/* The leaf's caller lost fp and the fp-based function needs it. */
	f.word[0] = 0x1238;
	f.word[1] = 0x1110;
	assert_int_equal(spu_walk(&f, 0x1234, STACK, 3, 8, chain, &len),
			 SPU_CUT_FP);
	assert_int_equal(len, 3);
	assert_int_equal(chain[2], 0x1110);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_find_every_offset),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_step_sp),
		cmocka_unit_test(test_return_address_lookup),
		cmocka_unit_test(test_step_fp),
		cmocka_unit_test(test_step_ends),
		cmocka_unit_test(test_step_stack_rules),
		cmocka_unit_test(test_step_signal),
		cmocka_unit_test(test_walk),
	};

	return cmocka_run_group_tests(tests, setup_table, NULL);
}
