// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --export=json: every function with time or calls, every arc, every
 * module, with the numbers of the flat profile and the call graph; with
 * -l also every source line with samples.  docs/exports.md has the
 * schema.
 *
 * Version 3: numbers a consumer adds up are exact.  Sample counts are
 * integers: a function's or a line's own time in whole samples that add
 * up to the report's total (export_whole()), and its seconds are
 * those samples times the period, written from integer nanoseconds with
 * as many decimals as one period needs (2 at 100 Hz, 3 at 1 kHz, up to
 * 9), so their sum is the total's seconds to the last digit.  Times that
 * are not whole samples (an arc's, a function's children's, estimated
 * from call counts) get the same decimals, rounded; percentages two.
 *
 * A profile of another event than CPU time counts events instead: the
 * header names it ("event", "event_period") and every "..._seconds" key
 * is "..._events", a whole number of events.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sprofil/events.h>

#include "export/export.h"
#include "read/threads.h"

/* Decimals of a second that write one period exactly: 2 at 100 Hz. */
static int second_digits;
static uint64_t period_ns;		/* in events when counting_events */
static bool counting_events;

/* @key, or for an event its "..._events" for "..._seconds". */
static const char *key_of(const char *key, char *buf, size_t size)
{
	size_t n = strlen(key);

	if (!counting_events || n < 7 || strcmp(key + n - 7, "seconds"))
		return key;
	snprintf(buf, size, "%.*sevents", (int)(n - 7), key);
	return buf;
}

/* Fractional ticks, rounded to second_digits. */
static void secs(struct profile *prof, const char *key, double ticks)
{
	char buf[48];

	printf(",\"%s\":%.*f", key_of(key, buf, sizeof(buf)), second_digits,
	       prof->hz > 0 ? ticks / prof->hz : 0.0);
}

/* @n whole samples or nanoseconds' seconds, from integers: exact. */
static void exact_secs(const char *key, uint64_t ns)
{
	uint64_t frac = ns % 1000000000u, div = 1;
	char buf[48];
	int k;

	/* @ns is a count of events. */
	if (counting_events) {
		printf(",\"%s\":%llu", key_of(key, buf, sizeof(buf)),
		       (unsigned long long)ns);
		return;
	}
	for (k = second_digits; k < 9; k++)
		div *= 10;
	printf(",\"%s\":%llu", key, (unsigned long long)(ns / 1000000000u));
	if (second_digits)
		printf(".%0*llu", second_digits,
		       (unsigned long long)(frac / div));
}

/* "<what>_samples": @n, and "<what>_seconds": theirs, exactly. */
static void samples(const char *what, uint64_t n)
{
	char key[32];

	printf(",\"%s_samples\":%llu", what, (unsigned long long)n);
	snprintf(key, sizeof(key), "%s_seconds", what);
	exact_secs(key, n * period_ns);
}

static void percent(const char *key, double ticks, double of)
{
	printf(",\"%s\":%.2f", key, of > 0 ? 100 * ticks / of : 0.0);
}

/* A call count, or null when no call was counted (no -pg). */
static void json_count(bool unknown, uint64_t count)
{
	if (unknown)
		printf("null");
	else
		printf("%llu", (unsigned long long)count);
}

static void header(struct profile *prof, const struct gprof_options *opt)
{
	uint64_t total = whole_samples(prof->total_time);

	printf("{\"version\":3,\"creator\":\"sprofil-gprof\",\"executable\":");
	quoted(opt->a_out_name);
	if (counting_events)
		printf(",\"event\":\"%s\",\"event_period\":%llu",
		       spe_event(prof->event_type)->name,
		       (unsigned long long)period_ns);
	else
		printf(",\"hz\":%.6g,\"period_ns\":%llu", prof->hz,
		       (unsigned long long)period_ns);
	printf(",\"total_samples\":%llu", (unsigned long long)total);
	exact_secs("total_seconds", total * period_ns);
	printf(",\"times\":\"%s\"", prof->measured_times ? "measured" : "estimated");
	if (prof->measured_times)
		printf(",\"caller_samples\":{\"complete\":%llu,\"truncated\":%llu,\"lost\":%llu,\"busy\":%llu,\"unknown\":%llu,\"call_counts\":%s}",
		       (unsigned long long)prof->caller_stats.complete,
		       (unsigned long long)prof->caller_stats.truncated,
		       (unsigned long long)prof->caller_stats.lost,
		       (unsigned long long)prof->caller_stats.busy,
		       (unsigned long long)prof->caller_stats.unknown,
		       prof->caller_stats.has_counts ? "true" : "false");
	/* The profiler's own time, in no function (docs/gprof.md). */
	if (prof->overhead_time > 0)
		exact_secs("overhead_seconds",
			   whole_samples(prof->overhead_time) * period_ns);
	if (prof->caller_stats.overhead)
		printf(",\"overhead_caller_samples\":%llu",
		       (unsigned long long)prof->caller_stats.overhead);
	/* Malformed chains dropped when read (docs/gprof.md). */
	if (prof->caller_stats.dropped)
		printf(",\"dropped_caller_samples\":%llu",
		       (unsigned long long)prof->caller_stats.dropped);
}

