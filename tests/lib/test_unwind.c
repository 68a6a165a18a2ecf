// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Caller chains without frame pointers on the signal and bpf backends,
 * from the unwind tables of SPROFIL_UNWIND_DIR (docs/callers.md "Unwind
 * tables").  This program is built -O2 -fomit-frame-pointer
 * -fno-optimize-sibling-calls: four callers do 40/30/20/10 % of one
 * callee's work through a shared middle function, and the callee is a
 * frameless leaf.  Without tables every chain is cut; with the tables
 * sprofil-unwind builds of every module loaded (written to a fresh
 * directory, read by this program run again with SPROFIL_UNWIND_DIR
 * set, since the library reads its settings once), chains are complete
 * down to _start and each caller's measured share is within 2 points of
 * its CPU time.  Tables that are not the program's, or writable by
 * others, are not used, and a hostile one that passes the checks cuts
 * chains without a fault.  Chains also cross modules (the program, libc's
 * qsort(), a callback into the program).  A module with a table loaded
 * and unloaded in a loop leaves nothing behind (on bpf, no map
 * descriptor more), and one without frame pointers gets its table back
 * at each load without the tables mapped growing.  Every backend walks
 * the tables: the signal handler and the bpf program in place, the
 * module from the copies START hands it.  In the VM (kmod, and bpf on
 * the guest's kernel) the builder is the payload's copy, named by
 * SPROFIL_TEST_UNWIND_TOOL (tests/kmod/run-in-vm), and the shares are
 * checked within 8 points: qemu's TCG is no accuracy oracle.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <link.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/profil.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <sprofil.h>
#include <sprofil/unwind_table.h>

#include "../../libsprofil/pg/elf_headers.h"

#include "callers_tree.h"
#include "lib_test.h"
#include "unwind_tables.h"
#include "workload.h"

#define TABLE_BYTES	(4u << 20)
#define DEPTH		64
#define NCALLERS	4
/* A library the program does not link: loaded and unloaded in a loop. */
#define DLOPEN_LIB	"/lib/x86_64-linux-gnu/libz.so.1"

static uint64_t iters_per_sec;

/* The callee: a leaf without a frame. */
__attribute__((noipa)) uint64_t uw_leaf(uint64_t n)
{
	uint64_t x = n;

	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

/* The shared middle, with a frame of its own and saved registers. */
__attribute__((noipa)) uint64_t uw_middle(uint64_t n)
{
	uint64_t a = uw_leaf(n / 2), b = uw_leaf(n - n / 2);

	return a ^ (b >> 3);
}

__attribute__((noipa)) uint64_t uw_caller_a(uint64_t n)
{
	return uw_middle(n) + 1;
}

__attribute__((noipa)) uint64_t uw_caller_b(uint64_t n)
{
	return uw_middle(n) + 2;
}

__attribute__((noipa)) uint64_t uw_caller_c(uint64_t n)
{
	return uw_middle(n) + 3;
}

__attribute__((noipa)) uint64_t uw_caller_d(uint64_t n)
{
	return uw_middle(n) + 4;
}

static uint64_t (*const callers4[NCALLERS])(uint64_t) = {
	uw_caller_a, uw_caller_b, uw_caller_c, uw_caller_d,
};
static const double weight4[NCALLERS] = { 4, 3, 2, 1 };

/* Whether the backend walks with the tables: every one does. */
static int unwind_backend(void)
{
	struct sprofil_info i;

	return !sprofil_info(&i) && (!strcmp(i.backend, "signal") ||
				     !strcmp(i.backend, "bpf") ||
				     !strcmp(i.backend, "kmod"));
}

/* The table builder: the build tree's, or the VM payload's copy. */
static const char *unwind_tool(void)
{
	const char *t = getenv("SPROFIL_TEST_UNWIND_TOOL");

	return t && *t ? t : UNWIND_TOOL;
}

static void say_tree(const struct ct_tree *tree)
{
	print_message("# %llu samples, %llu truncated, %llu lost\n",
		      (unsigned long long)tree->samples,
		      (unsigned long long)tree->truncated,
		      (unsigned long long)tree->lost);
}

/*
 * Starts sampling @n spans of text with a caller table; profile_stop()
 * ends it and reads the table into @tree.
 */
static void profile_start(struct prof *p, const struct ct_span *span, int n,
			  void **table)
{
	for (int i = 0; i < n; i++) {
		p[i].pr_size = (span[i].end - span[i].start + 3) & ~3ul;
		p[i].pr_base = calloc(1, p[i].pr_size);
		assert_non_null(p[i].pr_base);
		p[i].pr_off = span[i].start;
		p[i].pr_scale = 0x10000;
	}
	*table = malloc(TABLE_BYTES);
	assert_non_null(*table);
	assert_int_equal(sprofil_callers(*table, TABLE_BYTES, DEPTH), 0);
	assert_int_equal(sprofil(p, n, NULL, PROF_UINT | PROF_FAST), 0);
}

static void profile_stop(struct prof *p, int n, struct ct_tree *tree,
			 void *table)
{
	assert_int_equal(sprofil(NULL, 0, NULL, 0), 0);
	sprofil_callers(NULL, 0, 0);
	assert_int_equal(ct_from_table(tree, table), 0);
	for (int i = 0; i < n; i++)
		free(p[i].pr_base);
}

/*
 * Profiles the four callers for about 2,000 samples of CPU, with a
 * caller table, and returns the tree and each caller's CPU time.
 */
static void profile(struct ct_tree *tree, double *cpu, void **table,
		    double samples)
{
	struct ct_span text = lt_text_of((void *)uw_leaf);
	struct prof p;
	double wsum = 0, seconds;
	uint64_t chunk;

	profile_start(&p, &text, 1, table);
	seconds = lt_seconds_for(samples);
	chunk = (uint64_t)(iters_per_sec * lt_seconds_for(1)) / 4 + 1;
	for (int k = 0; k < NCALLERS; k++) {
		wsum += weight4[k];
		cpu[k] = 0;
	}
	for (int r = 0; r < 10; r++)
		for (int k = 0; k < NCALLERS; k++)
			cpu[k] += wl_spin_cpu(callers4[k], chunk,
					      seconds * weight4[k] / wsum / 10);
	profile_stop(&p, 1, tree, *table);
	say_tree(tree);
}

/* Without tables: every sample in the callee has a cut chain. */
static void without_tables_chains_are_cut(void **state)
{
	struct ct_tree tree;
	double cpu[NCALLERS];
	uint64_t cut, leaf;
	void *table;

	(void)state;
	if (!unwind_backend())
		skip();
	profile(&tree, cpu, &table, 2000);
	leaf = ct_leaf(&tree, lt_span_of((void *)uw_leaf), &cut);
	print_message("# %llu samples in the callee, %llu cut\n",
		      (unsigned long long)leaf, (unsigned long long)cut);
	assert_true(leaf >= 500);
	assert_true(cut >= 0.95 * leaf);
	ct_free(&tree);
	free(table);
}

/* In the child, with SPROFIL_UNWIND_DIR: complete chains, right shares. */
static void with_tables_chains_are_whole(void **state)
{
	struct ct_span mid = lt_span_of((void *)uw_middle);
	struct ct_tree tree;
	double cpu[NCALLERS], cpu_sum = 0;
	double tol = getenv("SPROFIL_TEST_TCG") ? 8 : 2;
	uint64_t arc[NCALLERS], sum = 0, cut, leaf;
	void *table;

	(void)state;
	profile(&tree, cpu, &table, 2000);
	leaf = ct_leaf(&tree, lt_span_of((void *)uw_leaf), &cut);
	print_message("# %llu samples in the callee, %llu cut\n",
		      (unsigned long long)leaf, (unsigned long long)cut);
	assert_true(leaf >= 500);
	assert_true(cut <= 0.02 * leaf);
	assert_true(tree.truncated <= 0.05 * tree.samples);
	for (int k = 0; k < NCALLERS; k++) {
		arc[k] = ct_arc(&tree, lt_span_of((void *)callers4[k]), mid);
		sum += arc[k];
		cpu_sum += cpu[k];
	}
	assert_true(sum >= 0.95 * leaf);
	for (int k = 0; k < NCALLERS; k++) {
		double pct = 100.0 * arc[k] / sum;
		double truth = 100 * cpu[k] / cpu_sum;

		print_message("#   uw_caller_%c -> uw_middle: %llu of %llu samples = %.2f%% (its CPU: %.2f%%)\n",
			      'a' + k, (unsigned long long)arc[k],
			      (unsigned long long)sum, pct, truth);
		assert_true(fabs(pct - truth) <= tol);
	}
	ct_free(&tree);
	free(table);
}

/* Spins in the program, called back by libc's qsort(). */
static uint64_t uw_cmp_spin;

__attribute__((noipa)) int uw_cmp(const void *a, const void *b)
{
	uint64_t x = uw_cmp_spin;

	for (uint64_t i = 0; i < uw_cmp_spin; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	return (*(const int *)a > *(const int *)b) -
	       (*(const int *)a < *(const int *)b) + (int)(x & 0);
}

/* The program's caller of qsort(): @n iterations of comparisons. */
__attribute__((noipa)) uint64_t uw_sorter(uint64_t n)
{
	int v[64];

	for (int i = 0; i < 64; i++)
		v[i] = (i * 37) % 64;
	uw_cmp_spin = n / 400 + 1;
	qsort(v, 64, sizeof(v[0]), uw_cmp);
	return (uint64_t)v[0];
}

/*
 * Executable -> libc (no frame pointers) -> callback into the
 * executable: the comparator's samples walk up through qsort()'s frames,
 * by libc's table, to the program's caller.
 */
static void chains_cross_modules_into_a_callback(void **state)
{
	struct ct_span span[2] = {
		lt_text_of((void *)uw_sorter), lt_text_of((void *)qsort),
	};
	struct prof p[2];
	struct ct_tree tree;
	uint64_t leaf, cut, under;
	void *table;

	(void)state;
	profile_start(p, span, 2, &table);
	wl_spin_cpu(uw_sorter, iters_per_sec / 1000 + 1, lt_seconds_for(1000));
	profile_stop(p, 2, &tree, table);
	say_tree(&tree);
	leaf = ct_leaf(&tree, lt_span_of((void *)uw_cmp), &cut);
	under = ct_below(&tree, lt_span_of((void *)uw_sorter));
	print_message("# %llu samples in the comparator, %llu cut; %llu under its qsort() caller\n",
		      (unsigned long long)leaf, (unsigned long long)cut,
		      (unsigned long long)under);
	assert_true(leaf >= 300);
	assert_true(cut <= 0.05 * leaf);
	assert_true(under >= 0.95 * leaf);
	ct_free(&tree);
	free(table);
}

/* Calls libm's @fn (loaded and unloaded by the test) @n times. */
static double (*uw_dl_fn)(double);

__attribute__((noipa)) uint64_t uw_dl_caller(uint64_t n)
{
	double x = 0;

	for (uint64_t i = 0; i < n; i++)
		x += uw_dl_fn(1.5 + (double)(i & 1023) / 64);
	return (uint64_t)x;
}

/*
 * Copies @from to @to in this process: no system(), whose shell an ASan
 * build's preloaded runtime cannot start in.
 */
static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	size_t n;

	assert_non_null(in);
	assert_non_null(out);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	assert_false(ferror(in));
	fclose(in);
	assert_int_equal(fclose(out), 0);
}

/* The unwind tables this process has mapped (/proc/self/maps). */
static int tables_mapped(void)
{
	char line[4096];
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, ".spu\n") != NULL;
	fclose(f);
	return n;
}

/* Descriptors of BPF maps the process holds. */
static int bpf_map_fds(void)
{
	char path[300], target[64];
	struct dirent *e;
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	ssize_t len;

	assert_non_null(d);
	while ((e = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = 0;
		n += !strcmp(target, "anon_inode:bpf-map");
	}
	closedir(d);
	return n;
}

/*
 * A module without frame pointers (a copy of libm, so that it really
 * unloads) loaded and unloaded 300 times, each time sampled, and each
 * time seen gone by a start in between: its table comes back with it,
 * chains through it stay whole at the end, and the tables mapped do
 * not grow with the loop.
 */
static void dlopen_loop_tables_come_and_go(void **state)
{
	char dir[] = "/tmp/sprofil-dlloop-XXXXXX", copy[256];
	struct ct_span span[2];
	struct prof p[2];
	struct ct_tree tree;
	uint64_t leaf = 0, cut = 0, under = 0;
	void *table, *h;
	Dl_info d;
	/* Fewer under TCG, where each start costs milliseconds. */
	int first = 0, loops = getenv("SPROFIL_TEST_TCG") ? 60 : 300;

	(void)state;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	/*
	 * Not under the sanitizers: under ASan a process of this loop
	 * aborts at the runtime's start ("shadow memory range interleaves
	 * with an existing mapping"), under TSan dlopen() of the copy fails.
	 * The normal builds check the loop, on every backend.
	 */
	skip();
#endif
	assert_true(dladdr((void *)lgamma, &d));
	assert_non_null(mkdtemp(dir));
	snprintf(copy, sizeof(copy), "%s/libm-copy.so", dir);
	copy_file(d.dli_fname, copy);
	for (int i = 0; i < loops; i++) {
		bool last = i == loops - 1;

		h = dlopen(copy, RTLD_NOW | RTLD_LOCAL);
		assert_non_null(h);
		uw_dl_fn = (double (*)(double))dlsym(h, "lgamma");
		assert_non_null(uw_dl_fn);
		span[0] = lt_text_of((void *)uw_dl_caller);
		span[1] = lt_text_of((void *)uw_dl_fn);
		profile_start(p, span, 2, &table);
		wl_spin_cpu(uw_dl_caller, 1000,
			    last ? lt_seconds_for(500) : 0.001);
		profile_stop(p, 2, &tree, table);
		if (last) {
			say_tree(&tree);
			leaf = ct_leaf(&tree, span[1], &cut);
			under = ct_below(&tree,
					 lt_span_of((void *)uw_dl_caller));
		}
		ct_free(&tree);
		free(table);
		if (i == 0)
			first = tables_mapped();
		assert_int_equal(dlclose(h), 0);
		/* A start with the module gone empties its entry. */
		profile_start(p, span, 1, &table);
		profile_stop(p, 1, &tree, table);
		ct_free(&tree);
		free(table);
	}
	print_message("# %d tables mapped after the first load, %d after %d; last load: %llu samples in libm's copy, %llu cut, %llu under its caller\n",
		      first, tables_mapped(), loops, (unsigned long long)leaf,
		      (unsigned long long)cut, (unsigned long long)under);
	unlink(copy);
	rmdir(dir);
	assert_true(tables_mapped() <= first);
	assert_true(leaf >= 100);
	assert_true(cut <= 0.05 * leaf);
	assert_true(under >= 0.9 * leaf);
}

/*
 * In the child, with SPROFIL_UNWIND_DIR holding DLOPEN_LIB's table too:
 * a module with a table loaded and unloaded 100 times, sampling
 * restarted after each (as the collector does): the tables go with it
 * (on bpf each change is a new map in place of the last: the process
 * holds no more map descriptors at the end than after the first
 * round), and the chains of the program stay whole after.
 */
static void dlopen_loop_leaves_nothing(void **state)
{
	struct ct_span text = lt_text_of((void *)uw_leaf);
	struct prof p = { .pr_off = text.start, .pr_scale = 0x10000 };
	struct ct_tree tree;
	double cpu[NCALLERS];
	uint64_t cut, leaf;
	void *table, *h;
	int first = -1, last, rounds = getenv("SPROFIL_TEST_TCG") ? 30 : 100;

	(void)state;
	p.pr_size = (text.end - text.start + 3) & ~3ul;
	p.pr_base = calloc(1, p.pr_size);
	table = malloc(TABLE_BYTES);
	assert_true(p.pr_base && table);
	assert_int_equal(sprofil_callers(table, TABLE_BYTES, DEPTH), 0);
	for (int i = 0; i < rounds; i++) {
		h = dlopen(DLOPEN_LIB, RTLD_NOW | RTLD_LOCAL);
		assert_non_null(h);
		assert_int_equal(sprofil(&p, 1, NULL, PROF_UINT | PROF_FAST), 0);
		assert_int_equal(dlclose(h), 0);
		assert_int_equal(sprofil(&p, 1, NULL, PROF_UINT | PROF_FAST), 0);
		if (!i)
			first = bpf_map_fds();
	}
	last = bpf_map_fds();
	assert_int_equal(sprofil(NULL, 0, NULL, 0), 0);
	sprofil_callers(NULL, 0, 0);
	free(table);
	free(p.pr_base);
	print_message("# BPF map descriptors: %d after the first round, %d after the last of %d\n",
		      first, last, rounds);
	assert_int_equal(last, first);
	profile(&tree, cpu, &table, 500);
	leaf = ct_leaf(&tree, lt_span_of((void *)uw_leaf), &cut);
	print_message("# then %llu samples in the callee, %llu cut\n",
		      (unsigned long long)leaf, (unsigned long long)cut);
	assert_true(leaf >= 100);
	assert_true(cut <= 0.02 * leaf);
	ct_free(&tree);
	free(table);
}

/*
 * In the child, with tables that must not be used, or a hostile one:
 * no fault, and the callee's chains cut.  Without a table the leaf's
 * samples are walked by frame records, whose leaf rule still finds its
 * caller, the middle function; a hostile table's first step runs off
 * the stack, so no sample has a caller.  Which of the two is told by
 * @hostile.
 */
static void bad_tables_cut_chains(bool hostile)
{
	struct ct_span mid = lt_span_of((void *)uw_middle);
	struct ct_span leaf_span = lt_span_of((void *)uw_leaf);
	struct ct_tree tree;
	double cpu[NCALLERS];
	uint64_t cut, leaf, arc;
	void *table;

	profile(&tree, cpu, &table, 500);
	leaf = ct_leaf(&tree, leaf_span, &cut);
	arc = ct_arc(&tree, mid, leaf_span);
	print_message("# %llu samples in the callee, %llu cut, %llu below the middle function\n",
		      (unsigned long long)leaf, (unsigned long long)cut,
		      (unsigned long long)arc);
	assert_true(leaf >= 100);
	assert_true(cut >= 0.95 * leaf);
	if (hostile)
		assert_int_equal(arc, 0);
	else
		assert_true(arc >= 0.9 * leaf);
	ct_free(&tree);
	free(table);
}

static void refused_tables_are_not_used(void **state)
{
	(void)state;
	bad_tables_cut_chains(false);
}

static void hostile_table_cuts_without_fault(void **state)
{
	(void)state;
	bad_tables_cut_chains(true);
}

/* This program's build-id in hex, from its PT_NOTE. */
static int exe_build_id(struct dl_phdr_info *info, size_t size, void *arg)
{
	char *hex = arg;

	(void)size;
	if (*info->dlpi_name)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const unsigned char *id;
		size_t len;

		if (ph->p_type != PT_NOTE)
			continue;
		id = sp_note_build_id((const void *)(info->dlpi_addr +
						     ph->p_vaddr),
				      ph->p_memsz, ph->p_align, &len);
		if (!id || len > 32)
			continue;
		for (size_t k = 0; k < len; k++)
			sprintf(hex + 2 * k, "%02x", id[k]);
		return 1;
	}
	return 0;
}

/* The tables of every module loaded, and DLOPEN_LIB's, into @dir. */
/*
 * The tables of every module this program loads, and DLOPEN_LIB's, into
 * @dir: built once, into a directory of the test's, then copied (the
 * builder takes seconds under qemu's TCG, and three tests want them).
 */
static char built[] = "/tmp/sprofil-unwind-built-XXXXXX";
static int built_status = -1;

static int build_tables(const char *dir)
{
	if (built_status < 0)
		built_status = mkdtemp(built) ?
			       ut_build_tables(unwind_tool(), built, DLOPEN_LIB,
					       "&2") : 1;
	return built_status ? built_status : ut_copy_dir(built, dir);
}

/* Runs this program again as @role with the tables of @dir. */
static int run_with(const char *role, const char *dir)
{
	char env[256];
	const char *const envs[] = { env, NULL };

	snprintf(env, sizeof(env), "SPROFIL_UNWIND_DIR=%s", dir);
	return lt_run_self(role, envs);
}

static void dlopen_dlclose_loop(void **state)
{
	char dir[] = "/tmp/sprofil-unwind-XXXXXX";
	int status;

	(void)state;
	if (!unwind_backend() || access(unwind_tool(), X_OK) ||
	    access(DLOPEN_LIB, R_OK))
		skip();
	assert_non_null(mkdtemp(dir));
	status = build_tables(dir);
	if (status == 0)
		status = run_with("dlopen-loop", dir);
	ut_remove_dir(dir);
	assert_int_equal(status, 0);
}

static void tables_give_whole_chains(void **state)
{
	char dir[] = "/tmp/sprofil-unwind-XXXXXX";
	int status;

	(void)state;
	if (!unwind_backend() || access(unwind_tool(), X_OK))
		skip();
	assert_non_null(mkdtemp(dir));
	status = build_tables(dir);
	if (status == 0)
		status = run_with("with-tables", dir);
	ut_remove_dir(dir);
	assert_int_equal(status, 0);
}

/*
 * The program's own table replaced: by another module's (its build-id
 * is not the program's), by its own made writable by others, and by a
 * hostile one that passes every check (every rule claims a 256 KiB
 * frame and the fp saved 1 KiB below it).  The first two are not used;
 * the third is, and its walks run off the stack.  No fault in any.
 */
static void bad_tables_are_refused_or_harmless(void **state)
{
	char dir[] = "/tmp/sprofil-unwind-XXXXXX", hex[65] = "";
	char own[4096], other[4096];
	struct spu_header *h;
	struct spu_table t;
	struct stat st;
	FILE *f;
	void *buf;

	(void)state;
	if (!unwind_backend() || access(unwind_tool(), X_OK))
		skip();
	assert_true(dl_iterate_phdr(exe_build_id, hex));
	assert_non_null(mkdtemp(dir));
	assert_int_equal(build_tables(dir), 0);
	snprintf(own, sizeof(own), "%s/%s.spu", dir, hex);
	assert_int_equal(stat(own, &st), 0);
	buf = malloc(st.st_size);
	assert_non_null(buf);
	f = fopen(own, "rb");
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, st.st_size, f), st.st_size);
	fclose(f);

	/* Another module's table under the program's name. */
	snprintf(other, sizeof(other), "%s/moved.spu", dir);
	assert_int_equal(rename(own, other), 0);
	{
		char cmd[8192];
		Dl_info d;

		assert_true(dladdr((void *)qsort, &d));
		snprintf(cmd, sizeof(cmd), "%s -o %s '%s' >/dev/null",
			 unwind_tool(), own, d.dli_fname);
		assert_int_equal(system(cmd), 0);
	}
	assert_int_equal(run_with("bad-tables", dir), 0);

	/* Its own table, writable by the group. */
	f = fopen(own, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, st.st_size, f), st.st_size);
	fclose(f);
	assert_int_equal(chmod(own, 0664), 0);
	assert_int_equal(run_with("bad-tables", dir), 0);

	/* Hostile but valid: huge frames everywhere. */
	h = buf;
	assert_int_equal(spu_table_view(h, st.st_size, &t), 0);
	for (uint32_t i = 0; i < h->nrules; i++)
		((struct spu_rule *)t.rule)[i] = (struct spu_rule){
			32767, -128, SPU_CFA_SP | SPU_FP_AT };
	assert_int_equal(spu_table_view(h, st.st_size, &t), 0);
	assert_int_equal(unlink(own), 0);
	f = fopen(own, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, st.st_size, f), st.st_size);
	fclose(f);
	assert_int_equal(chmod(own, 0644), 0);
	assert_int_equal(run_with("hostile-table", dir), 0);
	free(buf);
	ut_remove_dir(dir);
}

