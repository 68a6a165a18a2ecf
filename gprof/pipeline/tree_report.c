// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A process tree's combined report (--combined, `sprofil report DIR/`):
 * the profiles of a recorded tree, or of any programs, at once.
 *
 * Each file is first scanned alone (tree_scan.c): its process, its
 * program, its samples; a file that cannot be read is named and skipped
 * (--strict: an error).  The files of one program, the same build of
 * its executable (build-id, else path), are read together into one
 * profile, as gprof sums several files of one program, through the
 * usual phases (pipeline.c); each program's profile is freed once its
 * functions' samples are taken, so that memory grows with the symbols
 * reported, not with the files.  Printed: the processes as a tree, the
 * programs with their totals, and one flat profile across programs
 * whose functions are qualified by program (and module), `cc1`foo`.
 *
 * --program NAME|PID picks one program's files (every run of it) or one
 * process's, for main.c's usual report with every option.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sprofil/events.h>

#include "export/export.h"
#include "pipeline/tree_report.h"

/* One program: the files of one build of one executable. */
struct tree_prog {
	const char *path;	/* its executable, as recorded */
	const unsigned char *build_id;
	size_t build_id_len;
	char *label;		/* how the reports name it */
	unsigned int nprocs;	/* its files that read */
	uint64_t samples;	/* its histograms' counts, every file's */
	double sample_seconds;	/* the seconds one sample stands for */
	uint64_t reported;	/* its functions' samples (profiler's out) */
};

/* A function of one program, in the combined flat profile. */
struct tree_fn {
	unsigned int prog;
	char *name;		/* qualified: program`[module`]function */
	uint64_t samples;
	double seconds;
};

struct tree {
	const struct gprof_options *opt;
	struct tree_proc *procs;
	size_t nprocs;
	struct tree_prog *progs;
	unsigned int nprogs;
	struct tree_fn *fns;
	size_t nfns, fns_cap;
	unsigned int nbad;
	struct pp *pprof;	/* --export=pprof: the one being made */
	struct tree_files *files;	/* --export=callgrind, dot */
	/* The first program's event (gprof.h): every other's must match. */
	int event_progs;
	uint32_t event_type;
	uint64_t event_period;
	/* Why the report stops (one line), which tree_report() prints. */
	char error[512];
	bool failed;
};

/* A report that cannot start: one line on stderr; the exit status. */
static int tree_error(const struct gprof_options *opt, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int tree_error(const struct gprof_options *opt, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", opt->whoami);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

/* Stops the report for the reason @fmt says; returns -1. */
static int tree_fail(struct tree *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int tree_fail(struct tree *t, const char *fmt, ...)
{
	va_list ap;

	if (t->failed)
		return -1;
	va_start(ap, fmt);
	verrorf(t->error, sizeof(t->error), fmt, ap);
	va_end(ap);
	t->failed = true;
	return -1;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The *.gmon files of directory @dir, sorted, appended to *@list; 0, or
 * -1 when it cannot be read.
 */
static int add_dir(struct tree *t, const char *dir, char ***list, size_t *n,
		   size_t *cap)
{
	DIR *d = opendir(dir);
	size_t first = *n, len;
	struct dirent *de;

	if (!d)
		return tree_fail(t, "%s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		len = strlen(de->d_name);
		if (len <= 5 || strcmp(de->d_name + len - 5, ".gmon"))
			continue;
		if (*n == *cap) {
			*cap = *cap * 2 + 16;
			*list = xreallocarray(*list, *cap, sizeof(**list));
		}
		len = strlen(dir);
		(*list)[*n] = xmalloc(len + strlen(de->d_name) + 2);
		sprintf((*list)[*n], "%s%s%s", dir,
			len && dir[len - 1] == '/' ? "" : "/", de->d_name);
		(*n)++;
	}
	closedir(d);
	if (*n == first)
		fprintf(stderr, "%s: %s: no *.gmon profile in it\n",
			t->opt->whoami, dir);
	qsort(*list + first, *n - first, sizeof(**list), by_name);
	return 0;
}

/* Every operand's files: a directory's *.gmon, else the file. */
static char **expand(struct tree *t, char *const *operands, int n,
		     size_t *count)
{
	char **list = NULL;
	size_t len = 0, cap = 0;
	struct stat st;
	int i;

	for (i = 0; i < n; i++) {
		if (!stat(operands[i], &st) && S_ISDIR(st.st_mode)) {
			if (add_dir(t, operands[i], &list, &len, &cap))
				break;
			continue;
		}
		if (len == cap) {
			cap = cap * 2 + 16;
			list = xreallocarray(list, cap, sizeof(*list));
		}
		list[len++] = xstrdup(operands[i]);
	}
	*count = len;
	return list;
}

static bool same_build(const struct tree_prog *g, const struct tree_proc *p)
{
	if (g->build_id_len || p->build_id_len)
		return g->build_id_len == p->build_id_len &&
		       !memcmp(g->build_id, p->build_id, p->build_id_len);
	return !strcmp(g->path, p->main_path);
}

static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The first bytes of a build-id in hex, or "" without one. */
static void id_hex(char *out, size_t size, const unsigned char *id,
		   size_t len)
{
	size_t i;

	out[0] = '\0';
	for (i = 0; i < len && 2 * i + 2 < size; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
}

/*
 * Sorts the files into programs.  Two builds of one name are labelled
 * apart: name[build-id prefix], or name[path] without build-ids.
 */
static void group(struct tree *t)
{
	unsigned int g, h;
	size_t i;
	char hex[9];

	t->progs = xcalloc(t->nprocs + 1, sizeof(*t->progs));
	for (i = 0; i < t->nprocs; i++) {
		struct tree_proc *p = &t->procs[i];

		if (p->bad)
			continue;
		for (g = 0; g < t->nprogs && !same_build(&t->progs[g], p); g++)
			;
		if (g == t->nprogs) {
			t->progs[g].path = p->main_path;
			t->progs[g].build_id = p->build_id;
			t->progs[g].build_id_len = p->build_id_len;
			t->nprogs++;
		}
		p->program = g;
	}
	for (g = 0; g < t->nprogs; g++) {
		struct tree_prog *pg = &t->progs[g];
		const char *base = base_of(pg->path);
		bool twin = false;

		for (h = 0; h < t->nprogs; h++)
			twin |= h != g && !strcmp(base,
						  base_of(t->progs[h].path));
		if (!twin) {
			pg->label = xstrdup(base);
			continue;
		}
		id_hex(hex, sizeof(hex), pg->build_id, pg->build_id_len);
		pg->label = xmalloc(strlen(base) + strlen(pg->path) + 12);
		sprintf(pg->label, "%s[%s]", base, hex[0] ? hex : pg->path);
	}
}

/*
 * Each process's parent row: the process of its parent pid that started
 * last before it (a pid that exec'd has a row per program).
 */
static void link_parents(struct tree *t)
{
	size_t i, j, k;

	for (i = 0; i < t->nprocs; i++) {
		struct tree_proc *p = &t->procs[i];

		if (p->bad || !p->ppid)
			continue;
		for (j = 0; j < t->nprocs; j++) {
			const struct tree_proc *q = &t->procs[j];

			if (j == i || q->bad || !q->has_pid ||
			    q->pid != p->ppid ||
			    (q->start_ns && p->start_ns &&
			     q->start_ns > p->start_ns))
				continue;
			if (p->parent < 0 ||
			    q->start_ns > t->procs[p->parent].start_ns)
				p->parent = (int)j;
		}
	}
	/*
	 * Without start times a reused pid can make a loop of parents,
	 * which no root reaches: such a process is shown as a root.
	 */
	for (i = 0; i < t->nprocs; i++) {
		int j = t->procs[i].parent;

		for (k = 0; j >= 0 && k <= t->nprocs; k++)
			j = t->procs[j].parent;
		if (j >= 0)
			t->procs[i].parent = -1;
	}
}

/* A file that does not read: skipped, or with --strict the end (-1). */
static int bad_file(struct tree *t, const char *path, const char *why)
{
	t->nbad++;
	if (t->opt->strict)
		return tree_fail(t, "%s: %s (--strict: no report)", path,
				 why);
	fprintf(stderr, "%s: %s: %s; skipped\n", t->opt->whoami, path, why);
	return 0;
}

static bool flat_fn(struct profile *prof, const struct gprof_options *opt,
		    const struct sym *s)
{
	(void)opt;
	return s->name && s->is_func && !prof->modules[s->module].overhead;
}

static double flat_ticks(struct profile *prof, const struct sym *s)
{
	return prof->gmon_input & INPUT_HISTOGRAM ? s->hist.time :
						    self_ticks(prof, s);
}

/* The program's functions with samples, into the combined profile. */
static void take_functions(struct tree *t, unsigned int g,
			   struct profile *prof)
{
	struct tree_prog *pg = &t->progs[g];
	double total = prof->gmon_input & INPUT_HISTOGRAM ?
		       prof->total_time : graph_total(prof);
	uint64_t *whole = export_whole(prof, t->opt, flat_ticks, flat_fn,
				       whole_samples(total));
	size_t i;

	for (i = 0; i < prof->symtab.len; i++) {
		const struct sym *s = &prof->symtab.base[i];
		struct tree_fn *f;
		char *name;

		if (!whole[i])
			continue;
		if (t->nfns == t->fns_cap) {
			t->fns_cap = t->fns_cap * 2 + 64;
			t->fns = xreallocarray(t->fns, t->fns_cap,
					       sizeof(*t->fns));
		}
		f = &t->fns[t->nfns++];
		name = display_name(t->opt, s);
		f->name = xmalloc(strlen(pg->label) + strlen(name) +
				  strlen(module_basename(&prof->modules[s->module])) +
				  3);
		if (s->module && !prof->modules[s->module].absolute)
			sprintf(f->name, "%s`%s`%s", pg->label,
				module_basename(&prof->modules[s->module]),
				name);
		else
			sprintf(f->name, "%s`%s", pg->label, name);
		free(name);
		f->prog = g;
		f->samples = whole[i];
		f->seconds = whole[i] * pg->sample_seconds;
		pg->reported += whole[i];
	}
	free(whole);
}

