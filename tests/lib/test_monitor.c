// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * smonitor() and monitor() end to end, from application code: profile
 * this test's own text (and liblt_spin.so's), burn CPU in a known
 * function, stop, then read the profile back, with GNU gprof when it is
 * GNU gmon.out, with a parser of docs/gmon-format.md when it is the
 * sprofil extension.  Each test runs in a fresh temporary directory.
 *
 * GPROFDIR and GMON_OUT_PREFIX are read when the library loads, so the
 * tests of the file name profile in a child started with them set.
 */
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <link.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <sprofil.h>
#include <sprofil/gmon_codec.h>
#include <sprofil/gmon_format.h>
#include "lib_test.h"

extern char __executable_start[], etext[];
uint64_t kt_lib_work(uint64_t n);



/* The hot function; noinline so that its samples fall in its own text. */
static __attribute__((noinline)) uint64_t mt_hot(uint64_t n)
{
	uint64_t x = n;

	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Runs @fn until the process has spent @seconds more of CPU. */
static void spin(uint64_t (*fn)(uint64_t), double seconds)
{
	double end = cpu_seconds() + seconds;
	volatile uint64_t sink;

	while (cpu_seconds() < end)
		sink = fn(100000);
	(void)sink;
}

static int setup(void **state)
{
	(void)state;
	return wl_enter_tmpdir("test_monitor");
}

static int teardown(void **state)
{
	(void)state;
	smonitor(0, 0, 0, 0, 0, 0);	/* a failed test may leave it on */
	return wl_leave_tmpdir();
}

/* The number of entries of the current directory, "." and ".." aside. */
static int dir_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* A whole file in memory; *size gets its length. */
static unsigned char *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long len;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	rewind(f);
	buf = malloc(len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, len, f), (size_t)len);
	fclose(f);
	*size = len;
	return buf;
}

static uint32_t file_version(const char *path)
{
	unsigned char *buf;
	uint32_t v;
	size_t size;

	buf = slurp(path, &size);
	assert_true(size >= 20);
	assert_memory_equal(buf, GMF_COOKIE, 4);
	v = gmf_load(buf + 4, 4, GMF_HOST_SWAP);
	free(buf);
	return v;
}

/* The text of the two halves of this executable, split on 16 bytes. */
static void split_main(struct text_region r[2])
{
	uintptr_t lo = (uintptr_t)__executable_start;
	uintptr_t hi = (uintptr_t)etext;
	uintptr_t mid = lo + ((hi - lo) / 2 & ~(uintptr_t)15);

	r[0] = (struct text_region){ lo, mid, "test_monitor" };
	r[1] = (struct text_region){ mid, hi, "test_monitor" };
}

/*
 * Seconds GNU gprof gives @func in its flat profile of @file, or -1 if
 * it does not list it.
 */
static double gprof_seconds(const char *file, const char *func)
{
	char exe[PATH_MAX], cmd[2 * PATH_MAX + 64], line[512];
	double pct, cum, self = -1, s;
	ssize_t n;
	FILE *p;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	snprintf(cmd, sizeof(cmd), "LC_ALL=C gprof -b -p '%s' '%s' 2>&1", exe,
		 file);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char *name;

		line[strcspn(line, "\n")] = '\0';
		name = strrchr(line, ' ');
		if (name && !strcmp(name + 1, func) &&
		    sscanf(line, "%lf %lf %lf", &pct, &cum, &s) == 3)
			self = s;
		else
			print_message("# gprof: %s\n", line);
	}
	assert_int_equal(pclose(p), 0);
	return self;
}

/* One histogram record of the extension, as the test reads it. */
struct ext_hist {
	uint32_t module, bucket_size, scale;
	uint64_t period_ns, low, high, nbuckets;
	uint32_t *counts;		/* decoded, nbuckets of them */
};

struct ext_module {
	uint32_t index, flags;
	uint64_t bias;
	char name[256];
};

struct ext_file {
	unsigned char *buf;
	struct ext_hist hist[8];
	struct ext_module mod[8];
	size_t nhist, nmod;
};

