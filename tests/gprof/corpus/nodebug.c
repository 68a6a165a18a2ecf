// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Code without debugging information, linked with nodebug_data.c, whose
 * DWARF describes only data: a CU without any address range, and no
 * DWARF function anywhere.  -l then has DWARF to open but nothing in it
 * for the code (the empty arrays UBSan once caught passed to qsort).
 */
extern int nodebug_table[4];
static volatile int sink;

__attribute__((noinline)) static int work(int n)
{
	int s = 0;

	for (int i = 0; i < n * 1000000; i++)
		s += nodebug_table[i & 3];
	return s;
}

__attribute__((noinline)) static void twice(void)
{
	sink = work(20) + work(10);
}

int main(void)
{
	twice();
	sink = work(30);
	return 0;
}
