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
	const struct spu_header *h;
	const struct spu_row *row;
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

static int fake_row(void *ctx, __u64 addr, void *out);

#define SPU_READ_WORD(ctx, addr, val)	fake_read((ctx), (addr), (val))
#define SPU_FIND_ROW(ctx, addr, row)	fake_row((ctx), (addr), (row))
#include <sprofil/unwind_table.h>

static int fake_row(void *ctx, __u64 addr, void *out)
{
	struct fake *f = ctx;
	long i;

	if (addr < f->h->base)
		return -1;
	i = spu_find(f->row, f->h->nrows, f->h->span, addr - f->h->base);
	if (i < 0)
		return -1;
	memcpy(out, &f->row[i], sizeof(struct spu_row));
	return 0;
}

_Static_assert(sizeof(struct spu_header) == 64, "header size");
_Static_assert(sizeof(struct spu_row) == 8, "row size");
_Static_assert(offsetof(struct spu_header, base) == 16, "base");
_Static_assert(offsetof(struct spu_header, build_id) == 32, "build_id");

/*
 * The module of the tests, at 0x1000: a function 0x1000-0x1100 whose
 * body has CFA = sp + 24 and saves fp at CFA - 16; one with an fp-based
 * CFA (0x1100-0x1200, fp at CFA - 16); _start (0x1200-0x1210: end); a
 * gap (0x1210-0x1220: none); a signal trampoline (0x1220-0x1230); a
 * leaf (0x1230-0x1240: CFA = sp + 8, fp lost).  Span 0x240.
 */
static struct {
	struct spu_header h;
	struct spu_row row[8];
} tab = {
	.h = { .magic = SPU_MAGIC, .version = SPU_VERSION,
	       .machine = SPU_MACHINE_X86_64, .nrows = 7, .span = 0x240,
	       .base = 0x1000 },
	.row = {
		{ 0x000, 1, 0, SPU_CFA_SP },		/* entry: sp + 8 */
		{ 0x004, 3, -2, SPU_CFA_SP | SPU_FP_AT },
		{ 0x100, 2, -2, SPU_CFA_FP | SPU_FP_AT },
		{ 0x200, 0, 0, SPU_CFA_END },
		{ 0x210, 0, 0, SPU_CFA_NONE },
		{ 0x220, 20, 15, SPU_CFA_SIGNAL },
		{ 0x230, 1, 0, SPU_CFA_SP | SPU_FP_LOST },
	},
};

static void setup_fake(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	f->h = &tab.h;
	f->row = tab.row;
}

static void test_find(void **state)
{
	(void)state;
	assert_int_equal(spu_find(tab.row, 7, 0x240, 0), 0);
	assert_int_equal(spu_find(tab.row, 7, 0x240, 3), 0);
	assert_int_equal(spu_find(tab.row, 7, 0x240, 4), 1);
	assert_int_equal(spu_find(tab.row, 7, 0x240, 0xff), 1);
	assert_int_equal(spu_find(tab.row, 7, 0x240, 0x100), 2);
	assert_int_equal(spu_find(tab.row, 7, 0x240, 0x23f), 6);
	assert_int_equal(spu_find(tab.row, 7, 0x240, 0x240), -1);
	assert_int_equal(spu_find(tab.row, 0, 0x240, 0), -1);
	/* A first row starting above 0 leaves the bytes below it out. */
	assert_int_equal(spu_find(&tab.row[1], 6, 0x240, 3), -1);
}

static void test_check(void **state)
{
	struct spu_header *h = &tab.h;
	__u64 bytes = spu_table_bytes(7);
	struct spu_row saved;

	(void)state;
	assert_int_equal(spu_table_check(h, bytes), 0);
	assert_int_equal(spu_table_check(h, bytes - 1), -EINVAL);
	assert_int_equal(spu_table_check(h, 10), -EINVAL);
	h->magic++;
	assert_int_equal(spu_table_check(h, bytes), -EINVAL);
	h->magic--;
	h->machine = 183;	/* aarch64 rules are not these */
	assert_int_equal(spu_table_check(h, bytes), -EINVAL);
	h->machine = SPU_MACHINE_X86_64;
	h->nrows = SPU_MAX_ROWS + 1;
	assert_int_equal(spu_table_check(h, ~0ull), -EINVAL);
	h->nrows = 7;
	h->base = ~0ull - 0x100;	/* base + span wraps */
	assert_int_equal(spu_table_check(h, bytes), -EINVAL);
	h->base = 0x1000;
	saved = tab.row[3];
	tab.row[3].start = 0x100;	/* equal starts */
	assert_int_equal(spu_table_check(h, bytes), -EINVAL);
	tab.row[3] = saved;
	tab.row[3].rule = 5;		/* no such CFA rule */
	assert_int_equal(spu_table_check(h, bytes), -EINVAL);
	tab.row[3].rule = SPU_CFA_SP | (3u << 3);	/* no such fp rule */
	assert_int_equal(spu_table_check(h, bytes), -EINVAL);
	tab.row[3].rule = SPU_CFA_SP | 0x80;
	assert_int_equal(spu_table_check(h, bytes), -EINVAL);
	tab.row[3] = saved;
	saved = tab.row[6];
	tab.row[6].start = 0x240;	/* a row at the span */
	assert_int_equal(spu_table_check(h, bytes), -EINVAL);
	tab.row[6] = saved;
	assert_int_equal(spu_table_check(h, bytes), 0);
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
	r.pc = 0x1241;			/* beyond the span */
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
	static struct {
		struct spu_header h;
		struct spu_row row[2];
	} bad = {
		.h = { .magic = SPU_MAGIC, .version = SPU_VERSION,
		       .machine = SPU_MACHINE_X86_64, .nrows = 2,
		       .span = 0x100, .base = 0x1000 },
		.row = {
			{ 0x00, 0, 0, SPU_CFA_SP },
			{ 0x80, -4, 0, SPU_CFA_FP },
		},
	};
	struct spu_regs r = { .pc = 0x1010, .sp = STACK + 64,
			      .flags = SPU_REGS_FP_KNOWN | SPU_REGS_EXACT };
	struct fake f;

	(void)state;
	setup_fake(&f);
	f.h = &bad.h;
	f.row = bad.row;
	assert_int_equal(spu_table_check(&bad.h, sizeof(bad)), 0);
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
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_step_sp),
		cmocka_unit_test(test_return_address_lookup),
		cmocka_unit_test(test_step_fp),
		cmocka_unit_test(test_step_ends),
		cmocka_unit_test(test_step_stack_rules),
		cmocka_unit_test(test_step_signal),
		cmocka_unit_test(test_walk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
