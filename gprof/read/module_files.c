// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Which file stands for a load module of a multi-module profile, beyond
 * the path the loader used (symtab.c opens that one):
 *
 *  - the vDSO has no file: the kernel maps it into every process.  Ours
 *    is read from memory (getauxval(AT_SYSINFO_EHDR)) and used when its
 *    GNU build-id is the profiled one, i.e. the profile was taken on
 *    this kernel;
 *  - a stripped module's .symtab lives in a separate debug file, found
 *    by libdwfl as gdb finds it: DIR/.build-id/xx/rest.debug, then its
 *    .gnu_debuglink beside the module, in .debug/ and under DIR;
 *  - libsprofil itself, the profiler, whose samples are overhead and not
 *    the program's (docs/gprof.md, "Profiler overhead").
 */
#include <elfutils/libdwfl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "read/read.h"

static const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

const char *module_basename(const struct module *mod)
{
	if (mod->is_vdso)
		return "[vdso]";
	return basename_of(mod->path ? mod->path : mod->recorded);
}

bool module_is_vdso_name(const char *recorded)
{
	const char *base = basename_of(recorded);

	/* The names the loader gives it (x86-64, i386) and perf's. */
	return !strcmp(base, "linux-vdso.so.1") ||
	       !strcmp(base, "linux-gate.so.1") || !strcmp(base, "[vdso]");
}

/*
 * The bytes of this process's vDSO image: its ELF header, its program
 * headers' extent and its section headers (which end the image).  NULL
 * when there is none or it does not look like ELF.
 */
static const unsigned char *own_vdso(size_t *size)
{
	const unsigned char *base =
		(const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)base;
	const ElfW(Phdr) *ph;
	size_t end;
	unsigned int i;

	if (!base || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_phentsize != sizeof(*ph))
		return NULL;
	end = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	ph = (const ElfW(Phdr) *)(base + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD &&
		    ph[i].p_offset + ph[i].p_filesz > end)
			end = ph[i].p_offset + ph[i].p_filesz;
	*size = end;
	return base;
}

Elf *vdso_open(const struct module *mod, unsigned char **image,
	       const char **why)
{
	const unsigned char *vdso, *id;
	size_t size, idlen;
	Elf *elf;

	*image = NULL;
	vdso = own_vdso(&size);
	if (!vdso) {
		*why = "this system has no vDSO to read it from";
		return NULL;
	}
	/* libelf may write to the image it reads: give it a copy. */
	*image = xmalloc(size);
	memcpy(*image, vdso, size);
	elf = elf_memory((char *)*image, size);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		*why = "this system's vDSO is not ELF";
	} else if (!mod->build_id_len || !elf_build_id(elf, &id, &idlen) ||
		   idlen != mod->build_id_len ||
		   memcmp(id, mod->build_id, idlen)) {
		/* Another kernel's vDSO: its code is not this one. */
		*why = "from another kernel (its build-id is not this kernel's vDSO's)";
	} else {
		return elf;
	}
	if (elf)
		elf_end(elf);
	free(*image);
	*image = NULL;
	return NULL;
}

/*
 * libdwfl's search path, gdb's: the module's directory, its .debug/,
 * then the debug root (build-id, then debuglink under the module's
 * directory).  "+": a .gnu_debuglink's CRC must match, as by default.
 */
static char *debuginfo_path;

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

Dwfl *debug_dwfl_begin(const struct gprof_options *opt)
{
	size_t n;

	if (!debuginfo_path) {
		n = strlen(opt->debug_file_directory) + sizeof("+:.debug:");
		debuginfo_path = xmalloc(n);
		snprintf(debuginfo_path, n, "+:.debug:%s",
			 opt->debug_file_directory);
	}
	/*
	 * bfd never asks a debuginfod server; libdwfl would, and then find
	 * lines GNU does not (and wait on the network).
	 */
	unsetenv("DEBUGINFOD_URLS");
	return dwfl_begin(&dwfl_callbacks);
}

char *debug_file_find(const struct gprof_options *opt, const char *path)
{
	const char *main_file = NULL, *debug = NULL;
	char *found = NULL;
	Dwfl_Module *dm;
	Dwfl *dwfl = debug_dwfl_begin(opt);

	if (!dwfl)
		return NULL;
	dm = dwfl_report_offline(dwfl, basename_of(path), path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	/* Looking up the .symtab searches the debug file when it lacks it. */
	if (dm && dwfl_module_getsymtab(dm) > 0) {
		dwfl_module_info(dm, NULL, NULL, NULL, NULL, NULL,
				 &main_file, &debug);
		if (debug && (!main_file || strcmp(debug, main_file)))
			found = xstrdup(debug);
	}
	dwfl_end(dwfl);
	return found;
}

/* libsprofil's own API: no other library defines it. */
#define PROFILER_MARKER "sprofil_info"

bool module_is_profiler(struct profile *prof, unsigned int m, Elf *elf,
			const struct elf_symbols *es)
{
	const struct module *mod = &prof->modules[m];
	size_t i;

	/* A program linked with libsprofil.a has it inside: its code. */
	if (mod->is_main || mod->absolute)
		return false;
	if (!strncmp(basename_of(mod->recorded), "libsprofil.so", 13))
		return true;
	for (i = 1; elf && es->data && i < es->count; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(es->data, i, &sym) ||
		    sym.st_shndx == SHN_UNDEF ||
		    GELF_ST_BIND(sym.st_info) == STB_LOCAL)
			continue;
		name = elf_strptr(elf, es->strndx, sym.st_name);
		if (name && !strcmp(name, PROFILER_MARKER))
			return true;
	}
	return false;
}
