// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One side of a diff read into counts by function (diff.h).
 *
 * A side is RUN[,RUN]...; a run is a profile file or a directory of
 * *.gmon (what `sprofil record -o DIR/` writes for a process tree).  A
 * run's files are grouped by build (tree_scan(): the main module record)
 * and each group is read through the usual pipeline into one profile,
 * as gprof sums several files of one program; its functions' whole
 * samples (export_whole(), as the combined report takes them) are added
 * to the run's column of the program, by name.  The profile is freed at
 * once: memory grows with the functions, not with the runs or files.
 *
 * Functions are matched by name, never by address: two commits are two
 * builds.  The key is the module without its version (libfoo.so.1 and
 * libfoo.so.2 are one; the executable is "", so a renamed executable
 * still matches under --force), the source file's name for a static
 * function (two static helpers of one name in two files stay apart) and
 * the demangled name without GCC's clone suffixes, so that foo.cold and
 * foo.constprop.0 are foo.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <demangle.h>

#include <sprofil/events.h>

#include "diff.h"
#include "analyze/analyze.h"
#include "export/export.h"
#include "pipeline/tree_report.h"

static const char *const clone_suffixes[] = {
	".constprop", ".isra", ".part", ".cold", NULL
};

void diff_strip_clone(char *name)
{
	char *dot;
	int i;

	for (dot = strchr(name, '.'); dot; dot = strchr(dot + 1, '.'))
		for (i = 0; clone_suffixes[i]; i++) {
			size_t l = strlen(clone_suffixes[i]);

			if (!strncmp(dot, clone_suffixes[i], l) &&
			    (!dot[l] || dot[l] == '.')) {
				*dot = '\0';
				return;
			}
		}
}

/*
 * A view's rows are gathered as (key, run, samples) entries, then sorted
 * by key and merged (dtab_finish()): clones and every run of one row
 * become one, and the two sides are matched by binary search in each
 * other's sorted rows.  Takes @key and @label.
 */
void dtab_add(struct dtab *t, char *key, char *label, unsigned int run,
	      uint64_t n)
{
	if (t->nraw == t->raw_cap) {
		t->raw_cap = t->raw_cap * 2 + 256;
		t->raw = xreallocarray(t->raw, t->raw_cap, sizeof(*t->raw));
	}
	t->raw[t->nraw].key = key;
	t->raw[t->nraw].label = label;
	t->raw[t->nraw].run = run;
	t->raw[t->nraw++].samples = n;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct dfn *)a)->key, ((const struct dfn *)b)->key);
}

static int raw_by_key(const void *a, const void *b)
{
	return strcmp(((const struct draw *)a)->key,
		      ((const struct draw *)b)->key);
}

static void dtab_finish(struct dtab *t, unsigned int nruns)
{
	struct dfn *f = NULL;
	size_t i;

	if (t->nraw)
		qsort(t->raw, t->nraw, sizeof(*t->raw), raw_by_key);
	t->fns = xcalloc(t->nraw + 1, sizeof(*t->fns));
	for (i = 0; i < t->nraw; i++) {
		struct draw *r = &t->raw[i];

		if (f && !strcmp(f->key, r->key)) {
			free(r->key);
			free(r->label);
		} else {
			f = &t->fns[t->nfns++];
			f->key = r->key;
			f->label = r->label;
			f->runs = xcalloc(nruns, sizeof(*f->runs));
		}
		f->runs[r->run] += r->samples;
		f->total += r->samples;
	}
	free(t->raw);
	t->raw = NULL;
	t->nraw = t->raw_cap = 0;
}

static void dtab_free(struct dtab *t)
{
	size_t i;

	for (i = 0; i < t->nfns; i++) {
		free(t->fns[i].key);
		free(t->fns[i].label);
		free(t->fns[i].runs);
	}
	for (i = 0; i < t->nraw; i++) {
		free(t->raw[i].key);
		free(t->raw[i].label);
	}
	free(t->raw);
	free(t->fns);
}

struct dfn *dtab_find(const struct dtab *t, const char *key)
{
	struct dfn k = { .key = (char *)key };

	return t->nfns ? bsearch(&k, t->fns, t->nfns, sizeof(*t->fns),
				 by_key) : NULL;
}