/*
 * Parses an extension file strictly, through gmon_codec.h: every byte
 * accounted for.
 */
static void ext_read(const char *path, struct ext_file *f)
{
	char err[160] = "";
	struct gmf_cursor c = { .err = err, .errlen = sizeof(err) }, b;
	size_t size;
	uint32_t tag;
	bool swap;

	memset(f, 0, sizeof(*f));
	f->buf = slurp(path, &size);
	assert_true(size >= GMF_HEADER_SIZE);
	assert_memory_equal(f->buf, GMF_COOKIE, 4);
	assert_int_equal(gmf_ext_revision(gmf_load(f->buf + 4, 4, false),
					  &swap), GMF_EXT_VERSION & 0xffff);
	c.swap = swap;
	c.p = f->buf + GMF_HEADER_SIZE;
	c.end = f->buf + size;
	while (gmf_record_next(&c, &tag, &b)) {
		if (tag == GMF_TAG_MODULE) {
			struct ext_module *m = &f->mod[f->nmod++];
			struct gmf_module r;

			assert_true(f->nmod <= 8);
			if (!gmf_module_get(&b, &r))
				fail_msg("%s: %s", path, err);
			assert_ptr_equal(b.p, b.end);
			assert_true(r.name_len < sizeof(m->name));
			m->index = r.index;
			m->flags = r.flags;
			m->bias = r.bias;
			memcpy(m->name, r.name, r.name_len);
			assert_int_equal(m->index, f->nmod - 1);
		} else if (tag == GMF_TAG_HIST ||
			   tag == GMF_TAG_HIST_SPARSE) {
			struct ext_hist *h = &f->hist[f->nhist++];
			struct gmf_hist_head head = { 0 };
			struct gmf_hist_dec d;
			uint64_t i, n;

			assert_true(f->nhist <= 8);
			assert_true(gmf_hist_head_get(b.p, gmf_left(&b), b.swap,
						      &head));
			h->module = head.module;
			h->bucket_size = head.bucket_size;
			h->scale = head.scale;
			h->period_ns = head.period_ns;
			h->low = head.low_pc;
			h->high = head.high_pc;
			h->nbuckets = head.nbuckets;
			if (tag == GMF_TAG_HIST)
				assert_int_equal(gmf_left(&b), GMF_HIST_FIXED +
						 h->nbuckets * h->bucket_size);
			h->counts = calloc(h->nbuckets, sizeof(*h->counts));
			assert_non_null(h->counts);
			gmf_hist_dec_init(&d, tag, &head, b.p + GMF_HIST_FIXED,
					  b.end, b.swap);
			while (gmf_hist_dec_next(&d, &i, &n))
				h->counts[i] = n;
			if (d.failed)
				fail_msg("%s: %s", path, d.err);
			/* A sparse record ends with its last run. */
			if (tag == GMF_TAG_HIST_SPARSE)
				assert_ptr_equal(d.p, b.end);
			assert_true(h->module < f->nmod);
			assert_true(h->low < h->high);
			assert_true(h->period_ns > 0);
		}
	}
	if (c.failed)
		fail_msg("%s: %s", path, err);
	assert_ptr_equal(c.p, c.end);
}

static uint64_t ext_count(const struct ext_hist *h, uint64_t i)
{
	return h->counts[i];
}

static void ext_free(struct ext_file *f)
{
	size_t k;

	for (k = 0; k < f->nhist; k++)
		free(f->hist[k].counts);
	free(f->buf);
}

/*
 * Samples the extension file puts in the 256 bytes from @fn, and in all
 * its histograms (*total).
 */