/*
 * The combined exports of @prof, program @g's: all its processes, or
 * process @p alone (NULL: several), whose pid the stacks' root (folded)
 * and the samples' labels (pprof) then carry.
 */
static void export_program(struct tree *t, unsigned int g,
			   struct profile *prof, const struct tree_proc *p)
{
	const char *label = t->progs[g].label;
	char *root;

	if (!t->opt->export_format || !t->progs[g].reported ||
	    (t->opt->per_process && !p->samples))
		return;
	if (!strcmp(t->opt->export_format, "folded")) {
		if (t->opt->per_process && p) {
			root = xmalloc(strlen(label) + 16);
			sprintf(root, "%s;%u", label, p->pid);
			export_folded_rooted(prof, t->opt, root);
			free(root);
		} else {
			export_folded_rooted(prof, t->opt, label);
		}
	}
	/* A program of several processes has their sum: no pid. */
	if (t->pprof)
		pprof_add(t->pprof, prof, t->opt, label, p ? p->pid : 0);
	if (t->files) {
		struct gprof_options o = *t->opt;

		/* callgrind's "cmd:" */
		o.a_out_name = t->progs[g].path;
		if (tree_files_write(t->files, label, prof, &o, t->error,
				     sizeof(t->error)))
			t->failed = true;
	}
}

