// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The caller table's round trip, as a property (issue 19): random chains,
 * hostile ones among them, are filed with spc_file() into a table, and
 * random raw nodes are written into it as a scribbling program or a
 * filer with another rule could; the library's own writer
 * (sp_callers_collect() and sp_gmon_dump(), from libsprofil.a) writes
 * the profile; the analyzer reads it and writes it back with -s; the
 * tests' own reader (tests/common/callers_file.c) reads that.  Every
 * calling context must come back with exactly its samples, and every
 * sample of a chain the format cannot hold must be counted: in the
 * analyzer's "dropped" line and in the summed file's lost.
 *
 * What must come back is computed here from the chains, not from the
 * table: the filing rule (a word that is no user address is no frame,
 * callers.h) and the reading rule (a marker pc below its place, samples
 * in a thread's node or a chain deeper than the record's depth drop the
 * chain, docs/gmon-format.md) are written out again below.
 *
 *   callers_roundtrip GPROF DIR FIRST_SEED SEEDS
 *
 * Exits 0 after one summary line on stdout (seeds, chains, hostile
 * words, samples dropped, lost), or 1 after saying what differed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sprofil/callers.h>
#include <sprofil/gmon_format.h>

#include "backends/backend.h"
#include "callers_file.h"
#include "pg/gmon.h"
#include "pg/gmon_callers.h"

/* Words a frame may hold: pcs of the program, of libc, of no module. */
#define POOL_FRAMES	48
/* The hostile ones: markers, the limits of spc_user_pc(), garbage. */
static const uint64_t hostile[] = {
	0, SPC_PC_TRUNCATED, 2, SPC_USER_PC_MIN - 1, SPC_PC_THREAD,
	SPC_PC_THREAD + 7, 0xffffffffffff00f1ull, ~0ull, SPC_USER_PC_END,
	0x8000000000000000ull,
};
#define NHOSTILE	(sizeof(hostile) / sizeof(hostile[0]))

static uint64_t pool[POOL_FRAMES];
static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint32_t below(uint32_t n)
{
	return (uint32_t)(rnd() % n);
}

/* What should come back: a calling context and its samples. */
struct context {
	uint32_t tid;		/* 0: no thread's */
	int cut;
	uint32_t len;
	uint64_t frame[SPROFIL_MAX_DEPTH + 2];	/* outermost first */
	uint64_t count;
};

struct contexts {
	struct context *c;
	size_t n, cap;
};

static struct contexts want, got;
static uint64_t want_dropped, n_chains, n_hostile, all_dropped, all_lost;

static int ctx_cmp(const void *a, const void *b)
{
	const struct context *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->cut != y->cut)
		return x->cut - y->cut;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(x->frame, y->frame, x->len * sizeof(x->frame[0]));
}

static void ctx_add(struct contexts *s, const struct context *c)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->c = realloc(s->c, s->cap * sizeof(*s->c));
		if (!s->c) {
			perror("callers_roundtrip");
			exit(2);
		}
	}
	s->c[s->n++] = *c;
}

/* Sorted, equal contexts summed, those of no sample left out. */
static void ctx_fold(struct contexts *s)
{
	size_t i, k = 0;

	qsort(s->c, s->n, sizeof(*s->c), ctx_cmp);
	for (i = 0; i < s->n; i++) {
		if (k && !ctx_cmp(&s->c[k - 1], &s->c[i]))
			s->c[k - 1].count += s->c[i].count;
		else
			s->c[k++] = s->c[i];
	}
	s->n = k;
	for (i = k = 0; i < s->n; i++)
		if (s->c[i].count)
			s->c[k++] = s->c[i];
	s->n = k;
}

/*
 * The reading rule on a path of pcs from the top (a thread's node, the
 * truncated node, frames): into @c, or 0 when the format cannot hold it
 * (its samples are dropped).
 */
static int read_rule(const uint64_t *path, uint32_t n, uint32_t depth,
		     struct context *c)
{
	uint32_t i = 0, tid;

	memset(c, 0, sizeof(*c));
	if (n && spc_pc_thread(path[0], &tid)) {
		c->tid = tid;
		i++;
		if (i == n)
			return 0;	/* samples in a thread's node */
	}
	if (i < n && path[i] == SPC_PC_TRUNCATED) {
		c->cut = 1;
		i++;
	}
	for (; i < n; i++) {
		if (path[i] == SPC_PC_TRUNCATED || spc_pc_thread(path[i], &tid))
			return 0;
		c->frame[c->len++] = path[i];
	}
	return c->len <= depth;
}