static uint64_t ext_samples_at(const struct ext_file *f, void *fn,
			       uint64_t *total)
{
	uint64_t at = 0, i, lo, hi, pc;
	size_t k;

	*total = 0;
	for (k = 0; k < f->nhist; k++) {
		const struct ext_hist *h = &f->hist[k];
		unsigned int shift = h->bucket_size == 4 ? 2 : 1;

		pc = (uintptr_t)fn - f->mod[h->module].bias;
		for (i = 0; i < h->nbuckets; i++)
			*total += ext_count(h, i);
		if (pc < h->low || pc >= h->high)
			continue;
		lo = ((pc - h->low) >> shift) * h->scale >> 16;
		hi = ((pc + 255 - h->low) >> shift) * h->scale >> 16;
		for (i = lo; i <= hi && i < h->nbuckets; i++)
			at += ext_count(h, i);
	}
	return at;
}

/* Two halves of the main text, 16-bit buckets: GNU gmon.out. */
static void test_smonitor_gnu(void **state)
{
	struct text_region r[2];
	size_t size;
	void *buf;

	(void)state;
	split_main(r);
	/* Room for one bucket per 2 bytes: scale 0x10000 in both halves. */
	size = r[1].text_end - r[0].text_start + 256;
	buf = calloc(1, size);
	assert_non_null(buf);
	smonitor(r, 2, buf, size, 0, PROF_USHORT);
	spin(mt_hot, 0.3);
	smonitor(0, 0, 0, 0, 0, 0);
	assert_int_equal(file_version("gmon.out"), 1);
	assert_true(gprof_seconds("gmon.out", "mt_hot") > 0);
	free(buf);
}

/* 32-bit buckets: the extension, counts where mt_hot is. */
static void test_smonitor_uint(void **state)
{
	struct text_region r[2];
	struct ext_file f;
	uint64_t at, total;
	uint32_t buf[2048] = { 0 };

	(void)state;
	split_main(r);
	smonitor(r, 2, buf, sizeof(buf), 0, PROF_UINT);
	spin(mt_hot, 0.3);
	smonitor(0, 0, 0, 0, 0, 0);
	ext_read("gmon.out", &f);
	assert_int_equal(f.nmod, 1);
	assert_int_equal(f.mod[0].flags & 1, 1);
	assert_int_equal(f.nhist, 2);
	assert_int_equal(f.hist[0].bucket_size, 4);
	/* Both halves got a share in proportion to size, and fit in it. */
	assert_true(f.hist[0].nbuckets + f.hist[1].nbuckets <= 2048);
	assert_int_equal(f.hist[0].low,
			 r[0].text_start - f.mod[0].bias);
	assert_true(f.hist[0].high >= r[0].text_end - f.mod[0].bias);
	at = ext_samples_at(&f, (void *)mt_hot, &total);
	print_message("# mt_hot: %llu of %llu samples\n",
		      (unsigned long long)at, (unsigned long long)total);
	assert_true(at > 0);
	assert_true(at * 2 > total);
	ext_free(&f);
}

/* The text of the module holding @addr: its executable PT_LOAD. */
struct find_text {
	uintptr_t addr, start, end;
};

static int text_of(struct dl_phdr_info *info, size_t size, void *data)
{
	struct find_text *t = data;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t s = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
		    t->addr >= s && t->addr < s + ph->p_memsz) {
			t->start = s;
			t->end = s + ph->p_memsz;
			return 1;
		}
	}
	return 0;
}

/* The main text and liblt_spin.so's: two modules, the extension. */
static void test_smonitor_two_modules(void **state)
{
	struct find_text lib = { .addr = (uintptr_t)kt_lib_work };
	struct text_region r[2];
	struct ext_file f;
	uint64_t at, total;
	static uint16_t buf[16384];

	(void)state;
	assert_int_equal(dl_iterate_phdr(text_of, &lib), 1);
	r[0] = (struct text_region){ (uintptr_t)__executable_start,
				     (uintptr_t)etext, "test_monitor" };
	r[1] = (struct text_region){ lib.start, lib.end, "liblt_spin.so" };
	smonitor(r, 2, buf, sizeof(buf), 0, PROF_USHORT);
	spin(kt_lib_work, 0.3);
	smonitor(0, 0, 0, 0, 0, 0);
	ext_read("gmon.out", &f);
	assert_int_equal(f.nmod, 2);
	assert_int_equal(f.nhist, 2);
	assert_int_equal(f.mod[0].flags & 1, 1);
	assert_int_equal(f.mod[1].flags & 1, 0);
	assert_non_null(strstr(f.mod[1].name, "liblt_spin.so"));
	assert_int_equal(f.hist[1].module, 1);
	at = ext_samples_at(&f, (void *)kt_lib_work, &total);
	print_message("# kt_lib_work: %llu of %llu samples\n",
		      (unsigned long long)at, (unsigned long long)total);
	assert_true(at * 2 > total);
	ext_free(&f);
}

