// SPDX-License-Identifier: GPL-2.0
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <sprofil/mapping.h>
#include "kmod_test.h"

int kt_open(void)
{
	int fd = open("/dev/sprofil", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "open /dev/sprofil: %s\n", strerror(errno));
		abort();
	}
	return fd;
}

int kt_start(int fd, const struct sprofil_region *r, unsigned int n,
	     unsigned int flags, uint64_t *period_ns)
{
	struct sprofil_start a = {
		.size = sizeof(a),
		.flags = flags,
		.regions = (uintptr_t)r,
		.nregions = n,
		.period_ns = period_ns ? *period_ns : 0,
	};

	if (ioctl(fd, SPROFIL_IOC_START, &a))
		return -errno;
	if (period_ns)
		*period_ns = a.period_ns;
	return 0;
}

int kt_stop(int fd)
{
	return ioctl(fd, SPROFIL_IOC_STOP) ? -errno : 0;
}

int kt_status(int fd, struct sprofil_status *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	return ioctl(fd, SPROFIL_IOC_STATUS, st) ? -errno : 0;
}

struct sprofil_region kt_region(void *buf, size_t bytes, uintptr_t offset,
				uint32_t scale)
{
	struct sprofil_region r = {
		.base = (uintptr_t)buf,
		.size = bytes,
		.offset = offset,
		.scale = scale,
	};

	return r;
}

struct kt_func kt_func_extent(void *fn)
{
	struct kt_func f = { 0, 0 };
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

/* An LCG step the compiler cannot fold or vectorise away. */
#define KT_SPIN(n, x)						\
	do {							\
		for (uint64_t i_ = 0; i_ < (n); i_++) {		\
			(x) = (x) * 6364136223846793005ULL +	\
			      1442695040888963407ULL;		\
			__asm__ volatile("" : "+r"(x));		\
		}						\
	} while (0)

__attribute__((noinline)) uint64_t kt_work_a(uint64_t n)
{
	uint64_t x = n;

	KT_SPIN(n, x);
	return x;
}

__attribute__((noinline)) uint64_t kt_work_b(uint64_t n)
{
	uint64_t x = n + 1;

	KT_SPIN(n, x);
	return x;
}

__attribute__((noinline)) uint64_t kt_work_c(uint64_t n)
{
	uint64_t x = n + 2;

	KT_SPIN(n, x);
	return x;
}

__attribute__((noinline)) uint64_t kt_work_d(uint64_t n)
{
	uint64_t x = n + 3;

	KT_SPIN(n, x);
	return x;
}

static double thread_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

uint64_t kt_calibrate(double seconds)
{
	uint64_t n = 1 << 20;
	double t0, t;

	for (;;) {
		t0 = thread_seconds();
		kt_work_a(n);
		t = thread_seconds() - t0;
		if (t > 0.05)
			return (uint64_t)(n * seconds / t) + 1;
		n *= 4;
	}
}

static double tv_seconds(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec / 1e6;
}

double kt_user_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return tv_seconds(ru.ru_utime);
}

double kt_cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void *kt_map(size_t bytes, int prot)
{
	void *p = mmap(NULL, bytes, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

uint64_t kt_sum(const void *buf, unsigned int flags, size_t first,
		size_t last)
{
	uint64_t sum = 0;

	for (size_t i = first; i < last; i++)
		sum += (flags & SPROFIL_UINT) ? ((const uint32_t *)buf)[i] :
						((const uint16_t *)buf)[i];
	return sum;
}

void kt_bucket_range(const struct sprofil_region *r, unsigned int flags,
		     uintptr_t start, size_t size, size_t *first,
		     size_t *last)
{
	uint32_t shift = spm_bucket_shift(flags);

	*first = spm_bucket_index(start - r->offset, shift, r->scale);
	*last = spm_bucket_index(start + size - 1 - r->offset, shift,
				 r->scale) + 1;
}

long kt_module_param(const char *name)
{
	char path[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/sprofil/parameters/%s",
		 name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}
