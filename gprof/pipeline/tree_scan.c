// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What one profile file of a recorded tree says of its process and its
 * program, read through the format's codec (include/sprofil/gmon_codec.h)
 * without any symbols: the process record (tag 7), the main module
 * record, and the samples of its histograms.  Files without a process
 * record (older ones) are known by the name record gives them,
 * <comm>.<pid>.gmon.  Every record is framed and every histogram decoded,
 * so that a cut or corrupt file is found here, named and skipped, before
 * its program's files are read together.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sprofil/gmon_codec.h>
#include <sprofil/gmon_format.h>

#include "export/export.h"
#include "pipeline/tree_report.h"

/* The whole file at @path into *@buf (to free); 0, or -1 and *@why. */
static int read_all(const char *path, unsigned char **buf, size_t *len,
		    char **why)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	char msg[256];

	*buf = NULL;
	if (!f || fstat(fileno(f), &st)) {
		*why = xstrdup(strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		fclose(f);
		*why = xstrdup("not a regular file");
		return -1;
	}
	*len = (size_t)st.st_size;
	*buf = xmalloc(*len ? *len : 1);
	if (fread(*buf, 1, *len, f) != *len) {
		snprintf(msg, sizeof(msg), "%s", ferror(f) ? strerror(errno) :
			 "changed while read");
		fclose(f);
		free(*buf);
		*buf = NULL;
		*why = xstrdup(msg);
		return -1;
	}
	fclose(f);
	return 0;
}

/* pid and comm from record's name for a process, <comm>.<pid>.gmon. */
static void name_process(struct tree_proc *p, const char *path)
{
	const char *base = strrchr(path, '/');
	const char *dot, *end;
	size_t n = strlen(base = base ? base + 1 : path);
	char *stop;
	unsigned long pid;

	if (n <= 5 || strcmp(base + n - 5, ".gmon"))
		return;
	end = base + n - 5;
	for (dot = end; dot > base && dot[-1] != '.'; dot--)
		;
	if (dot == base || dot == end)
		return;
	pid = strtoul(dot, &stop, 10);
	if (stop != end || !pid || pid > UINT32_MAX)
		return;
	p->pid = (uint32_t)pid;
	p->has_pid = true;
	n = (size_t)(dot - 1 - base);
	if (n >= sizeof(p->comm))
		n = sizeof(p->comm) - 1;
	memcpy(p->comm, base, n);
	p->comm[n] = '\0';
}

/*
 * Walks the records of the extension file in @buf.  For @p: the process
 * and main module, the samples; with @prof, also each bucket's count
 * into @counts[symbol] (the module records mapped onto @prof's).
 */