const char *diff_base_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* A module's name without its version: libfoo.so.1.2 is libfoo.so. */
static char *module_key(struct profile *prof, unsigned int m)
{
	const struct module *mod = &prof->modules[m];
	char *k, *so;

	if (!m || mod->absolute)
		return xstrdup("");
	k = xstrdup(module_basename(mod));
	so = strstr(k, ".so.");
	if (so)
		so[3] = '\0';
	return k;
}

/* The program of a run's files: by name, made on first use. */
static struct dprog *side_prog(struct dside *s, const char *name,
			       unsigned int nruns)
{
	unsigned int i;
	struct dprog *p;

	for (i = 0; i < s->nprogs; i++)
		if (!strcmp(s->progs[i].name, name))
			return &s->progs[i];
	s->progs = xreallocarray(s->progs, s->nprogs + 1, sizeof(*s->progs));
	p = &s->progs[s->nprogs++];
	memset(p, 0, sizeof(*p));
	p->name = xstrdup(name);
	p->nruns = nruns;
	p->run_total = xcalloc(nruns, sizeof(*p->run_total));
	return p;
}

static double flat_ticks(struct profile *prof, const struct sym *s)
{
	(void)prof;
	return s->hist.time;
}

static bool flat_fn(struct profile *prof, const struct gprof_options *opt,
		    const struct sym *s)
{
	(void)opt;
	return s->name && s->is_func && !prof->modules[s->module].overhead;
}

static void add_stack(struct dprog *p, const char *stack, uint64_t n)
{
	if (p->nstacks == p->stacks_cap) {
		p->stacks_cap = p->stacks_cap * 2 + 64;
		p->stacks = xreallocarray(p->stacks, p->stacks_cap,
					  sizeof(*p->stacks));
	}
	p->stacks[p->nstacks].stack = xstrdup(stack);
	p->stacks[p->nstacks++].samples = n;
}

/*
 * --format=folded and flamegraph: the profile's stacks (export_stacks.c, the folded
 * export's), each frame's clone suffix stripped, as "frame;frame" lines.
 */
static void take_stacks(struct dprog *p, struct profile *prof,
			const struct diff_options *opt)
{
	struct stacks st;
	size_t i, cap = 256;
	char *buf = xmalloc(cap);
	uint32_t *path = NULL;

	if (!stacks_build(prof, &opt->g, &st,
			  opt->format == DF_FLAME ? "flamegraph" : "folded")) {
		free(buf);
		return;
	}
	path = xcalloc(st.len + 1, sizeof(*path));
	for (i = 1; i < st.len; i++) {
		size_t len = 0, depth = 0, d;
		uint32_t k;

		if (!st.node[i].self)
			continue;
		for (k = (uint32_t)i; k && k != CALLER_NONE;
		     k = st.node[k].parent)
			path[depth++] = k;
		for (d = depth; d-- > 0;) {
			const char *name = st.node[path[d]].name;
			size_t l = strlen(name);

			if (len + l + 2 > cap) {
				cap = (len + l + 2) * 2;
				buf = xrealloc(buf, cap);
			}
			memcpy(buf + len, name, l);
			buf[len + l] = '\0';
			diff_strip_clone(buf + len);
			len += strlen(buf + len);
			buf[len++] = d ? ';' : '\0';
		}
		add_stack(p, buf, st.node[i].self);
	}
	free(path);
	free(buf);
	stacks_free(&st);
}

void dkeys_init(struct dkeys *k, struct profile *prof,
		const struct gprof_options *opt)
{
	k->prof = prof;
	k->opt = opt;
	k->key = xcalloc(prof->symtab.len + 1, sizeof(*k->key));
	k->label = xcalloc(prof->symtab.len + 1, sizeof(*k->label));
}

void dkeys_free(struct dkeys *k)
{
	size_t i;

	for (i = 0; i < k->prof->symtab.len; i++) {
		free(k->key[i]);
		free(k->label[i]);
	}
	free(k->key);
	free(k->label);
}

