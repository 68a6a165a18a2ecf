// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Symbols of every load module, from their ELF files through libelf.
 *
 * Which symbols count, and how duplicates and gaps are settled, is GNU
 * gprof's rule (its core_sym_class over BFD's symbol classes), because
 * the flat profile must charge the same samples to the same names:
 * text symbols (global or static), weak non-object symbols of any
 * section, no debugging/absolute/common/ifunc symbols, and static names
 * only if every dot-group after the name is a number (".clone.N" and
 * ".constprop.N" allowed), so "foo.part.0" and "foo.cold" fall to the
 * symbol before them.  st_size is ignored, as GNU does: a symbol ends
 * where the next begins.  Multi-module profiles, which GNU cannot read,
 * keep the clones and honour st_size instead (sym_gaps.c).
 *
 * Only names and addresses are read here.  Files and lines come from
 * DWARF in source.c, when an output asks for them.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/read.h"

/* One opened ELF file per module (NULL when it could not be read). */
struct core_module {
	Elf *elf;
	int fd;
	unsigned char *image;	/* the vDSO's copy elf reads, or NULL */
	Elf *sym_elf;		/* where syms is: elf or its debug file */
	int dbg_fd;		/* the separate debug file's, or -1 */
	uint64_t text_lo, text_hi;	/* link-time .text */
	const unsigned char *text;	/* -c: the .text bytes */
	struct elf_symbols syms;	/* data NULL: no symbol table */
};

static char *why_text(const char *fmt, const char *arg)
{
	size_t n = strlen(fmt) + (arg ? strlen(arg) : 0) + 1;
	char *s = xmalloc(n);

	snprintf(s, n, fmt, arg ? arg : "");
	return s;
}

bool elf_build_id(Elf *elf, const unsigned char **id, size_t *len)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		while (d && (off = gelf_getnote(d, off, &nh, &name_off,
						&desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)d->d_buf + name_off, "GNU", 4)) {
				*id = (unsigned char *)d->d_buf + desc_off;
				*len = nh.n_descsz;
				return true;
			}
		}
	}
	return false;
}

/* True when section @sh's bytes lie in @elf's file (of *@file_size). */
static bool section_in_file(Elf *elf, const GElf_Shdr *sh, size_t *file_size)
{
	if (!elf_rawfile(elf, file_size))
		*file_size = 0;
	return sh->sh_type == SHT_NOBITS || sh->sh_type == SHT_NULL ||
	       (sh->sh_offset <= *file_size &&
		sh->sh_size <= *file_size - sh->sh_offset);
}

const char *elf_symbols_read(Elf *elf, Elf_Scn *scn, struct elf_symbols *out)
{
	static char why[160];
	size_t entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT), file_size;
	GElf_Shdr sh, strsh;
	Elf_Scn *strscn;
	Elf_Data *strs;

	memset(out, 0, sizeof(*out));
	if (!gelf_getshdr(scn, &sh) || !entsize)
		return elf_errmsg(-1);
	if (sh.sh_entsize != entsize) {
		snprintf(why, sizeof(why),
			 "corrupt symbol table: its entry size is %llu, not %zu",
			 (unsigned long long)sh.sh_entsize, entsize);
		return why;
	}
	if (!section_in_file(elf, &sh, &file_size)) {
		snprintf(why, sizeof(why),
			 "corrupt symbol table: %llu bytes at offset %llu, past the end of the file (%zu bytes)",
			 (unsigned long long)sh.sh_size,
			 (unsigned long long)sh.sh_offset, file_size);
		return why;
	}
	out->data = elf_getdata(scn, NULL);
	if (!out->data || out->data->d_size > sh.sh_size) {
		snprintf(why, sizeof(why), "corrupt symbol table: %s",
			 elf_errmsg(-1));
		out->data = NULL;
		return why;
	}
	strscn = elf_getscn(elf, sh.sh_link);
	strs = strscn && gelf_getshdr(strscn, &strsh) &&
	       strsh.sh_type == SHT_STRTAB ? elf_getdata(strscn, NULL) : NULL;
	if (!strs || !strs->d_buf) {
		snprintf(why, sizeof(why),
			 "corrupt symbol table: its string table (section %u) is missing or unreadable",
			 (unsigned int)sh.sh_link);
		out->data = NULL;
		return why;
	}
	out->count = out->data->d_size / entsize;
	out->strndx = sh.sh_link;
	out->str_end = (const char *)strs->d_buf + strs->d_size;
	return NULL;
}