/* Reads @files (@n) of program @g into @prof: 0, or -1 and prof->error. */
static int read_program(struct tree *t, unsigned int g, struct profile *prof,
			char **files, int n)
{
	struct gprof_options o = *t->opt;
	bool counted;

	o.a_out_name = t->progs[g].path;
	o.program = NULL;
	profile_init(prof);
	if (profile_read(prof, &o, (const char *const *)files, n) ||
	    profile_prepare(prof, &o, &counted))
		return -1;
	/* The folded stacks want the call graph's chains; else the flat. */
	if ((prof->gmon_input & INPUT_HISTOGRAM) && !o.export_format)
		hist_assign_samples(prof);
	else
		free(profile_analyze(prof, &o, counted));
	return 0;
}

/*
 * Program @g: its files read together; when they fail, each alone, to
 * name and skip the bad ones, then the rest together again.
 */
static void analyze_program(struct tree *t, unsigned int g)
{
	struct tree_prog *pg = &t->progs[g];
	char **files = xcalloc(t->nprocs + 1, sizeof(*files));
	struct profile prof;
	char is[64], was[64];
	unsigned int k;
	size_t i, *rows = xcalloc(t->nprocs + 1, sizeof(*rows));
	int n = 0, m;

	for (i = 0; i < t->nprocs; i++)
		if (!t->procs[i].bad && t->procs[i].program == g) {
			rows[n] = i;
			files[n++] = t->procs[i].path;
		}
	if (read_program(t, g, &prof, files, n)) {
		profile_free(&prof);
		for (m = 0, k = 0; k < (unsigned int)n; k++) {
			struct tree_proc *p = &t->procs[rows[k]];

			if (read_program(t, g, &prof, &files[k], 1)) {
				const char *why = prof.error;
				size_t l = strlen(p->path);

				/* The reader's errors may name the file. */
				if (!strncmp(why, p->path, l) &&
				    !strncmp(why + l, ": ", 2))
					why += l + 2;
				p->bad = xstrdup(why);
				bad_file(t, p->path, why);
			} else {
				rows[m] = rows[k];
				files[m++] = files[k];
			}
			profile_free(&prof);
		}
		n = m;
		if (t->failed)
			n = 0;
		if (n && read_program(t, g, &prof, files, n)) {
			if (t->opt->strict)
				tree_fail(t, "%s: its %d profiles do not read together: %s (--strict: no report)",
					  pg->label, n, prof.error);
			else
				fprintf(stderr, "%s: %s: its %d profiles do not read together: %s; skipped\n",
					t->opt->whoami, pg->label, n,
					prof.error);
			for (k = 0; k < (unsigned int)n; k++)
				t->procs[rows[k]].bad = xstrdup(prof.error);
			n = 0;
		}
	}
	/* Samples of different events are not one quantity: no sum. */
	if (n && t->event_progs++ &&
	    (prof.event_type != t->event_type ||
	     prof.event_period != t->event_period)) {
		spe_describe(is, sizeof(is), prof.event_type,
			     prof.event_period);
		spe_describe(was, sizeof(was), t->event_type,
			     t->event_period);
		tree_fail(t, "%s: sampled on %s, not on %s as the programs before it: samples of different events cannot be summed",
			  pg->label, is, was);
		n = 0;
	}
	if (n) {
		t->event_type = prof.event_type;
		t->event_period = prof.event_period;
		pg->nprocs = n;
		pg->sample_seconds = prof.hz > 0 ? 1.0 / prof.hz : 0;
		for (k = 0; k < prof.num_hist_records; k++) {
			const struct hist_record *r = &prof.hist_records[k];
			uint64_t b;

			for (b = 0; b < r->num_bins; b++)
				pg->samples += r->sample[b];
		}
		take_functions(t, g, &prof);
		if (!t->opt->per_process)
			export_program(t, g, &prof,
				       n == 1 ? &t->procs[rows[0]] : NULL);
		for (k = 0; k < (unsigned int)n; k++)
			if (!t->procs[rows[k]].gnu)
				tree_scan_top(&t->procs[rows[k]], &prof,
					      t->opt);
	}
	profile_free(&prof);
	/*
	 * GNU files, which the codec does not read, and every file for
	 * --per-process: each alone, as read.
	 */
	for (k = 0; k < (unsigned int)n; k++) {
		struct tree_proc *p = &t->procs[rows[k]];

		if (!p->gnu && !t->opt->per_process)
			continue;
		if (!read_program(t, g, &prof, &files[k], 1)) {
			if (p->gnu)
				tree_scan_alone(p, &prof, t->opt);
			if (t->opt->per_process)
				export_program(t, g, &prof, p);
		}
		profile_free(&prof);
	}
	free(files);
	free(rows);
}