void dkeys_get(struct dkeys *k, size_t i, const char **key,
	       const char **label)
{
	struct profile *prof = k->prof;
	struct sym *s = &prof->symtab.base[i];
	char *name, *dm, *mod;
	const char *file = "";

	if (!k->key[i]) {
		name = xstrdup(s->name);
		diff_strip_clone(name);
		dm = k->opt->demangle ?
			cplus_demangle(name, DMGL_ANSI | DMGL_PARAMS) : NULL;
		if (dm) {
			free(name);
			name = dm;
		}
		if (s->is_static) {
			sym_source(prof, k->opt, s);
			if (s->file)
				file = diff_base_of(s->file->name);
		}
		mod = module_key(prof, s->module);
		k->key[i] = xmalloc(strlen(mod) + strlen(file) +
				    strlen(name) + 3);
		sprintf(k->key[i], "%s\t%s\t%s", mod, file, name);
		k->label[i] = xmalloc(strlen(mod) + strlen(file) +
				      strlen(name) + 8);
		sprintf(k->label[i], "%s%s%s%s%s%s", name, *file ? " (" : "",
			file, *file ? ")" : "", *mod ? " @" : "", mod);
		free(name);
		free(mod);
	}
	*key = k->key[i];
	*label = k->label[i];
}

/*
 * The functions of @prof, read from run @run's files of @p; with
 * --lines their lines too (diff_views.c).  Unless @keep (the keys are
 * asked again: the caller chains' views), @keys' strings are moved
 * into the rows.
 */
static void take_functions(struct dprog *p, unsigned int run,
			   struct profile *prof, struct dkeys *keys,
			   const struct diff_options *opt, bool keep)
{
	uint64_t *whole = export_whole(prof, &opt->g, flat_ticks, flat_fn,
				       whole_samples(prof->total_time));
	const char *key, *label;
	size_t i;

	if (opt->lines)
		diff_take_lines(&p->tab[DV_LINE], run, prof, keys, whole);
	for (i = 0; i < prof->symtab.len; i++) {
		if (!whole[i])
			continue;
		dkeys_get(keys, i, &key, &label);
		if (keep) {
			dtab_add(&p->tab[DV_FN], xstrdup(key), xstrdup(label),
				 run, whole[i]);
		} else {
			/* Handed over rather than held twice. */
			dtab_add(&p->tab[DV_FN], keys->key[i], keys->label[i],
				 run, whole[i]);
			keys->key[i] = keys->label[i] = NULL;
		}
		p->run_total[run] += whole[i];
		p->total += whole[i];
	}
	free(whole);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* @path's files: a directory's *.gmon (sorted), else @path itself. */
static char **run_files(const char *path, size_t *count, bool *dir)
{
	char **list = NULL;
	size_t n = 0, cap = 0, len;
	struct dirent *de;
	struct stat st;
	DIR *d;

	*dir = false;
	if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
		list = xcalloc(1, sizeof(*list));
		list[0] = xstrdup(path);
		*count = 1;
		return list;
	}
	*dir = true;
	d = opendir(path);
	if (!d) {
		*count = 0;
		return NULL;
	}
	while ((de = readdir(d))) {
		len = strlen(de->d_name);
		if (len <= 5 || strcmp(de->d_name + len - 5, ".gmon"))
			continue;
		if (n == cap) {
			cap = cap * 2 + 16;
			list = xreallocarray(list, cap, sizeof(*list));
		}
		list[n] = xmalloc(strlen(path) + len + 2);
		sprintf(list[n++], "%s/%s", path, de->d_name);
	}
	closedir(d);
	if (n)
		qsort(list, n, sizeof(*list), by_name);
	*count = n;
	return list;
}

static bool same_build(const struct tree_proc *a, const struct tree_proc *b)
{
	if (a->build_id_len || b->build_id_len)
		return a->build_id_len == b->build_id_len &&
		       !memcmp(a->build_id, b->build_id, a->build_id_len);
	return !strcmp(a->main_path, b->main_path);
}

