// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -l: one symbol per run of bytes with the same source line, as GNU's
 * core_create_line_syms makes them through bfd.  The function of an
 * address is the innermost subprogram or inlined subroutine covering it
 * (the shortest range), named by its linkage name, else in C-like
 * languages by its DW_AT_name, else by the ELF symbol at its entry, else
 * by its DW_AT_name; where no DWARF function covers it, by the nearest
 * ELF symbol below.  The lines come from lines.c's tables.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "read/dwarf_lines.h"
#include "read/read.h"

/* An ELF symbol bfd's function search can return. */
struct esym {
	uint64_t addr;
	uint64_t size;		/* st_size, 1 when 0, as bfd takes it */
	const char *name;
	bool func;		/* STT_FUNC or STT_GNU_IFUNC */
	size_t order;		/* position in .symtab */
};

/* A function of the DWARF: subprogram or inlined subroutine range. */
struct dfunc {
	uint64_t lo, hi;	/* this range, [lo, hi) */
	uint64_t entry;		/* the first range's lo: bfd's arange.low */
	const char *name;	/* NULL: named by the nearest ELF symbol */
	size_t order;		/* DIE order, for bfd's tie-break */
};

struct line_ctx {
	struct dmod *d;
	unsigned int module;
	uint64_t text_lo, text_hi;	/* .text, link-time */
	size_t text_shndx;
	struct esym *esyms;
	size_t nesyms;
	struct dfunc *funcs;
	size_t nfuncs, fcap;
};

static int cmp_esym(const void *a, const void *b)
{
	const struct esym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Reads .text's bounds and its function-like ELF symbols. */
static bool line_ctx_elf(struct line_ctx *c)
{
	Dwarf_Addr bias;
	Elf *elf;
	Elf_Scn *scn = NULL;
	struct elf_symbols es = { 0 };
	size_t shstrndx, cap = 0, i;
	bool have_text = false;

	if (!c->d->mod)
		return false;
	elf = dwfl_module_getelf(c->d->mod, &bias);
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!have_text && name && !strcmp(name, ".text")) {
			c->text_lo = sh.sh_addr;
			c->text_hi = sh.sh_addr + sh.sh_size;
			c->text_shndx = elf_ndxscn(scn);
			have_text = true;
		}
	}
	if (!have_text)
		return false;
	if (!elf_symtab(elf, &es))
		es.count = 0;
	for (i = 1; i < es.count; i++) {
		GElf_Sym st;
		int type;
		const char *name;

		if (!gelf_getsym(es.data, i, &st) ||
		    st.st_shndx != c->text_shndx)
			continue;
		type = GELF_ST_TYPE(st.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC &&
		    type != STT_NOTYPE)
			continue;
		/* bfd skips annobin's hidden local notype markers. */
		if (type == STT_NOTYPE && st.st_size == 0 &&
		    GELF_ST_BIND(st.st_info) == STB_LOCAL &&
		    GELF_ST_VISIBILITY(st.st_other) == STV_HIDDEN)
			continue;
		name = elf_strptr(elf, es.strndx, st.st_name);
		if (!name)
			continue;
		if (c->nesyms == cap) {
			cap = cap ? 2 * cap : 1024;
			c->esyms = xrealloc(c->esyms, cap * sizeof(*c->esyms));
		}
		c->esyms[c->nesyms++] = (struct esym){
			.addr = st.st_value,
			.size = st.st_size ? st.st_size : 1,
			.name = name,
			.func = type != STT_NOTYPE,
			.order = c->nesyms,
		};
	}
	if (c->nesyms)
		qsort(c->esyms, c->nesyms, sizeof(*c->esyms), cmp_esym);
	return true;
}

/*
 * bfd's _bfd_elf_find_function for @addr: the nearest symbol at or below
 * it; of several at that address, in .symtab order, one covering @addr
 * beats one that does not (else the larger), a function beats a notype,
 * and then the smaller wins.  NULL when there is none.
 */
static const struct esym *elf_find_function(const struct line_ctx *c,
					    uint64_t addr)
{
	size_t lo = 0, hi = c->nesyms, first, i;
	const struct esym *best = NULL, *e;
	uint64_t at;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->esyms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	at = c->esyms[lo - 1].addr;
	for (first = lo - 1; first && c->esyms[first - 1].addr == at; first--)
		;
	/* The group is sorted by .symtab order already. */
	for (i = first; i < lo; i++) {
		e = &c->esyms[i];
		if (!best) {
			best = e;
		} else if (best->addr + best->size <= addr) {
			if (e->size > best->size)
				best = e;
		} else if (e->addr + e->size <= addr) {
			continue;
		} else if (e->func != best->func) {
			if (e->func)
				best = e;
		} else if (e->size < best->size) {
			best = e;
		}
	}
	return best;
}