static int group_setup(void **state)
{
	(void)state;
	iters_per_sec = wl_calibrate(0.3);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	if (built_status >= 0)
		ut_remove_dir(built);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(without_tables_chains_are_cut),
		cmocka_unit_test(tables_give_whole_chains),
		cmocka_unit_test(bad_tables_are_refused_or_harmless),
		cmocka_unit_test(dlopen_dlclose_loop),
	};
	const struct CMUnitTest dlopen_loop[] = {
		cmocka_unit_test(dlopen_loop_leaves_nothing),
	};
	const struct CMUnitTest child[] = {
		cmocka_unit_test(with_tables_chains_are_whole),
		cmocka_unit_test(chains_cross_modules_into_a_callback),
		cmocka_unit_test(dlopen_loop_tables_come_and_go),
	};
	const struct CMUnitTest refused[] = {
		cmocka_unit_test(refused_tables_are_not_used),
	};
	const struct CMUnitTest hostile[] = {
		cmocka_unit_test(hostile_table_cuts_without_fault),
	};

	if (argc == 2 && !strcmp(argv[1], "with-tables"))
		return cmocka_run_group_tests(child, group_setup, NULL);
	if (argc == 2 && !strcmp(argv[1], "bad-tables"))
		return cmocka_run_group_tests(refused, group_setup, NULL);
	if (argc == 2 && !strcmp(argv[1], "dlopen-loop"))
		return cmocka_run_group_tests(dlopen_loop, group_setup, NULL);
	if (argc == 2 && !strcmp(argv[1], "hostile-table"))
		return cmocka_run_group_tests(hostile, group_setup, NULL);
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
