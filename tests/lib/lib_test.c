// SPDX-License-Identifier: LGPL-2.1-or-later
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <cmocka.h>
#include <sprofil/mapping.h>
#include "lib_test.h"

struct lt_func lt_func_extent(void *fn)
{
	struct lt_func f = { 0, 0 };
	const ElfW(Sym) *sym = NULL;
	Dl_info info;

	if (dladdr1(fn, &info, (void **)&sym, RTLD_DL_SYMENT) && sym) {
		f.start = (uintptr_t)info.dli_saddr;
		f.size = sym->st_size;
	}
	if (!f.size) {
		fprintf(stderr, "no extent for %p (link with -rdynamic)\n", fn);
		abort();
	}
	return f;
}

/* An LCG step the compiler can neither fold nor vectorise away. */
#define LT_SPIN(n, x)						\
	do {							\
		for (uint64_t i_ = 0; i_ < (n); i_++) {		\
			(x) = (x) * 6364136223846793005ULL +	\
			      1442695040888963407ULL;		\
			__asm__ volatile("" : "+r"(x));		\
		}						\
	} while (0)

__attribute__((noinline)) uint64_t lt_work_a(uint64_t n)
{
	uint64_t x = n;

	LT_SPIN(n, x);
	return x;
}

__attribute__((noinline)) uint64_t lt_work_b(uint64_t n)
{
	uint64_t x = n + 1;

	LT_SPIN(n, x);
	return x;
}

__attribute__((noinline)) uint64_t lt_work_c(uint64_t n)
{
	uint64_t x = n + 2;

	LT_SPIN(n, x);
	return x;
}

__attribute__((noinline)) uint64_t lt_work_d(uint64_t n)
{
	uint64_t x = n + 3;

	LT_SPIN(n, x);
	return x;
}

double lt_thread_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double lt_cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

uint64_t lt_calibrate(double seconds)
{
	uint64_t n = 1 << 18;
	double t0, t;

	for (;;) {
		t0 = lt_thread_seconds();
		lt_work_a(n);
		t = lt_thread_seconds() - t0;
		if (t > 0.05)
			return (uint64_t)(n * seconds / t) + 1;
		n *= 4;
	}
}

double lt_spin_cpu(uint64_t (*fn)(uint64_t), uint64_t chunk, double seconds)
{
	double t0 = lt_thread_seconds(), t;

	do {
		fn(chunk);
		t = lt_thread_seconds() - t0;
	} while (t < seconds);
	return t;
}

void *lt_map(size_t bytes, int prot)
{
	void *p = mmap(NULL, bytes, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

uint64_t lt_sum(const void *buf, unsigned int flags, size_t first,
		size_t last)
{
	uint64_t sum = 0;

	for (size_t i = first; i < last; i++)
		sum += (flags & PROF_UINT) ? ((const uint32_t *)buf)[i] :
					     ((const uint16_t *)buf)[i];
	return sum;
}

void lt_bucket_range(const struct prof *p, unsigned int flags,
		     uintptr_t start, size_t size, size_t *first,
		     size_t *last)
{
	uint32_t shift = spm_bucket_shift(flags);

	*first = spm_bucket_index(start - p->pr_off, shift, p->pr_scale);
	*last = spm_bucket_index(start + size - 1 - p->pr_off, shift,
				 p->pr_scale) + 1;
}

size_t lt_nbuckets(const struct prof *p, unsigned int flags)
{
	return p->pr_size >> spm_bucket_shift(flags);
}

struct prof lt_func_region(void *fn, unsigned int flags)
{
	struct lt_func f = lt_func_extent(fn);
	size_t esz = (size_t)1 << spm_bucket_shift(flags);
	size_t n = (f.size + esz - 1) / esz;
	struct prof p = {
		.pr_base = calloc(n, esz),
		.pr_size = n * esz,
		.pr_off = f.start,
		.pr_scale = SPM_SCALE_ONE,
	};

	if (!p.pr_base)
		abort();
	return p;
}

struct sprofil_info lt_info(void)
{
	struct sprofil_info i;
	int rc;

	memset(&i, 0, sizeof(i));
	rc = sprofil_info(&i);
	if (rc)
		print_message("# sprofil_info: %s\n", strerror(errno));
	assert_int_equal(rc, 0);
	return i;
}

void lt_print_info(const char *what, const struct sprofil_info *i)
{
	print_message("# %s: backend=%s period=%llu ns samples=%llu misses=%llu saturated=%llu enabled=%u nregions=%u regions_off=%u\n",
		      what, i->backend, (unsigned long long)i->period_ns,
		      (unsigned long long)i->samples,
		      (unsigned long long)i->misses,
		      (unsigned long long)i->saturated, i->enabled,
		      i->nregions, i->regions_off);
}

double lt_seconds_for(double samples)
{
	struct sprofil_info i = lt_info();

	assert_true(i.enabled);
	assert_true(i.period_ns > 0);
	return samples * i.period_ns / 1e9;
}
