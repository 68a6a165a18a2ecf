// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --export=FORMAT: the analyzed profile in a form other tools read,
 * instead of the text reports.
 *
 *   callgrind  KCachegrind / qcachegrind / callgrind_annotate / gprof2dot
 *              -f callgrind: self cost per function, one "calls=" line
 *              per arc with the arc's inclusive cost (estimated, or
 *              measured from caller samples),
 *              "ob=" the load module.  Costs are integer microseconds.
 *   dot        Graphviz: the functions of the call graph, coloured by
 *              their share of the time, arcs labelled with their calls
 *              (render with `dot -Tsvg`).
 *   json       every function with time or calls, every arc, every
 *              module, with the numbers of the flat profile and the
 *              call graph.
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

#include "gprof.h"

const char *export_format;

static const char *module_name(unsigned int m)
{
	const struct module *mod = &modules[m];

	return mod->path ? mod->path : mod->recorded ? mod->recorded : "";
}

/* The name as the reports print it (demangled unless --no-demangle). */
static char *display_name(const struct sym *s)
{
	char *dm = NULL;

	if (demangle && s->name)
		dm = cplus_demangle(s->name, DMGL_ANSI | DMGL_PARAMS);
	return dm ? dm : xstrdup(s->name ? s->name : "");
}

static bool shown(const struct sym *s)
{
	return s->name && s->cg.print_flag &&
	       (!ignore_zeros || s->ncalls || s->cg.self_calls ||
		s->cg.prop.self != 0 || s->cg.prop.child != 0 ||
		s->hist.time != 0);
}

static long long us(double ticks)
{
	return hz > 0 ? (long long)(ticks / hz * 1e6 + 0.5) : 0;
}

/* A function's own time: the flat profile's, or the measured graph's. */
static double self_ticks(const struct sym *s)
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
static void escaped(const char *s)
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

static void quoted(const char *s)
{
	putchar('"');
	escaped(s);
	putchar('"');
}

static double share(const struct sym *s)
{
	return print_time > 0 ?
	       100 * (s->cg.prop.self + s->cg.prop.child) / print_time : 0;
}

static void dot(void)
{
	size_t i;

	printf("digraph gprof {\n\tnode [shape=box, style=filled, fontname=\"Helvetica\"];\n");
	for (i = 0; i < symtab.len; i++) {
		struct sym *s = &symtab.base[i];
		double pct = share(s);
		char *name;
		/* White to red with the share of the time. */
		int shade = 255 - (int)(pct * 2.04);

		if (!shown(s))
			continue;
		name = display_name(s);
		printf("\tf%zu [label=\"", i);
		escaped(name);
		free(name);
		printf("\\n%.2f%% (%.2f%% self)\\n", pct, print_time > 0 ?
		       100 * s->cg.prop.self / print_time : 0.0);
		if (sym_calls_unknown(s))
			printf("calls not counted");
		else
			printf("%llu calls", (unsigned long long)s->ncalls);
		printf("\", fillcolor=\"#ff%02x%02x\"];\n", shade, shade);
	}
	for (i = 0; i < symtab.len; i++) {
		struct sym *s = &symtab.base[i];
		struct arc *a;

		if (!shown(s))
			continue;
		for (a = s->cg.children; a; a = a->next_child) {
			if (!shown(a->child))
				continue;
			printf("\tf%zu -> f%zu [label=\"", i,
			       (size_t)(a->child - symtab.base));
			if (a->uncounted)
				printf("-");
			else
				printf("%llu", (unsigned long long)a->count);
			/* Measured: the time below the arc. */
			if (measured_times && a->child != s)
				printf("\\n%.2fs", hz > 0 ?
				       (a->time + a->child_time) / hz : 0.0);
			printf("\"];\n");
		}
	}
	printf("}\n");
}

/* A call count, or null when no call was counted (no -pg). */
static void json_count(bool unknown, uint64_t count)
{
	if (unknown)
		printf("null");
	else
		printf("%llu", (unsigned long long)count);
}