/* Why no section of @elf may be trusted, or NULL when all lie in it. */
static const char *elf_sections_in_file(Elf *elf)
{
	static char why[160];
	Elf_Scn *scn = NULL;
	size_t file_size;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return elf_errmsg(-1);
		if (!section_in_file(elf, &sh, &file_size)) {
			snprintf(why, sizeof(why),
				 "section %zu (%llu bytes at offset %llu) extends past the end of the file (%zu bytes)",
				 elf_ndxscn(scn), (unsigned long long)sh.sh_size,
				 (unsigned long long)sh.sh_offset, file_size);
			return why;
		}
	}
	return NULL;
}

/* The .symtab or else the .dynsym section of @elf (NULL: neither). */
static Elf_Scn *symbol_section(Elf *elf, bool dynsym_too)
{
	Elf_Scn *scn = NULL, *dyn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			return scn;
		if (sh.sh_type == SHT_DYNSYM)
			dyn = scn;
	}
	return dynsym_too ? dyn : NULL;
}

/*
 * A stripped module's .symtab from its separate debug file (module @m
 * of a multi-module profile).  A debug file that cannot be read, or
 * whose headers lie, is passed over: the .dynsym still serves.
 */
static bool debug_symbols(struct profile *prof, const struct gprof_options *opt,
			  unsigned int m)
{
	struct core_module *cm = &prof->core[m];
	struct elf_symbols es;
	Elf_Scn *scn;
	char *path;
	Elf *elf;
	int fd;

	if (prof->modules[m].is_vdso)
		return false;
	path = debug_file_find(opt, prof->modules[m].path);
	if (!path)
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	if (elf && elf_kind(elf) == ELF_K_ELF && !elf_sections_in_file(elf) &&
	    (scn = symbol_section(elf, false)) &&
	    !elf_symbols_read(elf, scn, &es)) {
		cm->sym_elf = elf;
		cm->dbg_fd = fd;
		cm->syms = es;
		prof->modules[m].debug_path = path;
		return true;
	}
	fprintf(stderr, "%s: %s: debug file %s not used: %s\n", opt->whoami,
		prof->modules[m].path, path,
		elf ? "no readable symbol table" : strerror(errno));
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	free(path);
	return false;
}

/*
 * Checks module @m's sections and its symbol table against its file:
 * its .symtab, else (a stripped module of a multi-module profile) the
 * .symtab of its separate debug file, else its .dynsym.  A stripped
 * executable of a GNU report fails as GNU's does.  Returns NULL when
 * they hold, also when it has no symbol table.
 */
static const char *module_symbols(struct profile *prof,
				  const struct gprof_options *opt,
				  unsigned int m)
{
	bool multi = m != 0 || prof->multi_module;
	Elf_Scn *use = symbol_section(prof->core[m].elf, multi);
	const char *why = elf_sections_in_file(prof->core[m].elf);

	prof->core[m].sym_elf = prof->core[m].elf;
	if (why)
		return why;
	if (multi &&
	    (!use || symbol_section(prof->core[m].elf, false) != use) &&
	    debug_symbols(prof, opt, m))
		return NULL;
	if (!use)
		return NULL;
	return elf_symbols_read(prof->core[m].elf, use, &prof->core[m].syms);
}

/*
 * Opens module @m's ELF file.  Returns NULL with *why set (an
 * explanation without the file name) when it cannot be used.
 */
