// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * For -c (static call graph): every direct call goes forward, to a
 * function placed later in the text, because GNU gprof 2.40 on x86-64
 * computes the target of a call without sign extension and so finds only
 * forward calls.  never_called() is called nowhere at run time: -c must
 * add it as a 0/0 child of main.  Built -O1 (not -O2, which would move
 * main to .text.startup, ahead of everything) with -fno-toplevel-reorder,
 * which keeps this source order in the text.
 */
static volatile unsigned long sink;

void worker(unsigned long n);
void never_called(void);
void tail_work(void);
void leaf(unsigned long n);

int main(int argc, char **argv)
{
	(void)argv;
	for (int i = 0; i < 40; i++)
		worker(1500000);
	if (argc > 99)
		never_called();
	tail_work();
	return (int)(sink & 0);
}

void worker(unsigned long n)
{
	leaf(n);
	leaf(n / 2);
}

void never_called(void)
{
	leaf(1);
}

void tail_work(void)
{
	leaf(25000000);
}

__attribute__((noinline)) void leaf(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}
