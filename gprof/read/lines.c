// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Source lines of symbols, from each module's DWARF through libdw.
 *
 * GNU gprof asks bfd_find_nearest_line for the file and line of every
 * function symbol up front, and for -l for every byte of .text.  Here
 * the same answers come from the DWARF line tables, and only when a
 * report needs them: a module's DWARF is opened on first use, a CU is
 * found by its address ranges (indexed once per module), and the first
 * symbol asked for in a CU has all of that CU's symbols looked up in one
 * pass, through a libdw handle closed afterwards so that line tables do
 * not pile up in memory.
 *
 * What bfd answers, and so what is reproduced here:
 *  - the row for an address is the last row at the greatest row address
 *    not above it (bfd keeps only the last row of several at one
 *    address); an address past its sequence's end has no row;
 *  - line 0 means "no line": GNU then keeps neither file nor line;
 *  - the file is the row's file under its directory entry, and under the
 *    CU's DW_AT_comp_dir when that entry is relative;
 *  - for -l, the function of an address is the innermost subprogram or
 *    inlined subroutine covering it (line_syms.c).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "read/dwarf_lines.h"
#include "read/read.h"

/* ---- source files: one struct per distinct name ---- */

static size_t str_hash(const char *s)
{
	size_t h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static void sf_hash_grow(struct profile *prof)
{
	size_t n = prof->sf_hash_size ? prof->sf_hash_size * 2 : 64, i;
	struct source_file **t = xcalloc(n, sizeof(*t));

	for (i = 0; i < prof->sf_hash_size; i++) {
		struct source_file *sf = prof->sf_hash[i];
		size_t h;

		if (!sf)
			continue;
		for (h = str_hash(sf->name) & (n - 1); t[h]; h = (h + 1) & (n - 1))
			;
		t[h] = sf;
	}
	free(prof->sf_hash);
	prof->sf_hash = t;
	prof->sf_hash_size = n;
}

struct source_file *source_file_lookup_path(struct profile *prof,
					    const char *path)
{
	struct source_file *sf;
	size_t h;

	if (2 * (prof->sf_count + 1) > prof->sf_hash_size)
		sf_hash_grow(prof);
	for (h = str_hash(path) & (prof->sf_hash_size - 1); prof->sf_hash[h];
	     h = (h + 1) & (prof->sf_hash_size - 1))
		if (!strcmp(prof->sf_hash[h]->name, path))
			return prof->sf_hash[h];
	sf = xcalloc(1, sizeof(*sf));
	sf->name = xstrdup(path);
	/* GNU prepends; print_annotated_source() restores GNU's order. */
	sf->next = prof->first_src_file;
	prof->first_src_file = sf;
	prof->sf_hash[h] = sf;
	prof->sf_count++;
	return sf;
}

/* ---- each module's DWARF (the types: dwarf_lines.h) ---- */


static int cmp_span(const void *a, const void *b)
{
	const struct cu_span *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->cu < y->cu ? -1 : x->cu > y->cu;
}

static void dmod_index_cus(struct dmod *d)
{
	Dwarf_Off off = 0, next;
	size_t hsize, ncap = 0, scap = 0, i, *fill;

	while (dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t it = 0;
		struct cu *cu;

		if (d->ncus == ncap) {
			ncap = ncap ? 2 * ncap : 64;
			d->cus = xrealloc(d->cus, ncap * sizeof(*d->cus));
		}
		cu = &d->cus[d->ncus];
		memset(cu, 0, sizeof(*cu));
		off += hsize;
		cu->off = off;
		if (!dwarf_offdie(d->dw, off, &cu->die)) {
			off = next;
			continue;
		}
		off = next;
		while ((it = dwarf_ranges(&cu->die, it, &base, &lo, &hi)) > 0) {
			if (lo >= hi)
				continue;
			if (d->nspans == scap) {
				scap = scap ? 2 * scap : 64;
				d->spans = xrealloc(d->spans,
						    scap * sizeof(*d->spans));
			}
			d->spans[d->nspans++] = (struct cu_span){
				.lo = lo, .hi = hi, .cu = d->ncus };
		}
		d->ncus++;
	}
	if (d->nspans)	/* qsort's base must not be NULL, even for 0 */
		qsort(d->spans, d->nspans, sizeof(*d->spans), cmp_span);
	d->cu_first = xcalloc(d->ncus + 1, sizeof(*d->cu_first));
	d->by_cu = xmalloc((d->nspans ? d->nspans : 1) * sizeof(*d->by_cu));
	for (i = 0; i < d->nspans; i++) {
		d->spans[i].max_hi = d->spans[i].hi;
		if (i && d->spans[i - 1].max_hi > d->spans[i].max_hi)
			d->spans[i].max_hi = d->spans[i - 1].max_hi;
		d->cu_first[d->spans[i].cu + 1]++;
	}
	for (i = 0; i < d->ncus; i++)
		d->cu_first[i + 1] += d->cu_first[i];
	/* A counting sort: spans by CU, each CU's in address order. */
	fill = xmalloc((d->ncus + 1) * sizeof(*fill));
	memcpy(fill, d->cu_first, (d->ncus + 1) * sizeof(*fill));
	for (i = 0; i < d->nspans; i++)
		d->by_cu[fill[d->spans[i].cu]++] = i;
	free(fill);
}

/* The DWARF of module @m, opened on first use; NULL if it has none. */
struct dmod *dmod_get(struct profile *prof, const struct gprof_options *opt,
		      unsigned int m)
{
	struct dmod *d;
	Dwarf_Addr bias;

	const char *path;

	if (m >= prof->ndmods) {
		unsigned int n = m + 1 > prof->nmodules ? m + 1 :
			prof->nmodules;

		prof->dmods = xrealloc(prof->dmods, n * sizeof(*prof->dmods));
		memset(prof->dmods + prof->ndmods, 0,
		       (n - prof->ndmods) * sizeof(*prof->dmods));
		prof->ndmods = n;
	}
	d = &prof->dmods[m];
	if (d->opened)
		return d->dw ? d : NULL;
	d->opened = true;
	/* A plain gmon.out may leave the module table to the executable. */
	if (m < prof->nmodules && prof->modules[m].path)
		path = prof->modules[m].path;
	else if (m == 0)
		path = opt->a_out_name;
	else
		return NULL;
	/* Under --debug-file-directory too (/usr/lib/debug: bfd's). */
	d->dwfl = debug_dwfl_begin(opt);
	if (!d->dwfl)
		return NULL;
	/*
	 * libdwfl finds separate debug files (.gnu_debuglink, build-id) as
	 * bfd does.  Addresses are taken from the DWARF as written, i.e.
	 * link-time, so the offline bias libdwfl picks does not matter.
	 */
	d->mod = dwfl_report_offline(d->dwfl, path, path, -1);
	dwfl_report_end(d->dwfl, NULL, NULL);
	if (d->mod)
		d->dw = dwfl_module_getdwarf(d->mod, &bias);
	if (!d->dw) {
		dwfl_end(d->dwfl);
		d->dwfl = NULL;
		return NULL;
	}
	d->dbg_elf = dwarf_getelf(d->dw);
	dmod_index_cus(d);
	return d;
}

/* Reads @cl's table; @cl->die is set.  False if it has none. */
static bool cu_lines_read(struct cu_lines *cl)
{
	Dwarf_Files *files;

	if (dwarf_getsrclines(&cl->die, &cl->lines, &cl->nlines) != 0) {
		cl->lines = NULL;
		cl->nlines = 0;
		return false;
	}
	if (dwarf_getsrcfiles(&cl->die, &files, &cl->nfiles) != 0)
		cl->nfiles = 0;
	cl->files = xcalloc(cl->nfiles ? cl->nfiles : 1, sizeof(*cl->files));
	return true;
}

uint64_t row_addr(const struct cu_lines *cl, size_t i)
{
	Dwarf_Addr a = 0;

	dwarf_lineaddr(dwarf_onesrcline(cl->lines, i), &a);
	return a;
}

/* The row's file as a shared source_file, NULL when it has none. */
static struct source_file *row_file(struct profile *prof, struct cu_lines *cl,
				    Dwarf_Line *l)
{
	Dwarf_Files *files;
	size_t idx;
	const char *name, *dir;
	Dwarf_Attribute attr;
	struct source_file *sf;

	if (dwarf_line_file(l, &files, &idx) != 0)
		return NULL;
	if (idx < cl->nfiles && cl->files[idx])
		return cl->files[idx];
	name = dwarf_filesrc(files, idx, NULL, NULL);
	if (!name)
		return NULL;
	/*
	 * libdw leaves a name under a relative directory entry relative;
	 * bfd puts the CU's DW_AT_comp_dir before it.
	 */
	dir = name[0] != '/' ?
	      dwarf_formstring(dwarf_attr(&cl->die, DW_AT_comp_dir, &attr)) :
	      NULL;
	if (dir) {
		char *path = xmalloc(strlen(dir) + strlen(name) + 2);

		sprintf(path, "%s/%s", dir, name);
		sf = source_file_lookup_path(prof, path);
		free(path);
	} else {
		sf = source_file_lookup_path(prof, name);
	}
	if (idx < cl->nfiles)
		cl->files[idx] = sf;
	return sf;
}

/*
 * The file and line of link-time @addr in @cl as bfd gives them: the
 * last row at or below it, unless that ends a sequence or has line 0.
 * With @hint, addresses come in ascending order and the search gallops
 * on from where the previous one ended.
 */
static bool lines_at(struct profile *prof, struct cu_lines *cl, uint64_t addr,
		     struct source_file **file, int *line, size_t *hint)
{
	size_t lo = hint ? *hint : 0, hi, step = 1;
	Dwarf_Line *l;
	bool end;
	int n;

	/* Every row below @lo is at or below @addr. */
	while (lo + step <= cl->nlines && row_addr(cl, lo + step - 1) <= addr) {
		lo += step;
		step *= 2;
	}
	hi = lo + step - 1 < cl->nlines ? lo + step - 1 : cl->nlines;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (row_addr(cl, mid) <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (hint)
		*hint = lo;
	if (!lo)
		return false;
	l = dwarf_onesrcline(cl->lines, lo - 1);
	if (!l || dwarf_lineendsequence(l, &end) != 0 || end)
		return false;
	if (dwarf_lineno(l, &n) != 0 || n == 0)
		return false;
	*file = row_file(prof, cl, l);
	if (!*file)
		return false;
	*line = n;
	return true;
}

/* The CU bfd would search for link-time @addr, or SIZE_MAX. */
static size_t dmod_cu(const struct dmod *d, uint64_t addr)
{
	size_t lo = 0, hi = d->nspans, best = SIZE_MAX;
	ptrdiff_t i;

	/* Last span starting at or below @addr ... */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->spans[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ... then back over every span still reaching it: first CU wins. */
	for (i = (ptrdiff_t)lo - 1; i >= 0 && d->spans[i].max_hi > addr; i--)
		if (d->spans[i].hi > addr && d->spans[i].cu < best)
			best = d->spans[i].cu;
	return best;
}

/* The CU's table through the module's own handle, kept (for -l). */
struct cu_lines *cu_kept_lines(struct cu *cu)
{
	if (!cu->pl_read) {
		cu->pl_read = true;
		cu->pl.die = cu->die;
		cu_lines_read(&cu->pl);
	}
	return &cu->pl;
}

/* The file and line of link-time @addr in @d; false when it has none. */
bool dmod_line(struct profile *prof, struct dmod *d, uint64_t addr,
	       struct source_file **file,
	       int *line)
{
	size_t ci = dmod_cu(d, addr);
	struct cu *cu;

	if (ci == SIZE_MAX)
		return false;
	/* The -l walk asks in ascending order: gallop on from there. */
	cu = &d->cus[ci];
	if (addr < cu->pl_last)
		cu->pl_hint = 0;
	cu->pl_last = addr;
	return lines_at(prof, cu_kept_lines(cu), addr, file, line,
			&cu->pl_hint);
}

/*
 * Looks up every function symbol of module @m inside CU @ci at once,
 * through a handle of its own closed at the end: libdw keeps a line
 * table as long as its handle lives, and the tables of a big program
 * would not fit the memory budget all at once.
 */
static void cu_resolve_syms(struct profile *prof, struct dmod *d,
			    unsigned int m, size_t ci)
{
	struct cu_lines cl = { 0 };
	Dwarf *dw;
	size_t k, hint = 0;

	d->cus[ci].syms_done = true;
	dw = dwarf_begin_elf(d->dbg_elf, DWARF_C_READ, NULL);
	if (!dw)
		return;
	if (!dwarf_offdie(dw, d->cus[ci].off, &cl.die) ||
	    !cu_lines_read(&cl)) {
		dwarf_end(dw);
		return;
	}
	for (k = d->cu_first[ci]; k < d->cu_first[ci + 1]; k++) {
		const struct cu_span *sp = &d->spans[d->by_cu[k]];
		uint64_t lo = MODULE_BASE(m) + sp->lo;
		size_t a = 0, b = prof->symtab.len;

		/* The first symbol at or above the span's start. */
		while (a < b) {
			size_t mid = a + (b - a) / 2;

			if (prof->symtab.base[mid].addr < lo)
				a = mid + 1;
			else
				b = mid;
		}
		for (; a < prof->symtab.len &&
		       prof->symtab.base[a].addr < MODULE_BASE(m) + sp->hi;
		     a++) {
			struct sym *s = &prof->symtab.base[a];
			uint64_t link = ADDR_LINK(s->addr);

			if (s->src_known || s->module != m ||
			    dmod_cu(d, link) != ci)
				continue;
			s->src_known = 1;
			if (!lines_at(prof, &cl, link, &s->file, &s->line_num,
				      &hint)) {
				s->file = NULL;
				s->line_num = 0;
			}
		}
	}
	free(cl.files);
	dwarf_end(dw);
}

void sym_source(struct profile *prof, const struct gprof_options *opt,
		struct sym *s)
{
	struct dmod *d;
	uint64_t link = ADDR_LINK(s->addr);
	size_t ci;

	if (s->src_known)
		return;
	d = dmod_get(prof, opt, s->module);
	ci = d ? dmod_cu(d, link) : SIZE_MAX;
	if (ci == SIZE_MAX) {
		s->src_known = 1;
		return;
	}
	if (!d->cus[ci].syms_done && s >= prof->symtab.base &&
	    s < prof->symtab.base + prof->symtab.len)
		cu_resolve_syms(prof, d, s->module, ci);
	if (s->src_known)
		return;
	/* Not in the table (a copy): through the module's own handle. */
	s->src_known = 1;
	if (!dmod_line(prof, d, link, &s->file, &s->line_num)) {
		s->file = NULL;
		s->line_num = 0;
	}
}

void lines_reset(struct profile *prof)
{
	struct source_file *sf, *next;
	unsigned int m;
	size_t i;

	for (m = 0; m < prof->ndmods; m++) {
		struct dmod *d = &prof->dmods[m];

		for (i = 0; i < d->ncus; i++)
			free(d->cus[i].pl.files);
		free(d->cus);
		free(d->spans);
		free(d->by_cu);
		free(d->cu_first);
		if (d->dwfl)
			dwfl_end(d->dwfl);
	}
	free(prof->dmods);
	prof->dmods = NULL;
	prof->ndmods = 0;
	for (sf = prof->first_src_file; sf; sf = next) {
		next = sf->next;
		free((char *)sf->name);
		free(sf->line);
		free(sf);
	}
	prof->first_src_file = NULL;
	free(prof->sf_hash);
	prof->sf_hash = NULL;
	prof->sf_hash_size = prof->sf_count = 0;
}

struct source_file *source_file_lookup_name(struct profile *prof,
					    const char *filename)
{
	struct source_file *sf;
	const char *base;

	/*
	 * Users cannot know how DWARF spells a directory, so as in GNU only
	 * the last component is compared.
	 */
	for (sf = prof->first_src_file; sf; sf = sf->next) {
		base = strrchr(sf->name, '/');
		base = base ? base + 1 : sf->name;
		if (!strcmp(filename, base))
			return sf;
	}
	return NULL;
}

/* Gives @sf the next place in GNU's order, if it has none yet. */
static void order_file(struct source_file *sf, struct source_file ***v,
		       size_t *n, size_t *cap)
{
	if (!sf || sf->order)
		return;
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*v = xrealloc(*v, *cap * sizeof(**v));
	}
	(*v)[(*n)++] = sf;
	sf->order = (unsigned int)*n;
}

size_t source_files_gnu_order(struct profile *prof,
			      const struct gprof_options *opt,
			      struct source_file ***out)
{
	struct source_file **v = NULL, *sf;
	size_t n = 0, cap = 0, i;
	unsigned int m;

	for (sf = prof->first_src_file; sf; sf = sf->next)
		sf->order = 0;
	/* GNU looks up every function symbol in .symtab order ... */
	for (m = 0; m < (prof->nmodules ? prof->nmodules : 1); m++) {
		struct dmod *d = dmod_get(prof, opt, m);
		Dwarf_Addr bias;
		Elf *elf;
		struct elf_symbols es = { 0 };
		size_t k;

		if (!d || !(elf = dwfl_module_getelf(d->mod, &bias)) ||
		    !elf_symtab(elf, &es))
			es.count = 0;
		for (k = 1; k < es.count; k++) {
			GElf_Sym st;
			uint64_t addr;
			struct sym *s;

			if (!gelf_getsym(es.data, k, &st) ||
			    st.st_shndx == SHN_UNDEF ||
			    GELF_ST_TYPE(st.st_info) == STT_SECTION ||
			    GELF_ST_TYPE(st.st_info) == STT_FILE)
				continue;
			addr = MODULE_BASE(m) + st.st_value;
			s = sym_lookup(&prof->symtab, addr);
			if (!s || s->addr != addr)
				continue;
			sym_source(prof, opt, s);
			order_file(s->file, &v, &n, &cap);
		}
	}
	/* ... then, with -l, the line symbols by address. */
	for (i = 0; i < prof->symtab.len; i++) {
		sym_source(prof, opt, &prof->symtab.base[i]);
		order_file(prof->symtab.base[i].file, &v, &n, &cap);
	}
	/* Newest first, as GNU's list. */
	for (i = 0; i < n / 2; i++) {
		sf = v[i];
		v[i] = v[n - 1 - i];
		v[n - 1 - i] = sf;
	}
	*out = v;
	return n;
}
