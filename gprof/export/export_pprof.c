// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --export=pprof: the profile as pprof's gzipped profile.proto
 * (gprof/pprof.proto, encoded by the protobuf-c code protoc-c generates
 * from it), for `go tool pprof` and the continuous-profiling services
 * that ingest that format (docs/pprof.md).
 *
 * Two sample types, "samples"/count and "cpu"/nanoseconds (the count
 * times the true sampling period).  When the profile has caller samples,
 * each calling context of the merged tree that holds samples is one pprof
 * sample, its locations innermost first, so -traces shows the chains and
 * -top the sampled pcs; without them each function's flat-profile samples
 * are shared over its source lines, one sample of one location a line.  The profiler's own samples
 * (its module is overhead) are left out, as in the reports.
 *
 * A location is one (module, pc); a return address is looked up at pc - 1,
 * the call instruction, so a caller's line is that of its call.  A
 * location's mapping is its load module, with the module's build-id (as
 * hex) so that a consumer can match it to its binary; a pc in no module
 * has no mapping.  Functions, file names and lines come from the
 * analyzer's symbols and DWARF, so consumers need not symbolize.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <sprofil/events.h>

#include "read/dwarf_lines.h"
#include "export/export.h"
#include "pprof.pb-c.h"
#include "read/threads.h"

/* The types protoc-c generates from gprof/pprof.proto are used as named. */

/* A location's key: the frame's module (CALLER_ABSOLUTE: none) and pc. */
struct loc_key {
	uint64_t pc;
	uint32_t module;
	uint32_t program;	/* which profile added (pprof_add()) */
	bool ret;		/* a return address, looked up at pc - 1 */
};

/*
 * The string table and the locations are found through open-addressed
 * tables of indices + 1 (0: free slot); @slot gives item @i's first slot.
 */
struct index_hash {
	size_t *slot;
	size_t size;		/* a power of two, or 0 */
};

struct pp {
	/* Freed by protobuf-c, so all of it is malloc's. */
	Perftools__Profiles__Profile prof;
	/* string_table's length, room, and the table finding its strings */
	size_t nstr, strcap;
	struct index_hash strs;
	/* the function of symtab.base[i]: its id, 0 before it is made */
	uint64_t *func_of_sym;
	size_t funccap;
	/* the mapping of module m: its id, 0 before (or none) */
	uint64_t *map_of_module;
	size_t mapcap;
	/* each location's key, and the table finding them */
	struct loc_key *keys;
	size_t loccap;
	struct index_hash locs;
	size_t samplecap;
	uint64_t period_ns;		/* in events, with an event */
	const char *event;		/* its name, NULL: CPU time */
	/* The profiles added so far; the labels of their samples. */
	uint32_t programs;
	const char *program;	/* NULL: no label */
	uint32_t pid;		/* 0: no label */
};

static size_t grow(void **v, size_t n, size_t *cap, size_t size)
{
	if (n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*v = xreallocarray(*v, *cap, size);
	}
	return n;
}