static const char *walk(struct tree_proc *p, const unsigned char *buf,
			size_t len, struct profile *prof, uint64_t *counts,
			char *err, size_t errlen, bool *gnu)
{
	struct gmf_cursor c = { .err = err, .errlen = errlen };
	unsigned int *map = NULL, nmap = 0;
	struct gmf_cursor b;
	uint32_t tag, version;
	bool swap;

	if (len < GMF_HEADER_SIZE || memcmp(buf, GMF_COOKIE, 4))
		return "not a profile (no gmon header)";
	c.p = buf + GMF_HEADER_SIZE;
	c.end = buf + len;
	version = gmf_load(buf + 4, 4, false);
	if (!gmf_ext_revision(version, &swap)) {
		*gnu = true;
		return "a GNU gmon.out, which names no program (report it with its program: sprofil report PROGRAM FILE)";
	}
	c.swap = swap;
	while (gmf_record_next(&c, &tag, &b)) {
		if (tag == GMF_TAG_MODULE) {
			struct gmf_module m;
			unsigned int to = UINT_MAX, j;

			if (!gmf_module_get(&b, &m))
				break;
			if (!prof && (m.flags & GMF_MODULE_MAIN) &&
			    !p->main_path) {
				p->main_path = xmalloc(m.name_len + 1);
				memcpy(p->main_path, m.name, m.name_len);
				p->main_path[m.name_len] = '\0';
				p->build_id = xmalloc(m.build_id_len + 1);
				memcpy(p->build_id, m.build_id,
				       m.build_id_len);
				p->build_id_len = m.build_id_len;
			}
			if (!prof || m.index > 1u << 20)
				continue;
			for (j = 0; j < prof->nmodules && to == UINT_MAX; j++) {
				const struct module *pm = &prof->modules[j];

				if (m.flags & GMF_MODULE_MAIN)
					to = 0;
				else if (m.build_id_len && pm->build_id_len ?
					 pm->build_id_len == m.build_id_len &&
					 !memcmp(pm->build_id, m.build_id,
						 m.build_id_len) :
					 pm->recorded &&
					 strlen(pm->recorded) == m.name_len &&
					 !memcmp(pm->recorded, m.name,
						 m.name_len))
					to = j;
			}
			if (m.index >= nmap) {
				map = xreallocarray(map, m.index + 1,
						    sizeof(*map));
				while (nmap <= m.index)
					map[nmap++] = UINT_MAX;
			}
			map[m.index] = to;
		} else if (tag == GMF_TAG_PROCESS) {
			struct gmf_process pr;

			if (!gmf_process_get(&b, &pr))
				break;
			p->pid = pr.pid;
			p->ppid = pr.ppid;
			p->has_pid = true;
			p->cpu_known = pr.flags & GMF_PROCESS_CPU;
			p->cpu_ns = pr.cpu_ns;
			p->start_ns = pr.flags & GMF_PROCESS_START ?
				      pr.start_ns : 0;
			memcpy(p->comm, pr.comm, GMF_PROCESS_COMM);
			p->comm[GMF_PROCESS_COMM] = '\0';
		} else if (tag == GMF_TAG_HIST || tag == GMF_TAG_HIST_SPARSE) {
			struct gmf_hist_head h;
			struct gmf_hist_dec d;
			uint64_t i, n, span;
			unsigned int m;

			if (!gmf_hist_head_get(b.p, gmf_left(&b), swap, &h)) {
				gmf_fail(&c, "histogram record shorter than its %d-byte fixed part",
					 GMF_HIST_FIXED);
				break;
			}
			gmf_hist_dec_init(&d, tag, &h, b.p + GMF_HIST_FIXED,
					  b.end, swap);
			m = h.module < nmap ? map[h.module] : UINT_MAX;
			span = h.high_pc > h.low_pc ? h.high_pc - h.low_pc : 0;
			while (gmf_hist_dec_next(&d, &i, &n)) {
				uint64_t pc;
				struct sym *s;

				if (!prof) {
					p->samples += n;
					continue;
				}
				if (m == UINT_MAX || !h.nbuckets)
					continue;
				pc = h.low_pc + (uint64_t)((unsigned __int128)i *
							   span / h.nbuckets);
				s = sym_lookup(&prof->symtab,
					       MODULE_BASE(m) + pc);
				if (s)
					counts[s - prof->symtab.base] += n;
			}
			if (d.failed) {
				gmf_fail(&c, "%s", d.err);
				break;
			}
		}
		if (b.failed) {
			c.failed = true;
			break;
		}
	}
	free(map);
	if (c.failed)
		return err;
	return NULL;
}

/*
 * A GNU gmon.out (record --modules of the executable alone) names its
 * program and process in its caller chains' sidecar, <file>.callers,
 * an extension file, when the chains went through the executable.
 */
static bool gnu_sidecar(struct tree_proc *p)
{
	char *side = xmalloc(strlen(p->path) + sizeof(GMF_CALLERS_SUFFIX));
	unsigned char *buf;
	char err[256], *why = NULL;
	bool gnu = false, ok;
	size_t len;

	sprintf(side, "%s%s", p->path, GMF_CALLERS_SUFFIX);
	ok = !read_all(side, &buf, &len, &why);
	free(side);
	free(why);
	if (!ok)
		return false;
	ok = !walk(p, buf, len, NULL, NULL, err, sizeof(err), &gnu) &&
	     p->main_path;
	free(buf);
	return ok;
}

