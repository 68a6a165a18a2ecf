// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A program written for glibc's <sys/profil.h> and nothing else: it must
 * build against glibc's headers and, linked with -lsprofil, work
 * unchanged.  Hence no include of sprofil.h and no call that glibc lacks;
 * the only knowledge of the library is the link line.
 *
 * profil() covers the whole program text and the samples must land in
 * the one hot function; sprofil() with two regions and an overflow bin
 * must report through tvp the period it really samples at (glibc reports
 * a tick that is not its sampling rate), checked against CPU time.
 */
#include <dlfcn.h>
#include <link.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/profil.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

/* The linker's bounds of the executable's text. */
extern const char __executable_start[];
extern const char etext[];

struct extent {
	uintptr_t start;
	size_t size;
};

static struct extent extent_of(void *fn)
{
	struct extent e = { 0, 0 };
	const ElfW(Sym) *sym = NULL;
	Dl_info info;

	if (dladdr1(fn, &info, (void **)&sym, RTLD_DL_SYMENT) && sym) {
		e.start = (uintptr_t)info.dli_saddr;
		e.size = sym->st_size;
	}
	assert_true(e.size > 0);
	return e;
}

#define SPIN(n, x)						\
	do {							\
		for (uint64_t i_ = 0; i_ < (n); i_++) {		\
			(x) = (x) * 6364136223846793005ULL +	\
			      1442695040888963407ULL;		\
			__asm__ volatile("" : "+r"(x));		\
		}						\
	} while (0)

__attribute__((noinline)) uint64_t compat_hot(uint64_t n)
{
	uint64_t x = n;

	SPIN(n, x);
	return x;
}

