// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Code past the end of every symbol, in multi-module profiles.
 *
 * GNU gprof ignores st_size: a symbol runs to the next one, so the time
 * of a stripped library's internal functions (libc's msort_with_tmp,
 * which has no dynamic symbol) is charged to whatever exported symbol
 * lies before it (mrand48_r).  That is GNU's report and stays so for
 * GNU profiles (tests/gprof/run-oracle), but a multi-module report has
 * no GNU report to match, so there a symbol ends where its st_size
 * says, and each stretch of code between that end and the next symbol
 * (or the end of its module's .text, or from the start of the .text to
 * the first symbol) is one pseudo-function named by the module and the
 * stretch's link-time start: "libc.so.6+0x2a3f0".  A symbol of size 0
 * (hand-written assembly often has none) still runs to the next one,
 * and a symbol nested in another (an alias, a local label) does not end
 * the outer one: a gap starts only where every symbol so far ended.
 */
#include <stdlib.h>
#include <string.h>

#include "read/read.h"

static const char *gap_name(struct profile *prof, unsigned int m, uint64_t addr)
{
	const char *base = module_basename(&prof->modules[m]);
	size_t n = strlen(base) + 2 + 16 + 2;
	char *name = xmalloc(n);

	snprintf(name, n, "%s+0x%llx", base,
		 (unsigned long long)ADDR_LINK(addr));
	prof->gap_names =
		xreallocarray(prof->gap_names, prof->ngap_names + 1,
			      sizeof(*prof->gap_names));
	prof->gap_names[prof->ngap_names++] = name;
	return name;
}

static void gap_add(struct profile *prof, struct sym *out, size_t *n,
		    unsigned int m,
		    uint64_t lo, uint64_t hi)
{
	struct sym *g = &out[(*n)++];

	memset(g, 0, sizeof(*g));
	g->addr = lo;
	g->end_addr = hi - 1;
	g->name = gap_name(prof, m, lo);
	g->module = m;
	g->is_func = true;
	g->is_gap = true;
}

void symtab_add_gaps(struct profile *prof)
{
	struct sym *out;
	uint64_t reach = 0;
	size_t i, n = 0, cap;

	/* At most one gap before and one after each symbol. */
	if (__builtin_mul_overflow(prof->symtab.len, 2, &cap) ||
	    __builtin_add_overflow(cap, prof->nmodules, &cap))
		fatal("too many symbols in the load modules");
	out = xmallocarray(cap, sizeof(*out));
	for (i = 0; i < prof->symtab.len; i++) {
		struct sym *s = &prof->symtab.base[i];
		unsigned int m = s->module;
		const struct module *mod = &prof->modules[m];
		bool first = !i || prof->symtab.base[i - 1].module != m;
		bool last = i + 1 == prof->symtab.len ||
			    prof->symtab.base[i + 1].module != m;
		uint64_t next = last ? s->end_addr + 1 :
				prof->symtab.base[i + 1].addr, end;

		if (!mod->loaded || m >= prof->nmodules) {
			out[n++] = *s;
			continue;
		}
		if (first) {
			reach = 0;
			if (mod->text_low < s->addr)
				gap_add(prof, out, &n, m, mod->text_low,
					s->addr);
		}
		out[n] = *s;
		/*
		 * Of unknown size, or absurd: it runs to the next symbol,
		 * but not past the end of its section (_init, not the .plt).
		 */
		if (!s->size || __builtin_add_overflow(s->addr, s->size, &end))
			end = next;
		else if (!s->size_known && end > next)
			end = next;
		if (end > reach)
			reach = end;
		if (reach < next && reach > s->addr) {
			out[n++].end_addr = reach - 1;
			gap_add(prof, out, &n, m, reach, next);
			reach = next;
		} else {
			n++;
		}
	}
	free(prof->symtab.base);
	symtab_adopt(prof, out, n);
}

void sym_gaps_reset(struct profile *prof)
{
	size_t i;

	for (i = 0; i < prof->ngap_names; i++)
		free(prof->gap_names[i]);
	free(prof->gap_names);
	prof->gap_names = NULL;
	prof->ngap_names = 0;
}