/* bfd's non_mangled(): languages whose DW_AT_name is the symbol name. */
static bool lang_non_mangled(int lang)
{
	switch (lang) {
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_Ada83:
	case DW_LANG_Cobol74:
	case DW_LANG_Cobol85:
	case DW_LANG_Fortran77:
	case DW_LANG_Pascal83:
	case DW_LANG_C99:
	case DW_LANG_Ada95:
	case DW_LANG_PLI:
	case DW_LANG_UPC:
	case DW_LANG_C11:
	case DW_LANG_Mips_Assembler:
		return true;
	default:
		return false;
	}
}

/*
 * The name bfd gives a DWARF function: its linkage name; else, in a
 * language without mangling, its DW_AT_name; else the ELF symbol at its
 * entry if there is one, else DW_AT_name (NULL: none at all).
 */
static const char *dfunc_name(const struct line_ctx *c, Dwarf_Die *die,
			      bool non_mangled, uint64_t entry)
{
	Dwarf_Attribute attr;
	const char *name = NULL;
	const struct esym *e;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr)) {
		name = dwarf_formstring(&attr);
		if (name)
			return name;
	}
	if (dwarf_attr_integrate(die, DW_AT_name, &attr))
		name = dwarf_formstring(&attr);
	if (name && non_mangled)
		return name;
	e = elf_find_function(c, entry);
	if (e && e->addr == entry)
		return e->name;
	return name;
}

static void add_dfuncs(struct line_ctx *c, Dwarf_Die *die, bool non_mangled)
{
	Dwarf_Die child;
	int tag = dwarf_tag(die);

	if (tag == DW_TAG_subprogram || tag == DW_TAG_entry_point ||
	    tag == DW_TAG_inlined_subroutine) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t it = 0;
		size_t first = c->nfuncs, order = c->nfuncs, i;
		bool have = false;
		uint64_t entry = 0;

		while ((it = dwarf_ranges(die, it, &base, &lo, &hi)) > 0) {
			if (!have) {
				entry = lo;
				have = true;
			}
			if (lo >= hi)
				continue;
			if (c->nfuncs == c->fcap) {
				c->fcap = c->fcap ? 2 * c->fcap : 1024;
				c->funcs = xrealloc(c->funcs,
						    c->fcap * sizeof(*c->funcs));
			}
			c->funcs[c->nfuncs++] = (struct dfunc){
				.lo = lo, .hi = hi, .entry = entry,
				.order = order };
		}
		if (c->nfuncs > first) {
			const char *name = dfunc_name(c, die, non_mangled,
						      entry);

			for (i = first; i < c->nfuncs; i++)
				c->funcs[i].name = name;
		}
	}
	if (dwarf_child(die, &child) != 0)
		return;
	do
		add_dfuncs(c, &child, non_mangled);
	while (dwarf_siblingof(&child, &child) == 0);
}

static int cmp_dfunc(const void *a, const void *b)
{
	const struct dfunc *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A growing array of addresses where the source info may change. */
struct breaks {
	uint64_t *a;
	size_t n, cap;
};

static void breaks_add(struct breaks *b, const struct line_ctx *c,
		       uint64_t addr)
{
	if (addr < c->text_lo || addr >= c->text_hi)
		return;
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 4096;
		b->a = xrealloc(b->a, b->cap * sizeof(*b->a));
	}
	b->a[b->n++] = addr;
}

/* A line symbol in the making; GNU's "prev" of core_create_line_syms. */
struct line_sym {
	uint64_t addr;		/* link-time */
	const char *name;
	struct source_file *file;
	int line;
};

/*
 * The line symbols of one module: what GNU's byte-by-byte walk of .text
 * finds, computed only at the addresses where a line row, a CU range, a
 * DWARF function or an ELF symbol starts or ends, since between two
 * such addresses bfd's answer cannot change.
 */
