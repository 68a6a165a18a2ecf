// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * More distinct call arcs than libsprofil's arc table holds: sweep() has
 * NSITES indirect call sites, and each calls every one of NFUNCS
 * functions once, so every call is an arc of its own (a distinct
 * from-pc, self-pc pair).  The text is a few KB, so monstartup sizes the
 * table at its minimum (65536 arcs), well under the NSITES * NFUNCS made
 * here: libsprofil must say how many calls it lost and still write
 * gmon.out.  glibc's table, sized from the text too, overflows long
 * before.
 *
 * An indirect call site per (site, function) pair keeps the binary small:
 * 160 loops over 512 functions instead of 81920 direct calls.
 */
#include <stdio.h>
#include "pg_burn.h"

#define NFUNCS	512		/* pgarc_000 .. pgarc_777, octal */
#define NSITES	160		/* sites 10 .. 169 */

volatile uint64_t sink;

/*
 * Distinct bodies (the octal constant 0##n) and noipa: no function may be
 * folded into another, or two callees would be one self-pc.
 */
#define F(n)	static PG_FUNC void pgarc_##n(int site) { sink += site + 0##n; }
#define F8(p)	F(p##0) F(p##1) F(p##2) F(p##3) F(p##4) F(p##5) F(p##6) F(p##7)
#define F64(p)	F8(p##0) F8(p##1) F8(p##2) F8(p##3) \
		F8(p##4) F8(p##5) F8(p##6) F8(p##7)
F64(0) F64(1) F64(2) F64(3) F64(4) F64(5) F64(6) F64(7)
#undef F

#define F(n)	pgarc_##n,
static void (*const fns[NFUNCS])(int) = {
	F64(0) F64(1) F64(2) F64(3) F64(4) F64(5) F64(6) F64(7)
};

/*
 * One call site per loop; the site number passed along makes each loop's
 * code differ, so gcc cannot merge two loops into one call instruction.
 */
#define S(k)	for (i = 0; i < NFUNCS; i++) fns[i](k);
#define S10(k)	S(k##0) S(k##1) S(k##2) S(k##3) S(k##4) \
		S(k##5) S(k##6) S(k##7) S(k##8) S(k##9)

static PG_FUNC void sweep(void)
{
	int i;

	S10(1) S10(2) S10(3) S10(4) S10(5) S10(6) S10(7) S10(8)
	S10(9) S10(10) S10(11) S10(12) S10(13) S10(14) S10(15) S10(16)
}

int main(void)
{
	sweep();
	printf("pg-manyarcs: %d calls over %d arcs\n", NSITES * NFUNCS,
	       NSITES * NFUNCS);
	return 0;
}