static int by_start(const void *a, const void *b)
{
	const struct tree_proc *p = a, *q = b;

	if (p->start_ns != q->start_ns)
		return p->start_ns < q->start_ns ? -1 : 1;
	if (p->pid != q->pid)
		return p->pid < q->pid ? -1 : 1;
	return strcmp(p->path, q->path);
}

static void print_proc(struct tree *t, size_t i, unsigned int depth)
{
	const struct tree_proc *p = &t->procs[i];
	char pid[64], ppid[16], cpu[32];
	size_t j;

	/* Deeper than 20 levels, the indentation stops growing. */
	if (p->has_pid)
		snprintf(pid, sizeof(pid), "%*s%u",
			 (int)(2 * (depth < 20 ? depth : 20)), "", p->pid);
	else
		snprintf(pid, sizeof(pid), "%*s?",
			 (int)(2 * (depth < 20 ? depth : 20)), "");
	snprintf(ppid, sizeof(ppid), p->ppid ? "%u" : "-", p->ppid);
	snprintf(cpu, sizeof(cpu), p->cpu_known ? "%.2f" : "-",
		 p->cpu_ns / 1e9);
	printf("%-16s %8s  %-20s %9llu %8s  %s\n", pid, ppid,
	       t->progs[p->program].label, (unsigned long long)p->samples,
	       cpu, p->top ? p->top : "-");
	for (j = 0; j < t->nprocs; j++)
		if (t->procs[j].parent == (int)i && !t->procs[j].bad)
			print_proc(t, j, depth + 1);
}