static const char *open_module(struct profile *prof, unsigned int m,
			       const char *path)
{
	struct core_module *cm = &prof->core[m];
	struct module *mod = &prof->modules[m];
	size_t shstrndx, i, nph, idlen;
	const unsigned char *id;
	Elf_Scn *scn = NULL;
	bool text = false;

	if (mod->is_vdso) {
		const char *why;

		cm->elf = vdso_open(mod, &cm->image, &why);
		if (!cm->elf)
			return why;
	} else {
		cm->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (cm->fd < 0)
			return strerror(errno);
		cm->elf = elf_begin(cm->fd, ELF_C_READ_MMAP, NULL);
	}
	if (!cm->elf || elf_kind(cm->elf) != ELF_K_ELF)
		return "not in executable format (not an ELF file)";
	if (elf_getshdrstrndx(cm->elf, &shstrndx))
		return elf_errmsg(-1);
	if (m == 0) {
		const char *ident = elf_getident(cm->elf, NULL);

		prof->gmon_ptr_size = gelf_getclass(cm->elf) == ELFCLASS32 ? 4 :
			8;
		prof->gmon_big_endian = ident && ident[EI_DATA] == ELFDATA2MSB;
	}
	while ((scn = elf_nextscn(cm->elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(cm->elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".text")) {
			cm->text_lo = sh.sh_addr;
			if (__builtin_add_overflow(sh.sh_addr, sh.sh_size,
						   &cm->text_hi))
				return "its .text section ends past 2^64 (corrupt section header)";
			text = true;
			break;
		}
	}
	if (!text)
		return "can't find .text section";
	if (!elf_getphdrnum(cm->elf, &nph)) {
		for (i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(cm->elf, i, &ph) ||
			    ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
				continue;
			if (!mod->exec_high || mod->exec_low >
			    MODULE_BASE(m) + ph.p_vaddr)
				mod->exec_low = MODULE_BASE(m) + ph.p_vaddr;
			if (mod->exec_high < MODULE_BASE(m) + ph.p_vaddr +
			    ph.p_memsz)
				mod->exec_high = MODULE_BASE(m) + ph.p_vaddr +
						 ph.p_memsz;
		}
	}
	if (mod->build_id_len && elf_build_id(cm->elf, &id, &idlen) &&
	    (idlen != mod->build_id_len ||
	     memcmp(id, mod->build_id, idlen)))
		return "its build-id differs from the profiled one (another build of it)";
	mod->text_low = MODULE_BASE(m) + cm->text_lo;
	mod->text_high = MODULE_BASE(m) + cm->text_hi;
	return NULL;
}

/* Closes what open_module() and module_symbols() opened. */
static void core_module_close(struct core_module *cm)
{
	if (cm->sym_elf && cm->sym_elf != cm->elf)
		elf_end(cm->sym_elf);
	if (cm->elf)
		elf_end(cm->elf);
	if (cm->fd >= 0)
		close(cm->fd);
	if (cm->dbg_fd >= 0)
		close(cm->dbg_fd);
	free(cm->image);
	memset(cm, 0, sizeof(*cm));
	cm->fd = cm->dbg_fd = -1;
}

int core_init(struct profile *prof, const struct gprof_options *opt,
	      const char *a_out)
{
	unsigned int m;

	elf_version(EV_CURRENT);
	modules_init(prof);
	if (opt->function_mapping_file &&
	    read_function_mappings(prof, opt->function_mapping_file))
		return -1;
	prof->core = xcalloc(prof->nmodules, sizeof(*prof->core));
	prof->ncore = prof->nmodules;
	for (m = 0; m < prof->nmodules; m++) {
		struct module *mod = &prof->modules[m];
		const char *why;

		prof->core[m].fd = prof->core[m].dbg_fd = -1;
		if (mod->why)	/* a pseudo module, with no file */
			continue;
		/* The vDSO has no file: the name the reports give it. */
		mod->is_vdso = m != 0 && module_is_vdso_name(mod->recorded);
		mod->path = xstrdup(m == 0 ? a_out :
				    mod->is_vdso ? "[vdso]" : mod->recorded);
		why = open_module(prof, m, mod->path);
		if (!why) {
			why = module_symbols(prof, opt, m);
			/* A file that lies about its sizes is not skipped. */
			if (why)
				return profile_error(prof, "%s: %s", mod->path,
						     why);
			mod->loaded = true;
			continue;
		}
		if (m == 0)
			return profile_error(prof, "%s: %s", a_out, why);
		mod->why = why_text("%s", why);
		core_module_close(&prof->core[m]);
	}
	return 0;
}

void core_reset(struct profile *prof)
{
	unsigned int m;

	for (m = 0; m < prof->ncore; m++)
		core_module_close(&prof->core[m]);
	free(prof->core);
	prof->core = NULL;
	prof->ncore = 0;
	sym_gaps_reset(prof);
	free(prof->symtab.base);
	prof->symtab.base = NULL;
	prof->symtab.len = prof->sym_cap = 0;
}

void symtab_adopt(struct profile *prof, struct sym *base, size_t len)
{
	prof->symtab.base = base;
	prof->symtab.len = prof->sym_cap = len;
}

uint64_t core_text_end(struct profile *prof, unsigned int m)
{
	if (m < prof->nmodules && prof->modules[m].loaded)
		return prof->modules[m].text_high;
	if (m < prof->nmodules && prof->modules[m].hist_high)
		return prof->modules[m].hist_high;
	return MODULE_BASE(m);
}

void core_get_text_space(struct profile *prof, const struct gprof_options *opt)
{
	unsigned int m;

	for (m = 0; m < prof->ncore; m++) {
		struct core_module *cm = &prof->core[m];
		Elf_Scn *scn = NULL;
		size_t shstrndx;

		if (!cm->elf || elf_getshdrstrndx(cm->elf, &shstrndx))
			continue;
		while ((scn = elf_nextscn(cm->elf, scn))) {
			GElf_Shdr sh;
			const char *name;
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh))
				continue;
			name = elf_strptr(cm->elf, shstrndx, sh.sh_name);
			if (!name || strcmp(name, ".text"))
				continue;
			d = elf_rawdata(scn, NULL);
			if (d && d->d_size == sh.sh_size)
				cm->text = d->d_buf;
			else
				fprintf(stderr, "%s: %s: cannot read .text: %s\n",
					opt->whoami, prof->modules[m].path,
					elf_errmsg(-1));
			break;
		}
	}
}

