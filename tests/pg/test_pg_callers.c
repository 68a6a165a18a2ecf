// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The -pg runtime's caller chains, end to end: run pg-callers and
 * pg-callers-mod (tests/pg/pg_callers.c) in a fresh directory, read the
 * callers record they write (tests/common/callers_file.c) and check it
 * against the CPU time each caller took, which the program prints with
 * its functions' link-time extents.  GNU gprof must still read the GNU
 * gmon.out beside the ".callers" file unchanged.  Runs on the host
 * (signal backend) and in the VM (kmod); a backend that cannot record
 * chains yet is said and skipped, never passed.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <sprofil/callers.h>
#include <sprofil/gmon_format.h>
#include "callers_file.h"
#include "callers_tree.h"
#include "prog_run.h"
#include "workload.h"

#define NCALLERS 4

static char bindir[PATH_MAX / 2];
static char gprof[PATH_MAX];
/* sprofil's analyzer, the build's; empty in the VM payload. */
static char our_gprof[PATH_MAX];
static char out[1 << 16];

/* What the program printed: extents by name, the callers' CPU. */
struct prog_out {
	struct {
		char name[64];
		char module[PATH_MAX];
		uint64_t start, end;
	} span[16];
	int nspan;
	double cpu[NCALLERS];
};

static int setup(void **state)
{
	(void)state;
	return wl_enter_tmpdir("test_pg_callers");
}

static int teardown(void **state)
{
	(void)state;
	return wl_leave_tmpdir();
}

static int locate(void)
{
	if (prog_dir(bindir, sizeof(bindir)))
		return -1;
	/* The VM payload has a gprof next to the driver; the host, GNU's. */
	snprintf(gprof, sizeof(gprof), "%s/gprof", bindir);
	if (access(gprof, X_OK))
		snprintf(gprof, sizeof(gprof), "gprof");
	/* The payload's gprof is GNU's: the analyzer is checked here. */
	snprintf(our_gprof, sizeof(our_gprof), "%s/../../gprof/gprof", bindir);
	if (access(our_gprof, X_OK))
		our_gprof[0] = '\0';
	return 0;
}

/*
 * Runs @prog (next to the driver) with @args (NULL-terminated), 1000 Hz
 * (2 s of CPU give 2,000 samples) and @env (prog_run()); its output goes
 * to out[].  Returns its status.
 */
static int run(const char *prog, const char *const *args,
	       const char *const *env)
{
	const char *argv[8] = { prog }, *envp[16] = { "SPROFIL_HZ=1000" };
	char path[PATH_MAX];
	struct prog_run r;

	snprintf(path, sizeof(path), "%s/%s", bindir, prog);
	for (int i = 0; args[i] && i < 6; i++)
		argv[i + 1] = args[i];
	for (int i = 0; env && env[i] && i < 14; i++)
		envp[i + 1] = env[i];
	prog_run(&r, path, argv, envp, out, sizeof(out), INT_MAX);
	return r.status;
}

/* The program ran and its backend records chains, else the test skips. */
static void ran_ok(int status)
{
	if (strstr(out, "cannot record caller chains")) {
		print_message("# SKIP: this backend does not record caller chains yet\n");
		skip();
	}
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void parse_out(struct prog_out *p)
{
	static const char *const name[NCALLERS] = {
		"caller_a", "caller_b", "caller_c", "caller_d",
	};
	char *save = NULL, *line, *copy = strdup(out);
	char what[64], mod[PATH_MAX];
	unsigned long long a, b;
	double c;

	assert_non_null(copy);
	memset(p, 0, sizeof(*p));
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "span %63s %4095s %llx %llx", what, mod, &a,
			   &b) == 4 && p->nspan < 16) {
			snprintf(p->span[p->nspan].name, 64, "%s", what);
			snprintf(p->span[p->nspan].module, PATH_MAX, "%s", mod);
			p->span[p->nspan].start = a;
			p->span[p->nspan++].end = b;
		} else if (sscanf(line, "cpu %63s %lf", what, &c) == 2) {
			for (int k = 0; k < NCALLERS; k++)
				if (!strcmp(what, name[k]))
					p->cpu[k] = c;
		}
	}
	free(copy);
}

