// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Basic-block counts (tag 2 records), -C execution counts and -A
 * annotated source listings, with GNU gprof's output to the byte.
 *
 * A symbol's execution count is its call count (functions) plus the
 * counts of up to NBBS basic blocks filed into it (with -l, line
 * symbols).  -A prints each source file with a 16-column count before
 * each line that starts a symbol, then the file's "Top N Lines" and
 * "Execution Summary".  Sorting uses the C library's qsort with GNU's
 * comparators, which are not total orders, on the same input order, so
 * that ties come out as GNU's do.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

/* ---- -C: execution counts ---- */

/* The table test GNU applies to -C and -A symbols. */
static bool sym_selected(struct profile *prof, const struct sym *s,
			 enum table_id incl,
			 enum table_id excl)
{
	if (sym_lookup(&prof->syms[incl], s->addr))
		return true;
	return !prof->syms[incl].len && !sym_lookup(&prof->syms[excl], s->addr);
}

/* By file name, then line, then address; GNU's cmp_bb. */
static int cmp_bb(const void *lp, const void *rp)
{
	const struct sym *l = *(struct sym *const *)lp;
	const struct sym *r = *(struct sym *const *)rp;

	if (l->file && r->file) {
		/* libiberty's filename_cmp is strcmp on POSIX hosts. */
		int c = strcmp(l->file->name, r->file->name);

		if (c)
			return c;
		if (l->line_num != r->line_num)
			return l->line_num - r->line_num;
	}
	if (l->addr != r->addr)
		return l->addr < r->addr ? -1 : 1;
	return 0;
}

static void print_exec_line(const struct sym *s, uint64_t addr,
			    uint64_t count)
{
	printf("%s:%d: (%s:0x%" PRIx64 ") %" PRIu64 " executions\n",
	       s->file ? s->file->name : "<unknown>", s->line_num, s->name,
	       addr, count);
}

void print_exec_counts(struct profile *prof, const struct gprof_options *opt)
{
	struct sym **v;
	size_t n = 0, k;
	int i;

	if (prof->first_output)
		prof->first_output = false;
	else
		printf("\f\n");

	v = xmalloc((prof->symtab.len ? prof->symtab.len : 1) * sizeof(*v));
	for (k = 0; k < prof->symtab.len; k++) {
		struct sym *s = &prof->symtab.base[k];

		if (sym_selected(prof, s, INCL_EXEC, EXCL_EXEC)) {
			sym_source(prof, opt, s);
			v[n++] = s;
		}
	}
	qsort(v, n, sizeof(*v), cmp_bb);

	for (k = 0; k < n; k++) {
		const struct sym *s = v[k];

		if (s->ncalls > 0 || !opt->ignore_zeros)
			print_exec_line(s, s->addr, s->ncalls);
		for (i = 0; i < NBBS && sym_bb_addr(s, i); i++)
			if (sym_bb_calls(s, i) > 0 || !opt->ignore_zeros)
				print_exec_line(s, sym_bb_addr(s, i),
						sym_bb_calls(s, i));
	}
	free(v);
}

/* ---- -A: source search path and annotated listings ---- */

struct search_dir {
	struct search_dir *next;
	char path[];
};

static struct search_dir *search_head, **search_tail = &search_head;

void source_search_append(const char *dirs)
{
	const char *p = dirs, *colon;

	/* Every component counts, empty ones too, as in GNU. */
	for (;;) {
		size_t len;
		struct search_dir *d;

		colon = strchr(p, ':');
		len = colon ? (size_t)(colon - p) : strlen(p);
		d = xmalloc(sizeof(*d) + len + 1);
		memcpy(d->path, p, len);
		d->path[len] = '\0';
		d->next = NULL;
		*search_tail = d;
		search_tail = &d->next;
		if (!colon)
			break;
		p = colon + 1;
	}
}

static const char *last_component(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * Opens @sf's source as GNU does: its own name first (relative to the
 * working directory), then each search directory with that name (unless
 * absolute), then each search directory with the last component only.
 */
static FILE *open_source(const struct gprof_options *opt,
			 const struct source_file *sf)
{
	const struct search_dir *d = sf->name[0] == '/' ? NULL : search_head;
	const char *tail = NULL;
	char *path;
	FILE *f;

	f = fopen(sf->name, "rb");
	while (!f) {
		if (!d && !tail) {
			tail = strrchr(sf->name, '/');
			if (tail) {
				tail++;
				d = search_head;
			}
		}
		if (!d) {
			if (errno == ENOENT)
				fprintf(stderr, "%s: could not locate `%s'\n",
					opt->whoami, sf->name);
			else
				perror(sf->name);
			return NULL;
		}
		path = xmalloc(strlen(d->path) + 2 +
			       strlen(tail ? tail : sf->name));
		sprintf(path, "%s/%s", d->path, tail ? tail : sf->name);
		f = fopen(path, "rb");
		free(path);
		d = d->next;
	}
	return f;
}