__attribute__((noinline)) uint64_t compat_other(uint64_t n)
{
	uint64_t x = n + 1;

	SPIN(n, x);
	return x;
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Iterations of compat_* taking about 10 ms of CPU. */
static uint64_t chunk;

static int calibrate(void **state)
{
	uint64_t n = 1 << 18;
	double t0, t;

	(void)state;
	for (;;) {
		t0 = cpu_seconds();
		compat_other(n);
		t = cpu_seconds() - t0;
		if (t > 0.05)
			break;
		n *= 4;
	}
	chunk = (uint64_t)(n * 0.01 / t) + 1;
	return 0;
}

/* Runs @fn in chunks until @seconds of CPU have passed. */
static double spin_cpu(uint64_t (*fn)(uint64_t), double seconds)
{
	double t0 = cpu_seconds(), t;

	do {
		fn(chunk);
		t = cpu_seconds() - t0;
	} while (t < seconds);
	return t;
}

static uint64_t sum16(const unsigned short *b, size_t first, size_t last)
{
	uint64_t s = 0;

	for (size_t i = first; i < last; i++)
		s += b[i];
	return s;
}

static uint64_t sum32(const unsigned int *b, size_t n)
{
	uint64_t s = 0;

	for (size_t i = 0; i < n; i++)
		s += b[i];
	return s;
}

/*
 * profil() through a pointer, for the classic stop profil(NULL, 0, 0, 0):
 * glibc's <unistd.h> declares the buffer nonnull, so a direct call with
 * NULL is undefined for the compiler and UBSan (nonnull-attribute) flags
 * it; attributes are not part of a pointer's type, so this call is not
 * (volatile: nor may the compiler turn it back into a direct one).
 */
static int (*const volatile profil_unchecked)(unsigned short *, size_t,
					      size_t, unsigned int) = profil;

/*
 * profil() over the whole text at scale 0x10000, one 16-bit bucket per
 * two bytes: the samples belong in compat_hot()'s buckets.
 */
static void profil_over_the_text_finds_the_hot_function(void **state)
{
	uintptr_t lo = (uintptr_t)__executable_start;
	size_t bytes = ((uintptr_t)etext - lo + 1) & ~(size_t)1;
	unsigned short *buf = calloc(bytes / 2, 2);
	struct extent hot = extent_of(compat_hot);
	size_t first = (hot.start - lo) / 2;
	size_t last = (hot.start + hot.size - 1 - lo) / 2 + 1;
	uint64_t in_hot, all;

	(void)state;
	assert_non_null(buf);
	assert_true(hot.start >= lo && hot.start + hot.size <= lo + bytes);
	assert_int_equal(profil(buf, bytes, lo, 0x10000), 0);
	spin_cpu(compat_hot, 1.2);
	/* The classic stop. */
	assert_int_equal(profil_unchecked(NULL, 0, 0, 0), 0);
	in_hot = sum16(buf, first, last);
	all = sum16(buf, 0, bytes / 2);
	spin_cpu(compat_hot, 0.2);
	assert_int_equal(sum16(buf, 0, bytes / 2), all);
	print_message("# profil: %llu of %llu samples in compat_hot (text %zu bytes)\n",
		      (unsigned long long)in_hot, (unsigned long long)all,
		      bytes);
	/* 1.2 s is 120 samples even at the 100 Hz of old profil()s. */
	assert_true(all >= 100);
	assert_true(in_hot >= all * 0.95);
	free(buf);
}

/*
 * LTP's profil01: a 64 KiB buffer at scale 2 * 65536, where glibc files a
 * pc at ((pc - offset) / 2) * 2: one bucket per text byte, even buckets
 * only.  glibc accepts it, so profil() must too, and file exactly there.
 */
static void profil_scale_above_one_files_like_glibc(void **state)
{
	enum { NBUCKETS = 32768 };
	static unsigned short buf[NBUCKETS];
	struct extent hot = extent_of(compat_hot);
	uint64_t in_hot = 0, odd = 0, all;

	(void)state;
	assert_true(hot.size < NBUCKETS);
	assert_int_equal(profil(buf, sizeof(buf), hot.start, 2 * 65536), 0);
	spin_cpu(compat_hot, 1.2);
	assert_int_equal(profil_unchecked(NULL, 0, 0, 0), 0);
	all = sum16(buf, 0, NBUCKETS);
	for (size_t i = 0; i < hot.size; i++)
		in_hot += buf[i];
	print_message("# profil scale 0x20000: %llu samples, %llu in compat_hot's %zu bytes\n",
		      (unsigned long long)all, (unsigned long long)in_hot,
		      hot.size);
	assert_true(all >= 100);
	/* The region reaches past compat_hot, into spin_cpu()'s loop. */
	assert_true(in_hot >= all * 0.95);
	/* floor((pc - offset) / 2) * 2 is even, wherever the pc is. */
	for (size_t i = 1; i < NBUCKETS; i += 2)
		odd += buf[i];
	assert_int_equal(odd, 0);
}

/*
 * sprofil() with two 32-bit regions and an overflow bin sees every
 * sample, so samples * tvp must be the CPU time spent.
 */
static void sprofil_tvp_is_the_true_period(void **state)
{
	struct extent hot = extent_of(compat_hot);
	struct extent other = extent_of(compat_other);
	size_t nhot = (hot.size + 3) / 4, nother = (other.size + 3) / 4;
	unsigned int *bhot = calloc(nhot, 4), *bother = calloc(nother, 4);
	unsigned int ovf = 0;
	struct prof p[3] = {
		{ bhot, nhot * 4, hot.start, 0x10000 },
		{ bother, nother * 4, other.start, 0x10000 },
		{ &ovf, sizeof(ovf), 0, 2 },
	};
	struct timeval tv = { 0, 0 };
	uint64_t shot, sother, total;
	double c0, th, to, period, cpu;

	(void)state;
	assert_non_null(bhot);
	assert_non_null(bother);
	/*
	 * The CPU time sampled is the time between start and stop: the
	 * calls themselves are not (the bpf backend's start loads and
	 * verifies a program, a third of a second under qemu TCG).
	 */
	assert_int_equal(sprofil(p, 3, &tv, PROF_UINT), 0);
	c0 = cpu_seconds();
	th = spin_cpu(compat_hot, 1.0);
	to = spin_cpu(compat_other, 1.0);
	cpu = cpu_seconds() - c0;
	assert_int_equal(sprofil(NULL, 0, NULL, 0), 0);
	shot = sum32(bhot, nhot);
	sother = sum32(bother, nother);
	total = shot + sother + ovf;
	period = tv.tv_sec + tv.tv_usec / 1e6;
	print_message("# sprofil: tvp %ld.%06ld s; compat_hot %llu, compat_other %llu, overflow %u; CPU %.3f s / %llu samples = %.6f s (ratio %.4f)\n",
		      (long)tv.tv_sec, (long)tv.tv_usec,
		      (unsigned long long)shot, (unsigned long long)sother,
		      ovf, cpu, (unsigned long long)total, cpu / total,
		      period * total / cpu);
	assert_true(period > 0);
	assert_true(total >= 100);
	assert_true(fabs(period * total / cpu - 1) <= 0.10);
	/* Equal CPU in each: each region about half of the samples. */
	assert_true(fabs(100.0 * shot / total - 100 * th / cpu) <= 10);
	assert_true(fabs(100.0 * sother / total - 100 * to / cpu) <= 10);
	free(bhot);
	free(bother);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(profil_over_the_text_finds_the_hot_function),
		cmocka_unit_test(sprofil_tvp_is_the_true_period),
		cmocka_unit_test(profil_scale_above_one_files_like_glibc),
	};

	return cmocka_run_group_tests(tests, calibrate, NULL);
}
