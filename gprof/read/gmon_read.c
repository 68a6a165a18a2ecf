// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Profile files: GNU gmon.out (tagged, version 0 or 1), the old BSD and
 * 4.4BSD formats, and sprofil's multi-module extension
 * (docs/gmon-format.md).  Files are read whole into memory first, so the
 * modules they name are known before any symbol is read, and so that
 * one parser serves both the command and the fuzz target.
 *
 * The parser never trusts a length: every read is checked against the
 * end of the buffer, and a problem is one line naming the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sprofil/gmon_codec.h>
#include <sprofil/gmon_format.h>

#include "read/read.h"
#include "read/threads.h"
#include "read/gmon_event.h"

/* A profile file read (struct profile's files). */
struct profile_file {
	const char *name;
	char *sidecar_name;	/* the name, when made here (a sidecar) */
	unsigned char *buf;
	size_t len;
};

/* GNU files are in the executable's byte order. */
static bool gnu_swap(struct profile *prof)
{
	return prof->gmon_big_endian;
}

static uint64_t get_vma(struct profile *prof, struct gmf_cursor *c)
{
	return gmf_get(c, prof->gmon_ptr_size);
}

/* ---- modules named by extension files ---- */

/* Revision 1 (dense histograms only) or 2 (sparse ones too). */
static bool is_extension(const unsigned char *buf, size_t len, bool *swap)
{
	if (len < GMF_HEADER_SIZE || memcmp(buf, GMF_COOKIE, 4))
		return false;
	/* Read little-endian, so that *swap means a big-endian file. */
	return gmf_ext_revision(gmf_load(buf + 4, 4, false), swap) != 0;
}

/* Widens a module's histogram extent to a record's [low, high). */
static void widen_hist_range(struct profile *prof, unsigned int m, uint64_t low,
			     uint64_t high)
{
	struct module *mod = &prof->modules[m];

	if (high <= low || high - 1 > ADDR_LINK(~0ull))
		return;
	low += MODULE_BASE(m);
	high += MODULE_BASE(m);
	if (!mod->hist_high || mod->hist_low > low)
		mod->hist_low = low;
	if (mod->hist_high < high)
		mod->hist_high = high;
}

/*
 * The extent of a histogram record, known before the symbols are read,
 * so that a module without readable symbols still gets one symbol for
 * its samples.  Malformed records are reported when parsed.
 */
static void note_hist_range(struct profile *prof, struct gmf_cursor *b,
			    const unsigned int *map,
			    unsigned int nmap)
{
	uint32_t index = gmf_get(b, 4);
	uint64_t low, high;

	b->p += b->end - b->p >= 20 ? 20 : 0;
	low = gmf_get(b, 8);
	high = gmf_get(b, 8);
	if (b->failed || index == GMF_NO_MODULE || index >= nmap)
		return;
	widen_hist_range(prof, map[index], low, high);
}

/*
 * Walks an extension file's records; with @map, fills map[file index] =
 * module, else only checks the framing.  Returns false on a problem.
 */
static bool scan_modules(struct profile *prof, struct gmf_cursor *c,
			 unsigned int **map,
			 unsigned int *nmap)
{
	uint32_t tag;
	struct gmf_cursor b;

	while (gmf_record_next(c, &tag, &b)) {
		struct gmf_module m;
		char why[512];

		if (tag == GMF_TAG_HIST || tag == GMF_TAG_HIST_SPARSE) {
			note_hist_range(prof, &b, *map, *nmap);
			continue;
		}
		if (tag != GMF_TAG_MODULE)
			continue;
		/* b shares c's message buffer: the message is there. */
		if (!gmf_module_get(&b, &m)) {
			c->failed = true;
			break;
		}
		if (m.index != *nmap) {
			gmf_fail(c, "module record %u out of order (expected %u)",
				 m.index, *nmap);
			break;
		}
		*map = xrealloc(*map, (*nmap + 1) * sizeof(**map));
		(*map)[*nmap] = module_add(prof, (const char *)m.name,
					   m.name_len,
					   m.build_id, m.build_id_len, m.bias,
					   m.flags & GMF_MODULE_MAIN, why,
					   sizeof(why));
		if ((*map)[(*nmap)++] == UINT_MAX) {
			gmf_fail(c, "%s", why);
			break;
		}
	}
	return !c->failed;
}

