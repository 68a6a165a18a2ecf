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
#include "kt_callers.h"

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
	return kt_start_callers(fd, r, n, flags, period_ns, NULL);
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

void kt_bucket_range(const struct sprofil_region *r, unsigned int flags,
		     uintptr_t start, size_t size, size_t *first,
		     size_t *last)
{
	uint32_t shift = spm_bucket_shift(flags);

	*first = spm_bucket_index(start - r->offset, shift, r->scale);
	*last = spm_bucket_index(start + size - 1 - r->offset, shift,
				 r->scale) + 1;
}

long kt_read_long(const char *path)
{
	long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

int kt_write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), rc = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		rc = -errno;
	close(fd);
	return rc;
}

long kt_module_param(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/sprofil/parameters/%s",
		 name);
	return kt_read_long(path);
}

int kt_module_param_set(const char *name, const char *value)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/sprofil/parameters/%s",
		 name);
	return kt_write_file(path, value);
}
