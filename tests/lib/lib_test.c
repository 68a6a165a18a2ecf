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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <sprofil/mapping.h>
#include "lib_test.h"

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
	struct wl_func f = wl_func_extent(fn);
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

int lt_run_self(const char *role, const char *const *env)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		for (; *env; env++) {
			const char *eq = strchr(*env, '=');

			if (eq)
				putenv(strdup(*env));
			else
				unsetenv(*env);
		}
		dup2(2, 1);
		execl("/proc/self/exe", program_invocation_short_name, role,
		      (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

struct ct_span lt_span_of(void *fn)
{
	struct wl_func f = wl_func_extent(fn);

	return (struct ct_span){ f.start, f.start + f.size };
}

struct lt_text {
	uintptr_t addr;
	struct ct_span span;
};

static int lt_find_text(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct lt_text *t = arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (t->addr >= start && t->addr < start + ph->p_memsz) {
			t->span.start = start;
			t->span.end = start + ph->p_memsz;
			return 1;
		}
	}
	return 0;
}

struct ct_span lt_text_of(void *fn)
{
	struct lt_text t = { .addr = (uintptr_t)fn };

	if (!dl_iterate_phdr(lt_find_text, &t))
		abort();
	return t.span;
}