/* Reads one group of files (one build) into its program's run @run. */
static int read_group(struct dside *s, unsigned int run, char **files, int n,
		      const struct tree_proc *proc,
		      const struct diff_options *opt)
{
	struct gprof_options o = opt->g;
	struct profile prof;
	struct dkeys keys;
	struct sym **cg;
	struct dprog *p;
	double sample_s;
	bool counted, graph;
	int ret = -1;

	o.a_out_name = proc->main_path;
	profile_init(&prof);
	if (profile_read(&prof, &o, (const char *const *)files, n)) {
		fprintf(stderr, "%s: %s\n", opt->g.whoami, prof.error);
		goto out;
	}
	if (!(prof.gmon_input & INPUT_HISTOGRAM)) {
		fprintf(stderr, "%s: %s: no histogram: nothing to compare\n",
			opt->g.whoami, files[0]);
		goto out;
	}
	if (profile_prepare(&prof, &o, &counted)) {
		fprintf(stderr, "%s: %s\n", opt->g.whoami, prof.error);
		goto out;
	}
	/*
	 * Its rows are seconds: a profile of another event (page faults,
	 * context switches) is refused rather than shown in the wrong unit.
	 */
	if (prof.event_type) {
		const struct spe_event *e = spe_event(prof.event_type);

		fprintf(stderr, "%s: %s: sampled on %s, not CPU time: sprofil diff compares CPU-time profiles only\n",
			opt->g.whoami, files[0], e ? e->name : "another event");
		goto out;
	}
	p = side_prog(s, diff_base_of(proc->main_path), s->nruns);
	sample_s = prof.hz > 0 ? 1.0 / prof.hz : 0;
	if (p->sample_s && sample_s != p->sample_s) {
		fprintf(stderr, "%s: %s: %s's runs are at different rates (%g and %g samples/s): give each side runs of one rate\n",
			opt->g.whoami, s->operand, p->name, 1 / p->sample_s,
			prof.hz);
		goto out;
	}
	if (p->dimension[0] && strcmp(p->dimension, prof.hist_dimension)) {
		fprintf(stderr, "%s: %s: %s's runs count different events (%s and %s)\n",
			opt->g.whoami, s->operand, p->name, p->dimension,
			prof.hist_dimension);
		goto out;
	}
	p->sample_s = sample_s;
	snprintf(p->dimension, sizeof(p->dimension), "%s",
		 prof.hist_dimension);
	/*
	 * The stacks and pprof want the call graph (which assigns the
	 * histogram too); the measured times and the symbols the line
	 * shares count (print_flag) are set when the graph is assembled.
	 */
	graph = opt->lines || (prof.gmon_input & INPUT_CALLERS);
	if (opt->format == DF_FOLDED || opt->format == DF_FLAME || s->pp ||
	    graph) {
		cg = profile_analyze(&prof, &o, counted);
		if (!cg && graph)
			cg = cg_assemble(&prof, &o);
		free(cg);
	} else {
		hist_assign_samples(&prof);
	}
	dkeys_init(&keys, &prof, &o);
	take_functions(p, run, &prof, &keys, opt,
		       prof.gmon_input & INPUT_CALLERS);
	if (diff_take_chains(p, run, &prof, &keys))
		p->no_chains++;
	dkeys_free(&keys);
	if (opt->format == DF_FOLDED || opt->format == DF_FLAME)
		take_stacks(p, &prof, opt);
	if (s->pp)
		pprof_add(s->pp, &prof, &o, NULL, 0);
	ret = 0;
out:
	profile_free(&prof);
	return ret;
}

/* Run @run, @path: its files scanned, grouped by build, each read. */
static int load_run(struct dside *s, unsigned int run, const char *path,
		    const struct diff_options *opt)
{
	size_t nfiles, i, j;
	bool dir;
	char **files = run_files(path, &nfiles, &dir);
	struct tree_proc *procs;
	char **group;
	bool *done;
	int ret = 0, n;

	s->tree |= dir;
	if (!nfiles) {
		fprintf(stderr, "%s: %s: %s\n", opt->g.whoami, path,
			dir ? "no *.gmon profile in it" : strerror(errno));
		free(files);
		return -1;
	}
	procs = xcalloc(nfiles, sizeof(*procs));
	group = xcalloc(nfiles, sizeof(*group));
	done = xcalloc(nfiles, sizeof(*done));
	for (i = 0; i < nfiles && !ret; i++) {
		tree_scan(&procs[i], files[i]);
		if (procs[i].bad) {
			fprintf(stderr, "%s: %s: %s\n", opt->g.whoami,
				files[i], procs[i].bad);
			ret = -1;
		} else if (!procs[i].main_path) {
			fprintf(stderr, "%s: %s: names no program\n",
				opt->g.whoami, files[i]);
			ret = -1;
		}
	}
	for (i = 0; i < nfiles && !ret; i++) {
		if (done[i])
			continue;
		for (n = 0, j = i; j < nfiles; j++)
			if (!done[j] && same_build(&procs[i], &procs[j])) {
				done[j] = true;
				group[n++] = files[j];
			}
		ret = read_group(s, run, group, n, &procs[i], opt);
	}
	for (i = 0; i < nfiles; i++) {
		tree_proc_free(&procs[i]);
		free(files[i]);
	}
	free(procs);
	free(group);
	free(done);
	free(files);
	return ret;
}

