// SPDX-License-Identifier: GPL-2.0
/*
 * The `make demo` workload: a program that profiles itself through
 * /dev/sprofil while doing three jobs of known relative cost, then prints
 * its nonzero buckets as link-time addresses for the host to symbolise.
 *
 * One region covers the whole executable text with 32-bit buckets, one
 * bucket per 4 bytes of text (scale 0x10000); an overflow bin counts the
 * samples taken elsewhere (libc, the dynamic loader).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>
#include <linux/sprofil.h>

extern const char __executable_start[], etext[];

/* Counts primes below n by trial division: the heaviest job. */
static __attribute__((noinline)) long count_primes(long n)
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
static __attribute__((noinline)) uint32_t checksum(const uint8_t *p, size_t n,
						    int rounds)
{
	uint32_t h = 2166136261u;

	while (rounds--)
		for (size_t i = 0; i < n; i++)
			h = (h ^ p[i]) * 16777619u;
	return h;
}

/* An insertion sort of reversed data: quadratic on purpose. */
static __attribute__((noinline)) void slow_sort(int *a, int n)
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

static void die(const char *what)
{
	fprintf(stderr, "hotspots: %s: %s\n", what, strerror(errno));
	exit(1);
}

int main(void)
{
	size_t text = etext - __executable_start;
	uint32_t *buckets = calloc(text / 4 + 1, sizeof(uint32_t));
	uint32_t overflow = 0;
	struct sprofil_region r[2] = {
		{ .base = (uintptr_t)buckets, .size = (text / 4 + 1) * 4,
		  .offset = (uintptr_t)__executable_start, .scale = 0x10000 },
		{ .base = (uintptr_t)&overflow, .size = 4, .offset = 0,
		  .scale = 2 },
	};
	struct sprofil_start start = {
		.size = sizeof(start), .flags = SPROFIL_UINT,
		.regions = (uintptr_t)r, .nregions = 2,
		.period_ns = 1000000,
	};
	struct sprofil_status st = { .size = sizeof(st) };
	static uint8_t data[1 << 16];
	static int arr[9000];
	struct rusage ru;
	Dl_info self;
	int fd;

	if (!buckets)
		die("calloc");
	fd = open("/dev/sprofil", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("open /dev/sprofil");
	if (ioctl(fd, SPROFIL_IOC_START, &start))
		die("SPROFIL_IOC_START");

	for (int i = 0; i < 9000; i++)
		arr[i] = 9000 - i;
	printf("primes: %ld\n", count_primes(900000));
	printf("checksum: %08x\n", checksum(data, sizeof(data), 400));
	slow_sort(arr, 9000);
	printf("sorted: %d..%d\n", arr[0], arr[8999]);

	if (ioctl(fd, SPROFIL_IOC_STOP) || ioctl(fd, SPROFIL_IOC_STATUS, &st))
		die("SPROFIL_IOC_STOP/STATUS");
	getrusage(RUSAGE_SELF, &ru);
	printf("period %llu ns x %llu samples = %.3f s; user CPU time %.3f s\n",
	       (unsigned long long)start.period_ns,
	       (unsigned long long)st.samples,
	       st.samples * (start.period_ns / 1e9),
	       ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6);
	printf("samples outside the executable (overflow bin): %u\n",
	       overflow);

	/* Link-time addresses: the executable is PIE, loaded at dli_fbase. */
	if (!dladdr(main, &self))
		die("dladdr");
	for (size_t i = 0; i <= text / 4; i++)
		if (buckets[i])
			printf("@@bucket %#lx %u\n",
			       (unsigned long)(__executable_start + 4 * i -
					       (const char *)self.dli_fbase),
			       buckets[i]);
	return 0;
}
