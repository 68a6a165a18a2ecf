// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The profile dump: one entry point, sp_gmon_dump(), for every writer of
 * a profile (smonitor(), monitor(), later the call-graph runtime).
 *
 * GNU gprof is the analyzer most people have, so whenever it can read
 * the data the file is plain GNU gmon.out.  It cannot when the buckets
 * are 32-bit, when a region lies outside the main executable (it maps
 * every address against one image), or when the histograms overlap or
 * differ in bin width (hist.c treats both as fatal).  Those profiles go
 * to the versioned extension of docs/gmon-format.md instead, which GNU
 * gprof rejects by its version number rather than misreading it.
 *
 * Addresses are written as link-time addresses, the load bias of the
 * module holding each region subtracted, so that a PIE or a library
 * loaded anywhere matches its symbol table, as glibc does since 2.27.
 * Call arcs (from the -pg runtime) get the same treatment at both ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <sprofil/callers.h>
#include <sprofil/gmon_codec.h>
#include <sprofil/gmon_format.h>
#include <sprofil/events.h>
#include <sprofil/mapping.h>
#include "backends/backend.h"
#include "common/fork.h"
#include "gmon.h"
#include "gmon_callers.h"
#include "gmon_modules.h"
#include "pages_in_use.h"
#include "common/settings.h"
#include "thread_table.h"

/* Set in a fork child, so that it does not write over its parent's file. */
static bool sp_forked;

/*
 * The files this process has written (device and inode of what each
 * rename() put in place), so that no later dump writes over one of them.
 * wr_lock is held from picking a name to its rename().
 */
static pthread_mutex_t wr_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sp_written {
	dev_t dev;
	ino_t ino;
} *written;
static size_t nwritten, maxwritten;

/*
 * The process record's parent and start (gmon_format.h, tag 7), taken
 * when the program starts and again in a fork child: at the dump the
 * parent may have exited and the child been given to another.
 */
static uint32_t wr_ppid;
static uint64_t wr_start_ns;

