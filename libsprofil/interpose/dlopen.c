// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dlopen() and dlclose() interposed, so that the -pg runtime (gmon.c)
 * profiles a module from the moment it is loaded and keeps what it
 * counted in a module that is unloaded: the histogram buffers are ours,
 * and the writer is told the module's name, bias and build-id before its
 * headers go away (gmon.c snapshots them when it first sees the module).
 *
 * The real functions are found with RTLD_NEXT; a relative name or $ORIGIN
 * in it is thus resolved as glibc resolves it for a dlopen() made from
 * libsprofil itself.  A static program (libc_next.h) loads through
 * dlmopen() in the base namespace, which is where its dlopen() loads, and
 * closes through __dlclose, whose member static dlopen's code pulls.
 */
#include <dlfcn.h>
#include <stddef.h>
#include "interpose/libc_next.h"
#include "pg/gmon.h"

extern int __dlclose(void *handle) __attribute__((weak));

static void *sp_static_dlopen(const char *file, int mode)
{
	return dlmopen(LM_ID_BASE, file, mode);
}

typedef void *(*dlopen_fn)(const char *, int);
typedef int (*dlclose_fn)(void *);

void *dlopen(const char *file, int mode)
{
	static dlopen_fn real;
	void *h;

	if (!real)
		real = (dlopen_fn)sp_libc_next("dlopen", sp_static_dlopen);
	if (!real)
		return NULL;
	h = real(file, mode);
	if (h)
		sp_gmon_modules_changed();
	return h;
}

int dlclose(void *handle)
{
	static dlclose_fn real;
	int ret;

	if (!real)
		real = (dlclose_fn)sp_libc_next("dlclose", __dlclose);
	if (!real)
		return -1;
	ret = real(handle);
	/* Only now can we tell whether the module really went away. */
	if (!ret)
		sp_gmon_modules_changed();
	return ret;
}