static void annotate_with_count(const struct gprof_options *opt, char *buf,
				unsigned int width, int line_num,
				const struct source_file *sf);

/*
 * Copies @sf's source to stdout, or with -y to "<name>-ann" in the
 * working directory, with a @width-column count before each line.
 * Returns the output stream (to be closed if not stdout), or NULL.
 */
static FILE *annotate_source(struct profile *prof,
			     const struct gprof_options *opt,
			     const struct source_file *sf, unsigned int width)
{
	static bool first_file = true;
	char buf[8192], *annotation;
	bool new_line = true;
	int line_num = 1;
	size_t nread, i;
	FILE *in, *out = stdout;

	in = open_source(opt, sf);
	if (!in)
		return NULL;

	if (opt->create_annotation_files) {
		const char *base = last_component(sf->name);
		char *name = xmalloc(strlen(base) + sizeof("-ann"));

		sprintf(name, "%s-ann", base);
		out = fopen(name, "w");
		if (!out) {
			perror(name);
			free(name);
			fclose(in);
			return NULL;
		}
		free(name);
	}

	/* On stdout, a header names each file. */
	if (out == stdout) {
		if (first_file)
			first_file = false;
		else
			fputc('\n', out);
		if (prof->first_output)
			prof->first_output = false;
		else
			fprintf(out, "\f\n");
		fprintf(out, "*** File %s:\n", sf->name);
	}

	annotation = xmalloc(width + 1);
	while ((nread = fread(buf, 1, sizeof(buf), in)) > 0) {
		for (i = 0; i < nread; i++) {
			if (new_line) {
				annotate_with_count(opt, annotation, width,
						    line_num++, sf);
				fputs(annotation, out);
			}
			new_line = buf[i] == '\n';
			fputc(buf[i], out);
		}
	}
	free(annotation);
	fclose(in);
	return out;
}

/* Statistics of the file being annotated, as GNU keeps them. */
static long num_executable_lines;
static long num_lines_executed;
/* The count last seen; -x carries it over lines (and over files). */
static uint64_t last_count;

static void blank(char *buf, unsigned int width)
{
	memset(buf, ' ', width);
	buf[width] = '\0';
}

/*
 * The count column of line @line_num: the function's calls on its entry
 * line, each block's count on the line the block starts; -x also carries
 * the last count onto lines without blocks and squeezes out repeats.
 */
static void annotate_with_count(const struct gprof_options *opt, char *buf,
				unsigned int width, int line_num,
				const struct source_file *sf)
{
	char tmp[NBBS * 30], *p = tmp;
	uint64_t ncalls = 0, last_print = UINT64_MAX;
	bool ncalls_set = false;
	struct sym *b = NULL;
	unsigned int len;
	int i;

	if (line_num <= sf->num_lines)
		b = sf->line[line_num - 1];
	if (!b) {
		blank(buf, width);
		return;
	}
	num_executable_lines++;
	*p = '\0';

	if (b->is_func) {
		p += sprintf(p, "%" PRIu64, b->ncalls);
		last_count = b->ncalls;
		last_print = last_count;
		ncalls = b->ncalls;
		ncalls_set = true;
	} else if (opt->bb_annotate_all_lines && sym_bb_addr(b, 0) &&
		   sym_bb_addr(b, 0) > b->addr) {
		/* The line starts inside the previous line's block. */
		p += sprintf(p, "%" PRIu64, last_count);
		last_print = last_count;
		ncalls = last_count;
		ncalls_set = true;
	}

	for (i = 0; i < NBBS && sym_bb_addr(b, i); i++) {
		last_count = sym_bb_calls(b, i);
		if (!ncalls_set) {
			ncalls = 0;
			ncalls_set = true;
		}
		ncalls += last_count;
		if (opt->bb_annotate_all_lines && last_count == last_print)
			continue;
		if (p > tmp)
			*p++ = ',';
		p += sprintf(p, "%" PRIu64, last_count);
		last_print = last_count;
	}

	if (opt->bb_annotate_all_lines && p == tmp) {
		p += sprintf(p, "%" PRIu64, last_count);
		ncalls = last_count;
		ncalls_set = true;
	}

	if (!ncalls_set) {
		blank(buf, width);
		return;
	}
	num_lines_executed++;

	if (ncalls < opt->bb_min_calls) {
		strcpy(tmp, "#####");
		p = tmp + 5;
	}
	strcpy(p, " -> ");
	p += 4;

	len = (unsigned int)(p - tmp);
	if (len >= width) {
		memcpy(buf, tmp, width);
		buf[width] = '\0';
	} else {
		memset(buf, ' ', width - len);
		strcpy(buf + width - len, tmp);
	}
}