static void print_tree(struct tree *t)
{
	size_t i, good = 0;

	for (i = 0; i < t->nprocs; i++)
		good += !t->procs[i].bad;
	printf("Processes: %zu profiles of %u program%s, as a tree (a child under its parent)\n\n",
	       good, t->nprogs, t->nprogs == 1 ? "" : "s");
	printf("%-16s %8s  %-20s %9s %8s  %s\n", "pid", "parent", "program",
	       "samples", "cpu s", "top function");
	for (i = 0; i < t->nprocs; i++)
		if (!t->procs[i].bad && t->procs[i].parent < 0)
			print_proc(t, i, 0);
}

static void print_programs(struct tree *t)
{
	uint64_t all = 0;
	unsigned int g;
	char hex[41];

	for (g = 0; g < t->nprogs; g++)
		all += t->progs[g].reported;
	printf("\nPrograms: samples of each program's processes summed\n\n");
	printf("%9s %9s %9s %6s %9s  %-20s %s\n", "samples",
	       t->event_type ? spe_event(t->event_type)->column : "seconds",
	       "functions", "%time", "processes", "program",
	       "executable, build-id");
	for (g = 0; g < t->nprogs; g++) {
		const struct tree_prog *pg = &t->progs[g];

		if (!pg->nprocs)
			continue;
		id_hex(hex, sizeof(hex), pg->build_id, pg->build_id_len);
		printf("%9llu %9.2f %9llu %6.2f %9u  %-20s %s %s\n",
		       (unsigned long long)pg->samples,
		       pg->samples * pg->sample_seconds,
		       (unsigned long long)pg->reported,
		       all ? 100.0 * pg->reported / all : 0.0, pg->nprocs,
		       pg->label, pg->path, hex[0] ? hex : "-");
	}
	printf("\n\"samples\" counts every sample of the program's processes; \"functions\",\n"
	       "those of its functions below (the profiler's own left out).\n");
}

