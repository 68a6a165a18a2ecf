// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * How a symbol's name is printed: demangled with libiberty's demangler
 * (the one binutils uses, so C++ names read exactly as GNU prints them),
 * with GNU's decorations: " (file:line @ addr)" for -l, " <cycle N>",
 * and " [N]" (an entry of the graph) or " (N)" (one left out).
 */
#include <stdlib.h>
#include <string.h>
#include <demangle.h>

#include "report/report.h"

/*
 * bfd_demangle's rules: leading dots are put aside, a version or @plt
 * suffix is cut off before demangling and put back after.
 */
static char *demangled(const char *name)
{
	const char *pre = name, *suf;
	char *base, *res, *out;
	size_t pre_len, n;

	while (*name == '.' || *name == '$')
		name++;
	pre_len = name - pre;
	suf = strchr(name, '@');
	n = suf ? (size_t)(suf - name) : strlen(name);
	base = xmalloc(n + 1);
	memcpy(base, name, n);
	base[n] = 0;
	res = cplus_demangle(base, DMGL_ANSI | DMGL_PARAMS);
	free(base);
	if (!res || (!pre_len && !suf))
		return res;
	n = pre_len + strlen(res) + (suf ? strlen(suf) : 0) + 1;
	out = xmalloc(n);
	snprintf(out, n, "%.*s%s%s", (int)pre_len, pre, res, suf ? suf : "");
	free(res);
	return out;
}

size_t print_name_only(struct profile *prof, const struct gprof_options *opt,
		       FILE *f, struct sym *s)
{
	const char *name = s->name;
	char *dm = NULL;
	size_t size;

	if (!name)
		return 0;
	if (!opt->bsd_style_output && opt->demangle) {
		dm = demangled(name);
		if (dm)
			name = dm;
	}
	fputs(name, f);
	size = strlen(name);
	free(dm);
	if (opt->line_granularity || opt->inline_file_names)
		sym_source(prof, opt, s);
	if ((opt->line_granularity || opt->inline_file_names) && s->file) {
		const char *file = s->file->name;
		const char *slash = strrchr(file, '/');
		int n;

		if (!opt->print_path && slash)
			file = slash + 1;
		if (opt->line_granularity)
			n = fprintf(f, " (%s:%d @ %lx)", file, s->line_num,
				    (unsigned long)s->addr);
		else
			n = fprintf(f, " (%s:%d)", file, s->line_num);
		if (n > 0)
			size += n;
	}
	return size;
}

void print_name(struct profile *prof, const struct gprof_options *opt, FILE *f,
		struct sym *s)
{
	print_name_only(prof, opt, f, s);
	if (s->cg.cyc.num)
		fprintf(f, " <cycle %d>", s->cg.cyc.num);
	if (s->cg.index)
		fprintf(f, s->cg.print_flag ? " [%d]" : " (%d)", s->cg.index);
}
