/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a module's program headers say, for every place that names a
 * module in a profile: the loaded modules of the -pg runtime (gmon.c),
 * the writer's module lookup (gmon_modules.c) and another process's
 * modules read from their files (api/outside_maps.c).
 */
#ifndef LIBSPROFIL_ELF_HEADERS_H
#define LIBSPROFIL_ELF_HEADERS_H

#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

/*
 * The GNU build-id in the bytes @notes (@len) of one PT_NOTE segment
 * whose p_align is @p_align, *@id_len its length; NULL if none.  Notes
 * are 4-aligned, except in 8-aligned note segments.
 */
static inline const void *sp_note_build_id(const void *notes, size_t len,
					   uint64_t p_align, size_t *id_len)
{
	const size_t align = p_align == 8 ? 8 : 4;
	const char *p = notes, *end = p + len;

	while ((size_t)(end - p) >= sizeof(ElfW(Nhdr))) {
		const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
		size_t name = (n->n_namesz + align - 1) & ~(align - 1);
		size_t desc = (n->n_descsz + align - 1) & ~(align - 1);

		p += sizeof(*n);
		if (name > (size_t)(end - p) || desc > (size_t)(end - p - name))
			return NULL;
		if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
		    !memcmp(p, "GNU", 4)) {
			*id_len = n->n_descsz;
			return p + name;
		}
		p += name + desc;
	}
	return NULL;
}

/*
 * The link-time span of all of @n program headers' PT_LOADs [*lo, *hi)
 * and of the executable ones [*xlo, *xhi); *xlo >= *xhi when no PT_LOAD
 * is executable.
 */
static inline void sp_load_spans(const ElfW(Phdr) *ph, size_t n,
				 uintptr_t *lo, uintptr_t *hi,
				 uintptr_t *xlo, uintptr_t *xhi)
{
	*lo = *xlo = UINTPTR_MAX;
	*hi = *xhi = 0;
	for (size_t i = 0; i < n; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (ph[i].p_vaddr < *lo)
			*lo = ph[i].p_vaddr;
		if (ph[i].p_vaddr + ph[i].p_memsz > *hi)
			*hi = ph[i].p_vaddr + ph[i].p_memsz;
		if (!(ph[i].p_flags & PF_X))
			continue;
		if (ph[i].p_vaddr < *xlo)
			*xlo = ph[i].p_vaddr;
		if (ph[i].p_vaddr + ph[i].p_memsz > *xhi)
			*xhi = ph[i].p_vaddr + ph[i].p_memsz;
	}
}

#endif /* LIBSPROFIL_ELF_HEADERS_H */
