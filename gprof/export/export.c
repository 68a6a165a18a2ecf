// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --export=FORMAT: the analyzed profile in a form other tools read,
 * instead of the text reports (docs/exports.md has each format).
 *
 *   callgrind  KCachegrind and friends, by line (export_callgrind.c).
 *   pprof      `go tool pprof`'s gzipped profile.proto (export_pprof.c).
 *   dot        Graphviz (export_dot.c).
 *   json       functions, arcs, modules, lines (export_json.c).
 *   folded     Brendan Gregg's folded stacks (export_folded.c).
 *   flamegraph, icicle  an SVG flame graph (export_flame.c).
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

#include "export/export.h"

const char *module_name(struct profile *prof, unsigned int m)
{
	const struct module *mod = &prof->modules[m];

	return mod->path ? mod->path : mod->recorded ? mod->recorded : "";
}

/* The name as the reports print it (demangled unless --no-demangle). */
char *display_name(const struct gprof_options *opt, const struct sym *s)
{
	char *dm = NULL;

	if (opt->demangle && s->name)
		dm = cplus_demangle(s->name, DMGL_ANSI | DMGL_PARAMS);
	return dm ? dm : xstrdup(s->name ? s->name : "");
}

bool shown(struct profile *prof, const struct gprof_options *opt,
	   const struct sym *s)
{
	(void)prof;
	return s->name && s->cg.print_flag &&
	       (!opt->ignore_zeros || s->ncalls || s->cg.self_calls ||
		s->cg.prop.self != 0 || s->cg.prop.child != 0 ||
		s->hist.time != 0);
}

uint64_t export_period_ns(struct profile *prof)
{
	/* A count of events: one sample is its period of them. */
	if (prof->event_type)
		return prof->event_period;
	return prof->hz > 0 ? (uint64_t)(1e9 / prof->hz + 0.5) : 0;
}

long long ns(struct profile *prof, double ticks)
{
	return (long long)(ticks * (double)export_period_ns(prof) + 0.5);
}

double graph_total(struct profile *prof)
{
	return prof->measured_times ? prof->print_time : prof->total_time;
}

uint64_t whole_samples(double ticks)
{
	return ticks > 0 ? (uint64_t)(ticks + 0.5) : 0;
}

uint64_t *export_whole(struct profile *prof, const struct gprof_options *opt,
		       double (*ticks)(struct profile *prof,
				       const struct sym *s),
		       bool (*counted)(struct profile *prof,
				       const struct gprof_options *opt,
				       const struct sym *s),
		       uint64_t total)
{
	uint64_t *out = xcalloc(prof->symtab.len ? prof->symtab.len : 1,
				sizeof(*out));
	uint64_t done = 0, upto;
	long double all = 0, sum = 0;
	double t;
	size_t i;

	/* @total is every symbol's: those not counted keep their share. */
	for (i = 0; i < prof->symtab.len; i++) {
		t = prof->symtab.base[i].name ? ticks(prof,
						      &prof->symtab.base[i]) :
							      0;
		if (t > 0)
			all += t;
	}
	for (i = 0; i < prof->symtab.len && all > 0; i++) {
		const struct sym *s = &prof->symtab.base[i];

		t = s->name ? ticks(prof, s) : 0;
		if (t <= 0)
			continue;
		sum += t;
		upto = (uint64_t)(sum / all * total + 0.5);
		if (counted(prof, opt, s))
			out[i] = upto - done;
		done = upto;
	}
	return out;
}

/* A function's own time: the flat profile's, or the measured graph's. */
double self_ticks(struct profile *prof, const struct sym *s)
{
	return prof->measured_times ? s->cg.prop.self : s->hist.time;
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

double share(struct profile *prof, const struct sym *s)
{
	return prof->print_time > 0 ?
	       100 * (s->cg.prop.self + s->cg.prop.child) / prof->print_time :
		       0;
}

static int flamegraph(struct profile *prof, const struct gprof_options *opt)
{
	return export_flamegraph(prof, opt, false);
}

static int icicle(struct profile *prof, const struct gprof_options *opt)
{
	return export_flamegraph(prof, opt, true);
}

static const struct {
	const char *name;
	int (*write)(struct profile *prof, const struct gprof_options *opt);
} formats[] = {
	{ "callgrind", export_callgrind },
	{ "pprof", export_pprof },
	{ "dot", export_dot },
	{ "json", export_json },
	{ "folded", export_folded },
	{ "flamegraph", flamegraph },
	{ "icicle", icicle },
};

int export_profile(struct profile *prof, const struct gprof_options *opt)
{
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(opt->export_format, formats[i].name))
			return formats[i].write(prof, opt);
	return profile_error(prof, "--export: unknown format `%s'",
			     opt->export_format);
}

int export_rendered(struct profile *prof, const struct gprof_options *opt)
{
	char why[sizeof(prof->error)];
	int r;

	if (render_start(opt, prof->error, sizeof(prof->error)))
		return -1;
	r = export_profile(prof, opt);
	/* dot is waited for even when the export failed. */
	if (render_finish(opt, why, sizeof(why)) && !r) {
		memcpy(prof->error, why, sizeof(why));
		r = -1;
	}
	return r;
}

bool export_format_known(const char *f)
{
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(f, formats[i].name))
			return true;
	return false;
}
