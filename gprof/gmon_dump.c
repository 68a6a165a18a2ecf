// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gmon-dump: prints what a profile file holds, GNU gmon.out or the
 * sprofil extension (docs/gmon-format.md), so that the tests can check
 * multi-module and 32-bit profiles, which GNU gprof cannot read.
 *
 *   format gnu|sprofil
 *   module <index> <main|lib> bias <hex> build-id <hex|-> <name>
 *   hist <module> <bucket_size> <low> <high> <nbuckets> samples <sum>
 *   arc <module>:<from> -> <module>:<self> <count>
 *
 * <module> is a module's name ("-" for none; GNU files: "exe").  Exits 1
 * with one line on stderr for a malformed file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

		if (tag == 0) {
			uint64_t low = get(ptr), high = get(ptr), sum = 0;
			uint32_t n = get(4), i;

			get(4);
			take(16);
			for (i = 0; i < n; i++)
				sum += get(2);
			printf("hist exe 2 0x%llx 0x%llx %u samples %llu\n",
			       (unsigned long long)low, (unsigned long long)high,
			       n, (unsigned long long)sum);
		} else if (tag == 1) {
			uint64_t from = get(ptr), self = get(ptr);
			uint32_t count = get(4);

			printf("arc exe:0x%llx -> exe:0x%llx %u\n",
			       (unsigned long long)from,
			       (unsigned long long)self, count);
		} else if (tag == 2) {
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
	if (i == 0xffffffffu)
		return "-";
	if (i >= MAXMOD || !modname[i])
		bad("reference to a module not yet defined");
	return modname[i];
}

static void ext(void)
{
	printf("format sprofil\n");
	while (buf < end) {
		uint32_t tag = get(4);
		uint64_t size = get(8);
		const unsigned char *rec = take(size), *rend = buf;

		buf = rec;
		if (tag == 1) {
			uint32_t idx, flags, nl, bl, i;
			uint64_t bias;
			const unsigned char *id;

			if (size < 24)
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
			       flags & 1 ? "main" : "lib",
			       (unsigned long long)bias);
			for (i = 0; i < bl; i++)
				printf("%02x", id[i]);
			printf("%s %s\n", bl ? "" : "-", modname[idx]);
		} else if (tag == 2) {
			uint32_t mod, bsize;
			uint64_t low, high, n, i, sum = 0;

			if (size < 48)
				bad("short histogram record");
			mod = get(4);
			bsize = get(4);
			get(4);
			get(4);
			get(8);
			low = get(8);
			high = get(8);
			n = get(8);
			if (bsize != 2 && bsize != 4)
				bad("bucket size is not 2 or 4");
			if (n > (uint64_t)(rend - buf) / bsize)
				bad("buckets past their record");
			for (i = 0; i < n; i++)
				sum += get(bsize);
			printf("hist %s %u 0x%llx 0x%llx %llu samples %llu\n",
			       mname(mod), bsize, (unsigned long long)low,
			       (unsigned long long)high, (unsigned long long)n,
			       (unsigned long long)sum);
		} else if (tag == 3) {
			uint64_t n, i;

			if (size < 8)
				bad("short arc record");
			n = get(8);
			if (n > (uint64_t)(rend - buf) / 32)
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
	if (len < 20 || memcmp(data, "gmon", 4))
		bad("no gmon header");
	memcpy(&version, data + 4, 4);
	buf += 20;
	if (version == 1)
		gnu();
	else if ((version >> 16) == 0x5350)
		ext();
	else
		bad("unknown version");
	return 0;
}
