// SPDX-License-Identifier: GPL-2.0
#include <dlfcn.h>
#include <link.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/sprofil.h>
#include "workload.h"

struct wl_func wl_func_extent(void *fn)
{
	struct wl_func f = { 0, 0 };
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
#define WL_SPIN(n, x)						\
	do {							\
		for (uint64_t i_ = 0; i_ < (n); i_++) {		\
			(x) = (x) * 6364136223846793005ULL +	\
			      1442695040888963407ULL;		\
			__asm__ volatile("" : "+r"(x));		\
		}						\
	} while (0)

__attribute__((noinline)) uint64_t wl_work_a(uint64_t n)
{
	uint64_t x = n;

	WL_SPIN(n, x);
	return x;
}

__attribute__((noinline)) uint64_t wl_work_b(uint64_t n)
{
	uint64_t x = n + 1;

	WL_SPIN(n, x);
	return x;
}

__attribute__((noinline)) uint64_t wl_work_c(uint64_t n)
{
	uint64_t x = n + 2;

	WL_SPIN(n, x);
	return x;
}

__attribute__((noinline)) uint64_t wl_work_d(uint64_t n)
{
	uint64_t x = n + 3;

	WL_SPIN(n, x);
	return x;
}

static double clock_seconds(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double wl_thread_seconds(void)
{
	return clock_seconds(CLOCK_THREAD_CPUTIME_ID);
}

double wl_cpu_seconds(void)
{
	return clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
}

double wl_rate(void (*run)(uint64_t n))
{
	uint64_t n = 1 << 18;
	double t0, t;

	for (;;) {
		t0 = wl_thread_seconds();
		run(n);
		t = wl_thread_seconds() - t0;
		if (t > 0.05)
			return n / t;
		n *= 4;
	}
}

static void work_a(uint64_t n)
{
	wl_work_a(n);
}

uint64_t wl_calibrate(double seconds)
{
	return (uint64_t)(wl_rate(work_a) * seconds) + 1;
}

int wl_tcg_short_threads_accounted(double ratio)
{
	return ratio >= 0.5 && ratio <= 1.6;
}

double wl_spin_cpu(uint64_t (*fn)(uint64_t), uint64_t chunk, double seconds)
{
	double t0 = wl_thread_seconds(), t;

	do {
		fn(chunk);
		t = wl_thread_seconds() - t0;
	} while (t < seconds);
	return t;
}

void *wl_map(size_t bytes, int prot)
{
	void *p = mmap(NULL, bytes, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

uint64_t wl_sum(const void *buf, unsigned int flags, size_t first,
		size_t last)
{
	uint64_t sum = 0;

	for (size_t i = first; i < last; i++)
		sum += (flags & SPROFIL_UINT) ? ((const uint32_t *)buf)[i] :
						((const uint16_t *)buf)[i];
	return sum;
}

static char wl_tmpdir[PATH_MAX];
static char wl_oldcwd[PATH_MAX];

int wl_enter_tmpdir(const char *name)
{
	if (!getcwd(wl_oldcwd, sizeof(wl_oldcwd)))
		return -1;
	snprintf(wl_tmpdir, sizeof(wl_tmpdir), "/tmp/%s.XXXXXX", name);
	if (!mkdtemp(wl_tmpdir) || chdir(wl_tmpdir))
		return -1;
	return 0;
}

int wl_leave_tmpdir(void)
{
	char cmd[PATH_MAX + 16];

	if (chdir(wl_oldcwd))
		return -1;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", wl_tmpdir);
	return system(cmd) ? -1 : 0;
}