const unsigned char *core_text(struct profile *prof, uint64_t lo, uint64_t hi)
{
	unsigned int m = ADDR_MODULE(lo);
	struct core_module *cm;

	/* Modules named after core_init() (no module) have no file. */
	if (m >= prof->ncore || ADDR_MODULE(hi - 1) != m || hi < lo)
		return NULL;
	cm = &prof->core[m];
	if (!cm->text || ADDR_LINK(lo) < cm->text_lo ||
	    ADDR_LINK(hi) > cm->text_hi)
		return NULL;
	return cm->text + (ADDR_LINK(lo) - cm->text_lo);
}

/*
 * GNU's test of a static name: "$" never, "." only before numbers
 * (".clone.N", ".constprop.N").  GNU's scan steps past the end of a name
 * that ends in such a dot-group and goes on through the next name of the
 * string table, so a clone is dropped when that next name fails the
 * test (a file name such as "cacheinfo.c", say).  The reports must keep
 * the same symbols, so the same bytes are scanned here, up to @limit.
 */
static bool static_name_ok(const char *name, const char *limit)
{
	static const char clone[] = ".clone.", constprop[] = ".constprop.";

	if (!*name)
		return false;
	for (; name < limit && *name; name++) {
		if (*name == '$')
			return false;
		while (*name == '.') {
			bool digit = false;
			size_t left = strnlen(name, limit - name);

			if (left > strlen(clone) &&
			    !strncmp(name, clone, strlen(clone)))
				name += strlen(clone) - 1;
			else if (left > strlen(constprop) &&
				 !strncmp(name, constprop, strlen(constprop)))
				name += strlen(constprop) - 1;
			for (name++; name < limit && *name; name++) {
				if (digit && *name == '.')
					break;
				else if (isdigit((unsigned char)*name))
					digit = true;
				else
					return false;
			}
			if (name >= limit)
				return true;
		}
	}
	return true;
}

/*
 * BFD's class of an ELF symbol as GNU gprof uses it: 'T' for a global
 * (or weak non-object) symbol, 't' for a local text symbol, 0 when it
 * does not count.  @func tells whether BFD would flag it BSF_FUNCTION.
 */