static void hex(const unsigned char *id, size_t len)
{
	putchar('"');
	while (len--)
		printf("%02x", *id++);
	putchar('"');
}

/*
 * The build-id the profile recorded for the module, else its file's
 * (a GNU gmon.out records none), else null.
 */
static void build_id(const struct module *mod)
{
	const unsigned char *id;
	size_t len;
	Elf *elf;
	int fd;

	if (mod->build_id_len) {
		hex(mod->build_id, mod->build_id_len);
		return;
	}
	fd = mod->path && !mod->is_vdso ? open(mod->path, O_RDONLY | O_CLOEXEC) :
	     -1;
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	if (elf && elf_build_id(elf, &id, &len) && len)
		hex(id, len);
	else
		printf("null");
	elf_end(elf);
	if (fd >= 0)
		close(fd);
}

static void json_modules(struct profile *prof)
{
	unsigned int m;

	printf(",\"modules\":[");
	for (m = 0; m < prof->nmodules; m++) {
		const struct module *mod = &prof->modules[m];

		printf("%s{\"index\":%u,\"name\":", m ? "," : "", m);
		quoted(module_name(prof, m));
		printf(",\"build_id\":");
		build_id(mod);
		printf(",\"read\":%s", mod->why ? "false" : "true");
		if (mod->overhead)
			printf(",\"profiler_overhead\":true");
		else if (mod->why) {
			printf(",\"why\":");
			quoted(mod->why);
		}
		printf("}");
	}
	printf("]");
}

/* With -l the symbols are source lines: a line's function is before it. */
static bool is_line(const struct gprof_options *opt, const struct sym *s)
{
	return opt->line_granularity && !s->is_func;
}

static double flat_ticks(struct profile *prof, const struct sym *s)
{
	(void)prof;
	return s->hist.time;
}

static double graph_ticks(struct profile *prof, const struct sym *s)
{
	(void)prof;
	return s->cg.prop.self;
}

static bool flat_function(struct profile *prof, const struct gprof_options *opt,
			   const struct sym *s)
{
	(void)prof;
	return s->name && !is_line(opt, s);
}

static bool graph_function(struct profile *prof,
			   const struct gprof_options *opt,
			   const struct sym *s)
{
	(void)prof;
	return shown(prof, opt, s) && !is_line(opt, s);
}

static bool named(struct profile *prof, const struct gprof_options *opt,
			   const struct sym *s)
{
	(void)prof;
	(void)opt;
	return s->name;
}

static void json_functions(struct profile *prof,
			   const struct gprof_options *opt)
{
	uint64_t *flat = export_whole(prof, opt, flat_ticks, flat_function,
				      whole_samples(prof->total_time));
	uint64_t *graph = export_whole(prof, opt, graph_ticks, graph_function,
				       whole_samples(graph_total(prof)));
	const char *sep = "";
	size_t i;

	printf(",\"functions\":[");
	for (i = 0; i < prof->symtab.len; i++) {
		struct sym *s = &prof->symtab.base[i];
		char *name;

		if (!shown(prof, opt, s) || is_line(opt, s))
			continue;
		sym_source(prof, opt, s);
		name = display_name(opt, s);
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
		printf(",\"line\":%d", s->line_num);
		samples("self", graph[i]);
		secs(prof, "children_seconds", s->cg.prop.child);
		/* The flat profile's own, and the call graph's %time. */
		samples("flat_self", flat[i]);
		percent("flat_percent", s->hist.time, prof->total_time);
		percent("total_percent", s->cg.prop.self + s->cg.prop.child,
			prof->print_time);
		printf(",\"calls\":");
		json_count(sym_calls_unknown(prof, s), s->ncalls);
		printf(",\"self_calls\":%llu,\"cycle\":%d,\"graph_index\":%d}",
		       (unsigned long long)s->cg.self_calls, s->cg.cyc.num,
		       s->cg.index);
		sep = ",";
	}
	printf("]");
	free(flat);
	free(graph);
}