/* Reads file @f whole into memory; 0, or -1 and @prof's error. */
static int load_one(struct profile *prof, struct profile_file *f)
{
	struct stat st;
	size_t got = 0;
	int fd;

	if (!strcmp(f->name, "-"))
		fd = dup(0);
	else
		fd = open(f->name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return profile_error(prof, "%s: %s", f->name, strerror(errno));
	if (fstat(fd, &st)) {
		profile_error(prof, "%s: %s", f->name, strerror(errno));
		close(fd);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return profile_error(prof,
				     "%s: is a directory, not a profile file",
				     f->name);
	}
	f->len = S_ISREG(st.st_mode) ? (size_t)st.st_size : 0;
	f->buf = xmalloc(f->len + 1);
	for (;;) {
		ssize_t n;

		if (got == f->len) {
			if (S_ISREG(st.st_mode))
				break;
			f->len = f->len * 2 + 65536;
			f->buf = xrealloc(f->buf, f->len);
		}
		n = read(fd, f->buf + got, f->len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			profile_error(prof, "%s: %s", f->name,
				      strerror(errno));
			close(fd);
			return -1;
		}
		if (n == 0)
			break;
		got += n;
	}
	f->len = got;
	close(fd);
	return 0;
}

/*
 * The caller samples of a GNU file (or an old BSD one) are beside it,
 * in "<name>.callers" (GMF_CALLERS_SUFFIX), so that GNU gprof still
 * reads the file itself.  Returns that name if such a regular file
 * exists and the command line does not name it too, else NULL.
 */
static char *sidecar_of(const char *name, const char *const *names, int n)
{
	size_t len = strlen(name);
	char *path;
	struct stat st;
	int i;

	if (!strcmp(name, "-"))
		return NULL;
	path = xmalloc(len + sizeof(GMF_CALLERS_SUFFIX));
	memcpy(path, name, len);
	memcpy(path + len, GMF_CALLERS_SUFFIX, sizeof(GMF_CALLERS_SUFFIX));
	for (i = 0; i < n; i++)
		if (!strcmp(names[i], path))
			break;
	if (i == n && !stat(path, &st) && S_ISREG(st.st_mode))
		return path;
	free(path);
	return NULL;
}

/*
 * Loads one file into @f and, for the extension, registers the modules
 * it names; returns 1 when it is in the extension format, 0 when not,
 * -1 (@prof's error) when it cannot be read.
 */
static int load_profile(struct profile *prof, struct profile_file *f,
			const char *name, char *sidecar_name)
{
	unsigned int *map = NULL, nmap = 0;
	char err[256];
	struct gmf_cursor c = { .err = err, .errlen = sizeof(err) };

	f->name = name;
	f->sidecar_name = sidecar_name;
	prof->module_profile = name;
	if (load_one(prof, f))
		return -1;
	if (!is_extension(f->buf, f->len, &c.swap)) {
		if (sidecar_name)
			return profile_error(prof, "%s: caller samples beside a GNU profile must be in sprofil's format (sprofil-gmon(5))",
					     name);
		return 0;
	}
	c.p = f->buf + GMF_HEADER_SIZE;
	c.end = f->buf + f->len;
	if (!scan_modules(prof, &c, &map, &nmap)) {
		free(map);
		return profile_error(prof, "%s: %s", f->name, err);
	}
	free(map);
	return 1;
}

int gmon_load_files(struct profile *prof, const char *const *names, int n)
{
	static const char *const fallback[] = { "gmon.out" };
	int i;

	modules_init(prof);
	if (!n) {
		names = fallback;
		n = 1;
	}
	/* Each file may bring its sidecar. */
	prof->files = xcalloc(2 * (size_t)n, sizeof(*prof->files));
	prof->nfiles = 0;
	for (i = 0; i < n; i++) {
		char *side;
		int ext = load_profile(prof, &prof->files[prof->nfiles++],
				       names[i], NULL);

		if (ext < 0)
			return -1;
		if (ext)
			continue;
		side = sidecar_of(names[i], names, n);
		if (side && load_profile(prof, &prof->files[prof->nfiles++],
					 side, side) < 0)
			return -1;
	}
	return 0;
}

/* ---- histograms ---- */

/*
 * Bins are summed in 32 bits (GNU sums them in an int): a histogram of
 * millions of bins is most of the analyzer's memory.  A sum past 2^32-1
 * stays there, and says so once.
 */
static void add_count(const struct gprof_options *opt, uint32_t *bin,
		      uint64_t n)
{
	static bool warned;

	if (n <= UINT32_MAX - *bin) {
		*bin += n;
		return;
	}
	*bin = UINT32_MAX;
	if (!warned) {
		warned = true;
		fprintf(stderr, "%s: a histogram bin's sum exceeds 2^32-1 and stops there\n",
			opt->whoami);
	}
}

/* Adds a GNU record's 16-bit bins (executable byte order) into @r. */
static bool add_gnu_bins(struct profile *prof, const struct gprof_options *opt,
			 struct gmf_cursor *c,
			 struct hist_record *r)
{
	const unsigned char *bins = NULL;
	uint64_t i;

	if (!gmf_take(c, r->num_bins * 2, &bins))
		return false;
	for (i = 0; i < r->num_bins; i++) {
		const unsigned char *b = bins + 2 * i;

		add_count(opt, &r->sample[i],
			  gnu_swap(prof) ? (b[0] << 8 | b[1]) :
						      (b[1] << 8 | b[0]));
	}
	return true;
}

static struct hist_record *find_record(struct profile *prof,
				       const struct hist_record *n)
{
	unsigned int i;

	for (i = 0; i < prof->num_hist_records; i++) {
		struct hist_record *r = &prof->hist_records[i];

		if (r->lowpc == n->lowpc && r->highpc == n->highpc &&
		    r->num_bins == n->num_bins && r->scale == n->scale &&
		    r->bucket_size == n->bucket_size)
			return r;
	}
	return NULL;
}

/*
 * GNU's rule for its uniform-bin records: a record that overlaps
 * another without being identical to it cannot be assigned.
 */
static const char *gnu_overlap(struct profile *prof,
			       const struct hist_record *n)
{
	unsigned int i, found = 0;

	for (i = 0; i < prof->num_hist_records; i++) {
		const struct hist_record *r = &prof->hist_records[i];
		uint64_t lo = r->lowpc > n->lowpc ? r->lowpc : n->lowpc;
		uint64_t hi = r->highpc < n->highpc ? r->highpc : n->highpc;

		if (lo < hi)
			found++;
	}
	if (found > 1)
		return "a histogram record covers several earlier ones";
	if (found)
		return "overlapping histogram records";
	return NULL;
}

static struct hist_record *add_record(struct profile *prof,
				      const struct hist_record *n)
{
	struct hist_record *r;

	prof->hist_records = xrealloc(prof->hist_records,
				(prof->num_hist_records + 1) * sizeof(*r));
	r = &prof->hist_records[prof->num_hist_records++];
	*r = *n;
	r->sample = xcalloc(n->num_bins, sizeof(*r->sample));
	return r;
}

static void gnu_hist_record(struct profile *prof,
			    const struct gprof_options *opt,
			    struct gmf_cursor *c)
{
	struct hist_record n = { .bucket_size = 2 };
	struct hist_record *r;
	const unsigned char *dim;
	uint32_t rate;
	char ndim[16] = "";

	n.lowpc = get_vma(prof, c);
	n.highpc = get_vma(prof, c);
	n.num_bins = gmf_get(c, 4);
	rate = gmf_get(c, 4);
	if (!gmf_take(c, 16, &dim))
		return;
	memcpy(ndim, dim, 15);
	if (n.highpc < n.lowpc) {
		gmf_fail(c, "histogram record ends (0x%llx) before it starts (0x%llx)",
			 (unsigned long long)n.highpc,
			 (unsigned long long)n.lowpc);
		return;
	}
	if (!n.num_bins) {
		gmf_fail(c, "histogram record has no bins");
		return;
	}
	if (n.num_bins > (uint64_t)(c->end - c->p) / 2) {
		gmf_fail(c, "unexpected end of file in a histogram of %llu bins",
			 (unsigned long long)n.num_bins);
		return;
	}
	n.bin_scale = (double)((n.highpc - n.lowpc) / 2) / n.num_bins;
	if (!prof->have_gnu_hist) {
		prof->hz = rate;
		memcpy(prof->hist_dimension, ndim, 16);
		prof->hist_dimension_abbrev = dim[15];
		prof->gnu_hist_scale = n.bin_scale;
		prof->have_gnu_hist = true;
	} else if (strncmp(ndim, prof->hist_dimension, 15)) {
		gmf_fail(c, "dimension unit changed between histogram records (from '%s' to '%s')",
			 prof->hist_dimension, ndim);
		return;
	} else if (dim[15] != prof->hist_dimension_abbrev) {
		gmf_fail(c, "dimension abbreviation changed between histogram records (from '%c' to '%c')",
			 prof->hist_dimension_abbrev, dim[15]);
		return;
	} else if (prof->gnu_hist_scale - n.bin_scale > 0.000001 ||
		   n.bin_scale - prof->gnu_hist_scale > 0.000001) {
		gmf_fail(c, "different scales in histogram records");
		return;
	}
	r = find_record(prof, &n);
	if (!r) {
		const char *why = gnu_overlap(prof, &n);

		if (why) {
			gmf_fail(c, "%s", why);
			return;
		}
		r = add_record(prof, &n);
	}
	if (!add_gnu_bins(prof, opt, c, r))
		return;
}

/*
 * The reader only reads: an arc or a block count is kept as the file
 * has it, for the analysis to file into the symbols (profile_tally()).
 */
static void read_arc_add(struct profile *prof, uint64_t from_pc,
			 uint64_t self_pc, uint64_t count)
{
	prof->read_arcs = xgrowarray(prof->read_arcs, prof->nread_arcs,
				     &prof->read_arcs_cap,
				     sizeof(*prof->read_arcs));
	prof->read_arcs[prof->nread_arcs++] = (struct read_arc){
		.from_pc = from_pc, .self_pc = self_pc, .count = count,
	};
}

static void read_bb_add(struct profile *prof, uint64_t addr, uint64_t count)
{
	prof->read_bbs = xgrowarray(prof->read_bbs, prof->nread_bbs,
				    &prof->read_bbs_cap,
				    sizeof(*prof->read_bbs));
	prof->read_bbs[prof->nread_bbs++] = (struct read_bb){
		.addr = addr, .count = count,
	};
}

/* The callers record under @c, kept whole for profile_tally(). */
static void read_callers_add(struct profile *prof, const struct gmf_cursor *c,
			     const unsigned int *map, unsigned int nmap)
{
	struct read_callers *r;
	size_t len = (size_t)(c->end - c->p);

	prof->read_callers = xgrowarray(prof->read_callers,
					prof->nread_callers,
					&prof->read_callers_cap,
					sizeof(*prof->read_callers));
	r = &prof->read_callers[prof->nread_callers++];
	/* A file without module records has no map (NULL, 0). */
	r->rec = xmalloc(len);
	if (len)
		memcpy(r->rec, c->p, len);
	r->len = len;
	r->map = xmallocarray(nmap ? nmap : 1, sizeof(*map));
	if (nmap)
		memcpy(r->map, map, nmap * sizeof(*map));
	r->nmap = nmap;
	r->swap = c->swap;
	r->file = prof->module_profile;
}

static void gnu_bb_record(struct profile *prof, struct gmf_cursor *c)
{
	uint32_t n = gmf_get(c, 4), i;

	if (n > (uint64_t)(c->end - c->p) / (2 * prof->gmon_ptr_size)) {
		gmf_fail(c, "unexpected end of file in %u basic-block counts",
			 n);
		return;
	}
	for (i = 0; i < n; i++) {
		uint64_t addr = get_vma(prof, c);
		uint64_t count = get_vma(prof, c);

		read_bb_add(prof, addr, count);
	}
}

struct file_counts {
	int nhist, narcs, nbbs, ncallers;
	unsigned int version;
};

static void parse_gnu(struct profile *prof, const struct gprof_options *opt,
		      struct gmf_cursor *c,
		      struct file_counts *fc)
{
	while (!c->failed && c->p < c->end) {
		unsigned int tag = *c->p++;

		switch (tag) {
		case GMF_GNU_TAG_TIME_HIST:
			fc->nhist++;
			prof->gmon_input |= INPUT_HISTOGRAM;
			gnu_hist_record(prof, opt, c);
			break;
		case GMF_GNU_TAG_CG_ARC: {
			uint64_t from = get_vma(prof, c), self = get_vma(prof,
									 c);
			uint64_t count = gmf_get(c, 4);

			fc->narcs++;
			prof->gmon_input |= INPUT_CALL_GRAPH;
			if (c->failed)
				break;
			prof->file_arcs++;
			if (!sym_lookup(&prof->symtab, self))
				prof->file_stray_arcs++;
			read_arc_add(prof, from, self, count);
			break;
		}
		case GMF_GNU_TAG_BB_COUNT:
			fc->nbbs++;
			prof->gmon_input |= INPUT_BB_COUNTS;
			gnu_bb_record(prof, c);
			break;
		default:
			gmf_fail(c, "found bad tag %u (file corrupted?)", tag);
		}
	}
}

/* The old BSD and 4.4BSD formats: one histogram, then raw arcs. */
static void parse_bsd(struct profile *prof, const struct gprof_options *opt,
		      struct gmf_cursor *c,
		      const unsigned char *start,
		      struct file_counts *fc)
{
	struct hist_record n = { .bucket_size = 2 };
	struct hist_record *r;
	uint32_t ncnt, version;
	size_t header;
	int64_t bytes;

	c->p = start;
	n.lowpc = get_vma(prof, c);
	n.highpc = get_vma(prof, c);
	ncnt = gmf_get(c, 4);
	version = gmf_get(c, 4);
	if (c->failed) {
		gmf_fail(c, "file too short to be a gmon file");
		return;
	}
	if (version == GMF_BSD44_VERSION) {
		uint32_t rate = gmf_get(c, 4);

		if (!prof->num_hist_records)
			prof->hz = rate;
		else if (prof->hz != rate) {
			gmf_fail(c, "profiling rate incompatible with first gmon file");
			return;
		}
		header = prof->gmon_ptr_size == 8 ? 40 : 32;
	} else {
		if (opt->file_format == FF_BSD44) {
			gmf_fail(c, "bad magic cookie (not a 4.4BSD gmon file)");
			return;
		}
		header = prof->gmon_ptr_size == 8 ? 20 : 12;
	}
	if ((size_t)(c->end - start) < header) {
		gmf_fail(c, "file too short to be a gmon file");
		return;
	}
	c->p = start + header;
	bytes = (int64_t)ncnt - (int64_t)header;
	if (bytes < 0 || n.lowpc > n.highpc) {
		gmf_fail(c, "does not appear to be in gmon.out format");
		return;
	}
	n.num_bins = bytes / 2;
	if (n.num_bins > (uint64_t)(c->end - c->p) / 2) {
		gmf_fail(c, "unexpected end of file in a histogram of %llu bins",
			 (unsigned long long)n.num_bins);
		return;
	}
	if (prof->num_hist_records &&
	    (n.lowpc != prof->hist_records[0].lowpc ||
	     n.highpc != prof->hist_records[0].highpc ||
	     n.num_bins != prof->hist_records[0].num_bins)) {
		gmf_fail(c, "incompatible with first gmon file");
		return;
	}
	if (!prof->num_hist_records) {
		n.bin_scale = n.num_bins ?
			(double)((n.highpc - n.lowpc) / 2) / n.num_bins : 0;
		prof->gnu_hist_scale = n.bin_scale;
		prof->have_gnu_hist = true;
		strcpy(prof->hist_dimension, "seconds");
		prof->hist_dimension_abbrev = 's';
		add_record(prof, &n);
	}
	r = &prof->hist_records[0];
	prof->gmon_input |= INPUT_HISTOGRAM | INPUT_CALL_GRAPH;
	if (n.num_bins)
		fc->nhist++;
	if (!add_gnu_bins(prof, opt, c, r))
		return;
	while ((size_t)(c->end - c->p) >= 3 * prof->gmon_ptr_size) {
		uint64_t from = get_vma(prof, c), self = get_vma(prof, c);
		uint64_t count = gmf_get(c, prof->gmon_ptr_size);

		fc->narcs++;
		read_arc_add(prof, from, self, count);
	}
	if (prof->hz == 0) {
		/* GNU asks the clock; on Linux that is the tick rate. */
		long t = sysconf(_SC_CLK_TCK);

		prof->hz = t > 0 ? t : 1;
	}
}

/* ---- the sprofil extension ---- */

unsigned int module_outside(struct profile *prof)
{
	if (!prof->outside) {
		char why[512];

		prof->outside = module_add(prof, "(no module)", 11, NULL, 0,
					   0, false, why, sizeof(why));
		if (prof->outside == UINT_MAX)
			fatal("%s", why);
		prof->modules[prof->outside].absolute = true;
		prof->modules[prof->outside].why =
			xstrdup("absolute addresses, in no load module");
	}
	return prof->outside;
}

int gmon_check_match(struct profile *prof, const struct gprof_options *opt,
		     const char *name)
{
	const struct module *exe = &prof->modules[0];
	unsigned int i;

	if (!exe->exec_high)
		return 0;
	for (i = 0; i < prof->num_hist_records; i++) {
		const struct hist_record *r = &prof->hist_records[i];

		/* GNU records are all the executable's, whatever address. */
		if (r->scale && ADDR_MODULE(r->lowpc) != 0)
			continue;
		/*
		 * glibc's range starts at __executable_start (0 in a PIE) and
		 * ends at etext rounded up: it must overlap the code and not
		 * run past it.
		 */
		if (r->lowpc < exe->exec_high && r->highpc > exe->exec_low &&
		    r->highpc <= exe->exec_high + 64)
			continue;
		return profile_error(prof, "%s: does not match %s: its histogram covers 0x%llx-0x%llx, not the executable's code at 0x%llx-0x%llx",
				     name, opt->a_out_name,
				     (unsigned long long)r->lowpc,
				     (unsigned long long)r->highpc,
				     (unsigned long long)exe->exec_low,
				     (unsigned long long)exe->exec_high);
	}
	if (prof->file_arcs && prof->file_arcs == prof->file_stray_arcs)
		return profile_error(prof, "%s: does not match %s: none of its %llu call arcs lands in a function of it",
				     name, opt->a_out_name,
				     (unsigned long long)prof->file_arcs);
	return 0;
}

static unsigned int ext_module(struct profile *prof, struct gmf_cursor *c,
			       const unsigned int *map,
			       unsigned int nmap, uint32_t index)
{
	if (index == GMF_NO_MODULE)
		return module_outside(prof);
	if (index >= nmap) {
		gmf_fail(c, "record names module %u, which no module record defined",
			 index);
		return 0;
	}
	return map[index];
}

/*
 * A sparse record's buckets are not bounded by its bytes: the analyzer
 * holds every bucket of a histogram, 4 bytes each, so it refuses one of
 * more than this many (1 GiB), far above what covers any real text.
 */
#define SPARSE_MAX_BUCKETS	(1ull << 28)

/* A histogram record, dense (tag 2) or sparse (tag 6): gmon_codec.h. */
static void ext_hist(struct profile *prof, const struct gprof_options *opt,
		     struct gmf_cursor *c,
		     uint32_t tag, const unsigned int *map,
		     unsigned int nmap)
{
	struct hist_record n = { 0 };
	struct hist_record *r;
	struct gmf_hist_head h;
	struct gmf_hist_dec d;
	uint64_t i, count;
	const unsigned char *fixed;
	unsigned int m;
	double rate;

	if (!gmf_take(c, GMF_HIST_FIXED, &fixed))
		return;
	gmf_hist_head_get(fixed, GMF_HIST_FIXED, c->swap, &h);
	m = ext_module(prof, c, map, nmap, h.module);
	if (c->failed)
		return;
	if (h.bucket_size != 2 && h.bucket_size != 4) {
		gmf_fail(c, "histogram with %u-byte buckets (2 or 4 expected)",
			 h.bucket_size);
		return;
	}
	if (h.scale < 2 || h.scale > 0x10000 || !h.nbuckets ||
	    !h.period_ns || h.high_pc <= h.low_pc ||
	    h.high_pc - 1 > ADDR_LINK(~0ull) ||
	    (tag == GMF_TAG_HIST &&
	     h.nbuckets > (uint64_t)(c->end - c->p) / h.bucket_size) ||
	    (tag == GMF_TAG_HIST_SPARSE &&
	     (h.nbuckets > SPARSE_MAX_BUCKETS ||
	      h.nbuckets - 1 > (h.high_pc - h.low_pc) / h.bucket_size))) {
		gmf_fail(c, "malformed histogram record (scale %u, %llu buckets, 0x%llx-0x%llx)",
			 h.scale, (unsigned long long)h.nbuckets,
			 (unsigned long long)h.low_pc,
			 (unsigned long long)h.high_pc);
		return;
	}
	gmf_hist_dec_init(&d, tag, &h, c->p, c->end, c->swap);
	if (d.failed) {
		gmf_fail(c, "%s", d.err);
		return;
	}
	n.num_bins = h.nbuckets;
	n.lowpc = MODULE_BASE(m) + h.low_pc;
	n.highpc = MODULE_BASE(m) + h.high_pc;
	n.bucket_size = h.bucket_size;
	n.scale = h.scale;
	n.bin_scale = (double)((h.high_pc - h.low_pc) / 2) / n.num_bins;
	/* Samples of different periods are not the same time: no sum. */
	if (prof->ext_period && h.period_ns != prof->ext_period) {
		gmf_fail(c, "sampled every %llu ns, not every %llu ns as the profiles before it",
			 (unsigned long long)h.period_ns,
			 (unsigned long long)prof->ext_period);
		return;
	}
	prof->ext_period = h.period_ns;
	rate = 1e9 / (double)h.period_ns;
	if (!prof->have_gnu_hist && !prof->num_hist_records) {
		prof->hz = rate;
		strcpy(prof->hist_dimension, "seconds");
		prof->hist_dimension_abbrev = 's';
		prof->gnu_hist_scale = n.bin_scale;
	}
	r = find_record(prof, &n);
	if (!r)
		r = add_record(prof, &n);
	while (gmf_hist_dec_next(&d, &i, &count))
		add_count(opt, &r->sample[i], count);
	if (d.failed) {
		gmf_fail(c, "%s", d.err);
		return;
	}
	widen_hist_range(prof, m, h.low_pc, h.high_pc);
	prof->gmon_input |= INPUT_HISTOGRAM;
}

static void ext_arcs(struct profile *prof, struct gmf_cursor *c,
		     const unsigned int *map,
		     unsigned int nmap, struct file_counts *fc)
{
	uint64_t narcs = gmf_arcs_begin(c), i;
	struct gmf_arc a;

	for (i = 0; i < narcs && gmf_arc_get(c, &a); i++) {
		unsigned int f = ext_module(prof, c, map, nmap, a.from_module);
		unsigned int s = ext_module(prof, c, map, nmap, a.self_module);

		if (c->failed)
			break;
		if (a.from > ADDR_LINK(~0ull) || a.self > ADDR_LINK(~0ull))
			continue;
		fc->narcs++;
		prof->gmon_input |= INPUT_CALL_GRAPH;
		read_arc_add(prof, MODULE_BASE(f) + a.from,
			     MODULE_BASE(s) + a.self, a.count);
	}
}

static void parse_extension(struct profile *prof,
			    const struct gprof_options *opt,
			    struct gmf_cursor *c, struct file_counts *fc)
{
	unsigned int *map = NULL, nmap = 0;
	const unsigned char *records = c->p;
	struct gmf_cursor b;
	uint32_t tag;

	/* Module records precede their users; map them all first. */
	if (!scan_modules(prof, c, &map, &nmap)) {
		free(map);
		return;
	}
	/* And the threads, which --thread=NAME selects by name. */
	c->p = records;
	while (gmf_record_next(c, &tag, &b)) {
		if (tag != GMF_TAG_THREADS)
			continue;
		threads_parse(prof, &b);
		if (b.failed)
			c->failed = true;
	}
	if (c->failed) {
		free(map);
		return;
	}
	c->p = records;
	while (gmf_record_next(c, &tag, &b)) {
		switch (tag) {
		case GMF_TAG_HIST:
		case GMF_TAG_HIST_SPARSE:
			fc->nhist++;
			ext_hist(prof, opt, &b, tag, map, nmap);
			break;
		case GMF_TAG_ARCS:
			ext_arcs(prof, &b, map, nmap, fc);
			break;
		case GMF_TAG_CALLERS:
			fc->ncallers++;
			read_callers_add(prof, &b, map, nmap);
			break;
		default:
			/* Modules were mapped; newer records are skipped. */
			break;
		}
		/* b shares c's message buffer: the message is there. */
		if (b.failed)
			c->failed = true;
	}
	free(map);
}

int gmon_parse(struct profile *prof, const struct gprof_options *opt,
	       const unsigned char *buf,
	       size_t len, const char *name,
	       char *err, size_t errlen)
{
	struct gmf_event ev = { 0 };
	struct gmf_cursor c = { .p = buf, .end = buf + len, .err = err,
			    .errlen = errlen };
	struct file_counts fc = { 0 };
	bool magic = len >= 4 && !memcmp(buf, GMF_COOKIE, 4);

	prof->module_profile = name;
	if (is_extension(buf, len, &c.swap)) {
		c.p = buf + 4;
		fc.version = gmf_get(&c, 4);
		c.p = buf + GMF_HEADER_SIZE;
		if (gmon_file_event(&c, &ev) || gmon_event_check(prof, &c, &ev))
			return -1;
		parse_extension(prof, opt, &c, &fc);
		gmon_event_unit(prof);
	} else if (opt->file_format == FF_MAGIC ||
		   (opt->file_format == FF_AUTO && magic)) {
		if (len < GMF_HEADER_SIZE) {
			gmf_fail(&c, "file too short to be a gmon file");
			return -1;
		}
		if (!magic) {
			gmf_fail(&c, "bad magic cookie (not a gmon.out file)");
			return -1;
		}
		c.swap = gnu_swap(prof);
		c.p = buf + 4;
		fc.version = gmf_get(&c, 4);
		if (fc.version != GMF_GNU_VERSION && fc.version != 0) {
			gmf_fail(&c, "unsupported version %u", fc.version);
			return -1;
		}
		c.p = buf + GMF_HEADER_SIZE;
		if (gmon_event_check(prof, &c, &ev))
			return -1;
		parse_gnu(prof, opt, &c, &fc);
	} else {
		c.swap = gnu_swap(prof);
		if (gmon_event_check(prof, &c, &ev))
			return -1;
		parse_bsd(prof, opt, &c, buf, &fc);
	}
	if (c.failed)
		return -1;
	if (opt->output_style & STYLE_GMON_INFO) {
		printf("File `%s' (version %u) contains:\n", name, fc.version);
		printf(fc.nhist == 1 ? "\t%d histogram record\n" :
		       "\t%d histogram records\n", fc.nhist);
		printf(fc.narcs == 1 ? "\t%d call-graph record\n" :
		       "\t%d call-graph records\n", fc.narcs);
		printf(fc.nbbs == 1 ? "\t%d basic-block count record\n" :
		       "\t%d basic-block count records\n", fc.nbbs);
		/* Only files that have them say so: GNU's lines stay. */
		if (fc.ncallers)
			printf(fc.ncallers == 1 ?
			       "\t%d caller-sample record\n" :
			       "\t%d caller-sample records\n", fc.ncallers);
		prof->first_output = false;
	}
	return 0;
}

int gmon_parse_file(struct profile *prof, const struct gprof_options *opt,
		    int i)
{
	char err[512];

	prof->file_arcs = prof->file_stray_arcs = 0;
	if (gmon_parse(prof, opt, prof->files[i].buf, prof->files[i].len,
		       prof->files[i].name, err, sizeof(err)))
		return profile_error(prof, "%s: %s", prof->files[i].name,
				     err);
	if (gmon_check_match(prof, opt, prof->files[i].name))
		return -1;
	/* Everything is in the records now; reports need memory. */
	free(prof->files[i].buf);
	prof->files[i].buf = NULL;
	return 0;
}

void modules_reset(struct profile *prof)
{
	unsigned int m;
	int i;

	for (m = 0; m < prof->nmodules; m++) {
		free(prof->modules[m].path);
		free(prof->modules[m].recorded);
		free(prof->modules[m].build_id);
		free(prof->modules[m].why);
		free(prof->modules[m].label);
		free(prof->modules[m].debug_path);
	}
	free(prof->modules);
	prof->modules = NULL;
	prof->nmodules = 0;
	prof->multi_module = false;
	prof->outside = 0;
	prof->module_profile = "";
	for (i = 0; i < prof->nfiles; i++) {
		free(prof->files[i].buf);
		free(prof->files[i].sidecar_name);
	}
	free(prof->files);
	prof->files = NULL;
	prof->nfiles = 0;
}