static int sym_class(struct profile *prof, const struct gprof_options *opt,
		     Elf *elf,
		     const GElf_Sym *s, const char *name,
		     const char *limit, bool *func)
{
	int bind = GELF_ST_BIND(s->st_info), type = GELF_ST_TYPE(s->st_info);
	bool global = bind == STB_GLOBAL || bind == STB_WEAK ||
		      bind == STB_GNU_UNIQUE;
	GElf_Shdr sh;
	Elf_Scn *scn;

	*func = type == STT_FUNC || type == STT_GNU_IFUNC;
	if (type == STT_SECTION || type == STT_FILE)
		return 0;	/* BSF_DEBUGGING */
	if (s->st_shndx == SHN_UNDEF || s->st_shndx == SHN_COMMON)
		return 0;
	if (type == STT_GNU_IFUNC)
		return 0;
	if (bind == STB_WEAK)
		return (type == STT_OBJECT || type == STT_COMMON) ? 0 : 'T';
	if (bind == STB_GNU_UNIQUE || (!global && bind != STB_LOCAL))
		return 0;
	if (s->st_shndx == SHN_ABS || s->st_shndx >= SHN_LORESERVE)
		return 0;
	if (opt->ignore_static_funcs && bind == STB_LOCAL)
		return 0;
	scn = elf_getscn(elf, s->st_shndx);
	if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR))
		return 0;
	if (global)
		return 'T';
	/*
	 * GNU drops clones ("foo.part.0", "foo.cold") so that they fall to
	 * the symbol before them; a multi-module report, which honours
	 * st_size (sym_gaps.c), would show them as unnamed gaps: there
	 * they keep their names.
	 */
	if (!name || (!prof->multi_module && !static_name_ok(name, limit)))
		return 0;
	if (!strncmp(name, "__gnu_compiled", 14) ||
	    !strncmp(name, "___gnu_compiled", 15))
		return 0;
	if (opt->ignore_non_functions && !*func)
		return 0;
	return 't';
}

static struct sym *sym_new(struct profile *prof)
{
	struct sym *s;

	if (prof->symtab.len == prof->sym_cap) {
		prof->sym_cap = prof->sym_cap ? prof->sym_cap * 2 : 4096;
		prof->symtab.base =
			xreallocarray(prof->symtab.base, prof->sym_cap,
				      sizeof(*s));
	}
	s = &prof->symtab.base[prof->symtab.len++];
	memset(s, 0, sizeof(*s));
	return s;
}

/*
 * The bytes symbol @sym covers, for sym_gaps.c: its st_size, or where
 * it has none (_init, hand-written assembly), up to the end of its
 * section, so that _init does not take the .plt after it.  0: unknown.
 */
static uint64_t sym_size(Elf *elf, const GElf_Sym *sym)
{
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (sym->st_size)
		return sym->st_size;
	scn = elf_getscn(elf, sym->st_shndx);
	if (!scn || !gelf_getshdr(scn, &sh) || sym->st_value < sh.sh_addr ||
	    sym->st_value - sh.sh_addr >= sh.sh_size)
		return 0;
	return sh.sh_size - (sym->st_value - sh.sh_addr);
}

/* Reads module @m's symbols. */
static size_t module_syms(struct profile *prof, const struct gprof_options *opt,
			  unsigned int m)
{
	const struct elf_symbols *es = &prof->core[m].syms;
	Elf *elf = prof->core[m].sym_elf;
	size_t before = prof->symtab.len, i;

	for (i = 1; es->data && i < es->count; i++) {
		const struct function_map *map;
		GElf_Sym sym;
		const char *name;
		struct sym *s;
		bool func;
		int cls;

		if (!gelf_getsym(es->data, i, &sym))
			continue;
		/* Past its window it would be another module's address. */
		if ((m || prof->multi_module) &&
		    sym.st_value > ADDR_LINK(~0ull))
			continue;
		name = elf_strptr(elf, es->strndx, sym.st_name);
		if (!name)
			continue;
		cls = sym_class(prof, opt, elf, &sym, name, es->str_end, &func);
		if (!cls)
			continue;
		/* -R: a mapped file is one symbol, at its first function. */
		map = prof->symbol_map_count ? symbol_map_find(prof,
							       name) : NULL;
		if (map && !map->is_first)
			continue;
		s = sym_new(prof);
		s->addr = MODULE_BASE(m) + sym.st_value;
		s->name = map ? map->file_name : name;
		s->module = m;
		s->is_func = func;
		s->is_bb_head = true;
		s->is_static = cls == 't';
		s->size = prof->multi_module ? sym_size(elf, &sym) : 0;
		s->size_known = sym.st_size != 0;
	}
	return prof->symtab.len - before;
}