static size_t hash_str(const char *s)
{
	size_t h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static void index_rehash(struct pp *p, struct index_hash *t, size_t n,
			 size_t (*slot)(const struct pp *, size_t, size_t))
{
	size_t i, h, mask;

	free(t->slot);
	t->size = t->size ? 2 * t->size : 1024;
	t->slot = xcalloc(t->size, sizeof(*t->slot));
	mask = t->size - 1;
	for (i = 0; i < n; i++) {
		for (h = slot(p, i, mask); t->slot[h]; h = (h + 1) & mask)
			;
		t->slot[h] = i + 1;
	}
}

static size_t str_slot(const struct pp *p, size_t i, size_t mask)
{
	return hash_str(p->prof.string_table[i]) & mask;
}

/* The index of @s in the string table, added if new. */
static int64_t str(struct pp *p, const char *s)
{
	size_t h, mask;

	if (2 * (p->nstr + 1) > p->strs.size)
		index_rehash(p, &p->strs, p->nstr, str_slot);
	mask = p->strs.size - 1;
	for (h = hash_str(s) & mask; p->strs.slot[h]; h = (h + 1) & mask)
		if (!strcmp(p->prof.string_table[p->strs.slot[h] - 1], s))
			return (int64_t)p->strs.slot[h] - 1;
	grow((void **)&p->prof.string_table, p->nstr, &p->strcap,
	     sizeof(char *));
	p->prof.string_table[p->nstr] = xstrdup(s);
	p->strs.slot[h] = ++p->nstr;
	return (int64_t)p->nstr - 1;
}

static Perftools__Profiles__ValueType *value_type(struct pp *p,
						  const char *type,
						  const char *unit)
{
	Perftools__Profiles__ValueType *v = xmalloc(sizeof(*v));

	perftools__profiles__value_type__init(v);
	v->type = str(p, type);
	v->unit = str(p, unit);
	return v;
}

/* The mapping of module @m, made on first use; 0 for no module. */
static uint64_t mapping(struct profile *prof, struct pp *p, uint32_t m)
{
	const struct module *mod;
	Perftools__Profiles__Mapping *map;
	char *id;
	size_t i;

	if (m == CALLER_ABSOLUTE || m >= prof->nmodules ||
	    prof->modules[m].absolute)
		return 0;
	if (p->map_of_module[m])
		return p->map_of_module[m];
	mod = &prof->modules[m];
	map = xmalloc(sizeof(*map));
	perftools__profiles__mapping__init(map);
	grow((void **)&p->prof.mapping, p->prof.n_mapping, &p->mapcap,
	     sizeof(map));
	p->prof.mapping[p->prof.n_mapping++] = map;
	map->id = p->prof.n_mapping;
	/* Widened to every location's address as they are made. */
	if (mod->exec_high) {
		map->memory_start = ADDR_LINK(mod->exec_low) + mod->load_bias;
		map->memory_limit = ADDR_LINK(mod->exec_high) + mod->load_bias;
	}
	map->filename = str(p, mod->recorded ? mod->recorded :
			    module_name(prof, m));
	id = xmalloc(2 * mod->build_id_len + 1);
	for (i = 0; i < mod->build_id_len; i++)
		sprintf(id + 2 * i, "%02x", mod->build_id[i]);
	id[2 * i] = 0;
	map->build_id = str(p, id);
	free(id);
	map->has_functions = mod->loaded;
	map->has_filenames = mod->loaded;
	map->has_line_numbers = mod->loaded;
	p->map_of_module[m] = map->id;
	return map->id;
}

/* The function of symbol @s, made on first use. */
static uint64_t function(struct profile *prof, const struct gprof_options *opt,
			 struct pp *p,
			 struct sym *s)
{
	size_t i = s - prof->symtab.base;
	Perftools__Profiles__Function *f;
	char *name;

	if (p->func_of_sym[i])
		return p->func_of_sym[i];
	f = xmalloc(sizeof(*f));
	perftools__profiles__function__init(f);
	grow((void **)&p->prof.function, p->prof.n_function, &p->funccap,
	     sizeof(f));
	p->prof.function[p->prof.n_function++] = f;
	f->id = p->prof.n_function;
	sym_source(prof, opt, s);
	name = display_name(opt, s);
	f->name = str(p, name);
	free(name);
	f->system_name = str(p, s->name ? s->name : "");
	f->filename = str(p, s->file ? s->file->name : "");
	f->start_line = s->line_num;
	p->func_of_sym[i] = f->id;
	return f->id;
}

static size_t loc_slot(const struct loc_key *k, size_t mask)
{
	uint64_t h = (k->pc ^ ((uint64_t)k->module << 40) ^
		      ((uint64_t)k->program << 52) ^ k->ret) *
		     UINT64_C(0x9e3779b97f4a7c15);

	return (size_t)(h >> 20) & mask;
}

static size_t loc_item_slot(const struct pp *p, size_t i, size_t mask)
{
	return loc_slot(&p->keys[i], mask);
}

/* The file and line of a location's address, else its function's. */
static void loc_line(struct profile *prof, const struct gprof_options *opt,
		     Perftools__Profiles__Location *l, struct sym *s,
		     unsigned int m, uint64_t link)
{
	struct dmod *d = dmod_get(prof, opt, m);
	struct source_file *file;
	int line;
	Perftools__Profiles__Line *pl = l->line[0];

	if (d && dmod_line(prof, d, link, &file, &line))
		pl->line = line;
	else
		pl->line = s->line_num;
}

static void loc_fill(struct profile *prof, const struct gprof_options *opt,
		     struct pp *p,
		     Perftools__Profiles__Location *l,
		     const struct loc_key *k)
{
	uint64_t look = k->ret && k->pc ? k->pc - 1 : k->pc;
	struct sym *s = NULL;
	Perftools__Profiles__Mapping *map;

	l->mapping_id = mapping(prof, p, k->module);
	if (!l->mapping_id) {
		l->address = k->pc;
		return;
	}
	l->address = k->pc + prof->modules[k->module].load_bias;
	map = p->prof.mapping[l->mapping_id - 1];
	if (!map->memory_limit || l->address < map->memory_start)
		map->memory_start = l->address;
	if (l->address >= map->memory_limit)
		map->memory_limit = l->address + 1;
	if (look <= ADDR_LINK(~0ull))
		s = sym_lookup(&prof->symtab, MODULE_BASE(k->module) + look);
	if (!s || !s->name)
		return;
	l->line = xmalloc(sizeof(*l->line));
	l->line[0] = xmalloc(sizeof(**l->line));
	perftools__profiles__line__init(l->line[0]);
	l->n_line = 1;
	l->line[0]->function_id = function(prof, opt, p, s);
	loc_line(prof, opt, l, s, k->module, look);
}

/* The location of @k, made on first use. */
static uint64_t location(struct profile *prof, const struct gprof_options *opt,
			 struct pp *p,
			 const struct loc_key *k)
{
	size_t h, mask, i;
	Perftools__Profiles__Location *l;

	if (2 * (p->prof.n_location + 1) > p->locs.size)
		index_rehash(p, &p->locs, p->prof.n_location, loc_item_slot);
	mask = p->locs.size - 1;
	for (h = loc_slot(k, mask); p->locs.slot[h]; h = (h + 1) & mask) {
		const struct loc_key *o = &p->keys[p->locs.slot[h] - 1];

		if (o->pc == k->pc && o->module == k->module &&
		    o->program == k->program && o->ret == k->ret)
			return p->locs.slot[h];
	}
	i = p->prof.n_location;
	grow((void **)&p->prof.location, i, &p->loccap, sizeof(l));
	p->keys = xreallocarray(p->keys, p->loccap, sizeof(*p->keys));
	l = xmalloc(sizeof(*l));
	perftools__profiles__location__init(l);
	p->prof.location[i] = l;
	p->keys[i] = *k;
	p->locs.slot[h] = i + 1;
	l->id = ++p->prof.n_location;
	loc_fill(prof, opt, p, l, k);
	return l->id;
}

/* A new label of key @key on the last sample, its value to set. */
static Perftools__Profiles__Label *label(struct pp *p, const char *key)
{
	Perftools__Profiles__Sample *s = p->prof.sample[p->prof.n_sample - 1];
	Perftools__Profiles__Label *l = xmalloc(sizeof(*l));

	perftools__profiles__label__init(l);
	l->key = str(p, key);
	s->label = xreallocarray(s->label, s->n_label + 1, sizeof(*s->label));
	s->label[s->n_label++] = l;
	return l;
}

static void sample(struct pp *p, const uint64_t *locs, size_t n,
		   uint64_t count)
{
	Perftools__Profiles__Sample *s = xmalloc(sizeof(*s));

	perftools__profiles__sample__init(s);
	s->location_id = xmallocarray(n, sizeof(*locs));
	memcpy(s->location_id, locs, n * sizeof(*locs));
	s->n_location_id = n;
	s->value = xmallocarray(2, sizeof(*s->value));
	s->n_value = 2;
	s->value[0] = (int64_t)count;
	s->value[1] = (int64_t)(count * p->period_ns);
	grow((void **)&p->prof.sample, p->prof.n_sample, &p->samplecap,
	     sizeof(s));
	p->prof.sample[p->prof.n_sample++] = s;
	if (p->program)
		label(p, "program")->str = str(p, p->program);
	if (p->pid)
		label(p, "pid")->num = p->pid;
}

/* The locations of node @i's chain, innermost first, into *@locs. */
static size_t chain_locations(struct profile *prof,
			      const struct gprof_options *opt, struct pp *p,
			      uint32_t i, uint64_t **locs,
			      size_t *cap)
{
	size_t n = 0;
	uint32_t j;

	for (j = i; j != CALLER_NONE; j = prof->callers.node[j].parent) {
		const struct caller_node *c = &prof->callers.node[j];
		struct loc_key k = { .pc = c->pc, .module = c->module,
				     .program = p->programs, .ret = j != i };

		/* A cut chain hangs below a top node that is no frame. */
		if (caller_node_truncated(c))
			break;
		grow((void **)locs, n, cap, sizeof(**locs));
		(*locs)[n++] = location(prof, opt, p, &k);
	}
	return n;
}

static bool overhead_node(struct profile *prof, uint32_t i)
{
	const struct caller_node *c = &prof->callers.node[i];

	return c->module < prof->nmodules && prof->modules[c->module].overhead;
}

/* Labels "thread" (its id) and "thread_name" on the last sample. */
static void thread_labels(struct profile *prof, struct pp *p, uint32_t t)
{
	const struct thread_prof *th = &prof->threads[t];

	label(p, "thread")->num = th->tid;
	if (th->name[0])
		label(p, "thread_name")->str = str(p, th->name);
}

/*
 * Each calling context holding samples: one sample, innermost first; in
 * a per-thread profile one per context and thread, labelled with the
 * thread (pprof -tagfocus=thread_name=..., -traces shows the labels).
 */
static void samples_from_callers(struct profile *prof,
				 const struct gprof_options *opt, struct pp *p)
{
	uint64_t *locs = NULL, count;
	size_t i, n, cap = 0;
	uint32_t node, t;

	p->period_ns = prof->callers.period_ns;
	p->event = prof->event_type ? spe_event(prof->event_type)->name : NULL;
	if (prof->nthreads) {
		for (i = 0; i < thread_leaves(prof); i++) {
			thread_leaf_at(prof, i, &node, &t, &count);
			if (node == CALLER_NONE || !count ||
			    overhead_node(prof, node))
				continue;
			n = chain_locations(prof, opt, p, node, &locs, &cap);
			if (n) {
				sample(p, locs, n, count);
				thread_labels(prof, p, t);
			}
		}
		free(locs);
		return;
	}
	for (i = 0; i < prof->callers.len; i++) {
		const struct caller_node *leaf = &prof->callers.node[i];

		if (!leaf->count || overhead_node(prof, (uint32_t)i))
			continue;
		n = chain_locations(prof, opt, p, (uint32_t)i, &locs, &cap);
		if (n)
			sample(p, locs, n, leaf->count);
	}
	free(locs);
}

static double flat_ticks(struct profile *prof, const struct sym *s)
{
	(void)prof;
	return s->hist.time;
}

static bool named(struct profile *prof, const struct gprof_options *opt,
			   const struct sym *s)
{
	(void)prof;
	(void)opt;
	return s->name;
}

/*
 * The flat profile's samples: each function's in whole samples, which
 * add up to the flat profile's (export_whole()), shared over its
 * source lines as callgrind's self cost is (export_lines.c), one sample
 * of one location a line, at the line's lowest address; a function
 * whose lines are unknown gets one at its entry.
 */
static void samples_from_histogram(struct profile *prof,
				   const struct gprof_options *opt,
				   struct pp *p)
{
	struct shares lines = { 0 };
	uint64_t *whole = export_whole(prof, opt, flat_ticks, named,
				       whole_samples(prof->total_time));
	long long *part = NULL;
	size_t i, cap = 0;

	p->period_ns = export_period_ns(prof);
	p->event = prof->event_type ? spe_event(prof->event_type)->name : NULL;
	export_self_shares(prof, opt, &lines);
	for (i = 0; i < prof->symtab.len; i++) {
		struct sym *s = &prof->symtab.base[i];
		long long count = (long long)whole[i];
		size_t first = export_shares_find(&lines, i, 0), n = 0, k;
		struct loc_key key = { .pc = ADDR_LINK(s->addr),
				       .module = s->module,
				       .program = p->programs };
		uint64_t id;

		if (!s->name || count <= 0)
			continue;
		while (first + n < lines.len && lines.v[first + n].sym == i)
			n++;
		if (!n) {
			id = location(prof, opt, p, &key);
			sample(p, &id, 1, count);
			continue;
		}
		if (n > cap) {
			cap = n;
			part = xreallocarray(part, cap, sizeof(*part));
		}
		export_apportion(&lines.v[first], n, count, part);
		for (k = 0; k < n; k++) {
			if (!part[k])
				continue;
			key.pc = ADDR_LINK(lines.v[first + k].addr);
			id = location(prof, opt, p, &key);
			sample(p, &id, 1, part[k]);
		}
	}
	free(whole);
	free(part);
	free(lines.v);
}

/*
 * Writes the encoded profile gzipped on stdout (a file, not a tty);
 * 0, or -1 and why in @err.
 */
static int write_gzip(const uint8_t *buf, size_t len, char *err,
		      size_t errlen)
{
	unsigned char out[65536];
	z_stream z = { 0 };
	int ret;

	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		snprintf(err, errlen, "--export=pprof: zlib: %s",
			 z.msg ? z.msg : "init");
		return -1;
	}
	z.next_in = (unsigned char *)buf;
	z.avail_in = len;
	do {
		size_t n;

		z.next_out = out;
		z.avail_out = sizeof(out);
		ret = deflate(&z, Z_FINISH);
		if (ret == Z_STREAM_ERROR) {
			snprintf(err, errlen, "--export=pprof: zlib: %s",
				 z.msg ? z.msg : "deflate");
			break;
		}
		n = sizeof(out) - z.avail_out;
		if (fwrite(out, 1, n, stdout) != n) {
			snprintf(err, errlen, "standard output: %s",
				 strerror(errno));
			ret = Z_STREAM_ERROR;
			break;
		}
	} while (ret != Z_STREAM_END);
	deflateEnd(&z);
	return ret == Z_STREAM_END ? 0 : -1;
}

