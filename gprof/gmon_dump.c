// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gmon-dump: prints what a profile file holds, GNU gmon.out or the
 * sprofil extension (docs/gmon-format.md), so that the tests can check
 * multi-module and 32-bit profiles, which GNU gprof cannot read.
 *
 *   format gnu|sprofil
 *   module <index> <main|lib> bias <hex> build-id <hex|-> <name>
 *   hist <module> <bucket_size> <low> <high> <nbuckets> samples <sum>
 *	[sparse <nonzero buckets>]
 *   arc <module>:<from> -> <module>:<self> <count>
 *   callers <nnodes> depth <d> samples <s> truncated <t> lost <l> busy <b>
 *	period <ns>
 *   node <index> <parent|top> <module>:<pc> <count>
 *
 * <module> is a module's name ("-" for none; GNU files: "exe").  Exits 1
 * with one line on stderr for a malformed file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sprofil/gmon_codec.h>
#include <sprofil/gmon_format.h>

static const char *file;
static char err[160];

static void bad(const char *why)
{
	fprintf(stderr, "gmon-dump: %s: malformed: %s\n", file, why);
	exit(1);
}

/* A cursor's problem, if it has one, ends the dump. */
static void check(const struct gmf_cursor *c)
{
	if (c->failed)
		bad(c->err);
}

static void gnu(struct gmf_cursor *c)
{
	unsigned int ptr = sizeof(void *);
	const unsigned char *skip;

	printf("format gnu\n");
	while (c->p < c->end) {
		unsigned int tag = gmf_get(c, 1);

		if (tag == GMF_GNU_TAG_TIME_HIST) {
			uint64_t low = gmf_get(c, ptr), high = gmf_get(c, ptr);
			uint32_t n = gmf_get(c, 4), i;
			uint64_t sum = 0;

			gmf_get(c, 4);
			gmf_take(c, GMF_GNU_DIMEN_LEN + 1, &skip);
			for (i = 0; i < n && !c->failed; i++)
				sum += gmf_get(c, 2);
			check(c);
			printf("hist exe 2 0x%llx 0x%llx %u samples %llu\n",
			       (unsigned long long)low, (unsigned long long)high,
			       n, (unsigned long long)sum);
		} else if (tag == GMF_GNU_TAG_CG_ARC) {
			uint64_t from = gmf_get(c, ptr), self = gmf_get(c, ptr);
			uint32_t count = gmf_get(c, 4);

			check(c);
			printf("arc exe:0x%llx -> exe:0x%llx %u\n",
			       (unsigned long long)from,
			       (unsigned long long)self, count);
		} else if (tag == GMF_GNU_TAG_BB_COUNT) {
			uint32_t n = gmf_get(c, 4);

			gmf_take(c, (uint64_t)n * 2 * ptr, &skip);
		} else {
			check(c);
			bad("unknown GNU record tag");
		}
		check(c);
	}
}

#define MAXMOD 4096
static char *modname[MAXMOD];

static const char *mname(uint32_t i)
{
	if (i == GMF_NO_MODULE)
		return "-";
	if (i >= MAXMOD || !modname[i])
		bad("reference to a module not yet defined");
	return modname[i];
}

static void module(struct gmf_cursor *b)
{
	struct gmf_module m;
	uint32_t i;

	gmf_module_get(b, &m);
	check(b);
	if (m.index >= MAXMOD || modname[m.index] ||
	    (m.index && !modname[m.index - 1]))
		bad("module index out of order");
	modname[m.index] = strndup((const char *)m.name, m.name_len);
	if (!modname[m.index])
		bad("out of memory");
	printf("module %u %s bias 0x%llx build-id ", m.index,
	       m.flags & GMF_MODULE_MAIN ? "main" : "lib",
	       (unsigned long long)m.bias);
	for (i = 0; i < m.build_id_len; i++)
		printf("%02x", m.build_id[i]);
	printf("%s %s\n", m.build_id_len ? "" : "-", modname[m.index]);
}

/*
 * Tags 2 and 6: a histogram, dense or sparse; a sparse one says how
 * many nonzero buckets it holds.
 */
static void hist(struct gmf_cursor *b, uint32_t tag)
{
	struct gmf_hist_head h;
	struct gmf_hist_dec d;
	uint64_t i, count, sum = 0, nonzero = 0;

	if (!gmf_hist_head_get(b->p, gmf_left(b), b->swap, &h))
		bad("short histogram record");
	gmf_hist_dec_init(&d, tag, &h, b->p + GMF_HIST_FIXED, b->end,
			  b->swap);
	while (gmf_hist_dec_next(&d, &i, &count)) {
		sum += count;
		nonzero++;
	}
	if (d.failed)
		bad(d.err);
	printf("hist %s %u 0x%llx 0x%llx %llu samples %llu",
	       mname(h.module), h.bucket_size, (unsigned long long)h.low_pc,
	       (unsigned long long)h.high_pc, (unsigned long long)h.nbuckets,
	       (unsigned long long)sum);
	if (tag == GMF_TAG_HIST_SPARSE)
		printf(" sparse %llu", (unsigned long long)nonzero);
	printf("\n");
}