static int by_samples(const void *a, const void *b)
{
	const struct tree_fn *f = a, *g = b;

	if (f->seconds != g->seconds)
		return f->seconds > g->seconds ? -1 : 1;
	return strcmp(f->name, g->name);
}

static void print_flat(struct tree *t)
{
	double all = 0, cum = 0;
	size_t i;

	for (i = 0; i < t->nfns; i++)
		all += t->fns[i].seconds;
	qsort(t->fns, t->nfns, sizeof(*t->fns), by_samples);
	printf("\nCombined flat profile, every program:\n\n");
	printf("  %%   cumulative   self\n");
	printf(" time   seconds   seconds   samples  program`function\n");
	for (i = 0; i < t->nfns; i++) {
		const struct tree_fn *f = &t->fns[i];

		cum += f->seconds;
		printf("%6.2f %9.2f %9.2f %9llu  %s\n",
		       all > 0 ? 100 * f->seconds / all : 0.0, cum,
		       f->seconds, (unsigned long long)f->samples, f->name);
	}
}

/* The hex of a build-id, quoted, or null. */
static void json_id(const unsigned char *id, size_t len)
{
	size_t i;

	if (!len) {
		printf("null");
		return;
	}
	putchar('"');
	for (i = 0; i < len; i++)
		printf("%02x", id[i]);
	putchar('"');
}

/*
 * --export=json: the three tables as one object, exact: samples as
 * integers, seconds to the nanosecond, each process's parent by row.
 */
static void print_json(struct tree *t)
{
	const char *sep = "";
	unsigned int g;
	size_t i;

	printf("{\"processes\":[");
	for (i = 0; i < t->nprocs; i++) {
		const struct tree_proc *p = &t->procs[i];

		if (p->bad)
			continue;
		printf("%s\n{\"row\":%zu,\"pid\":%u,\"ppid\":%u,\"parent_row\":%d,\"program\":",
		       sep, i, p->pid, p->ppid, p->parent);
		quoted(t->progs[p->program].label);
		printf(",\"file\":");
		quoted(p->path);
		printf(",\"samples\":%llu,\"cpu_ns\":",
		       (unsigned long long)p->samples);
		if (p->cpu_known)
			printf("%llu", (unsigned long long)p->cpu_ns);
		else
			printf("null");
		printf(",\"start_ns\":%llu,\"top\":",
		       (unsigned long long)p->start_ns);
		if (p->top)
			quoted(p->top);
		else
			printf("null");
		printf(",\"top_samples\":%llu}",
		       (unsigned long long)p->top_samples);
		sep = ",";
	}
	printf("\n],\"programs\":[");
	for (sep = "", g = 0; g < t->nprogs; g++) {
		const struct tree_prog *pg = &t->progs[g];

		if (!pg->nprocs)
			continue;
		printf("%s\n{\"program\":", sep);
		quoted(pg->label);
		printf(",\"path\":");
		quoted(pg->path);
		printf(",\"build_id\":");
		json_id(pg->build_id, pg->build_id_len);
		printf(",\"processes\":%u,\"samples\":%llu,\"function_samples\":%llu,\"sample_ns\":%.0f}",
		       pg->nprocs, (unsigned long long)pg->samples,
		       (unsigned long long)pg->reported,
		       pg->sample_seconds * 1e9);
		sep = ",";
	}
	printf("\n],\"functions\":[");
	for (sep = "", i = 0; i < t->nfns; i++) {
		const struct tree_fn *f = &t->fns[i];

		printf("%s\n{\"name\":", sep);
		quoted(f->name);
		printf(",\"program\":");
		quoted(t->progs[f->prog].label);
		printf(",\"samples\":%llu,\"seconds\":%.9f}",
		       (unsigned long long)f->samples, f->seconds);
		sep = ",";
	}
	printf("\n]}\n");
}