static void module_line_syms(struct profile *prof,
			     const struct gprof_options *opt, unsigned int m)
{
	struct line_ctx c = { .module = m };
	struct breaks b = { 0 };
	struct dfunc **active = NULL;
	size_t nactive = 0, acap = 0, next = 0, i, j;
	struct line_sym *prev;
	bool have_prev = false;

	c.d = dmod_get(prof, opt, m);
	if (!c.d || !line_ctx_elf(&c))
		return;
	for (i = 0; i < c.d->ncus; i++) {
		struct cu *cu = &c.d->cus[i];
		struct cu_lines *cl = cu_kept_lines(cu);

		add_dfuncs(&c, &cu->die,
			   lang_non_mangled(dwarf_srclang(&cu->die)));
		for (j = 0; j < cl->nlines; j++)
			breaks_add(&b, &c, row_addr(cl, j));
	}
	for (i = 0; i < c.d->nspans; i++) {
		breaks_add(&b, &c, c.d->spans[i].lo);
		breaks_add(&b, &c, c.d->spans[i].hi);
	}
	for (i = 0; i < c.nfuncs; i++) {
		breaks_add(&b, &c, c.funcs[i].lo);
		breaks_add(&b, &c, c.funcs[i].hi);
	}
	for (i = 0; i < c.nesyms; i++) {
		breaks_add(&b, &c, c.esyms[i].addr);
		breaks_add(&b, &c, c.esyms[i].addr + c.esyms[i].size);
	}
	if (b.n)	/* qsort's base must not be NULL, even for 0 */
		qsort(b.a, b.n, sizeof(*b.a), cmp_u64);
	if (c.nfuncs)
		qsort(c.funcs, c.nfuncs, sizeof(*c.funcs), cmp_dfunc);

	for (i = 0; i < b.n; i++) {
		uint64_t addr = b.a[i];
		const struct dfunc *best = NULL;
		struct source_file *file;
		const char *name;
		size_t k;
		int line;

		if (i && addr == b.a[i - 1])
			continue;
		/* The DWARF functions covering @addr, innermost first. */
		while (next < c.nfuncs && c.funcs[next].lo <= addr) {
			if (nactive == acap) {
				acap = acap ? 2 * acap : 64;
				active = xrealloc(active,
						  acap * sizeof(*active));
			}
			active[nactive++] = &c.funcs[next++];
		}
		for (k = 0; k < nactive;) {
			if (active[k]->hi <= addr) {
				active[k] = active[--nactive];
				continue;
			}
			/* bfd: the shortest range; on a tie, the later DIE. */
			if (!best || active[k]->hi - active[k]->lo <
			    best->hi - best->lo ||
			    (active[k]->hi - active[k]->lo ==
			     best->hi - best->lo &&
			     active[k]->order > best->order))
				best = active[k];
			k++;
		}

		if (!dmod_line(prof, c.d, addr, &file, &line))
			continue;
		name = best ? best->name : NULL;
		if (!name) {
			const struct esym *e = elf_find_function(&c, addr);

			name = e ? e->name : NULL;
		}
		if (!name)
			continue;
		if (have_prev) {
			prev = &prof->lsyms[prof->nlsyms - 1];
			if (prev->line == line && prev->file == file &&
			    !strcmp(prev->name, name))
				continue;
		}
		if (prof->nlsyms == prof->lsym_cap) {
			prof->lsym_cap = prof->lsym_cap ?
				2 * prof->lsym_cap : 4096;
			prof->lsyms = xreallocarray(prof->lsyms,
						    prof->lsym_cap,
						    sizeof(*prof->lsyms));
		}
		have_prev = true;
		prof->lsyms[prof->nlsyms++] = (struct line_sym){ .addr = addr,
			.name = name,
					   .file = file, .line = line };
	}
	free(active);
	free(b.a);
	free(c.funcs);
	free(c.esyms);
}

void core_create_line_syms(struct profile *prof,
			   const struct gprof_options *opt)
{
	struct sym_table ltab;
	struct sym *s, *prev = NULL, *fs;
	size_t first, i;
	unsigned int m;

	/* Function symbols too, for code compiled without -g. */
	core_create_function_syms(prof, opt);

	ltab.len = 0;
	ltab.base = NULL;
	for (m = 0; m < (prof->nmodules ? prof->nmodules : 1); m++) {
		first = prof->nlsyms;
		module_line_syms(prof, opt, m);
		ltab.base = xreallocarray(ltab.base,
					  prof->nlsyms + prof->symtab.len,
					  sizeof(*ltab.base));
		for (i = first; i < prof->nlsyms; i++) {
			s = &ltab.base[ltab.len++];
			memset(s, 0, sizeof(*s));
			s->addr = MODULE_BASE(m) + prof->lsyms[i].addr;
			s->name = prof->lsyms[i].name;
			s->file = prof->lsyms[i].file;
			s->line_num = prof->lsyms[i].line;
			s->module = m;
			s->src_known = 1;
			/*
			 * A line is static when its function is: the
			 * previous line's, if of the same function, else
			 * the function symbol's around it.
			 */
			if (prev && i > first && prev->file == s->file &&
			    !strcmp(prev->name, s->name)) {
				s->is_static = prev->is_static;
			} else {
				fs = sym_lookup(&prof->symtab, s->addr);
				if (fs)
					s->is_static = fs->is_static;
			}
			prev = s;
		}
	}
	free(prof->lsyms);
	prof->lsyms = NULL;
	prof->nlsyms = prof->lsym_cap = 0;

	ltab.base = xrealloc(ltab.base, (ltab.len + prof->symtab.len) *
			     sizeof(*ltab.base));
	memcpy(ltab.base + ltab.len, prof->symtab.base,
	       prof->symtab.len * sizeof(*prof->symtab.base));
	ltab.len += prof->symtab.len;
	free(prof->symtab.base);
	symtab_finalize(prof, &ltab);
	prof->symtab = ltab;
}
