// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --export=FORMAT: the analyzed profile in a form other tools read,
 * instead of the text reports (docs/exports.md has each format).
 *
 *   callgrind  KCachegrind / qcachegrind / callgrind_annotate / gprof2dot
 *              -f callgrind: self cost per function, one "calls=" line
 *              per arc with the arc's inclusive cost (estimated, or
 *              measured from caller samples),
 *              "ob=" the load module.  Costs are integer microseconds.
 *   dot        Graphviz (export_dot.c).
 *   json       functions, arcs, modules, lines (export_json.c).
 *   folded     Brendan Gregg's folded stacks (export_folded.c).
 *   flamegraph, icicle  an SVG flame graph (export_flame.c).
 *
 * The numbers are those of the call graph (-q), so the same options
 * (symspecs, -z) shape them.  When the profile has caller samples they
 * are the measured ones (cg_measured.c): a function's self cost is then
 * the call graph's (its samples' sampled pcs), so that inclusive costs
 * add up, and an arc seen only in the chains has no call count (0 in
 * callgrind's calls=, null in JSON, "-" in dot).
 */
#include <stdlib.h>
#include <string.h>
#include <demangle.h>

#include "export.h"

const char *export_format;

const char *module_name(unsigned int m)
{
	const struct module *mod = &modules[m];

	return mod->path ? mod->path : mod->recorded ? mod->recorded : "";
}

/* The name as the reports print it (demangled unless --no-demangle). */
char *display_name(const struct sym *s)
{
	char *dm = NULL;

	if (demangle && s->name)
		dm = cplus_demangle(s->name, DMGL_ANSI | DMGL_PARAMS);
	return dm ? dm : xstrdup(s->name ? s->name : "");
}

bool shown(const struct sym *s)
{
	return s->name && s->cg.print_flag &&
	       (!ignore_zeros || s->ncalls || s->cg.self_calls ||
		s->cg.prop.self != 0 || s->cg.prop.child != 0 ||
		s->hist.time != 0);
}

long long us(double ticks)
{
	return hz > 0 ? (long long)(ticks / hz * 1e6 + 0.5) : 0;
}

/* A function's own time: the flat profile's, or the measured graph's. */
double self_ticks(const struct sym *s)
{
	return measured_times ? s->cg.prop.self : s->hist.time;
}

static void callgrind(void)
{
	long long sum = 0;
	size_t i;

	/* The summary is the total of the self costs written below. */
	for (i = 0; i < symtab.len; i++)
		if (shown(&symtab.base[i]))
			sum += us(self_ticks(&symtab.base[i]));
	printf("# callgrind format\nversion: 1\ncreator: sprofil-gprof\n");
	printf("cmd: %s\npositions: line\nevents: us\n", a_out_name);
	printf("summary: %lld\n\n", sum);
	for (i = 0; i < symtab.len; i++) {
		struct sym *s = &symtab.base[i];
		struct arc *a;
		char *name;

		if (!shown(s))
			continue;
		sym_source(s);
		name = display_name(s);
		printf("ob=%s\nfl=%s\nfn=%s\n%d %lld\n", module_name(s->module),
		       s->file ? s->file->name : "???", name, s->line_num,
		       us(self_ticks(s)));
		free(name);
		for (a = s->cg.children; a; a = a->next_child) {
			struct sym *c = a->child;

			if (!shown(c) || c == s)
				continue;
			sym_source(c);
			name = display_name(c);
			printf("cob=%s\ncfl=%s\ncfn=%s\ncalls=%llu %d\n%d %lld\n",
			       module_name(c->module),
			       c->file ? c->file->name : "???", name,
			       (unsigned long long)a->count, c->line_num,
			       s->line_num, us(a->time + a->child_time));
			free(name);
		}
		putchar('\n');
	}
}

/* Writes @s escaped for a JSON or dot string. */
void escaped(const char *s)
{
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
}

void quoted(const char *s)
{
	putchar('"');
	escaped(s);
	putchar('"');
}

double share(const struct sym *s)
{
	return print_time > 0 ?
	       100 * (s->cg.prop.self + s->cg.prop.child) / print_time : 0;
}

static void flamegraph(void)
{
	export_flamegraph(false);
}

static void icicle(void)
{
	export_flamegraph(true);
}

static const struct {
	const char *name;
	void (*write)(void);
} formats[] = {
	{ "callgrind", callgrind },
	{ "dot", export_dot },
	{ "json", export_json },
	{ "folded", export_folded },
	{ "flamegraph", flamegraph },
	{ "icicle", icicle },
};

void export_profile(void)
{
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(export_format, formats[i].name))
			formats[i].write();
}

bool export_format_known(const char *f)
{
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(f, formats[i].name))
			return true;
	return false;
}
