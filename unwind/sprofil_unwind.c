// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sprofil-unwind: builds the unwind table (include/sprofil/unwind_table.h)
 * of each module named, says how large it is, and writes it with -o.
 *
 *   sprofil-unwind [-d] [-o TABLE] MODULE...
 *
 * One line per module: its build-id, its text bytes, the table's rows
 * and bytes, bytes per MiB of text, and how much text has no usable
 * information (no FDE, or CFI no row can express).  Exits 1 if any
 * module failed.  -d lists the rows too: address range (link-time),
 * CFA rule, where the caller's fp is.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unwind_build.h"

static void dump(const struct spu_header *h)
{
	static const char *const cfa[] = { "none", "sp", "fp", "end", "signal" };
	const struct spu_row *row = (const struct spu_row *)(h + 1);
	__u32 i;

	for (i = 0; i < h->nrows; i++) {
		__u64 end = i + 1 < h->nrows ? row[i + 1].start : h->span;
		unsigned int c = row[i].rule & SPU_CFA_MASK;
		unsigned int fp = row[i].rule & SPU_FP_MASK;

		printf("%#llx-%#llx %s%+d", (unsigned long long)(h->base + row[i].start),
		       (unsigned long long)(h->base + end),
		       c <= SPU_CFA_SIGNAL ? cfa[c] : "?", 8 * row[i].cfa);
		if (fp == SPU_FP_AT)
			printf(" fp@cfa%+d\n", 8 * row[i].fp);
		else if (c == SPU_CFA_SIGNAL)
			printf(" fp@sp%+d\n", 8 * row[i].fp);
		else
			printf(" fp %s\n", fp == SPU_FP_SAME ? "same" : "lost");
	}
}

static int write_table(const char *path, const void *t, size_t bytes)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(t, 1, bytes, f) != bytes) {
		fprintf(stderr, "sprofil-unwind: %s: %s\n", path,
			strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	if (fclose(f)) {
		fprintf(stderr, "sprofil-unwind: %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	int opt, i, status = 0, rows = 0;

	while ((opt = getopt(argc, argv, "do:")) != -1) {
		if (opt == 'd') {
			rows = 1;
			continue;
		}
		if (opt != 'o') {
			fprintf(stderr, "usage: sprofil-unwind [-d] [-o TABLE] MODULE...\n");
			return 2;
		}
		out = optarg;
	}
	if (optind >= argc || (out && argc - optind != 1)) {
		fprintf(stderr, "usage: sprofil-unwind [-d] [-o TABLE] MODULE...\n"
			"(-o with one module only)\n");
		return 2;
	}
	for (i = optind; i < argc; i++) {
		struct spu_build_stats st;
		struct spu_header *h;
		char err[512], id[2 * SPU_BUILD_ID_MAX + 1] = "none";
		size_t bytes;
		__u32 k;

		h = spu_build_file(argv[i], &bytes, &st, err, sizeof(err));
		if (!h) {
			fprintf(stderr, "sprofil-unwind: %s\n", err);
			status = 1;
			continue;
		}
		for (k = 0; k < h->build_id_len; k++)
			sprintf(id + 2 * k, "%02x", h->build_id[k]);
		printf("%s: build-id %s, text %llu bytes, %u rows, "
		       "table %zu bytes (%.0f bytes per MiB of text), "
		       "no information for %.3f %% of the text "
		       "(%llu bytes without FDE, %u states inexpressible), "
		       "%u PLT entries, %u signal rows%s\n",
		       argv[i], id, (unsigned long long)st.text_bytes, st.rows,
		       bytes, bytes * 1048576.0 / (double)st.text_bytes,
		       100.0 * (double)st.none_bytes / (double)st.text_bytes,
		       (unsigned long long)st.gap_bytes, st.unexpressed,
		       st.plt_entries, st.signal_rows,
		       st.debug_frame ? ", with .debug_frame" : "");
		if (rows)
			dump(h);
		if (out && write_table(out, h, bytes))
			status = 1;
		free(h);
	}
	return status;
}