/* The extent of @name, in the file's module numbering (CT_PC). */
static struct ct_span span_in(const struct prog_out *p,
			      const struct ct_file *f, const char *name)
{
	for (int i = 0; i < p->nspan; i++) {
		int m = -1;

		if (strcmp(p->span[i].name, name))
			continue;
		if (!strcmp(p->span[i].module, "exe")) {
			for (uint32_t k = 0; k < f->nmodules; k++)
				if (f->module[k].flags & GMF_MODULE_MAIN)
					m = (int)k;
		} else {
			const char *base = strrchr(p->span[i].module, '/');

			m = ct_module(f, base ? base : p->span[i].module);
		}
		if (m < 0)
			fail_msg("no module record for %s", name);
		return (struct ct_span){ CT_PC(m, p->span[i].start),
					 CT_PC(m, p->span[i].end) };
	}
	fail_msg("the program printed no extent for %s", name);
	return (struct ct_span){ 0, 0 };
}

/*
 * Runs @analyzer with @opts on @file of @prog into @buf (stdout, and
 * stderr after it); fails unless it exits 0.
 */
static void analyze(const char *analyzer, const char *opts, const char *prog,
		    const char *file, char *buf, size_t size)
{
	char cmd[4 * PATH_MAX];
	size_t len = 0, got;
	FILE *p;
	int rc;

	snprintf(cmd, sizeof(cmd), "LC_ALL=C '%s' %s '%s/%s' '%s' 2>&1",
		 analyzer, opts, bindir, prog, file);
	p = popen(cmd, "r");
	assert_non_null(p);
	while ((got = fread(buf + len, 1, size - 1 - len, p)) > 0)
		len += got;
	buf[len] = '\0';
	rc = pclose(p);
	print_message("# %s: status %d:\n%.900s\n", cmd, rc, buf);
	assert_int_equal(rc, 0);
}

/* GNU gprof (or the payload's) reads the GNU file @file of @prog. */
static void gprof_reads(const char *prog, const char *file,
			const char *expect)
{
	char buf[4096];

	analyze(gprof, "-b -p", prog, file, buf, sizeof(buf));
	assert_non_null(strstr(buf, expect));
}

/*
 * sprofil's analyzer on @file of @prog: the measured call graph's
 * header (samples with a complete chain, truncated), and the % time of
 * each caller, from its own line of the graph.
 */
static void measured_graph(const char *prog, const char *file, bool counts,
			   unsigned long long *complete,
			   unsigned long long *cut, double pct[NCALLERS])
{
	static const char *const name[NCALLERS] = {
		"caller_a", "caller_b", "caller_c", "caller_d",
	};
	static char buf[1 << 16];
	const char *h;

	analyze(our_gprof, "-b -q", prog, file, buf, sizeof(buf));
	h = strstr(buf, "times measured from caller samples: ");
	assert_non_null(h);
	h += strlen("times measured from caller samples: ");
	assert_int_equal(sscanf(h, "%llu with a complete chain, %llu truncated",
				complete, cut), 2);
	/* Without -pg the header says there are no call counts. */
	assert_true(!strstr(buf, "no call counts (not built with -pg)") ==
		    counts);
	for (int k = 0; k < NCALLERS; k++) {
		char want[64];
		const char *l = buf;

		snprintf(want, sizeof(want), " %s [", name[k]);
		pct[k] = -1;
		for (; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
			size_t ll = strcspn(l, "\n");
			char line[256];

			if (*l != '[' || ll >= sizeof(line))
				continue;
			memcpy(line, l, ll);
			line[ll] = '\0';
			if (strstr(line, want) &&
			    sscanf(line, "[%*d] %lf", &pct[k]) == 1)
				break;
		}
		assert_true(pct[k] >= 0);
	}
}