static void arcs(struct gmf_cursor *b)
{
	uint64_t n = gmf_arcs_begin(b), i;
	struct gmf_arc a;

	check(b);
	for (i = 0; i < n && gmf_arc_get(b, &a); i++)
		printf("arc %s:0x%llx -> %s:0x%llx %llu\n",
		       mname(a.from_module), (unsigned long long)a.from,
		       mname(a.self_module), (unsigned long long)a.self,
		       (unsigned long long)a.count);
	check(b);
}

/* Tag 4: the calling context tree, one line a node. */
static void callers(struct gmf_cursor *b)
{
	struct gmf_callers_head h;
	struct gmf_caller_node n;
	uint64_t i;

	gmf_callers_head_get(b, &h);
	check(b);
	printf("callers %llu depth %u samples %llu truncated %llu lost %llu busy %llu period %llu\n",
	       (unsigned long long)h.nnodes, h.depth,
	       (unsigned long long)h.samples,
	       (unsigned long long)h.truncated, (unsigned long long)h.lost,
	       (unsigned long long)h.busy, (unsigned long long)h.period_ns);
	for (i = 0; i < h.nnodes && gmf_caller_node_get(b, &n); i++) {
		if (n.parent != GMF_CALLER_TOP && n.parent >= i)
			bad("caller node before its parent");
		if (n.parent == GMF_CALLER_TOP)
			printf("node %llu top", (unsigned long long)i);
		else
			printf("node %llu %u", (unsigned long long)i, n.parent);
		printf(" %s:0x%llx %llu\n", mname(n.module),
		       (unsigned long long)n.pc, (unsigned long long)n.count);
	}
	check(b);
}

/* Tag 5: the threads of a per-thread profile, one line each. */
static void threads(struct gmf_cursor *b)
{
	uint64_t n = gmf_threads_begin(b), i;
	struct gmf_thread t;

	check(b);
	printf("threads %llu\n", (unsigned long long)n);
	for (i = 0; i < n && gmf_thread_get(b, &t); i++) {
		char name[GMF_THREAD_NAME + 1] = "";

		memcpy(name, t.name, GMF_THREAD_NAME);
		printf("thread %u flags %u cpu_ns %llu name %s\n", t.tid,
		       t.flags, (unsigned long long)t.cpu_ns,
		       name[0] ? name : "-");
	}
	check(b);
}

static void process(struct gmf_cursor *b)
{
	char comm[GMF_PROCESS_COMM + 1] = "";
	struct gmf_process p;

	gmf_process_get(b, &p);
	check(b);
	memcpy(comm, p.comm, GMF_PROCESS_COMM);
	printf("process pid %u ppid %u flags %u cpu_ns %llu start_ns %llu comm %s\n",
	       p.pid, p.ppid, p.flags, (unsigned long long)p.cpu_ns,
	       (unsigned long long)p.start_ns, comm[0] ? comm : "-");
}

static void ext(struct gmf_cursor *c)
{
	struct gmf_cursor b;
	uint32_t tag;

	printf("format sprofil\n");
	while (gmf_record_next(c, &tag, &b)) {
		if (tag == GMF_TAG_MODULE)
			module(&b);
		else if (tag == GMF_TAG_HIST || tag == GMF_TAG_HIST_SPARSE)
			hist(&b, tag);
		else if (tag == GMF_TAG_ARCS)
			arcs(&b);
		else if (tag == GMF_TAG_CALLERS)
			callers(&b);
		else if (tag == GMF_TAG_THREADS)
			threads(&b);
		else if (tag == GMF_TAG_PROCESS)
			process(&b);
		/* Unknown tags, and fields of later revisions, are skipped. */
	}
	check(c);
}

int main(int argc, char **argv)
{
	static unsigned char data[64 << 20];
	struct gmf_cursor c = { .err = err, .errlen = sizeof(err) };
	size_t len;
	uint32_t version;
	bool swap;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: gmon-dump FILE\n");
		return 2;
	}
	file = argv[1];
	f = fopen(file, "rb");
	if (!f) {
		perror(file);
		return 1;
	}
	len = fread(data, 1, sizeof(data), f);
	fclose(f);
	if (len < GMF_HEADER_SIZE || memcmp(data, GMF_COOKIE, 4))
		bad("no gmon header");
	c.p = data + GMF_HEADER_SIZE;
	c.end = data + len;
	/* Either byte order: a version read little-endian, or swapped. */
	version = gmf_load(data + 4, 4, false);
	if (version == GMF_GNU_VERSION ||
	    __builtin_bswap32(version) == GMF_GNU_VERSION) {
		c.swap = version != GMF_GNU_VERSION;
		gnu(&c);
	} else if (gmf_ext_revision(version, &swap)) {
		c.swap = swap;
		ext(&c);
	} else {
		bad("unknown version");
	}
	return 0;
}
