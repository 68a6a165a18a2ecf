/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The C library's own function behind one of our wrappers
 * (docs/backends.md, "Static programs").
 *
 * In a dynamic program it is the next definition after ours:
 * dlsym(RTLD_NEXT), a sanitizer's wrapper or libc's.  A program linked
 * statically with libsprofil.a has no dynamic loader and dlsym finds
 * nothing; there the wrapper calls glibc's internal name for the same
 * function (__pthread_create, __execvpe, __dlclose...), which libc.a
 * defines in the member that defines the public name weakly, so that our
 * strong wrapper wins the link.  Those names are referenced weakly, since
 * libc.so does not export them, and SP_LIBC_ANCHOR() makes a static link
 * pull their member: a strong reference to a public function that libc.so
 * exports and whose libc.a member calls the internal one.  A dynamic link
 * resolves the anchor to libc.so and never calls it.
 */
#ifndef SPROFIL_LIBC_NEXT_H
#define SPROFIL_LIBC_NEXT_H

#include <dlfcn.h>

/* The definition after ours of @name, or @fallback without a loader. */
static inline void *sp_libc_next(const char *name, void *fallback)
{
	void *fn = dlsym(RTLD_NEXT, name);

	return fn ? fn : fallback;
}

/* A static link pulls the libc.a member that defines public @fn. */
#define SP_LIBC_ANCHOR(fn) \
	__attribute__((used)) static const void *const sp_anchor_##fn = \
		(const void *)&fn

#endif
