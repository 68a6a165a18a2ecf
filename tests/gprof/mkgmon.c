// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkgmon: writes hand-made profile files for the paths gcc and glibc
 * never produce (several histogram ranges, odd dimensions, BSD headers,
 * basic-block records, corrupt files, sprofil's multi-module extension).
 *
 *   mkgmon [-b] -o FILE [SCRIPT]
 *
 * -b prints the offset where each directive's bytes end, one a line: the
 * lengths at which a cut file is still whole (tests of truncation).
 *
 * SCRIPT (stdin by default) has one directive a line; numbers are C
 * literals (0x.., decimal); '#' starts a comment.  Everything is written
 * little-endian with 8-byte addresses, as on x86-64:
 *
 *   gnu [VERSION]                     "gmon" header, version 1 by default
 *   hist LOW HIGH NBINS [RATE [DIMEN [ABBREV]]] BIN...
 *                                     tag 0 (RATE 100, "seconds", 's')
 *   arc FROM SELF COUNT               tag 1
 *   bb ADDR=COUNT...                  tag 2
 *   bsd LOW HIGH NBINS BIN...         old BSD header and bins
 *   bsd44 LOW HIGH NBINS RATE BIN...  4.4BSD header and bins
 *   bsdarc FROM SELF COUNT            BSD arc (pointer-sized count)
 *   ext [REVISION]                    sprofil extension header, revision
 *                                     1 by default (2 reads tag 6)
 *   module INDEX FLAGS BIAS NAME [BUILDID]      extension tag 1
 *   ehist MODULE BSIZE SCALE PERIOD_NS LOW NBUCKETS BIN...  tag 2
 *   eshist MODULE BSIZE SCALE PERIOD_NS LOW NBUCKETS BIN... tag 6, the
 *                                     same histogram sparse (gmon_codec.h)
 *   earcs FMOD:FROM:SMOD:SELF:COUNT...          tag 3
 *   callers PERIOD_NS [DEPTH [LOST [BUSY]]]     starts a tag-4 record
 *   chain COUNT [cut] FRAME...        one chain of it, innermost frame
 *                                     first; FRAME is MOD:PC, MOD x for
 *                                     none; cut files it as truncated
 *   endcallers                        writes the record: the chains as a
 *                                     tree, prefixes shared, parents first
 *   crec SIZE NNODES DEPTH SAMPLES TRUNC LOST BUSY PERIOD
 *                                     a raw tag-4 head (corrupt files)
 *   cnode PARENT MOD PC COUNT         a raw caller node
 *   erec TAG SIZE                     a record of SIZE zero bytes
 *   byte B...                         raw bytes
 *   truncate N                        cut the file to N bytes
 *
 * A BIN is INDEX=COUNT, or @ADDR=COUNT for the bin that holds ADDR as
 * the reader maps it (GNU: ((ADDR-LOW)/2)/hist_scale; extension:
 * ((ADDR-LOW)/BSIZE)*SCALE/65536), so scripts name functions, not bins.
 * Counts of the same bin add up; 16-bit bins keep the low 16 bits.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sprofil/gmon_codec.h>
#include <sprofil/gmon_format.h>

static unsigned char *out;
static size_t len, cap;
static const char *script = "<stdin>";
static int lineno;

static void die(const char *msg)
{
	fprintf(stderr, "mkgmon: %s:%d: %s\n", script, lineno, msg);
	exit(2);
}

static void put(const void *p, size_t n)
{
	if (len + n > cap) {
		cap = (len + n) * 2 + 4096;
		out = realloc(out, cap);
		if (!out)
			die("out of memory");
	}
	memcpy(out + len, p, n);
	len += n;
}

/* @n bytes of @v, little-endian; beyond 8 bytes, zeros (padding). */
static void put_le(uint64_t v, int n)
{
	unsigned char b[16] = { 0 };

	for (int i = 0; i < n && i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	put(b, n);
}

static uint64_t num(const char *s)
{
	char *end;
	uint64_t v;

	if (!s)
		die("missing number");
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || end == s)
		die("bad number");
	return v;
}

static char *tok[4096];
static int ntok;

/* GNU's bin for @ADDR, or the extension's bucket. */
struct geom {
	uint64_t low, nbins;
	double gnu_scale;	/* 0 for the extension */
	uint64_t bsize, scale;
};

static uint64_t bin_of(const struct geom *g, uint64_t addr)
{
	if (g->gnu_scale)
		return (uint64_t)((double)((addr - g->low) / 2) / g->gnu_scale);
	return (addr - g->low) / g->bsize * g->scale / 65536;
}

/* Fills @bins (nbins counts) from the BIN tokens from @first on. */
static uint64_t *bins_from(const struct geom *g, int first)
{
	uint64_t *bins = calloc(g->nbins ? g->nbins : 1, sizeof(*bins));

	if (!bins)
		die("out of memory");
	for (int i = first; i < ntok; i++) {
		char *eq = strchr(tok[i], '=');
		uint64_t b;

		if (!eq)
			die("BIN wants INDEX=COUNT or @ADDR=COUNT");
		*eq = '\0';
		b = tok[i][0] == '@' ? bin_of(g, num(tok[i] + 1)) : num(tok[i]);
		if (b >= g->nbins)
			die("bin out of range");
		bins[b] += num(eq + 1);
	}
	return bins;
}

static void gnu_geom(struct geom *g, uint64_t low, uint64_t high,
		     uint64_t nbins)
{
	memset(g, 0, sizeof(*g));
	g->low = low;
	g->nbins = nbins;
	g->gnu_scale = nbins ? (double)((high - low) / 2) / nbins : 1;
	if (!g->gnu_scale)
		g->gnu_scale = 1;
}

static void put_bins16(const uint64_t *bins, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		put_le(bins[i], 2);
}

static void hist(void)
{
	struct geom g;
	uint64_t low = num(tok[1]), high = num(tok[2]), n = num(tok[3]);
	uint64_t rate = 100;
	char dimen[15] = "seconds", abbrev = 's';
	int first = 4;
	uint64_t *bins;

	if (ntok > 4 && !strchr(tok[4], '='))
		rate = num(tok[first++]);
	if (ntok > 5 && !strchr(tok[5], '=')) {
		/* NUL-padded, not terminated when 15 long, as on file. */
		memset(dimen, 0, sizeof(dimen));
		memcpy(dimen, tok[first], strnlen(tok[first], sizeof(dimen)));
		first++;
		if (ntok > 6 && !strchr(tok[6], '='))
			abbrev = tok[first++][0];
	}
	gnu_geom(&g, low, high, n);
	bins = bins_from(&g, first);
	put_le(0, 1);
	put_le(low, 8);
	put_le(high, 8);
	put_le(n, 4);
	put_le(rate, 4);
	put(dimen, 15);
	put(&abbrev, 1);
	put_bins16(bins, n);
	free(bins);
}

/* GNU 2.40's sizes of the BSD headers for 64-bit executables. */
#define OLDBSD_64 (8 + 8 + 4)
#define BSD44_64 (8 + 8 + 4 + 4 + 4 + 3 * 4)

static void bsd(int is44)
{
	struct geom g;
	uint64_t low = num(tok[1]), high = num(tok[2]), n = num(tok[3]);
	uint64_t rate = is44 ? num(tok[4]) : 0;
	unsigned int hdr = is44 ? BSD44_64 : OLDBSD_64;
	uint64_t *bins;

	gnu_geom(&g, low, high, n);
	bins = bins_from(&g, is44 ? 5 : 4);
	put_le(low, 8);
	put_le(high, 8);
	put_le(n * 2 + hdr, 4);
	if (is44) {
		put_le(0x00051879, 4);
		put_le(rate, 4);
		put_le(0, 12);
	}
	put_bins16(bins, n);
	free(bins);
}

static void ext_record(uint32_t tag, uint64_t size)
{
	put_le(tag, 4);
	put_le(size, 8);
}

static void module(void)
{
	const char *name = tok[4], *id = ntok > 5 ? tok[5] : "";
	size_t idlen = strlen(id) / 2;

	if (!name)
		die("module INDEX FLAGS BIAS NAME [BUILDID]");
	ext_record(1, 24 + strlen(name) + idlen);
	put_le(num(tok[1]), 4);
	put_le(num(tok[2]), 4);
	put_le(num(tok[3]), 8);
	put_le(strlen(name), 4);
	put_le(idlen, 4);
	put(name, strlen(name));
	for (size_t i = 0; i < idlen; i++) {
		char hex[3] = { id[2 * i], id[2 * i + 1], 0 };

		put_le(strtoul(hex, NULL, 16), 1);
	}
}

/* Tag 6: the counts of ehist's @bins (low @bsize bytes of each) sparse. */
static void put_sparse(const uint64_t *bins, uint64_t n, unsigned int bsize)
{
	unsigned char *b = calloc(n ? n : 1, bsize), chunk[256];
	struct gmf_hist_enc e;
	uint64_t body, nruns;
	uint32_t tag;
	size_t got;

	if (!b)
		die("out of memory");
	for (uint64_t i = 0; i < n; i++) {
		uint32_t v32 = bins[i];
		uint16_t v16 = bins[i];

		memcpy(b + i * bsize, bsize == 4 ? (void *)&v32 : (void *)&v16,
		       bsize);
	}
	gmf_hist_choose(b, n, bsize, NULL, &tag, &body, &nruns);
	gmf_hist_enc_init(&e, b, n, bsize, NULL, nruns);
	while ((got = gmf_hist_enc_fill(&e, chunk, sizeof(chunk))))
		put(chunk, got);
	free(b);
}

/* Tag 2 (ehist) or, @sparse, tag 6 (eshist). */
static void ehist(bool sparse)
{
	struct geom g = { 0 };
	uint64_t mod = num(tok[1]), high, *bins;
	uint64_t period, size = 0;
	unsigned char *body = NULL;
	size_t at;

	g.bsize = num(tok[2]);
	g.scale = num(tok[3]);
	period = num(tok[4]);
	g.low = num(tok[5]);
	g.nbins = num(tok[6]);
	if ((g.bsize != 2 && g.bsize != 4) || g.scale < 2 || g.scale > 0x10000)
		die("ehist: BSIZE 2 or 4, SCALE 2..0x10000");
	high = g.low + (g.nbins * 65536 + g.scale - 1) / g.scale * g.bsize;
	bins = bins_from(&g, 7);
	if (sparse) {
		/* Its size first: the body is written, then measured. */
		at = len;
		put_sparse(bins, g.nbins, g.bsize);
		size = len - at;
		body = malloc(size ? size : 1);
		if (!body)
			die("out of memory");
		memcpy(body, out + at, size);
		len = at;
		ext_record(GMF_TAG_HIST_SPARSE, 48 + size);
	} else {
		ext_record(2, 48 + g.nbins * g.bsize);
	}
	put_le(mod, 4);
	put_le(g.bsize, 4);
	put_le(g.scale, 4);
	put_le(0, 4);
	put_le(period, 8);
	put_le(g.low, 8);
	put_le(high, 8);
	put_le(g.nbins, 8);
	if (sparse) {
		put(body, size);
		free(body);
	}
	for (uint64_t i = 0; i < g.nbins && !sparse; i++)
		put_le(bins[i], (int)g.bsize);
	free(bins);
}

static void earcs(void)
{
	ext_record(3, 8 + 32 * (uint64_t)(ntok - 1));
	put_le(ntok - 1, 8);
	for (int i = 1; i < ntok; i++) {
		char *f[5], *s = tok[i];

		for (int k = 0; k < 5; k++) {
			f[k] = s;
			s = s ? strchr(s, ':') : NULL;
			if (s)
				*s++ = '\0';
		}
		put_le(num(f[0]), 4);
		put_le(num(f[2]), 4);
		put_le(num(f[1]), 8);
		put_le(num(f[3]), 8);
		put_le(num(f[4]), 8);
	}
}

/* The tag-4 record being built by chain directives. */
struct cnode {
	uint32_t parent, mod;
	uint64_t pc, count;
};

/* Room for the huge profiles of the exporters' tests; hashed. */
#define CNODES_MAX	(1u << 20)
#define CHASH_SIZE	(1u << 21)

static struct cnode cnodes[CNODES_MAX];
static uint32_t ncnodes;
static uint32_t chash[CHASH_SIZE];	/* node index + 1, 0 for free */
static uint64_t c_period, c_depth, c_lost, c_busy, c_samples, c_trunc;
static int in_callers;

static uint32_t cnode_add(uint32_t parent, uint32_t mod, uint64_t pc)
{
	uint64_t h = (pc ^ ((uint64_t)parent << 32 | mod)) *
		     0x9e3779b97f4a7c15ull;
	uint32_t s = (uint32_t)(h >> 40) & (CHASH_SIZE - 1);

	for (; chash[s]; s = (s + 1) & (CHASH_SIZE - 1)) {
		const struct cnode *c = &cnodes[chash[s] - 1];

		if (c->parent == parent && c->mod == mod && c->pc == pc)
			return chash[s] - 1;
	}
	if (ncnodes == CNODES_MAX)
		die("too many caller nodes");
	cnodes[ncnodes] = (struct cnode){ parent, mod, pc, 0 };
	chash[s] = ncnodes + 1;
	return ncnodes++;
}

static void chain(void)
{
	uint64_t count = num(tok[1]);
	uint32_t parent = GMF_CALLER_TOP;
	int first = 2, cut = ntok > 2 && !strcmp(tok[2], "cut");

	if (!in_callers)
		die("chain outside callers ... endcallers");
	if (cut) {
		parent = cnode_add(GMF_CALLER_TOP, GMF_NO_MODULE, 1);
		first++;
		c_trunc += count;
	}
	if (first >= ntok)
		die("chain COUNT [cut] FRAME...");
	for (int i = ntok - 1; i >= first; i--) {
		char *colon = strchr(tok[i], ':');
		uint32_t mod;

		if (!colon)
			die("FRAME wants MOD:PC");
		*colon = '\0';
		mod = !strcmp(tok[i], "x") ? GMF_NO_MODULE : num(tok[i]);
		parent = cnode_add(parent, mod, num(colon + 1));
	}
	cnodes[parent].count += count;
	c_samples += count;
}

static void callers_head(uint64_t size, uint64_t nnodes, uint64_t depth,
			 uint64_t samples, uint64_t trunc, uint64_t lost,
			 uint64_t busy, uint64_t period)
{
	ext_record(GMF_TAG_CALLERS, size);
	put_le(nnodes, 8);
	put_le(depth, 4);
	put_le(0, 4);
	put_le(samples, 8);
	put_le(trunc, 8);
	put_le(lost, 8);
	put_le(busy, 8);
	put_le(period, 8);
}

static void end_callers(void)
{
	if (!in_callers)
		die("endcallers without callers");
	callers_head(GMF_CALLERS_FIXED +
		     (uint64_t)ncnodes * GMF_CALLER_NODE_SIZE, ncnodes,
		     c_depth, c_samples, c_trunc, c_lost, c_busy, c_period);
	for (uint32_t i = 0; i < ncnodes; i++) {
		put_le(cnodes[i].parent, 4);
		put_le(cnodes[i].mod, 4);
		put_le(cnodes[i].pc, 8);
		put_le(cnodes[i].count, 8);
	}
	in_callers = 0;
}

static void directive(void)
{
	const char *d = tok[0];

	if (!strcmp(d, "gnu") || !strcmp(d, "ext")) {
		put("gmon", 4);
		put_le(d[0] == 'e' ? GMF_EXT_MAJOR << 16 |
				     (ntok > 1 ? num(tok[1]) : 1) :
		       ntok > 1 ? num(tok[1]) : 1, 4);
		put_le(0, 12);
	} else if (!strcmp(d, "hist") && ntok >= 4) {
		hist();
	} else if (!strcmp(d, "arc") && ntok == 4) {
		put_le(1, 1);
		put_le(num(tok[1]), 8);
		put_le(num(tok[2]), 8);
		put_le(num(tok[3]), 4);
	} else if (!strcmp(d, "bb")) {
		put_le(2, 1);
		put_le(ntok - 1, 4);
		for (int i = 1; i < ntok; i++) {
			char *eq = strchr(tok[i], '=');

			if (!eq)
				die("bb wants ADDR=COUNT");
			*eq = '\0';
			put_le(num(tok[i]), 8);
			put_le(num(eq + 1), 8);
		}
	} else if ((!strcmp(d, "bsd") && ntok >= 4) ||
		   (!strcmp(d, "bsd44") && ntok >= 5)) {
		bsd(d[3] == '4');
	} else if (!strcmp(d, "bsdarc") && ntok == 4) {
		put_le(num(tok[1]), 8);
		put_le(num(tok[2]), 8);
		put_le(num(tok[3]), 8);
	} else if (!strcmp(d, "module") && ntok >= 5) {
		module();
	} else if (!strcmp(d, "ehist") && ntok >= 7) {
		ehist(false);
	} else if (!strcmp(d, "eshist") && ntok >= 7) {
		ehist(true);
	} else if (!strcmp(d, "earcs")) {
		earcs();
	} else if (!strcmp(d, "callers") && ntok >= 2 && ntok <= 5) {
		in_callers = 1;
		ncnodes = 0;
		memset(chash, 0, sizeof(chash));
		c_samples = c_trunc = 0;
		c_period = num(tok[1]);
		c_depth = ntok > 2 ? num(tok[2]) : 64;
		c_lost = ntok > 3 ? num(tok[3]) : 0;
		c_busy = ntok > 4 ? num(tok[4]) : 0;
	} else if (!strcmp(d, "chain") && ntok >= 3) {
		chain();
	} else if (!strcmp(d, "endcallers") && ntok == 1) {
		end_callers();
	} else if (!strcmp(d, "crec") && ntok == 9) {
		callers_head(num(tok[1]), num(tok[2]), num(tok[3]),
			     num(tok[4]), num(tok[5]), num(tok[6]),
			     num(tok[7]), num(tok[8]));
	} else if (!strcmp(d, "cnode") && ntok == 5) {
		put_le(num(tok[1]), 4);
		put_le(num(tok[2]), 4);
		put_le(num(tok[3]), 8);
		put_le(num(tok[4]), 8);
	} else if (!strcmp(d, "erec") && ntok == 3) {
		uint64_t size = num(tok[2]);

		ext_record((uint32_t)num(tok[1]), size);
		while (size--)
			put_le(0, 1);
	} else if (!strcmp(d, "byte")) {
		for (int i = 1; i < ntok; i++)
			put_le(num(tok[i]), 1);
	} else if (!strcmp(d, "truncate") && ntok == 2) {
		uint64_t n = num(tok[1]);

		if (n < len)
			len = n;
	} else {
		die("unknown directive or wrong number of words");
	}
}

int main(int argc, char **argv)
{
	const char *outname = NULL;
	int bounds = 0;
	char line[1 << 16];
	FILE *in = stdin, *f;
	int c;

	while ((c = getopt(argc, argv, "bo:")) != -1) {
		if (c == 'b') {
			bounds = 1;
		} else if (c == 'o') {
			outname = optarg;
		} else {
			fprintf(stderr, "usage: mkgmon [-b] -o FILE [SCRIPT]\n");
			return 2;
		}
	}
	if (!outname || argc - optind > 1) {
		fprintf(stderr, "usage: mkgmon [-b] -o FILE [SCRIPT]\n");
		return 2;
	}
	if (optind < argc) {
		script = argv[optind];
		in = fopen(script, "r");
		if (!in) {
			perror(script);
			return 2;
		}
	}
	while (fgets(line, sizeof(line), in)) {
		char *hash = strchr(line, '#');

		lineno++;
		if (hash)
			*hash = '\0';
		ntok = 0;
		for (char *t = strtok(line, " \t\r\n"); t && ntok < 4095;
		     t = strtok(NULL, " \t\r\n"))
			tok[ntok++] = t;
		tok[ntok] = NULL;
		if (ntok) {
			directive();
			if (bounds)
				printf("%zu\n", len);
		}
	}
	f = fopen(outname, "wb");
	if (!f || fwrite(out, 1, len, f) != len || fclose(f)) {
		perror(outname);
		return 2;
	}
	return 0;
}