/* A module whose file could not be read is one symbol: "<name>". */
static void module_placeholder(struct profile *prof, unsigned int m)
{
	struct module *mod = &prof->modules[m];
	const char *base = strrchr(mod->recorded, '/');
	size_t n;
	char *name;
	struct sym *s;

	if (!mod->hist_high)
		return;
	base = base ? base + 1 : mod->recorded;
	n = strlen(base) + 3;
	name = xmalloc(n);
	/* A vDSO not read (another kernel's) is still named as one. */
	snprintf(name, n, mod->is_vdso ? "[vdso]" : "<%s>", base);
	free(mod->label);
	mod->label = name;
	s = sym_new(prof);
	s->addr = mod->hist_low;
	s->end_addr = mod->hist_high - 1;
	s->name = name;
	s->module = m;
	s->is_func = true;
	s->is_bb_head = true;
}

int core_create_function_syms(struct profile *prof,
			      const struct gprof_options *opt)
{
	unsigned int m;
	size_t total = prof->ncore;	/* one placeholder each at most */

	/*
	 * One allocation of the right size: no copies while growing.  The
	 * counts were checked against the files (elf_symbols_read()).
	 */
	for (m = 0; m < prof->ncore; m++)
		if (prof->core[m].elf &&
		    __builtin_add_overflow(total, prof->core[m].syms.count,
					   &total))
			fatal("too many symbols in the load modules");
	prof->symtab.base = xreallocarray(prof->symtab.base, total,
					  sizeof(*prof->symtab.base));
	prof->sym_cap = total;

	for (m = 0; m < prof->ncore; m++) {
		/* The profiler's time is overhead, in no function. */
		if (module_is_profiler(prof, m, prof->core[m].sym_elf,
				       &prof->core[m].syms)) {
			prof->modules[m].overhead = true;
			continue;
		}
		if (!prof->core[m].elf) {
			module_placeholder(prof, m);
			continue;
		}
		if (module_syms(prof, opt, m))
			continue;
		/* In a multi-module profile it is one of the modules. */
		if (m == 0 && !prof->multi_module)
			return profile_error(prof, "%s: has no symbols",
					     opt->a_out_name);
		prof->modules[m].why = xstrdup("has no symbols");
		prof->modules[m].loaded = false;
		module_placeholder(prof, m);
	}
	symtab_finalize(prof, &prof->symtab);
	/* GNU ignores st_size; where no GNU report is at stake, not here. */
	if (prof->multi_module)
		symtab_add_gaps(prof);
	return 0;
}

int core_create_syms_from(struct profile *prof, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[4096], name[4096], type;
	unsigned long long addr;

	if (!f)
		return profile_error(prof, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		struct sym *s;

		if (sscanf(line, "%llx %c %4095s", &addr, &type, name) != 3)
			continue;
		if (type != 't' && type != 'T')
			continue;
		s = sym_new(prof);
		s->addr = addr;
		s->name = xstrdup(name);
		s->is_func = true;
		s->is_bb_head = true;
		s->is_static = type == 't';
	}
	fclose(f);
	if (!prof->symtab.len)
		return profile_error(prof, "%s: has no symbols", path);
	symtab_finalize(prof, &prof->symtab);
	return 0;
}

/*
 * The sort key of a symbol: GNU's order for symbols at one address puts
 * a function before a line symbol and a global before a static, then
 * keeps the order read (glibc's qsort, a merge sort, is stable there).
 * Keys are sorted instead of the (large) symbols, which are then moved
 * once each into place.
 */
struct sort_key {
	uint64_t addr;
	uint32_t rank;		/* !is_func, is_static */
	uint32_t index;
};