/*
 * A repeated call writes the first set before sampling the second; the
 * second dump does not overwrite the first: it goes to gmon.out.1.
 */
static void test_smonitor_repeat(void **state)
{
	struct text_region r[2];
	static uint16_t buf1[65536];
	static uint32_t buf2[1024];

	(void)state;
	split_main(r);
	smonitor(r, 2, buf1, sizeof(buf1), 0, PROF_USHORT);
	spin(mt_hot, 0.1);
	assert_int_equal(dir_entries("."), 0);
	smonitor(r, 2, buf2, sizeof(buf2), 0, PROF_UINT);
	assert_int_equal(file_version("gmon.out"), 1);
	assert_true(gprof_seconds("gmon.out", "mt_hot") > 0);
	spin(mt_hot, 0.1);
	smonitor(0, 0, 0, 0, 0, 0);
	assert_int_equal(file_version("gmon.out"), 1);
	assert_int_equal(file_version("gmon.out.1"), GMF_EXT_VERSION);
	/* Stopping twice writes nothing more and is no error. */
	assert_int_equal(unlink("gmon.out"), 0);
	assert_int_equal(unlink("gmon.out.1"), 0);
	smonitor(0, 0, 0, 0, 0, 0);
	assert_int_equal(dir_entries("."), 0);
}

/* Runs a short 16-bit profile of the main text and stops it. */
static void short_profile(void)
{
	struct text_region r[2];
	static uint16_t buf[4096];

	split_main(r);
	smonitor(r, 2, buf, sizeof(buf), 0, PROF_USHORT);
	spin(mt_hot, 0.05);
	errno = 0;
	smonitor(0, 0, 0, 0, 0, 0);
}

/*
 * short_profile() in a child started with @env's settings, in this
 * directory: its errno after the stop (meaningful only where the test
 * expects 0, nothing done, or an error).
 */
static int short_profile_with(const char *const *env)
{
	int status = lt_run_self("short-profile", env);

	assert_true(status >= 0);
	return status;
}

/* The number of paths matching @pattern. */
static size_t matches(const char *pattern)
{
	glob_t g;
	size_t n;

	if (glob(pattern, 0, NULL, &g))
		return 0;
	n = g.gl_pathc;
	globfree(&g);
	return n;
}

static void test_gprofdir_empty(void **state)
{
	static const char *const env[] = { "GPROFDIR=", "GMON_OUT_PREFIX",
					   NULL };

	(void)state;
	assert_int_equal(short_profile_with(env), 0);
	assert_int_equal(dir_entries("."), 0);
}

static void test_gprofdir(void **state)
{
	static const char *const env[] = { "GPROFDIR=prof",
					   "GMON_OUT_PREFIX=ignored", NULL };
	char pattern[128];

	(void)state;
	assert_int_equal(mkdir("prof", 0755), 0);
	short_profile_with(env);
	snprintf(pattern, sizeof(pattern), "prof/[0-9]*.%s",
		 program_invocation_short_name);
	assert_int_equal(matches(pattern), 1);
	assert_int_equal(dir_entries("prof"), 1);
	assert_int_equal(dir_entries("."), 1);
}

static void test_gmon_out_prefix(void **state)
{
	static const char *const env[] = { "GPROFDIR", "GMON_OUT_PREFIX=pfx",
					   NULL };

	(void)state;
	short_profile_with(env);
	assert_int_equal(matches("pfx.[0-9]*"), 1);
	assert_int_equal(dir_entries("."), 1);
}

