// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzzes the ioctl argument parsing of sprofil.ko with random, mostly
 * hostile, START/STATUS arguments: every call must either succeed or fail
 * with one of the documented errnos, the kernel must stay clean (the VM
 * runner fails on any splat), and afterwards no page may stay pinned.
 * The generator is seeded, so a failure replays.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>
#include "kmod_test.h"

#define ITERATIONS 3000

static uint64_t rng_state = 0x5eed5eed12345678ull;

static uint64_t rnd(void)
{
	/* xorshift64*: deterministic, good enough to pick edge cases. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static uint64_t pick(const uint64_t *v, size_t n)
{
	return v[rnd() % n];
}

static uint8_t buffer[1 << 16] __attribute__((aligned(4096)));
static void *unmapped;		/* a page we made sure is not mapped */
static void *readonly;		/* a page mapped without write access */

static uint64_t random_pointer(void)
{
	const uint64_t p[] = {
		0, 1, (uintptr_t)buffer, (uintptr_t)buffer + 1,
		(uintptr_t)buffer + sizeof(buffer) - 2, (uintptr_t)unmapped,
		(uintptr_t)readonly, 0xffffffffff600000ull, ~0ull,
		0x00007ffffffff000ull, 0xffff888000000000ull,
	};

	return rnd() & 1 ? (uintptr_t)buffer + (rnd() % sizeof(buffer)) :
			   pick(p, sizeof(p) / sizeof(p[0]));
}

static uint64_t random_size(void)
{
	const uint64_t s[] = {
		0, 1, 2, 3, 4, 6, 8, sizeof(buffer), sizeof(buffer) + 2,
		SPROFIL_MAX_REGION_BYTES, SPROFIL_MAX_REGION_BYTES + 4,
		~0ull, ~0ull - 1, 1ull << 32,
	};

	return rnd() & 1 ? (rnd() % sizeof(buffer)) & ~1ull :
			   pick(s, sizeof(s) / sizeof(s[0]));
}

static void random_region(struct sprofil_region *r)
{
	const uint64_t scales[] = {
		0, 1, 2, 3, 0x8000, 0xffff, 0x10000, 0x10001, 0xffffffff,
	};
	const uint64_t offsets[] = {
		0, 1, (uintptr_t)wl_work_a, ~0ull, ~0ull - 0xfff,
	};

	r->base = random_pointer();
	r->size = random_size();
	r->offset = rnd() & 1 ? rnd() : pick(offsets, 5);
	r->scale = rnd() & 1 ? (uint32_t)rnd() : pick(scales, 9);
	r->reserved = rnd() % 16 ? 0 : (uint32_t)rnd();
	if (rnd() % 4 == 0) {		/* a well-formed region now and then */
		r->base = (uintptr_t)buffer;
		r->size = 4096;
		r->scale = 0x10000;
	}
}

static int errno_allowed(int err)
{
	return err == EINVAL || err == EFAULT || err == ENOMEM ||
	       err == E2BIG;
}

static void fuzz_start(void **state)
{
	static struct sprofil_region regions[64];
	int fd = kt_open(), failures = 0, successes = 0;
	long pinned_before = kt_module_param("pinned_pages");

	(void)state;
	for (int i = 0; i < ITERATIONS; i++) {
		struct sprofil_start a = {
			.size = sizeof(a),
			.flags = rnd() % 4 ? rnd() % 4 : (uint32_t)rnd(),
			.regions = (uintptr_t)regions,
			.nregions = rnd() % 8 ? rnd() % 4 : (uint32_t)rnd(),
			.period_ns = rnd() % 4 ? 0 : rnd() % 2000000000ull,
		};
		unsigned int n = a.nregions < 64 ? a.nregions : 64;

		for (unsigned int k = 0; k < n; k++)
			random_region(&regions[k]);
		if (rnd() % 16 == 0)
			a.regions = random_pointer();
		if (rnd() % 16 == 0)
			a.size = (uint32_t)rnd() % 128;
		if (rnd() % 32 == 0)
			a.reserved = 1;
		if (ioctl(fd, SPROFIL_IOC_START, &a) == 0) {
			successes++;
			assert_int_equal(kt_stop(fd), 0);
		} else {
			if (!errno_allowed(errno))
				print_message("iteration %d: errno %d\n", i,
					      errno);
			assert_true(errno_allowed(errno));
			failures++;
		}
	}
	print_message("%d starts succeeded, %d refused\n", successes,
		      failures);
	assert_true(successes > 0 && failures > 0);
	assert_int_equal(kt_module_param("pinned_pages"), pinned_before);
	close(fd);
}

/* Wrong sizes and pointers for STATUS, and unknown commands. */
static void fuzz_status_and_commands(void **state)
{
	int fd = kt_open();

	(void)state;
	for (int i = 0; i < ITERATIONS; i++) {
		struct sprofil_status st;
		void *arg = &st;
		int r;

		memset(&st, 0, sizeof(st));
		st.size = rnd() % 4 ? sizeof(st) : (uint32_t)rnd() % 256;
		if (rnd() % 8 == 0)
			arg = (void *)(uintptr_t)random_pointer();
		r = ioctl(fd, SPROFIL_IOC_STATUS, arg);
		assert_true(r == 0 || errno_allowed(errno));
		if (r == 0 && arg == &st)
			assert_int_equal(st.state, 0);
	}
	for (int i = 0; i < ITERATIONS; i++) {
		unsigned int nr = 4 + rnd() % 250;
		unsigned long cmd = _IOC(rnd() % 4, SPROFIL_IOC_MAGIC, nr,
					 rnd() % 512);

		assert_int_equal(ioctl(fd, cmd, buffer), -1);
		assert_int_equal(errno, ENOTTY);
	}
	close(fd);
}

static int setup(void **state)
{
	(void)state;
	unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	readonly = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	if (unmapped == MAP_FAILED || readonly == MAP_FAILED)
		return -1;
	munmap(unmapped, 4096);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fuzz_start),
		cmocka_unit_test(fuzz_status_and_commands),
	};

	return cmocka_run_group_tests_name("fuzz_ioctl", tests, setup, NULL);
}