/*
 * The analyzer's measured graph of @prog's @file: each caller's share
 * of the four callers' time within 2 points of its share of their CPU,
 * and at most @cut_max of the samples truncated.
 */
static void check_measured_graph(const char *prog, const char *file,
				 bool counts, const struct prog_out *p,
				 double cut_max)
{
	unsigned long long complete, cut;
	double pct[NCALLERS], sum = 0, cpu = 0;

	if (!our_gprof[0]) {
		print_message("# sprofil's gprof is not here (the VM payload has GNU's): its checks run on the host\n");
		return;
	}
	measured_graph(prog, file, counts, &complete, &cut, pct);
	for (int k = 0; k < NCALLERS; k++) {
		sum += pct[k];
		cpu += p->cpu[k];
	}
	print_message("#   %s: %llu samples complete, %llu truncated\n",
		      prog, complete, cut);
	assert_true(complete + cut >= 1000);
	assert_true(cut <= cut_max * (complete + cut));
	for (int k = 0; k < NCALLERS; k++) {
		double share = 100 * pct[k] / sum, truth = 100 * p->cpu[k] / cpu;

		print_message("#   caller %d: %.2f%% of the callers' time measured, its CPU %.2f%%\n",
			      k, share, truth);
		assert_true(fabs(share - truth) <= 2);
	}
}

static uint32_t file_version(const char *path)
{
	unsigned char h[8];
	uint32_t v = 0;
	FILE *f = fopen(path, "rb");

	assert_non_null(f);
	assert_int_equal(fread(h, 1, 8, f), 8);
	fclose(f);
	assert_memory_equal(h, GMF_COOKIE, 4);
	memcpy(&v, h + 4, 4);
	return v;
}

/*
 * The arcs caller_k -> pg_spin of @t against the CPU each caller took,
 * within 2 points.
 */
static void check_four_callers(const struct ct_tree *t,
			       const struct ct_file *f,
			       const struct prog_out *p, int threads)
{
	static const char *const name[NCALLERS] = {
		"caller_a", "caller_b", "caller_c", "caller_d",
	};
	struct ct_span spin = span_in(p, f, "pg_spin");
	uint64_t arc[NCALLERS], sum = 0, leaf, cut;
	double cpu = 0;
	/*
	 * Each caller's share within 2 points of its CPU time; 5 under qemu
	 * TCG (SPROFIL_TEST_TCG), no accuracy oracle (6.12 once gave 41.99 %
	 * for 39.97 %), as in tests/lib/test_callers.c.
	 */
	double tol = getenv("SPROFIL_TEST_TCG") ? 5 : 2;

	for (int k = 0; k < NCALLERS; k++) {
		arc[k] = ct_arc(t, span_in(p, f, name[k]), spin);
		sum += arc[k];
		cpu += p->cpu[k];
	}
	leaf = ct_leaf(t, spin, &cut);
	print_message("#   %llu samples filed (%llu truncated), %llu lost; %llu in pg_spin, %llu below a caller\n",
		      (unsigned long long)t->samples,
		      (unsigned long long)t->truncated,
		      (unsigned long long)t->lost, (unsigned long long)leaf,
		      (unsigned long long)sum);
	assert_int_equal(t->lost, 0);
	assert_true(sum >= 1000);
	/*
	 * A thread's start routine is its outermost frame: complete.  The
	 * main thread's chains end in libc's start code, which calls main
	 * with a nonzero frame pointer (1 on glibc 2.36): truncated, by the
	 * walk's rules (docs/callers.md).
	 */
	print_message("#   %llu of them complete\n",
		      (unsigned long long)ct_complete_below(t, spin));
	if (threads)
		assert_true(ct_complete_below(t, spin) >= 0.98 * leaf);
	assert_true(sum >= 0.98 * leaf);
	for (int k = 0; k < NCALLERS; k++) {
		double pct = 100.0 * arc[k] / sum, truth = 100 * p->cpu[k] / cpu;

		print_message("#   %s -> pg_spin: %.2f%% (its CPU %.2f%%)\n",
			      name[k], pct, truth);
		assert_true(fabs(pct - truth) <= tol);
	}
}

