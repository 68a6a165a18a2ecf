// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Hundreds of functions: leaf_100 .. leaf_399, called through a table by
 * twenty group functions, every fifth leaf also calling mix().  Most
 * leaves get no sample at all, so the flat profile, the graph and the
 * three-column index are long and mostly made of ties.
 */
static volatile unsigned long sink;

__attribute__((noinline)) static void mix(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink ^= i * 2654435761u;
}

/* Numbers 100..399 without leading zeros (no octal surprises). */
#define D10(M, p) M(p##0) M(p##1) M(p##2) M(p##3) M(p##4) \
	M(p##5) M(p##6) M(p##7) M(p##8) M(p##9)
#define D100(M, p) D10(M, p##0) D10(M, p##1) D10(M, p##2) D10(M, p##3) \
	D10(M, p##4) D10(M, p##5) D10(M, p##6) D10(M, p##7) D10(M, p##8) \
	D10(M, p##9)
#define ALL(M) D100(M, 1) D100(M, 2) D100(M, 3)

#define LEAF(n)							\
	void leaf_##n(void)					\
	{							\
		for (unsigned long i = 0; i < ((n) % 7 + 1) * 20000ul; i++) \
			sink += i;				\
		if ((n) % 5 == 0)				\
			mix(500);				\
	}
ALL(LEAF)

#define PTR(n) leaf_##n,
static void (*const leaves[])(void) = { ALL(PTR) };
#define NLEAVES (sizeof(leaves) / sizeof(leaves[0]))

void group(unsigned int g)
{
	for (unsigned int i = g; i < NLEAVES; i += 20)
		leaves[i]();
}

int main(void)
{
	for (int round = 0; round < 6; round++)
		for (unsigned int g = 0; g < 20; g++)
			group(g);
	return (int)(sink & 0);
}