struct pp *pprof_begin(char *err, size_t errlen)
{
	struct pp *p;

	/* A gzipped protobuf on a terminal helps no one. */
	if (isatty(STDOUT_FILENO)) {
		snprintf(err, errlen, "--export=pprof writes a binary file: redirect standard output (> profile.pb.gz)");
		return NULL;
	}
	p = xcalloc(1, sizeof(*p));
	perftools__profiles__profile__init(&p->prof);
	str(p, "");
	return p;
}

void pprof_add(struct pp *p, struct profile *prof,
	       const struct gprof_options *opt, const char *program,
	       uint32_t pid)
{
	/* Functions, mappings and locations are each profile's own. */
	free(p->func_of_sym);
	free(p->map_of_module);
	p->func_of_sym = xcalloc(prof->symtab.len + 1, sizeof(*p->func_of_sym));
	p->map_of_module = xcalloc(prof->nmodules + 1,
				   sizeof(*p->map_of_module));
	p->programs++;
	p->program = program;
	p->pid = pid;
	/* pprof takes the first mapping for the program (its "File:"). */
	if (prof->nmodules)
		mapping(prof, p, 0);
	if (prof->gmon_input & INPUT_CALLERS)
		samples_from_callers(prof, opt, p);
	else
		samples_from_histogram(prof, opt, p);
}