/*
 * Whether program @g is --program's @name (its name, path, label or a
 * build-id prefix) and, when @pid, ran as process @pid.
 */
static bool program_is(const struct tree *t, unsigned int g, const char *name,
		       size_t name_len, bool by_pid, unsigned long pid)
{
	const struct tree_prog *pg = &t->progs[g];
	const char *base = base_of(pg->path);
	char hex[41];
	size_t i;
	bool ran = !by_pid;

	for (i = 0; !ran && i < t->nprocs; i++)
		ran = !t->procs[i].bad && t->procs[i].program == g &&
		      t->procs[i].pid == pid;
	if (!ran || !name_len)
		return ran;
	id_hex(hex, sizeof(hex), pg->build_id, pg->build_id_len);
	return (strlen(base) == name_len && !strncmp(base, name, name_len)) ||
	       (strlen(pg->path) == name_len &&
		!strncmp(pg->path, name, name_len)) ||
	       (strlen(pg->label) == name_len &&
		!strncmp(pg->label, name, name_len)) ||
	       (name_len >= 4 && !strncmp(name, hex, name_len));
}

/*
 * --program NAME, PID or NAME@PID: the files of that program (every
 * run of that build), or of that process; a choice of several is named,
 * not guessed.
 */
static int select_program(struct tree *t, struct tree_selection *sel)
{
	const char *want = t->opt->program, *at = strrchr(want, '@');
	const char *digits = at ? at + 1 : want;
	size_t name_len = at ? (size_t)(at - want) : strlen(want);
	char *end, hex[41];
	unsigned long pid = strtoul(digits, &end, 10);
	bool by_pid = *digits && !*end && *digits != '-';
	unsigned int g, found = UINT_MAX, matches = 0;
	size_t i;

	if (at && !by_pid)
		return tree_fail(t, "--program=%s: NAME@PID wants a pid after the @",
				 want);
	if (!at && by_pid)
		name_len = 0;
	for (g = 0; g < t->nprogs; g++)
		if (program_is(t, g, want, name_len, by_pid, pid)) {
			matches++;
			found = g;
		}
	/* All digits and no such pid: a build-id prefix (or a name) then. */
	if (!matches && !at && by_pid) {
		by_pid = false;
		name_len = strlen(want);
		for (g = 0; g < t->nprogs; g++)
			if (program_is(t, g, want, name_len, false, 0)) {
				matches++;
				found = g;
			}
	}
	if (!matches)
		return tree_fail(t, "--program=%s: no %s among the profiles",
				 want, by_pid ? "process of that pid" :
				 "program of that name");
	if (matches > 1) {
		fprintf(stderr, "%s: --program=%s is %u programs%s; name one by path or build-id%s:\n",
			t->opt->whoami, want, matches,
			by_pid ? " (the process exec'd)" : "",
			by_pid ? ", with @PID" : "");
		for (g = 0; g < t->nprogs; g++) {
			if (!program_is(t, g, want, name_len, by_pid, pid))
				continue;
			id_hex(hex, sizeof(hex), t->progs[g].build_id,
			       t->progs[g].build_id_len);
			fprintf(stderr, "  %s  %s  build-id %s\n",
				t->progs[g].label, t->progs[g].path,
				hex[0] ? hex : "-");
		}
		return 1;
	}
	sel->files = xcalloc(t->nprocs + 1, sizeof(*sel->files));
	for (i = 0; i < t->nprocs; i++)
		if (!t->procs[i].bad && t->procs[i].program == found &&
		    (!by_pid || t->procs[i].pid == pid))
			sel->files[sel->nfiles++] = xstrdup(t->procs[i].path);
	sel->a_out = xstrdup(t->progs[found].path);
	return -1;
}

