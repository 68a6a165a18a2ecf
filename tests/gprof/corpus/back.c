// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A backward call for -c: main calls early(), placed before it, only when
 * argc > 99, so the arc exists only in the static call graph.  GNU gprof
 * 2.40 misses it on x86-64 (no sign extension of the rel32); ours must
 * find it and show it as a 0/0 child of main.
 */
static volatile unsigned long sink;

void early(void)
{
	sink++;
}

__attribute__((noinline)) void busy(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

int main(int argc, char **argv)
{
	(void)argv;
	busy(60000000);
	if (argc > 99)
		early();
	return (int)(sink & 0);
}