static void four_callers(const char *mode)
{
	const char *args[] = { mode, "2", NULL };
	struct prog_out p;
	struct ct_tree t;
	struct ct_file f;

	ran_ok(run("pg-callers", args, NULL));
	parse_out(&p);
	/* GNU gprof's file stays plain; the chains are beside it. */
	assert_int_equal(file_version("gmon.out"), GMF_GNU_VERSION);
	gprof_reads("pg-callers", "gmon.out", "pg_spin");
	assert_int_equal(ct_from_file(&t, &f, "gmon.out" GMF_CALLERS_SUFFIX),
			 0);
	assert_true(f.has_callers);
	assert_int_equal(f.depth, 64);
	assert_int_equal(f.period_ns, 1000000);
	check_four_callers(&t, &f, &p, !strcmp(mode, "threads"));
	ct_free(&t);
	/*
	 * sprofil's analyzer: the chains through main, cut beyond it in
	 * libc's start code, count as complete.
	 */
	check_measured_graph("pg-callers", "gmon.out", true, &p, 0.02);
}

static void pg_four_threads_40_30_20_10_beside_gnu_file(void **state)
{
	(void)state;
	four_callers("threads");
}

static void pg_one_thread_40_30_20_10_beside_gnu_file(void **state)
{
	(void)state;
	four_callers("one");
}

/*
 * No -pg: a program with frame pointers profiles itself with smonitor()
 * and a caller table.  The analyzer gives it a call graph from its
 * chains alone (no call counts), with each caller's time measured, and
 * its chains through main complete.  Some samples are truly cut: in the
 * vDSO's clock_gettime(), called by libc's, which keeps no frame
 * pointer (3 % on the host).  The chains are checked on every backend,
 * the analyzer on the host (the VM payload has GNU gprof).
 */
static void nopg_frame_pointers_give_a_measured_call_graph(void **state)
{
	const char *args[] = { "one", "2", NULL };
	struct prog_out p;
	struct ct_tree t;
	struct ct_file f;

	(void)state;
	ran_ok(run("pg-callers-fp", args, NULL));
	parse_out(&p);
	/* The chains themselves, on every backend. */
	assert_int_equal(file_version("gmon.out"), GMF_GNU_VERSION);
	assert_int_equal(ct_from_file(&t, &f, "gmon.out" GMF_CALLERS_SUFFIX),
			 0);
	assert_true(f.has_callers);
	check_four_callers(&t, &f, &p, 0);
	ct_free(&t);
	check_measured_graph("pg-callers-fp", "gmon.out", false, &p, 0.1);
}

/*
 * executable -> -pg shared library -> callback into the executable: the
 * profile has two -pg modules, so it is an extension file, with the
 * chains inside it and no sidecar.
 */
static void pg_chain_across_a_pg_library_inside_extension_file(void **state)
{
	const char *args[] = { "module", "1", NULL };
	struct ct_span back, hot, main_fn;
	uint64_t chain[CT_MAX_CHAIN], leaf = 0, crossed = 0;
	struct prog_out p;
	struct ct_tree t;
	struct ct_file f;
	int cut;

	(void)state;
	ran_ok(run("pg-callers-mod", args, NULL));
	parse_out(&p);
	assert_int_equal(file_version("gmon.out"), GMF_EXT_VERSION);
	assert_int_not_equal(access("gmon.out" GMF_CALLERS_SUFFIX, F_OK), 0);
	assert_int_equal(ct_from_file(&t, &f, "gmon.out"), 0);
	assert_true(f.has_callers);
	back = span_in(&p, &f, "cb_back");
	hot = span_in(&p, &f, "pgmod_hot");
	main_fn = span_in(&p, &f, "main");
	for (size_t i = 0; i < t.n; i++) {
		size_t len;

		if (!t.count[i])
			continue;
		len = ct_chain(&t, i, chain, &cut);
		if (!ct_in(chain, 0, back))
			continue;
		leaf += t.count[i];
		if (len >= 3 && ct_in(chain, 1, hot) && ct_in(chain, 2, main_fn))
			crossed += t.count[i];
	}
	print_message("#   %llu samples in cb_back, %llu with main -> pgmod_hot -> cb_back\n",
		      (unsigned long long)leaf, (unsigned long long)crossed);
	assert_true(leaf >= 150);
	assert_true(crossed >= 0.98 * leaf);
	/* And the library's own time is below main too. */
	assert_true(ct_arc(&t, main_fn, hot) >= 400);
	ct_free(&t);
}