static void json_arcs(struct profile *prof, const struct gprof_options *opt)
{
	const char *sep = "";
	size_t i;

	printf(",\"arcs\":[");
	for (i = 0; i < prof->symtab.len; i++) {
		struct sym *s = &prof->symtab.base[i];
		struct arc *a;

		if (!shown(prof, opt, s))
			continue;
		for (a = s->cg.children; a; a = a->next_child) {
			if (!shown(prof, opt, a->child))
				continue;
			printf("%s{\"caller\":%zu,\"callee\":%zu,\"count\":",
			       sep, i, (size_t)(a->child - prof->symtab.base));
			json_count(a->uncounted, a->count);
			secs(prof, "self_seconds", a->time);
			secs(prof, "children_seconds", a->child_time);
			printf("}");
			sep = ",";
		}
	}
	printf("]");
}

/*
 * -l: the flat profile of lines, each line's samples as the -l flat
 * profile shows them, and the function it is in ("function", the id of
 * the functions array, or null when no function is listed).
 */
static void json_lines(struct profile *prof, const struct gprof_options *opt)
{
	const char *sep = "";
	long long fid = -1;
	uint64_t *whole;
	size_t i;

	if (!opt->line_granularity)
		return;
	whole = export_whole(prof, opt, flat_ticks, named,
			     whole_samples(prof->total_time));
	printf(",\"lines\":[");
	for (i = 0; i < prof->symtab.len; i++) {
		struct sym *s = &prof->symtab.base[i];

		if (s->is_func)
			fid = shown(prof, opt, s) ? (long long)i : -1;
		if (s->hist.time <= 0)
			continue;
		sym_source(prof, opt, s);
		printf("%s{\"file\":", sep);
		if (s->file)
			quoted(s->file->name);
		else
			printf("null");
		printf(",\"line\":%d,\"module\":%u,\"address\":%llu",
		       s->line_num, s->module,
		       (unsigned long long)ADDR_LINK(s->addr));
		if (fid >= 0)
			printf(",\"function\":%lld", fid);
		else
			printf(",\"function\":null");
		samples("self", whole[i]);
		percent("percent", s->hist.time, prof->total_time);
		printf("}");
		sep = ",";
	}
	printf("]");
	free(whole);
}

/*
 * A per-thread profile's threads (threads.h): their totals, and whether
 * --thread chose them (the functions and arcs are then theirs alone).
 */
static void json_threads(struct profile *prof, const struct gprof_options *opt)
{
	uint32_t t;

	if (!prof->nthreads)
		return;
	if (opt->thread_selection) {
		printf(",\"thread_selection\":");
		quoted(opt->thread_selection);
	}
	printf(",\"threads\":[");
	for (t = 0; t < prof->nthreads; t++) {
		const struct thread_prof *th = &prof->threads[t];

		printf("%s{\"tid\":%u,\"name\":", t ? "," : "", th->tid);
		if (th->name[0])
			quoted(th->name);
		else
			printf("null");
		printf(",\"samples\":%llu,\"truncated\":%llu",
		       (unsigned long long)th->samples,
		       (unsigned long long)th->truncated);
		exact_secs("seconds", th->samples * prof->callers.period_ns);
		if (th->cpu_known)
			printf(",\"cpu_seconds\":%.*f", second_digits,
			       th->cpu_ns / 1e9);
		else
			printf(",\"cpu_seconds\":null");
		printf(",\"selected\":%s}", th->selected ? "true" : "false");
	}
	printf("]");
}

int export_json(struct profile *prof, const struct gprof_options *opt)
{
	uint64_t p;

	period_ns = export_period_ns(prof);
	counting_events = prof->event_type != 0;
	for (p = period_ns, second_digits = 9; p && p % 10 == 0; p /= 10)
		second_digits--;
	/* Events estimated from call counts: rounded to whole ones. */
	if (counting_events)
		second_digits = 0;
	header(prof, opt);
	json_modules(prof);
	json_threads(prof, opt);
	json_functions(prof, opt);
	json_arcs(prof, opt);
	json_lines(prof, opt);
	printf("}\n");
	return 0;
}