/*
 * The filing rule on a chain (innermost first): a word that is no user
 * address cuts it, the frames inside it stay.
 */
static void file_rule(const __u64 *chain, uint32_t len, int truncated,
		      uint32_t tid, struct context *c)
{
	int i;

	memset(c, 0, sizeof(*c));
	c->tid = tid;
	c->cut = truncated;
	for (i = (int)len - 1; i >= 0; i--) {
		if (!spc_user_pc(chain[i])) {
			c->cut = 1;
			c->len = 0;
			continue;
		}
		c->frame[c->len++] = chain[i];
	}
}

static uint64_t frame_word(int hostile_rate)
{
	if (below(100) < (uint32_t)hostile_rate) {
		n_hostile++;
		return hostile[below(NHOSTILE)];
	}
	return pool[below(POOL_FRAMES)];
}

/* A published node's path from the top, into @path; its length. */
static uint32_t node_path(const struct spc_table *t, uint32_t i,
			  uint64_t *path)
{
	uint64_t up[SPROFIL_MAX_DEPTH + 4];
	uint32_t n = 0, k;

	for (;;) {
		up[n++] = t->node[i].pc;
		if (t->node[i].parent == SPC_ROOT)
			break;
		i = t->node[i].parent - SPC_PARENT_BIAS;
	}
	for (k = 0; k < n; k++)
		path[k] = up[n - 1 - k];
	return n;
}

/*
 * Writes a raw node (pc, count) below a random published node (or at the
 * top) into a free slot, as a filer with other rules could.
 */
static void raw_node(const struct spc_table *t, uint32_t depth)
{
	uint64_t path[SPROFIL_MAX_DEPTH + 4];
	uint32_t i, slot, parent = SPC_ROOT, n = 0, tries;
	struct context c;
	uint64_t count = 1 + below(50);

	for (tries = 0; tries < 8 && parent == SPC_ROOT && below(4); tries++) {
		i = below(t->mask + 1);
		if (t->node[i].parent != SPC_FREE)
			parent = i + SPC_PARENT_BIAS;
	}
	if (parent != SPC_ROOT)
		n = node_path(t, parent - SPC_PARENT_BIAS, path);
	if (n > SPROFIL_MAX_DEPTH)
		return;
	for (tries = 0, slot = below(t->mask + 1); tries <= t->mask;
	     tries++, slot = (slot + 1) & t->mask)
		if (t->node[slot].parent == SPC_FREE)
			break;
	if (tries > t->mask)
		return;
	path[n] = below(3) ? frame_word(60) :
		  below(2) ? spc_thread_pc(below(4)) : SPC_PC_TRUNCATED;
	t->node[slot].pc = path[n++];
	t->node[slot].count = (uint32_t)count;
	__atomic_store_n(&t->node[slot].parent, parent, __ATOMIC_RELEASE);
	t->hdr->samples += count;
	if (read_rule(path, n, depth, &c)) {
		c.count = count;
		ctx_add(&want, &c);
	} else {
		want_dropped += count;
	}
}

/* One random table, filled: the contexts it must give back in want. */
static void fill_table(struct spc_table *t, uint32_t depth)
{
	__u64 chain[SPROFIL_MAX_DEPTH];
	int threads = below(2), hostile_rate = below(3) ? 3 : 25, cut;
	uint32_t nchains = 1 + below(400), k, len, n, tid, i;
	struct context c;

	for (k = 0; k < nchains; k++) {
		/* Now and then deeper than the table's depth. */
		len = below(8) ? 1 + below(depth) :
		      1 + below(depth + 4 < SPROFIL_MAX_DEPTH ?
				depth + 4 : SPROFIL_MAX_DEPTH);
		for (i = 0; i < len; i++)
			chain[i] = frame_word(hostile_rate);
		n = 1 + below(1000);
		tid = threads ? 1 + below(3) : 0;
		cut = below(4) == 0;
		n_chains++;
		if (spc_file(t, chain, len, cut, n,
			     tid ? spc_thread_pc(tid) : 0))
			continue;	/* counted in lost or busy */
		file_rule(chain, len, cut, tid, &c);
		c.count = n;
		if (c.len > depth)
			want_dropped += n;	/* deeper than the record's */
		else
			ctx_add(&want, &c);
	}
}