static int cmp_key(const void *lp, const void *rp)
{
	const struct sort_key *l = lp, *r = rp;

	if (l->addr != r->addr)
		return l->addr < r->addr ? -1 : 1;
	if (l->rank != r->rank)
		return l->rank < r->rank ? -1 : 1;
	return l->index < r->index ? -1 : l->index > r->index;
}

/* Puts t->base in address order, moving each symbol once. */
static void sort_by_address(struct sym_table *t)
{
	struct sort_key *k = xmallocarray(t->len, sizeof(*k));
	bool sorted = true;
	size_t i;

	for (i = 0; i < t->len; i++) {
		const struct sym *s = &t->base[i];

		k[i].addr = s->addr;
		k[i].rank = (!s->is_func) << 1 | s->is_static;
		k[i].index = (uint32_t)i;
		if (i && cmp_key(&k[i - 1], &k[i]) > 0)
			sorted = false;
	}
	if (!sorted) {
		qsort(k, t->len, sizeof(*k), cmp_key);
		/* Follow each cycle of the permutation with one spare. */
		for (i = 0; i < t->len; i++) {
			struct sym spare;
			size_t dst = i, src;

			if (k[i].index == i || k[i].index == UINT32_MAX)
				continue;
			spare = t->base[i];
			for (;;) {
				src = k[dst].index;
				k[dst].index = UINT32_MAX;
				if (src == i) {
					t->base[dst] = spare;
					break;
				}
				t->base[dst] = t->base[src];
				dst = src;
			}
		}
	}
	free(k);
}

/* Which of two symbols at one address GNU keeps: true for @src. */
static bool prefer(const struct sym *src, const struct sym *dst)
{
	if (!src->is_static && dst->is_static)
		return true;
	if (src->is_static != dst->is_static)
		return false;
	if (src->is_func && !dst->is_func)
		return true;
	if (src->is_func != dst->is_func)
		return false;
	if (src->name[0] != '_' && dst->name[0] == '_')
		return true;
	return src->name[0] == '_' && dst->name[0] == '_' &&
	       src->name[1] != '_' && dst->name[1] == '_';
}

/*
 * Aliases at one address (@s keeps one of @a, @b): the code is as long
 * as the longest st_size says; a size taken from the section only
 * counts when no alias has an st_size.
 */
static void sym_size_merge(struct sym *s, const struct sym *a,
			   const struct sym *b)
{
	if (a->size_known != b->size_known) {
		const struct sym *known = a->size_known ? a : b;

		s->size = known->size;
		s->size_known = true;
	} else {
		s->size = a->size > b->size ? a->size : b->size;
	}
}

void symtab_finalize(struct profile *prof, struct sym_table *t)
{
	struct sym *src, *dst, *end;
	uint64_t prev;

	if (!t->len)
		return;
	if (t->len >= UINT32_MAX)
		fatal("too many symbols (%zu)", t->len);
	sort_by_address(t);
	prev = 0;
	end = t->base + t->len;
	for (src = dst = t->base; src < end; src++) {
		/* A duplicate of the last symbol kept (none kept: none). */
		if (dst > t->base && src->addr == prev) {
			struct sym kept = dst[-1];

			if (prefer(src, &dst[-1]))
				dst[-1] = *src;
			sym_size_merge(&dst[-1], src, &kept);
			continue;
		}
		if (dst > t->base && !dst[-1].end_addr)
			dst[-1].end_addr =
				dst[-1].module == src->module ?
				src->addr - 1 :
				core_text_end(prof, dst[-1].module) - 1;
		/* Keep it only if its range is not empty. */
		if (!src->end_addr || src->addr <= src->end_addr) {
			if (dst != src)
				*dst = *src;
			dst++;
			prev = src->addr;
		}
	}
	/*
	 * Every range can be empty: symbols past their module's .text,
	 * finalized once (ends set) and again among -l's line symbols.
	 */
	if (dst > t->base && !dst[-1].end_addr)
		dst[-1].end_addr = core_text_end(prof, dst[-1].module) - 1;
	t->len = dst - t->base;
}

/* The .symtab of @elf, checked against the file; false if none. */
bool elf_symtab(Elf *elf, struct elf_symbols *es)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return !elf_symbols_read(elf, scn, es);
	return false;
}