int export_pprof(struct profile *prof, const struct gprof_options *opt)
{
	struct pp *p = pprof_begin(prof->error, sizeof(prof->error));

	if (!p)
		return -1;
	pprof_add(p, prof, opt, NULL, 0);
	return pprof_end(p, opt, prof->error, sizeof(prof->error));
}

/* Frees @p's profile, which every part of came from malloc. */
static void pp_release(struct pp *p)
{
	Perftools__Profiles__Profile *out = xmalloc(sizeof(*out));

	p->prof.n_string_table = p->nstr;
	*out = p->prof;
	/* protobuf-c frees the whole tree. */
	perftools__profiles__profile__free_unpacked(out, NULL);
	free(p->strs.slot);
	free(p->func_of_sym);
	free(p->map_of_module);
	free(p->keys);
	free(p->locs.slot);
}

void pprof_free(struct pp *pp)
{
	pp_release(pp);
	free(pp);
}

int pprof_end(struct pp *pp, const struct gprof_options *opt, char *err,
	      size_t errlen)
{
	struct pp p = *pp;
	Perftools__Profiles__Profile out;
	uint64_t total = 0;
	uint8_t *buf;
	size_t len, i;
	int ret;

	free(pp);
	p.prof.n_sample_type = 2;
	p.prof.sample_type = xmallocarray(2, sizeof(*p.prof.sample_type));
	p.prof.sample_type[0] = value_type(&p, "samples", "count");
	/* An event's count, as perf's converter names it: "page-faults". */
	p.prof.sample_type[1] = value_type(&p, p.event ? p.event : "cpu",
					   p.event ? "count" : "nanoseconds");
	p.prof.period_type = value_type(&p, p.event ? p.event : "cpu",
					p.event ? "count" : "nanoseconds");
	p.prof.period = (int64_t)p.period_ns;
	for (i = 0; i < p.prof.n_sample; i++)
		total += p.prof.sample[i]->value[0];
	if (!total)
		fprintf(stderr, "%s: --export=pprof: the profile holds no samples; the pprof profile written is empty\n",
			opt->whoami);
	p.prof.n_string_table = p.nstr;
	out = p.prof;
	len = perftools__profiles__profile__get_packed_size(&out);
	buf = xmalloc(len);
	perftools__profiles__profile__pack(&out, buf);
	ret = write_gzip(buf, len, err, errlen);
	free(buf);
	pp_release(&p);
	return ret;
}