/* The summed file's chains, read by the tests' reader, into got. */
static int read_back(const char *path, uint64_t *lost, uint64_t *busy)
{
	struct ct_tree t;
	struct ct_file f;
	uint64_t bias[CT_MAX_MODULES] = { 0 }, up[CT_MAX_CHAIN + 4];
	size_t i;
	uint32_t n, at, k, mod;
	struct context c;

	if (ct_from_file(&t, &f, path))
		return -1;
	if (!f.has_callers) {
		ct_free(&t);
		return 1;
	}
	for (k = 0; k < f.nmodules; k++)
		bias[k] = f.module[k].load_bias;
	for (i = 0; i < t.n; i++) {
		if (!t.count[i])
			continue;
		for (n = 0, at = (uint32_t)i; at != CT_TOP && n < CT_MAX_CHAIN;
		     at = t.parent[at]) {
			uint64_t pc = t.pc[at];

			/* Back to run-time addresses (CT_PC(module, pc)). */
			mod = (uint32_t)(pc >> 48);
			if (mod && mod <= f.nmodules && pc < SPC_PC_THREAD)
				pc = (pc & ((1ull << 48) - 1)) + bias[mod - 1];
			up[n++] = pc;
		}
		for (k = 0; k < n / 2; k++) {
			uint64_t x = up[k];

			up[k] = up[n - 1 - k];
			up[n - 1 - k] = x;
		}
		if (!read_rule(up, n, SPROFIL_MAX_DEPTH, &c)) {
			fprintf(stderr, "the summed file holds a chain the format cannot (node %zu)\n",
				i);
			ct_free(&t);
			return -1;
		}
		c.count = t.count[i];
		ctx_add(&got, &c);
	}
	*lost = t.lost;
	*busy = t.busy;
	ct_free(&t);
	return 0;
}

static int run(char *const argv[], const char *err_path)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		if (!freopen(err_path, "w", stderr) ||
		    !freopen("/dev/null", "w", stdout))
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void show(const char *what, const struct context *c)
{
	uint32_t k;

	fprintf(stderr, "  %s: tid %u cut %d count %" PRIu64 ":", what,
		c->tid, c->cut, c->count);
	for (k = 0; k < c->len; k++)
		fprintf(stderr, " %#" PRIx64, c->frame[k]);
	fputc('\n', stderr);
}

static int compare(uint64_t seed)
{
	size_t i;

	ctx_fold(&want);
	ctx_fold(&got);
	for (i = 0; i < want.n && i < got.n; i++)
		if (ctx_cmp(&want.c[i], &got.c[i]) ||
		    want.c[i].count != got.c[i].count)
			break;
	if (i == want.n && i == got.n)
		return 0;
	fprintf(stderr, "seed %" PRIu64 ": %zu contexts expected, %zu read back; first difference at %zu\n",
		seed, want.n, got.n, i);
	if (i < want.n)
		show("expected", &want.c[i]);
	if (i < got.n)
		show("read back", &got.c[i]);
	return 1;
}

/* The analyzer's stderr: nothing, or its one line of dropped samples. */
static int check_stderr(const char *err_path, uint64_t seed)
{
	char line[1024], want_line[64];
	FILE *f = fopen(err_path, "r");
	int lines = 0, ok = 1;

	if (!f)
		return 1;
	snprintf(want_line, sizeof(want_line), ": %" PRIu64 " caller samples of ",
		 want_dropped);
	while (fgets(line, sizeof(line), f)) {
		lines++;
		if (!want_dropped || !strstr(line, want_line))
			ok = 0;
	}
	fclose(f);
	if (ok && lines == (want_dropped ? 1 : 0))
		return 0;
	fprintf(stderr, "seed %" PRIu64 ": the analyzer's stderr is not the one line of %" PRIu64 " dropped samples (see %s)\n",
		seed, want_dropped, err_path);
	return 1;
}