/*
 * --pprof: the side's runs as one pprof profile in PREFIX.WHICH.pb.gz,
 * through the analyzer's pprof export, which writes on stdout: stdout
 * is that file while the side is read.  Returns the saved stdout, or -1.
 */
static int pprof_open(struct dside *side, const struct diff_options *opt,
		      const char *which)
{
	char *path = xmalloc(strlen(opt->pprof) + strlen(which) + 8);
	char err[256];
	int fd, saved;

	sprintf(path, "%s.%s.pb.gz", opt->pprof, which);
	fflush(stdout);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	saved = fd < 0 ? -1 : dup(STDOUT_FILENO);
	if (fd < 0 || saved < 0 || dup2(fd, STDOUT_FILENO) < 0) {
		fprintf(stderr, "%s: %s: %s\n", opt->g.whoami, path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		if (saved >= 0)
			close(saved);
		free(path);
		return -1;
	}
	close(fd);
	free(path);
	side->pp = pprof_begin(err, sizeof(err));
	if (!side->pp) {
		fprintf(stderr, "%s: --pprof: %s\n", opt->g.whoami, err);
		dup2(saved, STDOUT_FILENO);
		close(saved);
		return -1;
	}
	return saved;
}

static int pprof_close(struct dside *side, const struct diff_options *opt,
		       int saved)
{
	char err[256];
	int ret = 0;

	if (pprof_end(side->pp, &opt->g, err, sizeof(err))) {
		fprintf(stderr, "%s: --pprof: %s\n", opt->g.whoami, err);
		ret = -1;
	}
	side->pp = NULL;
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: --pprof: %s\n", opt->g.whoami,
			strerror(errno));
		ret = -1;
	}
	dup2(saved, STDOUT_FILENO);
	close(saved);
	return ret;
}

int diff_side_load(struct dside *side, const char *operand,
		   const struct diff_options *opt, const char *which)
{
	char *copy = xstrdup(operand), *run, *save = NULL;
	unsigned int i = 0, k, v;
	int ret = 0, saved = -1;

	memset(side, 0, sizeof(*side));
	side->operand = operand;
	if (opt->pprof) {
		saved = pprof_open(side, opt, which);
		if (saved < 0) {
			free(copy);
			return -1;
		}
	}
	side->nruns = 1;
	for (run = copy; *run; run++)
		side->nruns += *run == ',';
	for (run = strtok_r(copy, ",", &save); run && !ret;
	     run = strtok_r(NULL, ",", &save))
		ret = load_run(side, i++, run, opt);
	free(copy);
	if (side->pp && pprof_close(side, opt, saved))
		ret = -1;
	for (k = 0; k < side->nprogs; k++)
		for (v = 0; v < DV_N; v++)
			dtab_finish(&side->progs[k].tab[v], side->nruns);
	if (!ret && i != side->nruns) {
		fprintf(stderr, "%s: %s: an empty run in the list\n",
			opt->g.whoami, operand);
		ret = -1;
	}
	for (k = 0; !ret && k < side->nprogs; k++)
		if (side->progs[k].total)
			return 0;
	if (!ret)
		fprintf(stderr, "%s: %s: the profile has no samples: nothing to compare\n",
			opt->g.whoami, operand);
	/* A side that failed is freed here: the caller has nothing of it. */
	diff_side_free(side);
	return -1;
}

void diff_side_free(struct dside *side)
{
	unsigned int k, v;
	size_t i;

	for (k = 0; k < side->nprogs; k++) {
		struct dprog *p = &side->progs[k];

		for (v = 0; v < DV_N; v++)
			dtab_free(&p->tab[v]);
		for (i = 0; i < p->nstacks; i++)
			free(p->stacks[i].stack);
		free(p->stacks);
		free(p->run_total);
		free(p->name);
	}
	free(side->progs);
	memset(side, 0, sizeof(*side));
}