/* Set after the library loaded, the variables change nothing. */
static void test_setenv_changes_nothing(void **state)
{
	(void)state;
	assert_int_equal(setenv("GMON_OUT_PREFIX", "late", 1), 0);
	short_profile();
	assert_int_equal(unsetenv("GMON_OUT_PREFIX"), 0);
	assert_int_equal(access("gmon.out", R_OK), 0);
	assert_int_equal(dir_entries("."), 1);
}

/* The new file's mode is 0666 less the umask, as for any file. */
static void test_file_mode(void **state)
{
	struct stat st;
	mode_t old = umask(027);

	(void)state;
	short_profile();
	umask(old);
	assert_int_equal(stat("gmon.out", &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
}

static void test_monitor_gnu(void **state)
{
	static unsigned short buf[32768];

	(void)state;
	monitor((void (*)(void))__executable_start, (void (*)(void))etext,
		buf, sizeof(buf) / sizeof(buf[0]), 0);
	spin(mt_hot, 0.3);
	monitor(0, 0, 0, 0, 0);
	assert_int_equal(file_version("gmon.out"), 1);
	assert_true(gprof_seconds("gmon.out", "mt_hot") > 0);
}

/* Each bad call sets EINVAL, starts nothing and so writes nothing. */
static void test_errors(void **state)
{
	struct text_region r[2], bad;
	static uint16_t buf[64];

	(void)state;
	split_main(r);
	bad = (struct text_region){ r[0].text_end, r[0].text_start, "x" };
	errno = 0;
	smonitor(r, 2, buf, sizeof(buf), 0, 4);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	smonitor(r, -1, buf, sizeof(buf), 0, PROF_USHORT);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	smonitor(&bad, 1, buf, sizeof(buf), 0, PROF_USHORT);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	smonitor(r, 2, buf, 2, 0, PROF_USHORT);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	/* One 2-byte bucket cannot reach 1 MiB of text, even at scale 2. */
	bad = (struct text_region){ 0x100000, 0x200000, "x" };
	smonitor(&bad, 1, buf, 2, 0, PROF_USHORT);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	smonitor(NULL, 1, buf, sizeof(buf), 0, PROF_USHORT);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	monitor((void (*)(void))etext, (void (*)(void))__executable_start,
		buf, 64, 0);
	assert_int_equal(errno, EINVAL);
	smonitor(0, 0, 0, 0, 0, 0);
	monitor(0, 0, 0, 0, 0);
	assert_int_equal(dir_entries("."), 0);
}

/* A file that cannot be created: the errno, and no file. */
static void test_create_error(void **state)
{
	static const char *const env[] = { "GPROFDIR",
					   "GMON_OUT_PREFIX=no/such/dir/pfx",
					   NULL };

	(void)state;
	assert_int_equal(short_profile_with(env), ENOENT);
	assert_int_equal(dir_entries("."), 0);
}

/* A write that fails half way leaves no partial file behind. */
static void test_write_error(void **state)
{
	struct rlimit old, lim = { .rlim_cur = 100 };

	(void)state;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim.rlim_max = old.rlim_max;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	short_profile();
	assert_int_equal(errno, EFBIG);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_int_equal(dir_entries("."), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_smonitor_gnu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_smonitor_uint, setup, teardown),
		cmocka_unit_test_setup_teardown(test_smonitor_two_modules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_smonitor_repeat, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gprofdir_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gprofdir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gmon_out_prefix, setup, teardown),
		cmocka_unit_test_setup_teardown(test_setenv_changes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_mode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_monitor_gnu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_error, setup, teardown),
	};

	if (argc == 2 && !strcmp(argv[1], "short-profile")) {
		short_profile();
		return errno;
	}
	/* The tests expect gmon.out: neither variable in this process. */
	if (getenv("GPROFDIR") || getenv("GMON_OUT_PREFIX")) {
		unsetenv("GPROFDIR");
		unsetenv("GMON_OUT_PREFIX");
		execv("/proc/self/exe", argv);
		perror("test_monitor: cannot run itself again");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
