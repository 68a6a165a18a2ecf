// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --export=FORMAT: the analyzed profile in a form other tools read,
 * instead of the text reports.
 *
 *   callgrind  KCachegrind and friends (export_callgrind.c).
 *   pprof      `go tool pprof`'s gzipped profile.proto (export_pprof.c).
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
 * add up, and an arc seen only in the chains has no call count (1 in
 * callgrind's calls=, null in JSON, "-" in dot).
 */
#include <stdlib.h>
#include <string.h>
#include <demangle.h>

#include "export.h"

const char *export_format;

const char *export_module_name(unsigned int m)
{
	const struct module *mod = &modules[m];

	return mod->path ? mod->path : mod->recorded ? mod->recorded : "";
}

/* The name as the reports print it (demangled unless --no-demangle). */
char *export_display_name(const struct sym *s)
{
	char *dm = NULL;

	if (demangle && s->name)
		dm = cplus_demangle(s->name, DMGL_ANSI | DMGL_PARAMS);
	return dm ? dm : xstrdup(s->name ? s->name : "");
}

bool export_shown(const struct sym *s)
{
	return s->name && s->cg.print_flag &&
	       (!ignore_zeros || s->ncalls || s->cg.self_calls ||
		s->cg.prop.self != 0 || s->cg.prop.child != 0 ||
		s->hist.time != 0);
}

long long export_us(double ticks)
{
	return hz > 0 ? (long long)(ticks / hz * 1e6 + 0.5) : 0;
}

/* A function's own time: the flat profile's, or the measured graph's. */
double export_self_ticks(const struct sym *s)
{
	return measured_times ? s->cg.prop.self : s->hist.time;
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

		if (!export_shown(s))
			continue;
		name = export_display_name(s);
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

		if (!export_shown(s))
			continue;
		for (a = s->cg.children; a; a = a->next_child) {
			if (!export_shown(a->child))
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
		quoted(export_module_name(m));
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

		if (!export_shown(s))
			continue;
		sym_source(s);
		name = export_display_name(s);
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

		if (!export_shown(s))
			continue;
		for (a = s->cg.children; a; a = a->next_child) {
			if (!export_shown(a->child))
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
		export_callgrind();
	else if (!strcmp(export_format, "pprof"))
		export_pprof();
	else if (!strcmp(export_format, "dot"))
		dot();
	else
		json();
}

bool export_format_known(const char *f)
{
	return !strcmp(f, "callgrind") || !strcmp(f, "pprof") ||
	       !strcmp(f, "dot") ||
	       !strcmp(f, "json");
}