/*
 * SPROFIL_CALLERS=0: no chains, and a sidecar left by an earlier run is
 * removed, so that it is never taken for this gmon.out's.
 */
static void pg_callers_off_writes_no_sidecar_and_removes_a_stale_one(void **state)
{
	const char *args[] = { "one", "0.2", NULL };
	const char *env[] = { "SPROFIL_CALLERS=0", NULL };
	FILE *stale = fopen("gmon.out" GMF_CALLERS_SUFFIX, "w");

	(void)state;
	assert_non_null(stale);
	fputs("stale", stale);
	fclose(stale);
	ran_ok(run("pg-callers", args, env));
	assert_int_equal(file_version("gmon.out"), GMF_GNU_VERSION);
	assert_int_not_equal(access("gmon.out" GMF_CALLERS_SUFFIX, F_OK), 0);
	gprof_reads("pg-callers", "gmon.out", "pg_spin");
}

/*
 * The sidecar cannot be written (a directory has its name): the GNU
 * profile is still written, and the error said.
 */
static void pg_sidecar_error_keeps_the_profile(void **state)
{
	const char *args[] = { "one", "0.2", NULL };

	(void)state;
	assert_int_equal(mkdir("gmon.out" GMF_CALLERS_SUFFIX, 0755), 0);
	ran_ok(run("pg-callers", args, NULL));
	assert_non_null(strstr(out, "libsprofil: gmon.out" GMF_CALLERS_SUFFIX
				    ": rename: Is a directory"));
	assert_int_equal(file_version("gmon.out"), GMF_GNU_VERSION);
	gprof_reads("pg-callers", "gmon.out", "pg_spin");
	assert_int_equal(rmdir("gmon.out" GMF_CALLERS_SUFFIX), 0);
}

/* SPROFIL_DEPTH=3: the record says so and no chain is longer. */
static void pg_depth_sets_the_frames_kept(void **state)
{
	const char *args[] = { "one", "0.3", NULL };
	const char *env[] = { "SPROFIL_DEPTH=3", NULL };
	uint64_t chain[CT_MAX_CHAIN];
	struct ct_tree t;
	struct ct_file f;
	int cut;

	(void)state;
	ran_ok(run("pg-callers", args, env));
	assert_int_equal(ct_from_file(&t, &f, "gmon.out" GMF_CALLERS_SUFFIX),
			 0);
	assert_int_equal(f.depth, 3);
	assert_true(t.samples > 100);
	for (size_t i = 0; i < t.n; i++)
		assert_true(ct_chain(&t, i, chain, &cut) <= 3);
	/* main -> caller -> pg_spin -> ... is deeper: cut. */
	assert_true(t.truncated >= 0.9 * t.samples);
	ct_free(&t);
}

/*
 * The samples of @t (read from @f) by the return address in main that
 * they are below (chain[len - 2]: main's caller in libc is the outermost
 * frame), link-time in the executable: one call site of main per piece
 * of pg-sigdump's work.  Fills @ra/@n with
 * at most @max distinct sites, returns how many.
 */
