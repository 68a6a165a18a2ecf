// SPDX-License-Identifier: GPL-2.0
/* A shared library with a hot function, for regions inside a DSO. */
#include <stdint.h>

__attribute__((noinline)) uint64_t kt_lib_work(uint64_t n)
{
	uint64_t x = n;

	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}