static void proc_init(struct tree_proc *p, const char *path)
{
	memset(p, 0, sizeof(*p));
	p->path = xstrdup(path);
	p->parent = -1;
	name_process(p, path);
}

void tree_scan(struct tree_proc *p, const char *path)
{
	unsigned char *buf;
	size_t len;
	char *why;

	if (!read_all(path, &buf, &len, &why)) {
		tree_scan_buf(p, path, buf, len);
		free(buf);
		return;
	}
	proc_init(p, path);
	p->bad = why;
}

void tree_scan_buf(struct tree_proc *p, const char *path,
		   const unsigned char *buf, size_t len)
{
	const char *why;
	char err[256] = "";
	bool gnu = false;

	proc_init(p, path);
	why = walk(p, buf, len, NULL, NULL, err, sizeof(err), &gnu);
	/* Its samples are counted when it is read alone (tree_scan_alone). */
	if (gnu && gnu_sidecar(p))
		p->gnu = true;
	else if (why)
		p->bad = xstrdup(why);
	else if (!p->main_path)
		p->bad = xstrdup("names no program (no main module record)");
}

/* The function of @prof with most of @counts (symtab-indexed). */
static void set_top(struct tree_proc *p, struct profile *prof,
		    const struct gprof_options *opt, const uint64_t *counts)
{
	size_t i, best = SIZE_MAX;

	for (i = 0; i < prof->symtab.len; i++) {
		const struct sym *s = &prof->symtab.base[i];

		if (!counts[i] || !s->name ||
		    prof->modules[s->module].overhead)
			continue;
		if (best == SIZE_MAX || counts[i] > counts[best])
			best = i;
	}
	if (best != SIZE_MAX) {
		p->top = display_name(opt, &prof->symtab.base[best]);
		p->top_samples = counts[best];
	}
}

void tree_scan_alone(struct tree_proc *p, struct profile *prof,
		     const struct gprof_options *opt)
{
	uint64_t *counts = xcalloc(prof->symtab.len + 1, sizeof(*counts));
	unsigned int r;
	uint64_t b;
	size_t i;

	p->samples = 0;
	for (r = 0; r < prof->num_hist_records; r++)
		for (b = 0; b < prof->hist_records[r].num_bins; b++)
			p->samples += prof->hist_records[r].sample[b];
	for (i = 0; i < prof->symtab.len; i++)
		counts[i] = whole_samples(prof->symtab.base[i].hist.time);
	set_top(p, prof, opt, counts);
	free(counts);
}

void tree_scan_top(struct tree_proc *p, struct profile *prof,
		   const struct gprof_options *opt)
{
	unsigned char *buf;
	char *why = NULL;
	size_t len;

	/* The file read well before; read again, it may not. */
	if (read_all(p->path, &buf, &len, &why)) {
		free(why);
		return;
	}
	tree_scan_top_buf(p, buf, len, prof, opt);
	free(buf);
}

void tree_scan_top_buf(struct tree_proc *p, const unsigned char *buf,
		       size_t len, struct profile *prof,
		       const struct gprof_options *opt)
{
	struct tree_proc scratch = { 0 };
	uint64_t *counts;
	char err[256];
	bool gnu = false;

	if (!prof->symtab.len)
		return;
	counts = xcalloc(prof->symtab.len, sizeof(*counts));
	if (!walk(&scratch, buf, len, prof, counts, err, sizeof(err), &gnu))
		set_top(p, prof, opt, counts);
	tree_proc_free(&scratch);
	free(counts);
}

void tree_proc_free(struct tree_proc *p)
{
	free(p->path);
	free(p->main_path);
	free(p->build_id);
	free(p->bad);
	free(p->top);
	memset(p, 0, sizeof(*p));
}