static int by_main_site(const struct ct_tree *t, const struct ct_file *f,
			uint64_t *ra, uint64_t *n, int max)
{
	uint64_t chain[CT_MAX_CHAIN], site, mod;
	int sites = 0, cut, k;

	for (size_t i = 0; i < t->n; i++) {
		size_t len;

		if (!t->count[i])
			continue;
		len = ct_chain(t, i, chain, &cut);
		if (len < 3)
			continue;
		/* Link-time in the executable: comparable across files. */
		mod = chain[len - 2] >> 48;
		if (!mod || !(f->module[mod - 1].flags & GMF_MODULE_MAIN))
			continue;
		site = chain[len - 2] & ((1ull << 48) - 1);
		for (k = 0; k < sites && ra[k] != site; k++)
			;
		if (k == sites) {
			if (sites == max)
				continue;
			ra[sites] = site;
			n[sites++] = 0;
		}
		n[k] += t->count[i];
	}
	return sites;
}

static uint64_t samples_at(const uint64_t *ra, const uint64_t *n, int sites,
			   uint64_t site)
{
	for (int k = 0; k < sites; k++)
		if (ra[k] == site)
			return n[k];
	return 0;
}

/*
 * The samples of the callers file @file by main's call site (32 at
 * most, by_main_site()), and in *@top the busiest site, which must
 * hold at least 100 samples.  Returns the number of sites.
 */
static int main_sites(const char *file, uint64_t *ra, uint64_t *n,
		      uint64_t *top)
{
	uint64_t best = 0;
	struct ct_tree t;
	struct ct_file f;
	int sites;

	assert_int_equal(ct_from_file(&t, &f, file), 0);
	assert_true(f.has_callers);
	sites = by_main_site(&t, &f, ra, n, 32);
	for (int k = 0; k < sites; k++) {
		if (n[k] > best) {
			best = n[k];
			*top = ra[k];
		}
	}
	print_message("#   %s: %llu samples, %llu below main's busiest call site %#llx\n",
		      file, (unsigned long long)t.samples,
		      (unsigned long long)best, (unsigned long long)*top);
	assert_true(best >= 100);
	ct_free(&t);
	return sites;
}

/*
 * SPROFIL_SIGDUMP: work A, dump 1, work B, dump 2, work C, exit.  Each
 * dump takes the chains: the call site of each piece of work (in main)
 * is in its own dump's chains and in no other, so no sample is in two
 * dumps, and none is missing from its own.
 */
static void pg_sigdump_dumps_hold_each_chain_once(void **state)
{
	static const char *const file[3] = {
		"gmon.out.1" GMF_CALLERS_SUFFIX, "gmon.out.2" GMF_CALLERS_SUFFIX,
		"gmon.out" GMF_CALLERS_SUFFIX,
	};
	const char *args[] = { "gmon.out", NULL };
	const char *env[] = { "SPROFIL_SIGDUMP=USR1", NULL };
	uint64_t ra[3][32], n[3][32], top[3];
	int sites[3];

	(void)state;
	ran_ok(run("pg-sigdump", args, env));
	/* 0.2 s of work at 1000 Hz in each. */
	for (int d = 0; d < 3; d++)
		sites[d] = main_sites(file[d], ra[d], n[d], &top[d]);
	for (int d = 0; d < 3; d++) {
		for (int e = 0; e < 3; e++) {
			if (d == e)
				continue;
			assert_true(top[d] != top[e]);
			assert_int_equal(samples_at(ra[e], n[e], sites[e],
						    top[d]), 0);
		}
	}
}

/*
 * smonitor() in a -pg program: its dump holds the chains of its session
 * (work A, one call site of main), the runtime's earlier ones discarded
 * as its samples are; the dump at exit (the arcs of work B, unsampled:
 * an extension file, no histogram) has a callers record with none.
 */
