// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sprofil-unwind: builds the unwind table (include/sprofil/unwind_table.h)
 * of each module named, says how large it is, and writes it with -o.
 *
 *   sprofil-unwind [-d] [-o TABLE | -O DIR] MODULE...
 *   sprofil-unwind -S NAME -O DIR
 *
 * One line per module: its build-id, its text bytes, the table's rows
 * and bytes, bytes per MiB of text, and how much text has no usable
 * information (no FDE, or CFI no row can express).  Exits 1 if any
 * module failed.  -d lists the rows too: address range (link-time),
 * CFA rule, where the caller's fp is.  -O writes each module's table
 * into DIR as <build-id>.spu, where the signal backend looks for it
 * (SPROFIL_UNWIND_DIR, docs/callers.md), renamed into place.  -S serves
 * the processes of a `sprofil record` run on the abstract socket NAME,
 * building the tables they ask for into DIR (unwind_serve.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unwind_build.h"
#include "unwind_serve.h"

static void dump(const struct spu_header *h, size_t bytes)
{
	static const char *const cfa[] = { "none", "sp", "fp", "end", "signal" };
	struct spu_table t;
	__u32 p, i;

	if (spu_table_view(h, bytes, &t)) {
		fprintf(stderr, "sprofil-unwind: the table is not valid\n");
		return;
	}
	for (p = 0; p < t.npages; p++) {
		for (i = t.page[p]; i < t.page[p + 1]; i++) {
			__u64 start = ((__u64)p << SPU_PAGE_SHIFT) + t.row[i].low;
			__u64 end = h->span;
			const struct spu_rule *r = &t.rule[t.row[i].rule];
			unsigned int c = r->how & SPU_CFA_MASK;
			unsigned int fp = r->how & SPU_FP_MASK;
			__u32 q = p;

			if (i + 1 < h->nrows) {
				while (t.page[q + 1] <= i + 1)
					q++;
				end = ((__u64)q << SPU_PAGE_SHIFT) +
				      t.row[i + 1].low;
			}
			printf("%#llx-%#llx %s%+d",
			       (unsigned long long)(h->base + start),
			       (unsigned long long)(h->base + end),
			       c <= SPU_CFA_SIGNAL ? cfa[c] : "?", 8 * r->cfa);
			if (fp == SPU_FP_AT)
				printf(" fp@cfa%+d\n", 8 * r->fp);
			else if (c == SPU_CFA_SIGNAL)
				printf(" fp@sp%+d\n", 8 * r->fp);
			else
				printf(" fp %s\n", fp == SPU_FP_SAME ? "same" : "lost");
		}
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
	const char *out = NULL, *dir = NULL, *serve = NULL;
	int opt, i, status = 0, rows = 0;

	while ((opt = getopt(argc, argv, "do:O:S:")) != -1) {
		if (opt == 'S') {
			serve = optarg;
		} else if (opt == 'd') {
			rows = 1;
		} else if (opt == 'o') {
			out = optarg;
		} else if (opt == 'O') {
			dir = optarg;
		} else {
			fprintf(stderr, "usage: sprofil-unwind [-d] [-o TABLE | -O DIR] MODULE...\n");
			return 2;
		}
	}
	if (serve) {
		if (!dir || out || optind < argc) {
			fprintf(stderr, "usage: sprofil-unwind -S NAME -O DIR\n");
			return 2;
		}
		return spu_serve(serve, dir);
	}
	if (optind >= argc || (out && argc - optind != 1) || (out && dir)) {
		fprintf(stderr, "usage: sprofil-unwind [-d] [-o TABLE | -O DIR] MODULE...\n"
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
		printf("%s: build-id %s, text %llu bytes, %u rows, %u rules, "
		       "table %zu bytes (%.0f bytes per MiB of text), "
		       "no information for %.3f %% of the text "
		       "(%llu bytes without FDE, %u states inexpressible), "
		       "%u PLT entries, %u signal rows%s\n",
		       argv[i], id, (unsigned long long)st.text_bytes, st.rows,
		       st.rules,
		       bytes, bytes * 1048576.0 / (double)st.text_bytes,
		       100.0 * (double)st.none_bytes / (double)st.text_bytes,
		       (unsigned long long)st.gap_bytes, st.unexpressed,
		       st.plt_entries, st.signal_rows,
		       st.debug_frame ? ", with .debug_frame" : "");
		if (rows)
			dump(h, bytes);
		if (out && write_table(out, h, bytes))
			status = 1;
		if (dir && !h->build_id_len) {
			fprintf(stderr, "sprofil-unwind: %s: no build-id to name its table by\n",
				argv[i]);
			status = 1;
		} else if (dir && spu_write_named(dir, id, h, bytes, err,
						   sizeof(err))) {
			fprintf(stderr, "sprofil-unwind: %s\n", err);
			status = 1;
		}
		free(h);
	}
	return status;
}