static void json(void)
{
	const char *sep = "";
	unsigned int m;
	size_t i;

	printf("{\"version\":1,\"creator\":\"sprofil-gprof\",\"executable\":");
	quoted(a_out_name);
	printf(",\"hz\":%.17g,\"total_seconds\":%.17g,\"times\":\"%s\"",
	       hz, hz > 0 ? total_time / hz : 0.0,
	       measured_times ? "measured" : "estimated");
	if (measured_times)
		printf(",\"caller_samples\":{\"complete\":%llu,\"truncated\":%llu,\"lost\":%llu,\"busy\":%llu,\"unknown\":%llu,\"call_counts\":%s}",
		       (unsigned long long)caller_stats.complete,
		       (unsigned long long)caller_stats.truncated,
		       (unsigned long long)caller_stats.lost,
		       (unsigned long long)caller_stats.busy,
		       (unsigned long long)caller_stats.unknown,
		       caller_stats.has_counts ? "true" : "false");
	/* The profiler's own time, in no function (docs/gprof.md). */
	if (overhead_time > 0)
		printf(",\"overhead_seconds\":%.17g",
		       hz > 0 ? overhead_time / hz : 0.0);
	if (caller_stats.overhead)
		printf(",\"overhead_caller_samples\":%llu",
		       (unsigned long long)caller_stats.overhead);
	printf(",\"modules\":[");
	for (m = 0; m < nmodules; m++) {
		printf("%s{\"index\":%u,\"name\":", m ? "," : "", m);
		quoted(module_name(m));
		printf(",\"read\":%s", modules[m].why ? "false" : "true");
		if (modules[m].overhead)
			printf(",\"profiler_overhead\":true");
		else if (modules[m].why) {
			printf(",\"why\":");
			quoted(modules[m].why);
		}
		printf("}");
	}
	printf("],\"functions\":[");
	for (i = 0; i < symtab.len; i++) {
		struct sym *s = &symtab.base[i];
		char *name;

		if (!shown(s))
			continue;
		sym_source(s);
		name = display_name(s);
		printf("%s{\"id\":%zu,\"name\":", sep, i);
		quoted(name);
		free(name);
		printf(",\"raw_name\":");
		quoted(s->name);
		printf(",\"module\":%u,\"address\":%llu,\"file\":", s->module,
		       (unsigned long long)ADDR_LINK(s->addr));
		if (s->file)
			quoted(s->file->name);
		else
			printf("null");
		printf(",\"line\":%d,\"self_seconds\":%.17g,\"children_seconds\":%.17g,\"calls\":",
		       s->line_num, hz > 0 ? s->cg.prop.self / hz : 0.0,
		       hz > 0 ? s->cg.prop.child / hz : 0.0);
		json_count(sym_calls_unknown(s), s->ncalls);
		printf(",\"self_calls\":%llu,\"cycle\":%d,\"graph_index\":%d}",
		       (unsigned long long)s->cg.self_calls, s->cg.cyc.num,
		       s->cg.index);
		sep = ",";
	}
	printf("],\"arcs\":[");
	sep = "";
	for (i = 0; i < symtab.len; i++) {
		struct sym *s = &symtab.base[i];
		struct arc *a;

		if (!shown(s))
			continue;
		for (a = s->cg.children; a; a = a->next_child) {
			if (!shown(a->child))
				continue;
			printf("%s{\"caller\":%zu,\"callee\":%zu,\"count\":",
			       sep, i, (size_t)(a->child - symtab.base));
			json_count(a->uncounted, a->count);
			printf(",\"self_seconds\":%.17g,\"children_seconds\":%.17g}",
			       hz > 0 ? a->time / hz : 0.0,
			       hz > 0 ? a->child_time / hz : 0.0);
			sep = ",";
		}
	}
	printf("]}\n");
}

void export_profile(void)
{
	if (!strcmp(export_format, "callgrind"))
		callgrind();
	else if (!strcmp(export_format, "dot"))
		dot();
	else
		json();
}

bool export_format_known(const char *f)
{
	return !strcmp(f, "callgrind") || !strcmp(f, "dot") ||
	       !strcmp(f, "json");
}