static void pg_smonitor_dump_holds_its_sessions_chains(void **state)
{
	const char *args[] = { NULL };
	uint64_t ra[32], n[32];
	struct ct_tree t;
	struct ct_file f;
	int sites;

	(void)state;
	ran_ok(run("pg-smonitor", args, NULL));
	assert_int_equal(ct_from_file(&t, &f, "gmon.out" GMF_CALLERS_SUFFIX),
			 0);
	assert_true(f.has_callers);
	sites = by_main_site(&t, &f, ra, n, 32);
	print_message("#   gmon.out.callers: %llu samples, %d call sites of main\n",
		      (unsigned long long)t.samples, sites);
	/* 0.3 s of work at 1000 Hz, all below work_a's call site. */
	assert_int_equal(sites, 1);
	assert_true(n[0] >= 150);
	ct_free(&t);
	assert_int_equal(ct_from_file(&t, &f, "gmon.out.1"), 0);
	assert_true(f.has_callers);
	assert_int_equal(t.samples, 0);
	ct_free(&t);
}

/* The pid printed after @role in the program's output, or -1. */
static int role_pid(const char *role)
{
	const char *at = out;
	size_t len = strlen(role);
	int pid;

	while (at && *at) {
		if (!strncmp(at, role, len) && at[len] == ' ' &&
		    sscanf(at + len + 1, "%d", &pid) == 1)
			return pid;
		at = strchr(at, '\n');
		at = at ? at + 1 : NULL;
	}
	return -1;
}

/*
 * fork: the parent works 0.6 s in parent_work, then forks child B.  B's
 * table is a copy of the parent's, with its counts taken to zero: B's
 * chains hold none of the parent's work (main's parent_work call site),
 * and neither do A's (forked before it).
 */
static void pg_fork_child_chains_start_from_zero(void **state)
{
	const char *args[] = { NULL };
	char file[3][64];
	uint64_t ra[3][32], n[3][32], top[3];
	int sites[3], pid[2];

	(void)state;
	ran_ok(run("pg-fork", args, NULL));
	pid[0] = role_pid("a");
	pid[1] = role_pid("b");
	assert_true(pid[0] > 0 && pid[1] > 0);
	snprintf(file[0], sizeof(file[0]), "gmon.out" GMF_CALLERS_SUFFIX);
	snprintf(file[1], sizeof(file[1]), "gmon.out.%d" GMF_CALLERS_SUFFIX,
		 pid[0]);
	snprintf(file[2], sizeof(file[2]), "gmon.out.%d" GMF_CALLERS_SUFFIX,
		 pid[1]);
	for (int d = 0; d < 3; d++)
		sites[d] = main_sites(file[d], ra[d], n[d], &top[d]);
	/* The parent's parent_work is in neither child's chains. */
	for (int d = 1; d < 3; d++) {
		assert_true(top[d] != top[0]);
		assert_int_equal(samples_at(ra[d], n[d], sites[d], top[0]), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(pg_four_threads_40_30_20_10_beside_gnu_file,
						setup, teardown),
		cmocka_unit_test_setup_teardown(pg_one_thread_40_30_20_10_beside_gnu_file,
						setup, teardown),
		cmocka_unit_test_setup_teardown(pg_chain_across_a_pg_library_inside_extension_file,
						setup, teardown),
		cmocka_unit_test_setup_teardown(nopg_frame_pointers_give_a_measured_call_graph,
						setup, teardown),
		cmocka_unit_test_setup_teardown(pg_callers_off_writes_no_sidecar_and_removes_a_stale_one,
						setup, teardown),
		cmocka_unit_test_setup_teardown(pg_depth_sets_the_frames_kept,
						setup, teardown),
		cmocka_unit_test_setup_teardown(pg_sidecar_error_keeps_the_profile,
						setup, teardown),
		cmocka_unit_test_setup_teardown(pg_sigdump_dumps_hold_each_chain_once,
						setup, teardown),
		cmocka_unit_test_setup_teardown(pg_smonitor_dump_holds_its_sessions_chains,
						setup, teardown),
		cmocka_unit_test_setup_teardown(pg_fork_child_chains_start_from_zero,
						setup, teardown),
	};

	if (locate())
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