/* Most executions first, then by line: GNU's cmp_ncalls (NULLs last). */
static int cmp_ncalls(const void *lp, const void *rp)
{
	const struct sym *l = *(struct sym *const *)lp;
	const struct sym *r = *(struct sym *const *)rp;

	if (!l)
		return 1;
	if (!r)
		return -1;
	if (l->ncalls != r->ncalls)
		return l->ncalls < r->ncalls ? 1 : -1;
	return l->line_num - r->line_num;
}

static void print_file_tables(const struct gprof_options *opt, FILE *out,
			      struct source_file *sf)
{
	int i, table_len;

	if (opt->bb_table_length > 0) {
		fprintf(out, "\n\nTop %d Lines:\n\n     Line      Count\n\n",
			opt->bb_table_length);
		/* The line array is not needed any more: sort it. */
		qsort(sf->line, sf->num_lines, sizeof(*sf->line), cmp_ncalls);
		table_len = opt->bb_table_length < sf->num_lines ?
			    opt->bb_table_length : sf->num_lines;
		for (i = 0; i < table_len; i++) {
			const struct sym *s = sf->line[i];

			if (!s || !s->ncalls)
				break;
			fprintf(out, "%9d %10" PRIu64 "\n", s->line_num,
				s->ncalls);
		}
	}

	fprintf(out, "\nExecution Summary:\n\n");
	fprintf(out, "%9ld   Executable lines in this file\n",
		num_executable_lines);
	fprintf(out, "%9ld   Lines executed\n", num_lines_executed);
	fprintf(out, "%9.2f   Percent of the file executed\n",
		num_executable_lines ?
		100.0 * num_lines_executed / (double)num_executable_lines :
		100.0);
	fprintf(out, "\n%9" PRIu64 "   Total number of line executions\n",
		sf->ncalls);
	fprintf(out, "%9.2f   Average executions per line\n",
		num_executable_lines ?
		(double)sf->ncalls / (double)num_executable_lines : 0.0);
}

void print_annotated_source(struct profile *prof,
			    const struct gprof_options *opt)
{
	struct source_file **files, *sf;
	size_t nfiles, k;
	struct sym *s, *ls, *merged;
	FILE *out;

	/* Looks every symbol's line up, and gives GNU's file order. */
	nfiles = source_files_gnu_order(prof, opt, &files);

	/* Each file's highest line with a selected symbol ... */
	for (k = 0; k < prof->symtab.len; k++) {
		s = &prof->symtab.base[k];
		if (s->file && s->line_num > s->file->num_lines &&
		    sym_selected(prof, s, INCL_ANNO, EXCL_ANNO))
			s->file->num_lines = s->line_num;
	}
	for (k = 0; k < nfiles; k++)
		if (files[k]->num_lines > 0)
			files[k]->line = xcalloc(files[k]->num_lines,
						 sizeof(*files[k]->line));

	/*
	 * ... and the symbol of each line.  Where several symbols share a
	 * line, a copy with address 0 sums their counts (GNU's merge).
	 */
	for (k = 0; k < prof->symtab.len; k++) {
		s = &prof->symtab.base[k];
		if (!s->file || !s->file->num_lines ||
		    !sym_selected(prof, s, INCL_ANNO, EXCL_ANNO))
			continue;
		s->file->ncalls += s->ncalls;
		ls = s->file->line[s->line_num - 1];
		if (!ls) {
			s->file->line[s->line_num - 1] = s;
		} else if (!ls->addr) {
			ls->ncalls += s->ncalls;
		} else {
			merged = xmalloc(sizeof(*merged));
			*merged = *ls;
			merged->addr = 0;
			merged->ncalls += s->ncalls;
			s->file->line[s->line_num - 1] = merged;
		}
	}

	for (k = 0; k < nfiles; k++) {
		sf = files[k];
		if (!sf->num_lines || (opt->ignore_zeros && !sf->ncalls))
			continue;
		num_executable_lines = 0;
		num_lines_executed = 0;
		out = annotate_source(prof, opt, sf, 16);
		if (!out)
			continue;
		print_file_tables(opt, out, sf);
		free(sf->line);
		sf->line = NULL;
		if (out != stdout)
			fclose(out);
	}
	free(files);
}
