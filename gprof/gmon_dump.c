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

static const unsigned char *buf, *end;
static const char *file;

static void bad(const char *why)
{
	fprintf(stderr, "gmon-dump: %s: malformed: %s\n", file, why);
	exit(1);
}

static const unsigned char *take(uint64_t n)
{
	const unsigned char *p = buf;

	if (n > (uint64_t)(end - buf))
		bad("truncated record");
	buf += n;
	return p;
}

static uint64_t get(unsigned int n)
{
	uint64_t v = 0;

	memcpy(&v, take(n), n);	/* host byte order, little-endian hosts */
	return v;
}

static void gnu(void)
{
	unsigned int ptr = sizeof(void *);

	printf("format gnu\n");
	while (buf < end) {
		unsigned int tag = get(1);

		if (tag == GMF_GNU_TAG_TIME_HIST) {
			uint64_t low = get(ptr), high = get(ptr), sum = 0;
			uint32_t n = get(4), i;

			get(4);
			take(GMF_GNU_DIMEN_LEN + 1);
			for (i = 0; i < n; i++)
				sum += get(2);
			printf("hist exe 2 0x%llx 0x%llx %u samples %llu\n",
			       (unsigned long long)low, (unsigned long long)high,
			       n, (unsigned long long)sum);
		} else if (tag == GMF_GNU_TAG_CG_ARC) {
			uint64_t from = get(ptr), self = get(ptr);
			uint32_t count = get(4);

			printf("arc exe:0x%llx -> exe:0x%llx %u\n",
			       (unsigned long long)from,
			       (unsigned long long)self, count);
		} else if (tag == GMF_GNU_TAG_BB_COUNT) {
			uint32_t n = get(4);

			take((uint64_t)n * 2 * ptr);
		} else {
			bad("unknown GNU record tag");
		}
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

/*
 * Tags 2 and 6: a histogram, dense or sparse (gmon_codec.h); a sparse
 * one says how many nonzero buckets it holds.
 */
static void hist(uint32_t tag, const unsigned char *rend)
{
	struct gmf_hist_head h;
	struct gmf_hist_dec d;
	uint64_t i, count, sum = 0, nonzero = 0;

	if (!gmf_hist_head_get(buf, rend - buf, false, &h))
		bad("short histogram record");
	gmf_hist_dec_init(&d, tag, &h, buf + GMF_HIST_FIXED, rend, false);
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

/* Tag 4: the calling context tree, one line a node. */
static void callers(uint64_t size, const unsigned char *rend)
{
	uint64_t n, i, v[5];
	uint32_t depth;

	if (size < GMF_CALLERS_FIXED)
		bad("short callers record");
	n = get(8);
	depth = get(4);
	get(4);
	for (i = 0; i < 5; i++)
		v[i] = get(8);
	if (n > (uint64_t)(rend - buf) / GMF_CALLER_NODE_SIZE)
		bad("caller nodes past their record");
	printf("callers %llu depth %u samples %llu truncated %llu lost %llu busy %llu period %llu\n",
	       (unsigned long long)n, depth, (unsigned long long)v[0],
	       (unsigned long long)v[1], (unsigned long long)v[2],
	       (unsigned long long)v[3], (unsigned long long)v[4]);
	for (i = 0; i < n; i++) {
		uint32_t parent = get(4), mod = get(4);
		uint64_t pc = get(8), count = get(8);

		if (parent != GMF_CALLER_TOP && parent >= i)
			bad("caller node before its parent");
		if (parent == GMF_CALLER_TOP)
			printf("node %llu top", (unsigned long long)i);
		else
			printf("node %llu %u", (unsigned long long)i, parent);
		printf(" %s:0x%llx %llu\n", mname(mod),
		       (unsigned long long)pc, (unsigned long long)count);
	}
}

/* Tag 5: the threads of a per-thread profile, one line each. */
static void threads(const unsigned char *rend)
{
	uint64_t n = get(8), i;

	if (n > (uint64_t)(rend - buf) / GMF_THREAD_SIZE)
		bad("threads past their record");
	printf("threads %llu\n", (unsigned long long)n);
	for (i = 0; i < n; i++) {
		uint32_t tid = get(4), flags = get(4);
		uint64_t cpu_ns = get(8);
		char name[17] = "";

		memcpy(name, take(16), 16);
		printf("thread %u flags %u cpu_ns %llu name %s\n", tid, flags,
		       (unsigned long long)cpu_ns, name[0] ? name : "-");
	}
}

static void ext(void)
{
	printf("format sprofil\n");
	while (buf < end) {
		uint32_t tag = get(4);
		uint64_t size = get(8);
		const unsigned char *rec = take(size), *rend = buf;

		buf = rec;
		if (tag == GMF_TAG_MODULE) {
			uint32_t idx, flags, nl, bl, i;
			uint64_t bias;
			const unsigned char *id;

			if (size < GMF_MODULE_FIXED)
				bad("short module record");
			idx = get(4);
			flags = get(4);
			bias = get(8);
			nl = get(4);
			bl = get(4);
			if (idx >= MAXMOD || modname[idx])
				bad("module index out of order");
			if ((uint64_t)nl + bl > (uint64_t)(rend - buf))
				bad("module name past its record");
			modname[idx] = strndup((const char *)take(nl), nl);
			id = take(bl);
			printf("module %u %s bias 0x%llx build-id ", idx,
			       flags & GMF_MODULE_MAIN ? "main" : "lib",
			       (unsigned long long)bias);
			for (i = 0; i < bl; i++)
				printf("%02x", id[i]);
			printf("%s %s\n", bl ? "" : "-", modname[idx]);
		} else if (tag == GMF_TAG_HIST ||
			   tag == GMF_TAG_HIST_SPARSE) {
			hist(tag, rend);
		} else if (tag == GMF_TAG_ARCS) {
			uint64_t n, i;

			if (size < GMF_ARCS_FIXED)
				bad("short arc record");
			n = get(8);
			if (n > (uint64_t)(rend - buf) / GMF_ARC_SIZE)
				bad("arcs past their record");
			for (i = 0; i < n; i++) {
				uint32_t fm = get(4), sm = get(4);
				uint64_t from = get(8), self = get(8);
				uint64_t count = get(8);

				printf("arc %s:0x%llx -> %s:0x%llx %llu\n",
				       mname(fm), (unsigned long long)from,
				       mname(sm), (unsigned long long)self,
				       (unsigned long long)count);
			}
		} else if (tag == GMF_TAG_CALLERS) {
			callers(size, rend);
		} else if (tag == GMF_TAG_THREADS) {
			threads(rend);
		}
		/* Unknown tags, and fields of later revisions, are skipped. */
		buf = rend;
	}
}

int main(int argc, char **argv)
{
	static unsigned char data[64 << 20];
	size_t len;
	uint32_t version;
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
	buf = data;
	end = data + len;
	if (len < GMF_HEADER_SIZE || memcmp(data, GMF_COOKIE, 4))
		bad("no gmon header");
	memcpy(&version, data + 4, 4);
	buf += GMF_HEADER_SIZE;
	if (version == GMF_GNU_VERSION)
		gnu();
	else if ((version >> 16) == (GMF_EXT_VERSION >> 16))
		ext();
	else
		bad("unknown version");
	return 0;
}