int tree_report(const struct gprof_options *opt, char *const *operands,
		int n, struct tree_selection *sel)
{
	struct tree t = { .opt = opt };
	struct tree_files files_out;
	char **files;
	size_t i;
	unsigned int g;
	int status = 0;

	memset(sel, 0, sizeof(*sel));
	if (!n)
		return tree_error(opt, "--combined: name the profiles, or their directory");
	if (opt->export_format && !opt->program && !opt->output_dir &&
	    strcmp(opt->export_format, "folded") &&
	    strcmp(opt->export_format, "json") &&
	    strcmp(opt->export_format, "pprof"))
		return tree_error(opt, "--export=%s of several programs is %s",
				  opt->export_format,
				  !strcmp(opt->export_format, "callgrind") ||
				  !strcmp(opt->export_format, "dot") ?
				  "a file per program: add --output-dir=DIR (one program's on stdout: --program=NAME|PID)" :
				  "not made: the flame graph of a tree is drawn from --export=folded (rooted per program) by flamegraph.pl; one program's: add --program=NAME|PID");
	files = expand(&t, operands, n, &t.nprocs);
	t.procs = xcalloc(t.nprocs + 1, sizeof(*t.procs));
	for (i = 0; i < t.nprocs; i++) {
		if (!t.failed) {
			tree_scan(&t.procs[i], files[i]);
			if (t.procs[i].bad)
				bad_file(&t, files[i], t.procs[i].bad);
		}
		free(files[i]);
	}
	free(files);
	if (!t.failed) {
		qsort(t.procs, t.nprocs, sizeof(*t.procs), by_start);
		group(&t);
		if (!t.nprogs)
			tree_fail(&t, "no profile of the %zu named could be read",
				  t.nprocs);
	}
	if (t.failed) {
		/* Said below. */
	} else if (opt->program) {
		status = select_program(&t, sel);
	} else {
		if (opt->export_format && !strcmp(opt->export_format, "pprof") &&
		    !(t.pprof = pprof_begin(t.error, sizeof(t.error))))
			t.failed = true;
		if (opt->output_dir && !t.failed) {
			if (tree_files_begin(&files_out, opt, t.error,
					     sizeof(t.error)))
				t.failed = true;
			else
				t.files = &files_out;
		}
		for (g = 0; g < t.nprogs && !t.failed; g++)
			analyze_program(&t, g);
		if (t.files && tree_files_end(t.files, !t.failed, t.error,
					      sizeof(t.error)))
			t.failed = true;
		if (t.pprof && t.failed)
			pprof_free(t.pprof);
		else if (t.pprof && pprof_end(t.pprof, opt, t.error,
					      sizeof(t.error)))
			t.failed = true;
		if (!t.failed) {
			link_parents(&t);
			if (!opt->export_format) {
				print_tree(&t);
				print_programs(&t);
				print_flat(&t);
			} else if (!strcmp(opt->export_format, "json")) {
				qsort(t.fns, t.nfns, sizeof(*t.fns),
				      by_samples);
				print_json(&t);
			}
			if (fflush(stdout) || ferror(stdout))
				tree_fail(&t, "standard output: %s",
					  strerror(errno));
		}
	}
	if (t.failed) {
		fflush(stdout);
		fprintf(stderr, "%s: %s\n", opt->whoami, t.error);
		status = 1;
	}
	for (i = 0; i < t.nfns; i++)
		free(t.fns[i].name);
	free(t.fns);
	for (g = 0; g < t.nprogs; g++) {
		free(t.progs[g].label);
	}
	free(t.progs);
	for (i = 0; i < t.nprocs; i++)
		tree_proc_free(&t.procs[i]);
	free(t.procs);
	return status;
}

void tree_selection_free(struct tree_selection *sel)
{
	int i;

	for (i = 0; i < sel->nfiles; i++)
		free(sel->files[i]);
	free(sel->files);
	free(sel->a_out);
}
