// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --export=json: every function with time or calls, every arc, every
 * module, with the numbers of the flat profile and the call graph; with
 * -l also every source line with samples.  docs/exports.md has the
 * schema.
 *
 * Numbers are printed as the text reports round them: seconds with two
 * decimals, more when the sampling period is finer than 10 ms, so that
 * one sample is never rounded away (5.636 s, not 5.6360000000000001);
 * percentages with two decimals.
 */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export.h"
#include "threads.h"

/* Decimals of a second that show one sample: 2 at 100 Hz, 3 at 1 kHz. */
static int second_digits;

static void secs(const char *key, double ticks)
{
	printf(",\"%s\":%.*f", key, second_digits,
	       hz > 0 ? ticks / hz : 0.0);
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

static void header(void)
{
	printf("{\"version\":2,\"creator\":\"sprofil-gprof\",\"executable\":");
	quoted(a_out_name);
	printf(",\"hz\":%.6g", hz);
	secs("total_seconds", total_time);
	printf(",\"times\":\"%s\"", measured_times ? "measured" : "estimated");
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
		secs("overhead_seconds", overhead_time);
	if (caller_stats.overhead)
		printf(",\"overhead_caller_samples\":%llu",
		       (unsigned long long)caller_stats.overhead);
	/* Malformed chains dropped when read (docs/gprof.md). */
	if (caller_stats.dropped)
		printf(",\"dropped_caller_samples\":%llu",
		       (unsigned long long)caller_stats.dropped);
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

static void json_modules(void)
{
	unsigned int m;

	printf(",\"modules\":[");
	for (m = 0; m < nmodules; m++) {
		const struct module *mod = &modules[m];

		printf("%s{\"index\":%u,\"name\":", m ? "," : "", m);
		quoted(module_name(m));
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
static bool is_line(const struct sym *s)
{
	return line_granularity && !s->is_func;
}

static void json_functions(void)
{
	const char *sep = "";
	size_t i;

	printf(",\"functions\":[");
	for (i = 0; i < symtab.len; i++) {
		struct sym *s = &symtab.base[i];
		char *name;

		if (!shown(s) || is_line(s))
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
		printf(",\"line\":%d", s->line_num);
		secs("self_seconds", s->cg.prop.self);
		secs("children_seconds", s->cg.prop.child);
		/* The flat profile's own, and the call graph's %time. */
		secs("flat_self_seconds", s->hist.time);
		percent("flat_percent", s->hist.time, total_time);
		percent("total_percent", s->cg.prop.self + s->cg.prop.child,
			print_time);
		printf(",\"calls\":");
		json_count(sym_calls_unknown(s), s->ncalls);
		printf(",\"self_calls\":%llu,\"cycle\":%d,\"graph_index\":%d}",
		       (unsigned long long)s->cg.self_calls, s->cg.cyc.num,
		       s->cg.index);
		sep = ",";
	}
	printf("]");
}

static void json_arcs(void)
{
	const char *sep = "";
	size_t i;

	printf(",\"arcs\":[");
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
			secs("self_seconds", a->time);
			secs("children_seconds", a->child_time);
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
static void json_lines(void)
{
	const char *sep = "";
	long long fid = -1;
	size_t i;

	if (!line_granularity)
		return;
	printf(",\"lines\":[");
	for (i = 0; i < symtab.len; i++) {
		struct sym *s = &symtab.base[i];

		if (s->is_func)
			fid = shown(s) ? (long long)i : -1;
		if (s->hist.time <= 0)
			continue;
		sym_source(s);
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
		secs("self_seconds", s->hist.time);
		percent("percent", s->hist.time, total_time);
		printf("}");
		sep = ",";
	}
	printf("]");
}

/*
 * A per-thread profile's threads (threads.h): their totals, and whether
 * --thread chose them (the functions and arcs are then theirs alone).
 */
static void json_threads(void)
{
	double period = callers.period_ns / 1e9;
	uint32_t t;

	if (!nthreads)
		return;
	if (thread_selection) {
		printf(",\"thread_selection\":");
		quoted(thread_selection);
	}
	printf(",\"threads\":[");
	for (t = 0; t < nthreads; t++) {
		const struct thread_prof *th = &threads[t];

		printf("%s{\"tid\":%u,\"name\":", t ? "," : "", th->tid);
		if (th->name[0])
			quoted(th->name);
		else
			printf("null");
		printf(",\"samples\":%llu,\"truncated\":%llu,\"seconds\":%.*f",
		       (unsigned long long)th->samples,
		       (unsigned long long)th->truncated, second_digits,
		       th->samples * period);
		if (th->cpu_known)
			printf(",\"cpu_seconds\":%.*f", second_digits,
			       th->cpu_ns / 1e9);
		else
			printf(",\"cpu_seconds\":null");
		printf(",\"selected\":%s}", th->selected ? "true" : "false");
	}
	printf("]");
}

void export_json(void)
{
	second_digits = hz > 100 ? (int)ceil(log10(hz) - 1e-9) : 2;
	if (second_digits > 9)
		second_digits = 9;
	header();
	json_modules();
	json_threads();
	json_functions();
	json_arcs();
	json_lines();
	printf("}\n");
}