static void wr_process_start(void)
{
	struct timespec ts;

	wr_ppid = (uint32_t)getppid();
	wr_start_ns = clock_gettime(CLOCK_REALTIME, &ts) ? 0 :
		      (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

__attribute__((constructor)) static void wr_init(void)
{
	wr_process_start();
}

/* This process's record, its CPU time as of now (the dump's start). */
static void wr_process(struct gmf_process *p)
{
	struct timespec ts;
	char comm[GMF_PROCESS_COMM + 1] = "";

	memset(p, 0, sizeof(*p));
	p->pid = (uint32_t)getpid();
	p->ppid = wr_ppid;
	if (wr_start_ns) {
		p->start_ns = wr_start_ns;
		p->flags |= GMF_PROCESS_START;
	}
	if (!clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)) {
		p->cpu_ns = (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
		p->flags |= GMF_PROCESS_CPU;
	}
	if (!prctl(PR_GET_NAME, comm, 0, 0, 0))
		memcpy(p->comm, comm, GMF_PROCESS_COMM);
}

/*
 * fork.c: wr_lock, then the modules' lock (gmon_modules.h), which a dump
 * takes inside wr_lock.
 */
void sp_writer_fork_prepare(void)
{
	pthread_mutex_lock(&wr_lock);
	sp_modules_fork_prepare();
}

void sp_writer_fork_parent(void)
{
	sp_modules_fork_parent();
	pthread_mutex_unlock(&wr_lock);
}

void sp_writer_fork_child(void)
{
	sp_forked = true;
	wr_process_start();
	/* The parent's files are not the child's (whose names differ). */
	nwritten = 0;
	sp_modules_fork_child();
	pthread_mutex_unlock(&wr_lock);
}

/* Whether the file at @path is one this process wrote (wr_lock held). */
static bool wr_ours(const char *path)
{
	struct stat st;
	size_t i;

	if (stat(path, &st))
		return false;
	for (i = 0; i < nwritten; i++)
		if (written[i].dev == st.st_dev && written[i].ino == st.st_ino)
			return true;
	return false;
}

/* Remembers the file now at @path as ours (wr_lock held). */
static void wr_remember(const char *path)
{
	struct sp_written *w;
	struct stat st;

	if (stat(path, &st))
		return;
	if (nwritten == maxwritten) {
		w = realloc(written, (maxwritten * 2 + 8) * sizeof(*w));
		if (!w)
			return;
		written = w;
		maxwritten = maxwritten * 2 + 8;
	}
	written[nwritten].dev = st.st_dev;
	written[nwritten++].ino = st.st_ino;
}

int sp_gmon_path(char *buf, size_t size)
{
	return sp_gmon_path_seq(buf, size, 0);
}

int sp_gmon_path_seq(char *buf, size_t size, unsigned int seq)
{
	const char *dir = sp_setting_secure("GPROFDIR");
	const char *prefix = sp_setting_secure("GMON_OUT_PREFIX");
	int len;

	/* HP-UX: GPROFDIR="" means that no profile is wanted at all. */
	if (dir && !*dir)
		return 1;
	if (dir)
		len = snprintf(buf, size, "%s/%d.%s", dir, (int)getpid(),
			       program_invocation_short_name);
	else if (prefix && *prefix)
		len = snprintf(buf, size, "%s.%d", prefix, (int)getpid());
	else if (sp_forked)
		len = snprintf(buf, size, "gmon.out.%d", (int)getpid());
	else
		len = snprintf(buf, size, "gmon.out");
	/* SPROFIL_SIGDUMP: every dump its own file, after the same rules. */
	if (seq && len >= 0 && (size_t)len < size)
		len += snprintf(buf + len, size - len, ".%u", seq);
	return len < 0 || (size_t)len >= size ? -ENAMETOOLONG : 0;
}

/*
 * sp_gmon_path_seq(), but never the name of a file this process has
 * already written: then the next "<name>.<n>" that is not one (wr_lock
 * held).  So a second dump of one process (smonitor() then the -pg
 * runtime at exit, a repeated smonitor(), ...) never overwrites the first.
 */
static int sp_gmon_path_free(char *buf, size_t size, unsigned int seq)
{
	int ret;

	if (sp_gmon_target_path())
		return snprintf(buf, size, "%s", sp_gmon_target_path()) >=
		       (int)size ?
		       -ENAMETOOLONG : 0;
	for (;;) {
		/* `sprofil record` names every process image's file itself. */
		if (sp_recording())
			ret = sp_record_path(buf, size, seq, wr_ours);
		else
			ret = sp_gmon_path_seq(buf, size, seq);
		if (ret || !wr_ours(buf) || seq == UINT_MAX)
			return ret;
		seq++;
	}
}

/* The runtime end of the text the buckets of @h cover. */
static uint64_t hist_high(const struct sp_hist *h)
{
	uint32_t shift = h->bucket_size == 4 ? 2 : 1;

	return h->low_pc + spm_region_span(h->nbuckets, shift, h->scale);
}

/* gprof's bin width, in 2-byte units, computed the way hist.c does. */
static double gnu_bin_width(uint64_t low, uint64_t high, uint64_t nbins)
{
	return (double)((high - low) / 2) / nbins;
}

/*
 * Whether GNU gprof reads these histograms: 16-bit bins in the main
 * executable, the same bin width within hist.c's 1e-6, no two records
 * overlapping (equal ranges would even be summed).
 */
static bool gnu_readable(const struct sp_profile *p,
			 const struct sp_module *mod,
			 const struct sp_module *amod, size_t narcs)
{
	double w0, dw;
	size_t i, j;

	/* LD_PROFILE="": only the extension says "no histogram". */
	if (!p->nhist)
		return false;
	w0 = gnu_bin_width(p->hist[0].low_pc, hist_high(p->hist),
			   p->hist[0].nbuckets);

	for (i = 0; i < p->nhist; i++) {
		const struct sp_hist *a = &p->hist[i];

		if (!mod[i].main || a->bucket_size != 2 ||
		    a->nbuckets > UINT32_MAX)
			return false;
		dw = gnu_bin_width(a->low_pc, hist_high(a), a->nbuckets) - w0;
		if (dw > 0.000001 || dw < -0.000001)
			return false;
		for (j = 0; j < i; j++) {
			const struct sp_hist *b = &p->hist[j];

			if (a->low_pc < hist_high(b) && b->low_pc < hist_high(a))
				return false;
		}
	}
	/* gprof names every callee against the executable's symbols. */
	for (i = 0; i < narcs; i++)
		if (!amod[2 * i + 1].main)
			return false;
	return true;
}

/* A file being written; the first error sticks and is reported once. */
struct sp_out {
	int fd;
	int err;			/* 0 or a positive errno */
	const char *op;			/* what failed */
	size_t used;			/* bytes waiting in buf */
	/* One write() per buffer, not per field: a dump has 4 per arc. */
	char buf[16384];
};

static void out_write(struct sp_out *o, const char *p, size_t len)
{
	ssize_t n;

	while (!o->err && len) {
		n = write(o->fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* A zero-byte write means no room: call it that. */
			o->err = n < 0 ? errno : ENOSPC;
			o->op = "write";
			return;
		}
		p += n;
		len -= n;
	}
}

static void out_flush(struct sp_out *o)
{
	out_write(o, o->buf, o->used);
	o->used = 0;
}

static void put(struct sp_out *o, const void *data, size_t len)
{
	if (o->used + len > sizeof(o->buf)) {
		out_flush(o);
		if (len > sizeof(o->buf)) {
			out_write(o, data, len);
			return;
		}
	}
	memcpy(o->buf + o->used, data, len);
	o->used += len;
}

static void put_u8(struct sp_out *o, uint8_t v)
{
	put(o, &v, sizeof(v));
}

static void put_u32(struct sp_out *o, uint32_t v)
{
	put(o, &v, sizeof(v));
}

/* The 20-byte header both formats share: magic, version, 12 spare. */
static void put_header(struct sp_out *o, uint32_t version)
{
	unsigned char b[GMF_HEADER_SIZE];

	gmf_header_put(b, version);
	put(o, b, sizeof(b));
}

/* GNU gmon.out: one GMON_TAG_TIME_HIST record per histogram. */
static void put_gnu(struct sp_out *o, const struct sp_profile *p,
		    const struct sp_module *mod, uint32_t rate,
		    const struct sp_arc *arcs, const struct sp_module *amod,
		    size_t narcs)
{
	char dimen[GMF_GNU_DIMEN_LEN] = "seconds";
	uintptr_t low, high;
	size_t i;

	put_header(o, GMF_GNU_VERSION);
	for (i = 0; i < p->nhist; i++) {
		const struct sp_hist *h = &p->hist[i];

		low = h->low_pc - mod[i].bias;
		high = hist_high(h) - mod[i].bias;
		put_u8(o, GMF_GNU_TAG_TIME_HIST);
		put(o, &low, sizeof(low));
		put(o, &high, sizeof(high));
		put_u32(o, h->nbuckets);
		put_u32(o, rate);
		put(o, dimen, sizeof(dimen));
		put_u8(o, 's');
		put(o, h->buckets, h->nbuckets * 2);
	}
	for (i = 0; i < narcs; i++) {
		/* glibc too leaves out callers outside the executable. */
		if (!amod[2 * i].main)
			continue;
		low = arcs[i].from - amod[2 * i].bias;
		high = arcs[i].self - amod[2 * i + 1].bias;
		put_u8(o, GMF_GNU_TAG_CG_ARC);
		put(o, &low, sizeof(low));
		put(o, &high, sizeof(high));
		put_u32(o, arcs[i].count > GMF_GNU_ARC_COUNT_MAX ?
			GMF_GNU_ARC_COUNT_MAX : arcs[i].count);
	}
}

static void put_record(struct sp_out *o, uint32_t tag, uint64_t size)
{
	unsigned char b[GMF_EXT_RECORD_HEAD];

	gmf_record_head_put(b, tag, size);
	put(o, b, sizeof(b));
}

/* The name of a module as its record carries it. */
static const char *module_name(const struct sp_module *m, char *buf,
			       size_t size)
{
	ssize_t n;

	/* Another process's modules are named by their paths. */
	if (!m->main || sp_gmon_target_path())
		return m->name;
	/* The loader names the executable "": ask the kernel instead. */
	n = readlink("/proc/self/exe", buf, size - 1);
	if (n < 0)
		return program_invocation_name;
	buf[n] = '\0';
	return buf;
}

/* Whether @a and @b are one file: main or not, path and build-id. */
static bool same_module(const struct sp_module *a, const struct sp_module *b)
{
	return a->main == b->main && !strcmp(a->name, b->name) &&
	       a->build_id_len == b->build_id_len &&
	       (!a->build_id_len ||
		!memcmp(a->build_id, b->build_id, a->build_id_len));
}

/* The module records written so far, to give each one index. */
struct sp_modtab {
	const struct sp_module **mod;
	uint32_t n;
	char exe[PATH_MAX];
};

/* The index of @m's record, written first if this is its first use. */
static uint32_t ext_module(struct sp_out *o, struct sp_modtab *t,
			   const struct sp_module *m)
{
	struct gmf_module r = { 0 };
	unsigned char b[GMF_MODULE_FIXED];
	const char *name;
	uint32_t i;

	if (!m->found)
		return GMF_NO_MODULE;
	/*
	 * One record per file, as the analyzer tells modules apart: a
	 * module dlopen()ed again at another address is the same one, and
	 * every address written is link-time, relative to its own load.
	 */
	for (i = 0; i < t->n; i++)
		if (same_module(t->mod[i], m))
			return i;
	t->mod[t->n] = m;
	name = module_name(m, t->exe, sizeof(t->exe));
	r.index = t->n;
	r.flags = m->main ? GMF_MODULE_MAIN : 0;
	r.bias = m->load_bias;
	r.name_len = strlen(name);
	r.build_id_len = m->build_id_len;
	put_record(o, GMF_TAG_MODULE, gmf_module_size(&r));
	gmf_module_put(b, &r);
	put(o, b, sizeof(b));
	put(o, name, r.name_len);
	put(o, m->build_id, m->build_id_len);
	return t->n++;
}

/*
 * The callers record (tag 4): the modules its nodes lie in first, then
 * the nodes, parents first, each pc link-time in its module.  The top
 * node of cut chains (pc SPC_PC_TRUNCATED) is in no module.
 */
static void put_callers(struct sp_out *o, struct sp_modtab *t,
			const struct sp_callers_data *c,
			const struct sp_module *cmod, uint64_t period_ns)
{
	uint32_t *index = malloc((c->n ? c->n : 1) * sizeof(*index));
	const struct gmf_callers_head head = {
		.nnodes = c->n,
		.depth = c->depth,
		.samples = c->samples,
		.truncated = c->truncated,
		.lost = c->lost,
		.busy = c->busy,
		.period_ns = period_ns,
	};
	unsigned char b[GMF_CALLERS_FIXED];
	size_t i;

	if (!index) {
		o->err = ENOMEM;
		o->op = "out of memory";
		return;
	}
	for (i = 0; i < c->n; i++)
		index[i] = ext_module(o, t, &cmod[i]);
	put_record(o, GMF_TAG_CALLERS, gmf_callers_size(c->n));
	gmf_callers_head_put(b, &head);
	put(o, b, sizeof(b));
	for (i = 0; i < c->n; i++) {
		const struct sp_cnode *n = &c->node[i];
		const struct gmf_caller_node node = {
			.parent = n->parent == SP_CNODE_TOP ? GMF_CALLER_TOP :
				  n->parent,
			.module = index[i],
			.pc = n->pc - cmod[i].bias,
			.count = n->count,
		};

		gmf_caller_node_put(b, &node);
		put(o, b, GMF_CALLER_NODE_SIZE);
	}
	free(index);
}

/*
 * The threads record (tag 5) of a per-thread tree: its chains are filed
 * under thread nodes (include/sprofil/callers.h).  The process names its
 * threads now, or they go nameless.
 */
static void put_threads(struct sp_out *o, const struct sp_callers_data *c,
			const struct sp_profile *p)
{
	const struct sp_thread_rec *r = p->threads;
	unsigned char b[GMF_THREAD_SIZE];
	struct gmf_thread t;
	size_t i, n = p->nthreads;
	uint32_t tid;

	for (i = 0; i < c->n; i++)
		if (c->node[i].parent == SP_CNODE_TOP &&
		    spc_pc_thread(c->node[i].pc, &tid))
			break;
	if (i == c->n || !r)
		return;
	put_record(o, GMF_TAG_THREADS, gmf_threads_size(n));
	gmf_threads_head_put(b, n);
	put(o, b, GMF_THREADS_FIXED);
	for (i = 0; i < n; i++) {
		_Static_assert(sizeof(r[i].name) == GMF_THREAD_NAME,
			       "a thread's name is the record's");
		t.tid = r[i].tid;
		t.flags = r[i].flags;
		t.cpu_ns = r[i].cpu_ns;
		memcpy(t.name, r[i].name, GMF_THREAD_NAME);
		gmf_thread_put(b, &t);
		put(o, b, sizeof(b));
	}
}

/*
 * One histogram record: sparse (tag 6), the nonzero buckets only, unless
 * the dense counts (tag 2) are no larger (gmon_codec.h), or the buckets
 * are live (a sample between sizing and encoding would break the
 * record).  Neither way writes to the buckets, so pages never sampled
 * stay uncommitted.
 */
static void put_hist(struct sp_out *o, const struct sp_hist *h,
		     uint32_t module, const struct sp_module *mod,
		     uint64_t period_ns)
{
	const struct gmf_hist_head head = {
		.module = module,
		.bucket_size = h->bucket_size,
		.scale = h->scale,
		.period_ns = period_ns,
		.low_pc = h->low_pc - mod->bias,
		.high_pc = hist_high(h) - mod->bias,
		.nbuckets = h->nbuckets,
	};
	unsigned char fixed[GMF_HIST_FIXED], chunk[4096];
	struct gmf_pages_in_use in_use = { 0 };
	struct gmf_hist_enc enc;
	struct sp_pages pages = { 0 };
	uint64_t body, nruns = 0;
	uint32_t tag;
	size_t n;

	if (h->live) {
		tag = GMF_TAG_HIST;
		body = (uint64_t)h->nbuckets * h->bucket_size;
	} else {
		/* Pages never sampled into are not read (pages_in_use.h). */
		sp_pages_read(&pages, h->buckets,
			      (size_t)h->nbuckets * h->bucket_size);
		in_use = (struct gmf_pages_in_use){
			.first = pages.first, .npages = pages.npages,
			.page = pages.page, .used = pages.used,
		};
		gmf_hist_choose(h->buckets, h->nbuckets, h->bucket_size,
				&in_use, &tag, &body, &nruns);
	}
	gmf_hist_head_put(fixed, &head);
	put_record(o, tag, GMF_HIST_FIXED + body);
	put(o, fixed, sizeof(fixed));
	if (tag == GMF_TAG_HIST) {
		put(o, h->buckets, (size_t)h->nbuckets * h->bucket_size);
	} else {
		gmf_hist_enc_init(&enc, h->buckets, h->nbuckets,
				  h->bucket_size, &in_use, nruns);
		while ((n = gmf_hist_enc_fill(&enc, chunk, sizeof(chunk))))
			put(o, chunk, n);
	}
	sp_pages_free(&pages);
}

/*
 * The sprofil extension: each module once, before the first histogram
 * or arc record that refers to it, then the histogram; the arcs last, in
 * one record.
 */
static void put_ext(struct sp_out *o, const struct sp_profile *p,
		    const struct sp_module *mod, const struct sp_arc *arcs,
		    const struct sp_module *amod, size_t narcs,
		    const struct sp_module *cmod, const struct gmf_process *proc,
		    const struct gmf_event *ev)
{
	unsigned char eb[GMF_EVENT_SIZE];
	unsigned char pb[GMF_PROCESS_SIZE];
	const struct sp_callers_data *c = p->callers;
	unsigned char arc[GMF_ARC_SIZE];
	struct sp_modtab *t;
	uint32_t *index = NULL;
	size_t i;
	uint32_t m;

	t = malloc(sizeof(*t));
	if (t)
		t->mod = calloc(p->nhist + 2 * narcs + (c ? c->n : 0) + 1,
				sizeof(*t->mod));
	if (narcs)
		index = calloc(2 * narcs, sizeof(*index));
	if (!t || !t->mod || (narcs && !index)) {
		o->err = ENOMEM;
		o->op = "out of memory";
		goto out;
	}
	t->n = 0;
	put_header(o, ev ? GMF_EXT_VERSION_3 : GMF_EXT_VERSION);
	/* First, so that a reader of the process tree stops early. */
	gmf_process_put(pb, proc);
	put_record(o, GMF_TAG_PROCESS, GMF_PROCESS_SIZE);
	put(o, pb, sizeof(pb));
	/* Before the counts it gives the unit of. */
	if (ev) {
		gmf_event_put(eb, ev);
		put_record(o, GMF_TAG_EVENT, GMF_EVENT_SIZE);
		put(o, eb, sizeof(eb));
	}
	for (i = 0; i < p->nhist; i++) {
		const struct sp_hist *h = &p->hist[i];

		m = ext_module(o, t, &mod[i]);
		put_hist(o, h, m, &mod[i], p->period_ns);
	}
	if (!narcs)
		goto callers;
	/* The modules the arcs name come before the record that names them. */
	for (i = 0; i < 2 * narcs; i++)
		index[i] = ext_module(o, t, &amod[i]);
	put_record(o, GMF_TAG_ARCS, gmf_arcs_size(narcs));
	gmf_arcs_head_put(arc, narcs);
	put(o, arc, GMF_ARCS_FIXED);
	for (i = 0; i < narcs; i++) {
		const struct gmf_arc a = {
			.from_module = index[2 * i],
			.self_module = index[2 * i + 1],
			.from = arcs[i].from - amod[2 * i].bias,
			.self = arcs[i].self - amod[2 * i + 1].bias,
			.count = arcs[i].count,
		};

		gmf_arc_put(arc, &a);
		put(o, arc, sizeof(arc));
	}
callers:
	if (c) {
		put_callers(o, t, c, cmod, p->period_ns);
		put_threads(o, c, p);
	}
out:
	if (t)
		free(t->mod);
	free(t);
	free(index);
}

/*
 * Creates a temporary file next to @path.  O_EXCL never follows a link
 * and mode 0666 lets the umask decide, as for any new file.
 */
static int create_temp(const char *path, char *tmp, size_t size)
{
	unsigned int try;
	int fd, len;

	for (try = 0; try < 100; try++) {
		len = snprintf(tmp, size, "%s.tmp%d.%u", path, (int)getpid(),
			       try);
		if (len < 0 || (size_t)len >= size)
			return -ENAMETOOLONG;
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			  O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

int sp_gmon_dump(const struct sp_profile *p)
{
	return sp_gmon_dump_arcs(p, NULL, 0);
}

static int sp_gmon_dump_locked(const struct sp_profile *p,
			       const struct sp_arc *arcs, size_t narcs);

int sp_gmon_dump_arcs(const struct sp_profile *p, const struct sp_arc *arcs,
		      size_t narcs)
{
	int ret;

	pthread_mutex_lock(&wr_lock);
	ret = sp_gmon_dump_locked(p, arcs, narcs);
	pthread_mutex_unlock(&wr_lock);
	return ret;
}

/* What one file of a dump holds, for write_atomic(). */
struct sp_file {
	const struct sp_profile *p;
	const struct sp_module *mod, *amod, *cmod;
	const struct sp_arc *arcs;
	size_t narcs;
	bool gnu;			/* a GNU gmon.out, else the extension */
	const struct gmf_process *proc;	/* the extension's process record */
	const struct gmf_event *ev;	/* its event record, or NULL */
};

static void put_file(struct sp_out *o, const struct sp_file *f)
{
	uint64_t rate = (1000000000ull + f->p->period_ns / 2) /
			f->p->period_ns;

	if (f->gnu)
		put_gnu(o, f->p, f->mod, rate, f->arcs, f->amod, f->narcs);
	else
		put_ext(o, f->p, f->mod, f->arcs, f->amod, f->narcs, f->cmod,
			f->proc, f->ev);
}

/*
 * Writes @f to @path atomically: a temporary file beside it, synced,
 * then renamed over it, so that a reader sees the old file or the new
 * one, and a failed dump leaves nothing behind.  Returns 0 or a negative
 * errno, said on stderr.
 */
static int write_atomic(const char *path, const struct sp_file *f)
{
	char tmp[PATH_MAX + 32];
	struct sp_out o = { .fd = -1 };

	o.fd = create_temp(path, tmp, sizeof(tmp));
	if (o.fd < 0) {
		fprintf(stderr, "libsprofil: %s: cannot create: %s\n", path,
			strerror(-o.fd));
		return o.fd;
	}
	put_file(&o, f);
	out_flush(&o);
	/*
	 * Under sprofil record the run syncs its output once at the end
	 * (cli/record.c): an fsync() in each process of a tree was a
	 * journal commit per process, most of a short process's wall time.
	 */
	if (!o.err && !sp_recording() && fsync(o.fd)) {
		o.err = errno;
		o.op = "fsync";
	}
	if (close(o.fd) && !o.err) {
		o.err = errno;
		o.op = "close";
	}
	if (!o.err && rename(tmp, path)) {
		o.err = errno;
		o.op = "rename";
	}
	if (o.err) {
		/* Nothing half-written stays behind. */
		unlink(tmp);
		fprintf(stderr, "libsprofil: %s: %s: %s\n", path, o.op,
			strerror(o.err));
		return -o.err;
	}
	return 0;
}

/*
 * The caller chains beside a GNU file: "<path>.callers", an extension
 * file with module records and the callers record only.  Without chains
 * to write, or when they cannot be written, a sidecar left there by an
 * earlier dump is removed, so that it is never read as this file's.
 */
static int write_sidecar(const char *path, const struct sp_file *main)
{
	const struct sp_profile side_p = {
		.period_ns = main->p->period_ns,
		.callers = main->p->callers,
	};
	const struct sp_file side = {
		.p = &side_p, .cmod = main->cmod, .gnu = false,
		.proc = main->proc,
	};
	char side_path[PATH_MAX + sizeof(GMF_CALLERS_SUFFIX)];
	int ret = 0;

	snprintf(side_path, sizeof(side_path), "%s%s", path,
		 GMF_CALLERS_SUFFIX);
	if (main->gnu && main->p->callers) {
		ret = write_atomic(side_path, &side);
		if (!ret)
			return 0;
	}
	if (unlink(side_path) && errno != ENOENT)
		fprintf(stderr, "libsprofil: %s: cannot remove the caller data of an earlier profile: %s\n",
			side_path, strerror(errno));
	return ret;
}

/* sp_gmon_dump_arcs(), wr_lock held. */
static int sp_gmon_dump_locked(const struct sp_profile *p,
			       const struct sp_arc *arcs, size_t narcs)
{
	const struct sp_callers_data *c = p->callers;
	char path[PATH_MAX];
	struct sp_module *mod, *amod = NULL, *cmod = NULL, last = { 0 };
	struct sp_file f = { .p = p, .arcs = arcs, .narcs = narcs };
	struct gmf_process proc;
	struct gmf_event gev = { 0 };
	struct sp_event ev;
	size_t i;
	int ret, side_ret;

	ret = sp_gmon_path_free(path, sizeof(path), p->seq);
	if (ret == 1)
		return 0;
	if (ret < 0) {
		fprintf(stderr, "libsprofil: profile file name: %s\n",
			strerror(-ret));
		return ret;
	}
	if ((!p->nhist && !narcs && !c) || !p->period_ns) {
		fprintf(stderr, "libsprofil: %s: no histogram or no sampling period to write\n",
			path);
		return -EINVAL;
	}
	mod = calloc(p->nhist + 1, sizeof(*mod));
	/* Each arc's caller module at 2i, its callee's at 2i + 1. */
	amod = calloc(2 * narcs + 1, sizeof(*amod));
	cmod = calloc((c ? c->n : 0) + 1, sizeof(*cmod));
	if (!mod || !amod || !cmod) {
		fprintf(stderr, "libsprofil: %s: out of memory\n", path);
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < p->nhist; i++)
		sp_module_find(p->hist[i].low_pc, &mod[i]);
	for (i = 0; i < narcs; i++) {
		sp_module_find_cached(arcs[i].from, &amod[2 * i], &last);
		sp_module_find_cached(arcs[i].self, &amod[2 * i + 1], &last);
	}
	for (i = 0; c && i < c->n; i++)
		sp_module_find_cached(c->node[i].pc, &cmod[i], &last);
	f.mod = mod;
	f.amod = amod;
	f.cmod = cmod;
	/*
	 * Samples of another event than CPU time: the extension, whose
	 * event record says what they count (GNU's only unit is time).
	 */
	sp_front_event(&ev);
	if (sp_event_counted(&ev) && spe_event(ev.type)) {
		gev.type = ev.type;
		gev.period = p->period_ns;
		snprintf(gev.name, sizeof(gev.name), "%s",
			 spe_event(ev.type)->name);
		f.ev = &gev;
	}
	f.gnu = !f.ev && gnu_readable(p, mod, amod, narcs);
	wr_process(&proc);
	f.proc = &proc;
	/*
	 * The chains first: a new GNU file never sits beside old ones.  If
	 * they cannot be written the profile still is (the error said).
	 */
	side_ret = write_sidecar(path, &f);
	ret = write_atomic(path, &f);
	if (!ret)
		wr_remember(path);
	if (!ret)
		ret = side_ret;
out:
	free(mod);
	free(amod);
	free(cmod);
	return ret;
}
