// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Writing profiles: gmon.sum (-s) and one module's data as GNU gmon.out
 * (--extract-module).
 *
 * GNU gprof writes gmon.sum's bins with 16 bits, so a sum above 65535
 * wraps (two 40000-count bins become 14464).  GNU also sums records of
 * an identical range when it reads them, so a bin too large for 16 bits
 * is written here as several records of the same range whose bins add
 * up to the exact sum: the file stays GNU gmon.out, GNU gprof reads it,
 * and nothing is lost.  Arc counts above 32 bits are split the same way
 * (GNU adds up repeated arcs).  A profile GNU cannot represent (several
 * modules, profil-mapped buckets) is summed in sprofil's format.
 * Caller samples are summed as one tree: a tag-4 record of the
 * extension, or beside a GNU gmon.sum in gmon.sum.callers.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sprofil/events.h>
#include <sprofil/gmon_codec.h>
#include <sprofil/gmon_format.h>

#include "write/write.h"
#include "read/threads.h"

/*
 * A file being written.  Its first error sticks (later writes do
 * nothing) and close_out() returns it, so that the writers need not
 * check each write.
 */
struct out {
	FILE *f;
	const char *name;
	bool failed;
	char error[512];
};

static void out_fail(struct out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void out_fail(struct out *o, const char *fmt, ...)
{
	va_list ap;

	if (o->failed)
		return;
	va_start(ap, fmt);
	verrorf(o->error, sizeof(o->error), fmt, ap);
	va_end(ap);
	o->failed = true;
}

/* @n bytes at @p (none, and @p may be NULL, when @n is 0). */
static void put_bytes(struct out *o, const void *p, size_t n)
{
	if (!o->failed && n && fwrite(p, 1, n, o->f) != n)
		out_fail(o, "%s: %s", o->name, strerror(errno));
}

/* GNU's records in the order -b names; the extension's: gmon_codec.h. */
static void put(struct profile *prof, struct out *o, uint64_t v, unsigned int n)
{
	unsigned char b[8];

	gmf_store(b, n, v, prof->gmon_big_endian);
	put_bytes(o, b, n);
}

/* 0, or -1 and @prof's error. */
static int open_out(struct profile *prof, struct out *o, const char *name)
{
	*o = (struct out){ .name = name };
	o->f = fopen(name, "wb");
	if (!o->f)
		return profile_error(prof, "%s: %s", name, strerror(errno));
	return 0;
}

/*
 * 0, or -1 and @prof's error when a write failed; a file not written
 * whole is removed, so that no cut profile is read for a whole one.
 */
static int close_out(struct profile *prof, struct out *o)
{
	errno = 0;
	if (!o->failed && (fflush(o->f) || ferror(o->f)))
		out_fail(o, "%s: %s", o->name,
			 strerror(errno ? errno : EIO));
	if (fclose(o->f) && !o->failed)
		out_fail(o, "%s: %s", o->name, strerror(errno));
	if (!o->failed)
		return 0;
	unlink(o->name);
	return profile_error(prof, "%s", o->error);
}

static uint64_t max_bin(const struct hist_record *r)
{
	uint64_t i, m = 0;

	for (i = 0; i < r->num_bins; i++)
		if (r->sample[i] > m)
			m = r->sample[i];
	return m;
}

/*
 * One GNU tag-0 record per 65535 of the largest bin, each carrying the
 * next slice of every bin; @lo/@hi are the addresses written.
 */
static void put_gnu_hist(struct profile *prof, struct out *o,
			 const struct hist_record *r,
			 uint64_t lo, uint64_t hi)
{
	uint64_t copies = (max_bin(r) + 65534) / 65535, c, i;
	char dim[16] = "";

	memcpy(dim, prof->hist_dimension, 15);
	dim[15] = prof->hist_dimension_abbrev;
	if (!copies)
		copies = 1;
	for (c = 0; c < copies; c++) {
		put(prof, o, GMF_GNU_TAG_TIME_HIST, 1);
		put(prof, o, lo, prof->gmon_ptr_size);
		put(prof, o, hi, prof->gmon_ptr_size);
		put(prof, o, r->num_bins, 4);
		put(prof, o, (uint32_t)(prof->hz + 0.5), 4);
		put_bytes(o, dim, 16);
		for (i = 0; i < r->num_bins; i++) {
			uint64_t left = r->sample[i] > c * 65535 ?
					r->sample[i] - c * 65535 : 0;

			put(prof, o, left > 65535 ? 65535 : left, 2);
		}
	}
}

static void put_gnu_arc(struct profile *prof, struct out *o, uint64_t from,
			uint64_t self,
			uint64_t count)
{
	do {
		uint64_t n = count > 0xffffffffu ? 0xffffffffu : count;

		put(prof, o, GMF_GNU_TAG_CG_ARC, 1);
		put(prof, o, from, prof->gmon_ptr_size);
		put(prof, o, self, prof->gmon_ptr_size);
		put(prof, o, n, 4);
		count -= n;
	} while (count);
}

static void put_gnu_header(struct profile *prof, struct out *o)
{
	static const char zero[12];

	put_bytes(o, GMF_COOKIE, 4);
	put(prof, o, GMF_GNU_VERSION, 4);
	put_bytes(o, zero, 12);
}

/* GNU's order: each symbol's arcs to its children, in list order. */
static void put_gnu_arcs(struct profile *prof, struct out *o, int module,
			 size_t *dropped)
{
	size_t i;

	for (i = 0; i < prof->symtab.len; i++) {
		struct arc *a;

		for (a = prof->symtab.base[i].cg.children; a;
		     a = a->next_child) {
			if (module >= 0 &&
			    (a->parent->module != (unsigned int)module ||
			     a->child->module != (unsigned int)module)) {
				(*dropped)++;
				continue;
			}
			put_gnu_arc(prof, o, ADDR_LINK(a->parent->addr),
				    ADDR_LINK(a->child->addr), a->count);
		}
	}
}

/* The old BSD or 4.4BSD layout, for -s with -O b or -O 4. */
static void put_bsd(struct profile *prof, const struct gprof_options *opt,
		    struct out *o)
{
	const struct hist_record *r = &prof->hist_records[0];
	long tick = sysconf(_SC_CLK_TCK);
	bool bsd44 = opt->file_format == FF_BSD44 || prof->hz != tick;
	unsigned int header = bsd44 ? (prof->gmon_ptr_size == 8 ? 40 : 32) :
				      (prof->gmon_ptr_size == 8 ? 20 : 12);
	uint64_t i;
	size_t j;

	if (prof->num_hist_records != 1) {
		out_fail(o, "%s: the BSD formats hold one histogram, not %u",
			 o->name, prof->num_hist_records);
		return;
	}
	put(prof, o, r->lowpc, prof->gmon_ptr_size);
	put(prof, o, r->highpc, prof->gmon_ptr_size);
	put(prof, o, r->num_bins * 2 + header, 4);
	if (bsd44) {
		put(prof, o, GMF_BSD44_VERSION, 4);
		put(prof, o, (uint32_t)prof->hz, 4);
		put(prof, o, 0, 4);
		put(prof, o, 0, 4);
		put(prof, o, 0, 4);
	}
	for (i = 0; i < r->num_bins; i++) {
		if (r->sample[i] > 65535) {
			out_fail(o, "%s: a bin holds %llu counts, more than the BSD format's 16 bits; use the default format",
				 o->name, (unsigned long long)r->sample[i]);
			return;
		}
		put(prof, o, r->sample[i], 2);
	}
	for (j = 0; j < prof->symtab.len; j++) {
		struct arc *a;

		for (a = prof->symtab.base[j].cg.children; a;
		     a = a->next_child) {
			put(prof, o, a->parent->addr, prof->gmon_ptr_size);
			put(prof, o, a->child->addr, prof->gmon_ptr_size);
			put(prof, o, a->count, prof->gmon_ptr_size);
		}
	}
}

/*
 * The profil scale closest to a GNU record's uniform bins, for a GNU
 * file summed together with sprofil ones (GNU's bins are not all the
 * same number of bytes wide, so this is as near as the format gets).
 */
static uint32_t gnu_scale(const struct hist_record *r)
{
	double s = r->bin_scale > 0 ? 65536.0 / r->bin_scale : 65536.0;

	if (s < 2)
		return 2;
	return s > 65536 ? 65536 : (uint32_t)(s + 0.5);
}

/* Module @m's index in a written extension file (absolute: none). */
static uint32_t file_module(struct profile *prof, unsigned int m)
{
	uint32_t index = 0;
	unsigned int k;

	if (prof->modules[m].absolute)
		return GMF_NO_MODULE;
	for (k = 0; k < m; k++)
		index += !prof->modules[k].absolute;
	return index;
}

/*
 * The extension's header, then a module record per module; with
 * @only >= 0, the record of module @only alone, as the file's main one
 * (an extracted module's sidecar).
 */
static void put_record(struct out *o, uint32_t tag, uint64_t size)
{
	unsigned char b[GMF_EXT_RECORD_HEAD];

	gmf_record_head_put(b, tag, size);
	put_bytes(o, b, sizeof(b));
}

static void put_ext_modules(struct profile *prof, struct out *o, int only)
{
	unsigned char b[GMF_HEADER_SIZE + GMF_MODULE_FIXED];
	unsigned int m;

	gmf_header_put(b, prof->event_type ? GMF_EXT_VERSION_3 :
			  GMF_EXT_VERSION);
	put_bytes(o, b, GMF_HEADER_SIZE);
	/* What the counts are, when not CPU time, before them. */
	if (prof->event_type) {
		struct gmf_event ev = { .type = prof->event_type,
					.period = prof->event_period };
		unsigned char eb[GMF_EVENT_SIZE];

		snprintf(ev.name, sizeof(ev.name), "%s",
			 spe_event(prof->event_type)->name);
		gmf_event_put(eb, &ev);
		put_record(o, GMF_TAG_EVENT, GMF_EVENT_SIZE);
		put_bytes(o, eb, sizeof(eb));
	}
	for (m = 0; m < prof->nmodules; m++) {
		const struct module *mod = &prof->modules[m];
		const char *name = mod->recorded ? mod->recorded :
				   mod->path ? mod->path : "";
		struct gmf_module r = { 0 };
		bool main_one = only >= 0 ? m == (unsigned int)only : m == 0;

		if (mod->absolute || (only >= 0 && !main_one))
			continue;
		r.index = only >= 0 ? 0 : file_module(prof, m);
		r.flags = main_one ? GMF_MODULE_MAIN : 0;
		r.bias = mod->load_bias;
		r.name_len = strlen(name);
		r.build_id_len = mod->build_id_len;
		put_record(o, GMF_TAG_MODULE, gmf_module_size(&r));
		gmf_module_put(b, &r);
		put_bytes(o, b, GMF_MODULE_FIXED);
		put_bytes(o, name, r.name_len);
		put_bytes(o, mod->build_id, mod->build_id_len);
	}
}

/*
 * Tag 4: tree @t, the caller samples of every file read, or with
 * @extracted those of one module (module 0, the file's only one).
 */
static void put_callers(struct profile *prof, struct out *o,
			const struct caller_tree *t,
			bool extracted)
{
	struct gmf_callers_head h = {
		.nnodes = t->len,
		.depth = t->depth,
		/* Malformed chains dropped when read: samples no chain holds. */
		.lost = t->lost > UINT64_MAX - t->dropped ? UINT64_MAX :
			t->lost + t->dropped,
		.busy = t->busy,
		.period_ns = t->period_ns,
	};
	unsigned char b[GMF_CALLERS_FIXED];
	size_t i;

	callers_totals(t, &h.samples, &h.truncated);
	put_record(o, GMF_TAG_CALLERS, gmf_callers_size(t->len));
	gmf_callers_head_put(b, &h);
	put_bytes(o, b, GMF_CALLERS_FIXED);
	/* Merged nodes, like the records', come after their parents. */
	for (i = 0; i < t->len; i++) {
		const struct caller_node *n = &t->node[i];
		const struct gmf_caller_node node = {
			.parent = n->parent == CALLER_NONE ? GMF_CALLER_TOP :
				  n->parent,
			.module = n->module == CALLER_ABSOLUTE ?
				  GMF_NO_MODULE :
				  extracted ? 0 : file_module(prof, n->module),
			.pc = n->pc,
			.count = n->count,
		};

		gmf_caller_node_put(b, &node);
		put_bytes(o, b, GMF_CALLER_NODE_SIZE);
	}
}

/* Tag 5: the threads of a per-thread profile, after its callers. */
static void put_threads(struct profile *prof, struct out *o)
{
	unsigned char b[GMF_THREAD_SIZE];
	uint32_t t;

	put_record(o, GMF_TAG_THREADS, gmf_threads_size(prof->nthreads));
	gmf_threads_head_put(b, prof->nthreads);
	put_bytes(o, b, GMF_THREADS_FIXED);
	for (t = 0; t < prof->nthreads; t++) {
		struct gmf_thread th = {
			.tid = prof->threads[t].tid,
			.flags = prof->threads[t].cpu_known ? GMF_THREAD_CPU :
				0,
			.cpu_ns = prof->threads[t].cpu_ns,
		};

		/* At most 15 bytes and a NUL, as read (threads_parse()). */
		memcpy(th.name, prof->threads[t].name,
		       strnlen(prof->threads[t].name, GMF_THREAD_NAME - 1));
		gmf_thread_put(b, &th);
		put_bytes(o, b, sizeof(b));
	}
}

/*
 * Tag 4 of every file read, with its threads' nodes and tag 5 when the
 * chains were per-thread (threads_tree()): in the extension file or in
 * a GNU file's sidecar alike.
 */
static void put_all_callers(struct profile *prof, struct out *o)
{
	struct caller_tree per_thread;

	if (threads_tree(prof, &per_thread)) {
		put_callers(prof, o, &per_thread, false);
		put_threads(prof, o);
		free(per_thread.node);
	} else {
		put_callers(prof, o, &prof->callers, false);
	}
}

/*
 * A GNU file's caller samples go beside it (GMF_CALLERS_SUFFIX), so
 * that GNU gprof reads the file itself; an older sidecar of that name
 * would be read with the new file, so it goes when there are none (or
 * the file is in the extension, which holds its own).  @t is the tree
 * to write, NULL for none; @module the one module extracted, or -1.
 */
static int put_sidecar(struct profile *prof, const char *path,
		       const struct caller_tree *t,
		       int module)
{
	size_t n = strlen(path);
	char *side = xmalloc(n + sizeof(GMF_CALLERS_SUFFIX));
	struct out o;
	int r = 0;

	memcpy(side, path, n);
	memcpy(side + n, GMF_CALLERS_SUFFIX, sizeof(GMF_CALLERS_SUFFIX));
	if (!t) {
		if (unlink(side) && errno != ENOENT)
			r = profile_error(prof, "%s: %s", side,
					  strerror(errno));
		free(side);
		return r;
	}
	if (open_out(prof, &o, side)) {
		free(side);
		return -1;
	}
	put_ext_modules(prof, &o, module);
	if (t == &prof->callers)
		put_all_callers(prof, &o);
	else
		put_callers(prof, &o, t, module >= 0);
	r = close_out(prof, &o);
	free(side);
	return r;
}

/*
 * One histogram record of @r's bins in @bs-byte buckets, each bin less
 * @below and at most @limit (a bin above the bucket width is spread over
 * several records of one range), sparse or dense as gmon_codec.h finds
 * it smaller.
 */
static void put_hist(struct profile *prof, struct out *o,
		     const struct hist_record *r,
		     unsigned int bs, uint64_t below, uint64_t limit)
{
	const struct gmf_hist_head head = {
		.module = file_module(prof, ADDR_MODULE(r->lowpc)),
		.bucket_size = bs,
		.scale = r->scale ? r->scale : gnu_scale(r),
		.period_ns = prof->event_type ? prof->event_period :
			     (uint64_t)(1e9 / prof->hz + 0.5),
		.low_pc = ADDR_LINK(r->lowpc),
		.high_pc = ADDR_LINK(r->highpc),
		.nbuckets = r->num_bins,
	};
	unsigned char fixed[GMF_HIST_FIXED], chunk[4096];
	unsigned char *bins = xmalloc(r->num_bins * bs);
	struct gmf_hist_enc enc;
	uint64_t k, left, body, nruns;
	uint32_t tag, v32;
	uint16_t v16;
	size_t n;

	for (k = 0; k < r->num_bins; k++) {
		left = r->sample[k] > below ? r->sample[k] - below : 0;
		left = left > limit ? limit : left;
		v32 = left;
		v16 = left;
		memcpy(bins + k * bs, bs == 4 ? (void *)&v32 : (void *)&v16,
		       bs);
	}
	gmf_hist_choose(bins, r->num_bins, bs, NULL, &tag, &body, &nruns);
	gmf_hist_head_put(fixed, &head);
	put_record(o, tag, GMF_HIST_FIXED + body);
	put_bytes(o, fixed, sizeof(fixed));
	if (tag == GMF_TAG_HIST) {
		put_bytes(o, bins, r->num_bins * bs);
	} else {
		gmf_hist_enc_init(&enc, bins, r->num_bins, bs, NULL,
				  nruns);
		while ((n = gmf_hist_enc_fill(&enc, chunk, sizeof(chunk))))
			put_bytes(o, chunk, n);
	}
	free(bins);
}

/*
 * Writes the sprofil extension: modules, histograms, arcs, callers (and
 * the threads of a per-thread profile).
 */
static void put_extension(struct profile *prof, struct out *o)
{
	unsigned char b[GMF_ARC_SIZE];
	unsigned int i;
	size_t j, narcs = 0;
	struct arc *a;

	put_ext_modules(prof, o, -1);
	for (i = 0; i < prof->num_hist_records; i++) {
		const struct hist_record *r = &prof->hist_records[i];
		unsigned int bs = r->scale ? r->bucket_size : 2;
		uint64_t limit = bs == 2 ? 0xffff : 0xffffffffu;
		uint64_t copies = (max_bin(r) + limit - 1) / limit, c;

		/* Records of one range add up when read, as in GNU files. */
		for (c = 0; c < (copies ? copies : 1); c++)
			put_hist(prof, o, r, bs, c * limit, limit);
	}
	for (j = 0; j < prof->symtab.len; j++)
		for (a = prof->symtab.base[j].cg.children; a; a = a->next_child)
			narcs++;
	put_record(o, GMF_TAG_ARCS, gmf_arcs_size(narcs));
	gmf_arcs_head_put(b, narcs);
	put_bytes(o, b, GMF_ARCS_FIXED);
	for (j = 0; j < prof->symtab.len; j++) {
		for (a = prof->symtab.base[j].cg.children; a;
		     a = a->next_child) {
			const struct gmf_arc r = {
				.from_module = file_module(prof,
							   a->parent->module),
				.self_module = file_module(prof,
							   a->child->module),
				.from = ADDR_LINK(a->parent->addr),
				.self = ADDR_LINK(a->child->addr),
				.count = a->count,
			};

			gmf_arc_put(b, &r);
			put_bytes(o, b, GMF_ARC_SIZE);
		}
	}
	if (prof->callers.records) {
		put_all_callers(prof, o);
	}
}

int gmon_out_write(struct profile *prof, const struct gprof_options *opt,
		   const char *path)
{
	/* GNU's one unit is time: an event's counts need the extension. */
	bool gnu = !prof->multi_module && !prof->event_type;
	struct out o;
	unsigned int i;
	size_t dropped = 0;

	for (i = 0; i < prof->num_hist_records; i++)
		if (prof->hist_records[i].scale)
			gnu = false;
	if (open_out(prof, &o, path))
		return -1;
	if (!gnu) {
		put_extension(prof, &o);
	} else if (opt->file_format == FF_BSD || opt->file_format == FF_BSD44) {
		put_bsd(prof, opt, &o);
	} else {
		put_gnu_header(prof, &o);
		for (i = 0; i < prof->num_hist_records; i++) {
			if (max_bin(&prof->hist_records[i]) > 65535)
				fprintf(stderr, "%s: %s: bins above 65535 are written as repeated records of one range, which gprof adds up\n",
					opt->whoami, path);
			put_gnu_hist(prof, &o, &prof->hist_records[i],
				     prof->hist_records[i].lowpc,
				     prof->hist_records[i].highpc);
		}
		put_gnu_arcs(prof, &o, -1, &dropped);
		if (prof->gmon_input & INPUT_BB_COUNTS)
			bb_write(prof, o.f);
	}
	if (close_out(prof, &o))
		return -1;
	return put_sidecar(prof, path,
			   gnu && prof->callers.records ? &prof->callers :
			   NULL, -1);
}

/* The module @spec names, or UINT_MAX and @prof's error. */
static unsigned int find_module(struct profile *prof, const char *spec)
{
	unsigned int m;
	char *end;
	unsigned long n = strtoul(spec, &end, 10);

	if (*spec && !*end) {
		if (n >= prof->nmodules) {
			profile_error(prof, "--extract-module: no module %lu (the profile has %u)",
				      n, prof->nmodules);
			return UINT_MAX;
		}
		return n;
	}
	for (m = 0; m < prof->nmodules; m++) {
		const char *name = prof->modules[m].recorded ?
			prof->modules[m].recorded :
				   prof->modules[m].path;
		const char *base = name ? strrchr(name, '/') : NULL;

		if (!name)
			continue;
		base = base ? base + 1 : name;
		if (!strcmp(spec, name) || !strcmp(spec, base))
			return m;
	}
	profile_error(prof, "--extract-module: no module named %s in the profile",
		      spec);
	return UINT_MAX;
}

int gmon_extract_module(struct profile *prof, const struct gprof_options *opt,
			const char *spec,
			const char *to)
{
	unsigned int m = find_module(prof, spec), i, nhist = 0;
	const struct module *mod;
	const char *name, *base;
	char *path = NULL;
	size_t dropped = 0;
	uint64_t kept = 0, cut, callers_left_out = 0;
	struct out o;
	int r;

	if (m == UINT_MAX)
		return -1;
	mod = &prof->modules[m];
	name = mod->path ? mod->path : mod->recorded;
	base = strrchr(name, '/');
	if (!to) {
		size_t n;

		base = base ? base + 1 : name;
		n = strlen(base) + 16;
		path = xmalloc(n);
		snprintf(path, n, "gmon.%s.out", base);
		to = path;
	}
	if (open_out(prof, &o, to)) {
		free(path);
		return -1;
	}
	put_gnu_header(prof, &o);
	for (i = 0; i < prof->num_hist_records; i++) {
		const struct hist_record *r = &prof->hist_records[i];

		if (ADDR_MODULE(r->lowpc) != m)
			continue;
		/*
		 * A profil-mapped region becomes GNU's uniform bins over the
		 * same range: both put bucket i at i/n of the way through.
		 */
		put_gnu_hist(prof, &o, r, ADDR_LINK(r->lowpc),
			     ADDR_LINK(r->highpc));
		nhist++;
	}
	put_gnu_arcs(prof, &o, m, &dropped);
	if (close_out(prof, &o)) {
		free(path);
		return -1;
	}
	/*
	 * The chains through the module go to the extracted file's
	 * sidecar, so that its call graph is still measured.
	 */
	if (prof->callers.records) {
		struct caller_tree t;

		callers_left_out = callers_of_module(prof, m, &t);
		callers_totals(&t, &kept, &cut);
		r = put_sidecar(prof, to, &t, (int)m);
		free(t.node);
	} else {
		r = put_sidecar(prof, to, NULL, -1);
	}
	if (r) {
		free(path);
		return -1;
	}
	fprintf(stderr, "%s: module %u (%s) written to %s: %u histogram record%s",
		opt->whoami, m, name, to, nhist, nhist == 1 ? "" : "s");
	if (dropped)
		fprintf(stderr, "; %zu call arc%s to or from other modules left out",
			dropped, dropped == 1 ? "" : "s");
	if (prof->callers.records)
		fprintf(stderr, "; %llu caller samples through it written to %s%s, %llu with no frame in it left out",
			(unsigned long long)kept, to, GMF_CALLERS_SUFFIX,
			(unsigned long long)callers_left_out);
	fputc('\n', stderr);
	free(path);
	return 0;
}
/* An address-sized field in the executable's byte order, as GNU's. */
static void put_uint(struct profile *prof, FILE *f, uint64_t v,
		     unsigned int size)
{
	unsigned int i;

	for (i = 0; i < size; i++) {
		unsigned int shift = prof->gmon_big_endian ?
				     8 * (size - 1 - i) : 8 * i;

		putc((int)(v >> shift & 0xff), f);
	}
}

/* The caller checks ferror(): it knows the file's name for the message. */
void bb_write(struct profile *prof, FILE *f)
{
	uint64_t nblocks = 0;
	size_t k;
	int i;

	for (k = 0; k < prof->symtab.len; k++)
		for (i = 0;
		     i < NBBS && sym_bb_addr(&prof->symtab.base[k], i); i++)
			nblocks++;
	putc(2, f);
	put_uint(prof, f, (uint32_t)nblocks, 4);
	for (k = 0; k < prof->symtab.len; k++) {
		const struct sym *s = &prof->symtab.base[k];

		for (i = 0; i < NBBS && sym_bb_addr(s, i); i++) {
			put_uint(prof, f, sym_bb_addr(s, i),
				 prof->gmon_ptr_size);
			put_uint(prof, f, sym_bb_calls(s, i),
				 prof->gmon_ptr_size);
		}
	}
}

