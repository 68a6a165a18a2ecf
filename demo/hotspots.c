// SPDX-License-Identifier: GPL-2.0
/*
 * The `make demo` workload: an ordinary program, with no profiling code
 * and not built with -pg, that `sprofil record` profiles unchanged.  It
 * is built with frame pointers in every function, leaves too
 * (-mno-omit-leaf-frame-pointer: a leaf without one hides its caller
 * from the walk), so the module's call chains give it a call graph.
 *
 * Three jobs of known relative cost (count_primes, checksum, slow_sort),
 * and one callee, hash_block(), that two callers call with very
 * different work: index_names() hashes 64-byte names 80,000 times,
 * verify_data() 4 KiB blocks 20,000 times.  gprof's estimate would split
 * hash_block's time between them by their calls, 80/20; the measured
 * call graph shows where it went, about 6/94.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* noipa: no inlining and no clones (count_primes.constprop.0). */
#define NOINLINE __attribute__((noipa))

/* Counts primes below n by trial division: the heaviest job. */
static NOINLINE long count_primes(long n)
{
	long count = 0;

	for (long i = 2; i < n; i++) {
		long d = 2;

		while (d * d <= i && i % d)
			d++;
		count += d * d > i;
	}
	return count;
}

/* An FNV-1a hash over a buffer, many times over. */
static NOINLINE uint32_t checksum(const uint8_t *p, size_t n, int rounds)
{
	uint32_t h = 2166136261u;

	while (rounds--)
		for (size_t i = 0; i < n; i++)
			h = (h ^ p[i]) * 16777619u;
	return h;
}

/* An insertion sort of reversed data: quadratic on purpose. */
static NOINLINE void slow_sort(int *a, int n)
{
	for (int i = 1; i < n; i++) {
		int v = a[i], j = i - 1;

		while (j >= 0 && a[j] > v) {
			a[j + 1] = a[j];
			j--;
		}
		a[j + 1] = v;
	}
}

/* The shared callee: its cost is its caller's block size. */
static NOINLINE uint32_t hash_block(const uint8_t *p, size_t n)
{
	uint32_t h = 0;

	for (size_t i = 0; i < n; i++)
		h = (h << 5) + h + p[i];
	return h;
}

static NOINLINE uint32_t index_names(const uint8_t *data, int calls)
{
	uint32_t h = 0;

	for (int i = 0; i < calls; i++)
		h = h * 31 + hash_block(data + (i % 1024) * 64, 64);
	return h;
}

static NOINLINE uint32_t verify_data(const uint8_t *data, int calls)
{
	uint32_t h = 0;

	for (int i = 0; i < calls; i++)
		h = h * 31 + hash_block(data + (i % 16) * 4096, 4096);
	return h;
}

int main(void)
{
	static uint8_t data[1 << 16];
	static int arr[9000];

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 2654435761u >> 24);
	for (int i = 0; i < 9000; i++)
		arr[i] = 9000 - i;
	printf("primes: %ld\n", count_primes(900000));
	printf("checksum: %08x\n", checksum(data, sizeof(data), 400));
	slow_sort(arr, 9000);
	printf("sorted: %d..%d\n", arr[0], arr[8999]);
	printf("names %08x, data %08x\n", index_names(data, 80000),
	       verify_data(data, 20000));
	return 0;
}