static int one_seed(const char *gprof, const char *dir, uint64_t seed,
		    unsigned int seq)
{
	uint32_t nodes = 16u << below(9), depth = 1 + below(below(4) ?
						     16 : SPROFIL_MAX_DEPTH);
	struct sp_callers sc = { .depth = depth };
	struct sp_callers_data d;
	struct sp_profile p = { .period_ns = 1000000, .seq = seq };
	char file[4096], sum[4200], err[4200], self[4096];
	uint64_t lost = 0, busy = 0;
	struct spc_table t;
	char *args[6];
	ssize_t sl;
	int k, rc;

	want.n = got.n = 0;
	want_dropped = 0;
	sc.bytes = spc_table_bytes(nodes);
	sc.table = calloc(1, sc.bytes);
	if (!sc.table)
		return 2;
	t.hdr = sc.table;
	t.node = (struct spc_node *)(t.hdr + 1);
	t.mask = nodes - 1;
	t.depth = depth;
	t.hdr->magic = SPC_MAGIC;
	t.hdr->nodes = nodes;
	t.hdr->depth = depth;
	fill_table(&t, depth);
	for (k = below(4) ? (int)below(24) : 0; k > 0; k--)
		raw_node(&t, depth);
	if (sp_callers_collect(&sc, false, &d))
		return 2;
	p.callers = &d;
	if (sp_gmon_path_seq(file, sizeof(file), seq) ||
	    sp_gmon_dump(&p))
		return 2;
	sp_callers_data_free(&d);
	sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (sl < 0)
		return 2;
	self[sl] = '\0';
	snprintf(sum, sizeof(sum), "%s/gmon.sum", dir);
	snprintf(err, sizeof(err), "%s/gprof.err", dir);
	unlink(sum);
	args[0] = (char *)gprof;
	args[1] = "-s";
	args[2] = self;
	args[3] = file;
	args[4] = NULL;
	rc = run(args, err);
	if (rc) {
		fprintf(stderr, "seed %" PRIu64 ": the analyzer exited %d on %s (see %s)\n",
			seed, rc, file, err);
		return 1;
	}
	if (check_stderr(err, seed))
		return 1;
	rc = read_back(sum, &lost, &busy);
	if (rc > 0) {
		snprintf(sum, sizeof(sum), "%s/gmon.sum%s", dir,
			 GMF_CALLERS_SUFFIX);
		rc = read_back(sum, &lost, &busy);
	}
	if (rc)
		return 1;
	if (compare(seed))
		return 1;
	if (lost != t.hdr->lost + want_dropped || busy != t.hdr->busy) {
		fprintf(stderr, "seed %" PRIu64 ": lost %" PRIu64 " busy %" PRIu64 " read back, %" PRIu64 " + %" PRIu64 " dropped and %" PRIu64 " expected\n",
			seed, lost, busy, (uint64_t)t.hdr->lost, want_dropped,
			(uint64_t)t.hdr->busy);
		return 1;
	}
	all_dropped += want_dropped;
	all_lost += t.hdr->lost;
	unlink(file);
	snprintf(sum, sizeof(sum), "%s%s", file, GMF_CALLERS_SUFFIX);
	unlink(sum);
	free(sc.table);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t first, seeds, s;
	uintptr_t exe = (uintptr_t)&main, libc = (uintptr_t)&printf;
	unsigned int i;
	int rc;

	if (argc != 5) {
		fprintf(stderr, "usage: callers_roundtrip GPROF DIR FIRST_SEED SEEDS\n");
		return 2;
	}
	first = strtoull(argv[3], NULL, 0);
	seeds = strtoull(argv[4], NULL, 0);
	if (chdir(argv[2])) {
		perror(argv[2]);
		return 2;
	}
	/* Frames in the program, in libc, in no module, and the limits. */
	for (i = 0; i < POOL_FRAMES; i++) {
		switch (i % 4) {
		case 0:
			pool[i] = exe + 16 * i;
			break;
		case 1:
			pool[i] = libc + 16 * i;
			break;
		case 2:
			pool[i] = 0x100000000000ull + 0x10 * i;
			break;
		default:
			pool[i] = i & 4 ? SPC_USER_PC_MIN + i :
				  SPC_USER_PC_END - 1 - i;
		}
	}
	for (s = first; s < first + seeds; s++) {
		rng = s * 0x9e3779b97f4a7c15ull + 1;
		rc = one_seed(argv[1], argv[2], s, (unsigned int)(s - first + 1));
		if (rc) {
			if (rc == 2)
				fprintf(stderr, "seed %" PRIu64 ": %s\n", s,
					strerror(errno));
			return 1;
		}
	}
	printf("%" PRIu64 " seeds, %" PRIu64 " chains, %" PRIu64 " hostile words, %" PRIu64 " samples dropped, %" PRIu64 " lost: every context read back\n",
	       seeds, n_chains, n_hostile, all_dropped, all_lost);
	return 0;
}
