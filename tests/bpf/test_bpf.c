// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The bpf backend's own checks, run as root on the host and in the VM
 * (Debian's 6.1 kernel):
 *  - the bucket table (bucket_table.h), through <sprofil/mapping.h> and
 *    through the BPF program's lookup itself, run on the PCs with
 *    bpf_prog_test_run(); and the program against mapping.h on the
 *    largest region set, SPROFIL_MAX_REGIONS entries;
 *  - BPF not permitted (root without CAP_BPF, CAP_PERFMON and
 *    CAP_SYS_ADMIN; or nobody): one line on stderr and the next backend
 *    under auto, ENODEV when bpf is named;
 *  - the counter array that cannot be had: too many buckets, or its
 *    mapping refused by RLIMIT_AS: ENOMEM, and the running profile goes
 *    on as it was;
 *  - the walks' per-CPU caches: 4,096 slots each up to 8 CPUs, halved
 *    beyond so that both hold at most 2 MiB, 256 at least; and the
 *    loaded program's maps of that size.
 *
 * The privilege and failure cases run in fork children that have not
 * called libsprofil yet, since the backend is chosen once per process.
 * Children report through their exit status (CHECK), never with cmocka's
 * assertions.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <sprofil.h>
#include <sprofil/mapping.h>

#include "bucket_table.h"
#include "sprofil_skel_load.h"
#include "workload.h"

#define NOBODY	65534

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stdout, "# child check failed: %s: ", #cond); \
			fprintf(stdout, __VA_ARGS__);			\
			fprintf(stdout, "\n");				\
			fflush(stdout);					\
			return __LINE__ > 255 ? 255 : __LINE__;		\
		}							\
	} while (0)

/* A lookup result: the caller's entry index (-1: none) and the bucket. */
struct hit {
	int entry;
	uint64_t bucket;
};

/* The kernel ABI's entries for a table; bases are aligned dummies. */
static struct sprofil_region *table_regions(const struct bt_entry *e,
					    unsigned int n)
{
	struct sprofil_region *r = calloc(n, sizeof(*r));

	assert_non_null(r);
	for (unsigned int i = 0; i < n; i++) {
		r[i].base = 0x10000000ull + 0x100000ull * i;
		r[i].size = e[i].size;
		r[i].offset = e[i].offset;
		r[i].scale = e[i].scale;
	}
	return r;
}

/* spm_prepare() into freshly allocated arrays. */
static void the_caches_fit_2_mib_on_many_cpus(void **state)
{
	struct sprofil_bpf *skel = NULL;
	int ncpus = libbpf_num_possible_cpus(), cpus;

	(void)state;
	assert_int_equal(spb_cache_slots(0), 4096);
	assert_int_equal(spb_cache_slots(8), 4096);
	assert_int_equal(spb_cache_slots(9), 2048);
	assert_int_equal(spb_cache_slots(64), 512);
	assert_int_equal(spb_cache_slots(128), 256);
	assert_int_equal(spb_cache_slots(4096), 256);
	for (cpus = 1; cpus <= 128; cpus++)
		assert_true((__u64)spb_cache_slots(cpus) * 64 * cpus <=
			    2u << 20);
	/* The self-tests' load: the same maps, a program verified faster. */
	assert_int_equal(spb_load(&skel, true), 0);
	assert_int_equal(bpf_map__max_entries(skel->maps.sp_urules),
			 spb_cache_slots(ncpus));
	assert_int_equal(bpf_map__max_entries(skel->maps.sp_cfound),
			 spb_cache_slots(ncpus));
	assert_int_equal(skel->rodata->sp_cache_slots, spb_cache_slots(ncpus));
	sprofil_bpf__destroy(skel);
}

static void prepare(struct spm_map *m, const struct sprofil_region *r,
		    unsigned int n, unsigned int flags)
{
	m->region = calloc(n + 1, sizeof(*m->region));
	m->segment = calloc(SPM_MAX_SEGMENTS(n) + 1, sizeof(*m->segment));
	m->stack = calloc(n + 1, sizeof(*m->stack));
	assert_non_null(m->region);
	assert_non_null(m->segment);
	assert_non_null(m->stack);
	assert_int_equal(spm_prepare(m, r, n, flags), 0);
}

static void release(struct spm_map *m)
{
	free(m->region);
	free(m->segment);
	free(m->stack);
}

static struct hit mapping_lookup(const struct spm_map *m, uint64_t pc)
{
	long r = spm_lookup(m, pc);
	struct hit h = { -1, 0 };

	if (r >= 0) {
		h.entry = (int)m->region[r].id;
		h.bucket = spm_region_bucket(m, &m->region[r], pc);
	}
	return h;
}

/*
 * Files @npcs PCs with the BPF program's own lookup (the code its
 * sampler runs), with the region set of @m written into the program's
 * second set after the load and made current, as the backend replaces a
 * region set without reloading.
 */
static void bpf_lookup(const struct spm_map *m, const uint64_t *pc,
		       unsigned int npcs, struct hit *out)
{
	struct sprofil_bpf *skel = NULL;
	struct spb_proc_maps pm = { 0 };
	struct spb_program prog;
	__u32 n = npcs;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &n,
		    .ctx_size_in = sizeof(n));
	int err;

	assert_true(npcs <= SPB_TEST_PCS);
	/* Only the lookup: the sampler is the backend's business. */
	err = spb_load(&skel, true);
	if (err)
		print_message("# load: %s\n", strerror(-err));
	assert_int_equal(err, 0);
	spb_program_of(skel, &prog);
	assert_int_equal(spb_proc_create(1, 1, 1, &pm), 0);
	assert_int_equal(spb_proc_register(&prog, (__u32)getpid(), &pm), 0);
	spb_set_regions(pm.proc, 1, m);
	__atomic_store_n(&pm.proc->cur, 1, __ATOMIC_RELEASE);
	memcpy(skel->bss->sp_test_pc, pc, npcs * sizeof(*pc));
	err = bpf_prog_test_run_opts(
		bpf_program__fd(skel->progs.sp_lookup_test), &opts);
	if (err)
		print_message("# test_run: %s\n", strerror(errno));
	assert_int_equal(err, 0);
	assert_int_equal(opts.retval, 0);
	for (unsigned int i = 0; i < npcs; i++) {
		out[i].entry = skel->bss->sp_test_out[i].entry;
		out[i].bucket = skel->bss->sp_test_out[i].bucket;
	}
	spb_proc_release(&pm);
	sprofil_bpf__destroy(skel);
}

static void expect_rows(const char *who, const struct bt_row *rows,
			const struct hit *got, unsigned int n)
{
	unsigned int bad = 0;

	for (unsigned int i = 0; i < n; i++) {
		if (got[i].entry == rows[i].entry &&
		    (rows[i].entry < 0 || got[i].bucket == rows[i].bucket))
			continue;
		print_message("# %s: pc %#llx -> entry %d bucket %#llx, table says entry %d bucket %#llx\n",
			      who, (unsigned long long)rows[i].pc,
			      got[i].entry, (unsigned long long)got[i].bucket,
			      rows[i].entry,
			      (unsigned long long)rows[i].bucket);
		bad++;
	}
	print_message("# %s: %u of %u PCs as the table says\n", who,
		      n - bad, n);
	assert_int_equal(bad, 0);
}

static void check_table(const struct bt_entry *e, unsigned int ne,
			const struct bt_row *rows, unsigned int nrows,
			unsigned int flags)
{
	struct sprofil_region *r = table_regions(e, ne);
	struct hit got[SPB_TEST_PCS];
	uint64_t pc[SPB_TEST_PCS];
	struct spm_map m;

	assert_true(nrows <= SPB_TEST_PCS);
	prepare(&m, r, ne, flags);
	for (unsigned int i = 0; i < nrows; i++) {
		pc[i] = rows[i].pc;
		got[i] = mapping_lookup(&m, pc[i]);
	}
	expect_rows("mapping.h", rows, got, nrows);
	memset(got, 0, sizeof(got));
	bpf_lookup(&m, pc, nrows, got);
	expect_rows("bpf program", rows, got, nrows);
	release(&m);
	free(r);
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void the_table_with_16bit_buckets(void **state)
{
	(void)state;
	check_table(bt_ushort_entries, N(bt_ushort_entries), bt_ushort_rows,
		    N(bt_ushort_rows), PROF_USHORT);
}

static void the_table_with_32bit_buckets(void **state)
{
	(void)state;
	check_table(bt_uint_entries, N(bt_uint_entries), bt_uint_rows,
		    N(bt_uint_rows), PROF_UINT);
}

/* A deterministic generator, so that a failure can be replayed. */
static uint64_t next_random(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 11;
}

/*
 * SPROFIL_MAX_REGIONS overlapping regions of every scale (2048 segments
 * or near): the program's fixed-step search against mapping.h's binary
 * search, on PCs at and around every segment boundary and at random.
 */
static void the_largest_region_set_as_mapping_h(void **state)
{
	const unsigned int n = SPROFIL_MAX_REGIONS;
	struct sprofil_region *r = calloc(n, sizeof(*r));
	struct hit want[SPB_TEST_PCS], got[SPB_TEST_PCS];
	uint64_t pc[SPB_TEST_PCS], seed = 42, checked = 0;
	unsigned int k = 0, bad = 0, i;
	struct spm_map m;

	(void)state;
	assert_non_null(r);
	for (i = 0; i < n; i++) {
		r[i].base = 0x10000000ull;
		r[i].size = 2 * (1 + next_random(&seed) % 512);
		r[i].offset = 0x400000 + next_random(&seed) % 0x100000;
		r[i].scale = 2 + next_random(&seed) % 0xffff;
	}
	prepare(&m, r, n, PROF_USHORT);
	print_message("# %u regions, %u segments\n", m.nregions, m.nsegments);
	for (i = 0; i <= 4 * m.nsegments; i++) {
		const struct spm_segment *s = &m.segment[i / 4 % m.nsegments];
		uint64_t p[] = { s->start - 1, s->start, s->end - 1,
				 0x3f0000 + next_random(&seed) % 0x120000 };

		pc[k++] = p[i % 4];
		if (k < SPB_TEST_PCS && i < 4 * m.nsegments)
			continue;
		bpf_lookup(&m, pc, k, got);
		for (unsigned int j = 0; j < k; j++) {
			want[j] = mapping_lookup(&m, pc[j]);
			if (got[j].entry != want[j].entry ||
			    got[j].bucket != want[j].bucket)
				bad++;
		}
		checked += k;
		k = 0;
	}
	print_message("# %llu PCs, %u differ\n", (unsigned long long)checked,
		      bad);
	assert_int_equal(bad, 0);
	release(&m);
	free(r);
}

/* Root gives up everything: uid, gids and with them every capability. */
static int drop_privileges(void)
{
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		return -errno;
	return 0;
}

/*
 * Runs this program again as "test_bpf @role" (main() calls the role's
 * function) with SPROFIL_BACKEND=@backend and, if @debug,
 * SPROFIL_DEBUG=1, its stderr captured into @err (NUL-terminated);
 * returns its exit status.  A new program, not a fork: libsprofil reads
 * its settings when it loads.
 */
static int in_child(const char *role, const char *backend, bool debug,
		    char *err, size_t errsize)
{
	int fds[2], status;
	ssize_t got;
	size_t len = 0;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		dup2(fds[1], 2);
		setenv("SPROFIL_BACKEND", backend, 1);
		if (debug)
			setenv("SPROFIL_DEBUG", "1", 1);
		else
			unsetenv("SPROFIL_DEBUG");
		execl("/proc/self/exe", "test_bpf", role, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (len + 1 < errsize &&
	       (got = read(fds[0], err + len, errsize - 1 - len)) > 0)
		len += (size_t)got;
	err[len] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static unsigned int count_lines(const char *s)
{
	unsigned int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static struct prof region_of(void *fn, void *buf, size_t size)
{
	struct prof p = {
		.pr_base = buf,
		.pr_size = size,
		.pr_off = wl_func_extent(fn).start,
		.pr_scale = SPM_SCALE_ONE,
	};

	return p;
}

/*
 * Root without the capabilities BPF needs, as in a container: uid 0
 * stays (and with it /proc/self, which the signal backend reads), but
 * CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN go.
 */
static int drop_bpf_capabilities(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	const int caps[] = { CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN };

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	for (size_t k = 0; k < sizeof(caps) / sizeof(caps[0]); k++) {
		data[caps[k] / 32].effective &= ~(1u << caps[k] % 32);
		data[caps[k] / 32].permitted &= ~(1u << caps[k] % 32);
		data[caps[k] / 32].inheritable &= ~(1u << caps[k] % 32);
	}
	if (syscall(SYS_capset, &hdr, data))
		return -errno;
	return 0;
}

static int unprivileged_auto_child(void)
{
	static uint32_t buf[4096];
	struct prof p = region_of(wl_work_a, buf, sizeof(buf));
	struct sprofil_info i;
	int kmod;

	CHECK(drop_bpf_capabilities() == 0, "cannot drop capabilities: %s",
	      strerror(errno));
	kmod = access("/dev/sprofil", R_OK | W_OK) == 0;
	CHECK(sprofil(&p, 1, NULL, PROF_UINT) == 0, "sprofil: %s",
	      strerror(errno));
	CHECK(sprofil_info(&i) == 0, "sprofil_info: %s", strerror(errno));
	fprintf(stdout, "# unprivileged, auto: backend %s\n", i.backend);
	CHECK(!strcmp(i.backend, kmod ? "kmod" : "signal"),
	      "auto picked %s", i.backend);
	return 0;
}

/*
 * Falling back is what auto is for: silent, or every unprivileged run
 * would print a line; SPROFIL_DEBUG=1 says why and what runs.
 */
static void unprivileged_auto_falls_back_silently(void **state)
{
	char err[4096];
	int kmod = access("/dev/sprofil", R_OK | W_OK) == 0;

	(void)state;
	assert_int_equal(in_child("unprivileged-auto", "auto", false, err,
				  sizeof(err)), 0);
	print_message("# stderr: %s\n", err[0] ? err : "(nothing)");
	assert_string_equal(err, "");

	assert_int_equal(in_child("unprivileged-auto", "auto", true, err,
				  sizeof(err)), 0);
	print_message("# SPROFIL_DEBUG=1: %s\n", err);
	if (kmod) {
		/* The module comes first: bpf is never tried. */
		assert_string_equal(err, "libsprofil: auto: using backend kmod\n");
		return;
	}
	assert_int_equal(count_lines(err), 3);
	assert_non_null(strstr(err, "libsprofil: auto: backend bpf cannot run: BPF is not permitted"));
	assert_non_null(strstr(err, "libsprofil: auto: using backend signal\n"));
}

static int unprivileged_bpf_child(void)
{
	static uint32_t buf[4096];
	struct prof p = region_of(wl_work_a, buf, sizeof(buf));

	CHECK(drop_privileges() == 0, "cannot drop privileges: %s",
	      strerror(errno));
	errno = 0;
	CHECK(sprofil(&p, 1, NULL, PROF_UINT) == -1, "sprofil succeeded");
	CHECK(errno == ENODEV, "errno %s", strerror(errno));
	return 0;
}

static void unprivileged_bpf_by_name_is_enodev(void **state)
{
	char err[4096];

	(void)state;
	assert_int_equal(in_child("unprivileged-bpf", "bpf", false, err,
				  sizeof(err)), 0);
	print_message("# stderr: %s\n", err);
	assert_int_equal(count_lines(err), 1);
	assert_non_null(strstr(err, "libsprofil: backend bpf cannot run: BPF is not permitted"));
}

/* Starts a small profile of wl_work_a; the big ones must leave it be. */
static int start_good(struct prof *good)
{
	static uint32_t buf[4096];

	*good = region_of(wl_work_a, buf, sizeof(buf));
	return sprofil(good, 1, NULL, PROF_UINT);
}

/* The good profile is still the one running, and counting. */
static int still_counting(const struct prof *good, const char *why)
{
	struct sprofil_info i0, i1;
	uint64_t chunk = wl_calibrate(0.01);

	CHECK(sprofil_info(&i0) == 0, "sprofil_info: %s", strerror(errno));
	wl_spin_cpu(wl_work_a, chunk, 30 * i0.period_ns / 1e9);
	CHECK(sprofil_info(&i1) == 0, "sprofil_info: %s", strerror(errno));
	fprintf(stdout, "# after %s: %s, %u region(s), samples %llu -> %llu, buffer %llu\n",
		why, i1.backend, i1.nregions,
		(unsigned long long)i0.samples,
		(unsigned long long)i1.samples,
		(unsigned long long)wl_sum(good->pr_base, PROF_UINT, 0,
					   good->pr_size / 4));
	CHECK(i1.enabled && i1.nregions == 1, "the good profile is gone");
	CHECK(i1.samples > i0.samples, "no longer sampling");
	CHECK(wl_sum(good->pr_base, PROF_UINT, 0, good->pr_size / 4) > 0,
	      "nothing in the good buffer");
	return 0;
}

/*
 * More buckets than the backend keeps counters for (2^27): a 1 GiB
 * region of 16-bit buckets.  Its memory need not exist: the count is
 * refused first.
 */
static int too_many_buckets_child(void)
{
	static uint16_t small[8];
	struct prof good, huge = region_of(wl_work_b, small, 1ul << 30);

	CHECK(start_good(&good) == 0, "sprofil: %s", strerror(errno));
	errno = 0;
	CHECK(sprofil(&huge, 1, NULL, PROF_USHORT) == -1, "it succeeded");
	CHECK(errno == ENOMEM, "errno %s", strerror(errno));
	return still_counting(&good, "too many buckets");
}

static void too_many_buckets_is_enomem(void **state)
{
	char err[4096];

	(void)state;
	assert_int_equal(in_child("too-many-buckets", "bpf", false, err,
				  sizeof(err)), 0);
	assert_string_equal(err, "");
}

/*
 * A new session's maps cannot be mapped when RLIMIT_AS leaves 16 MiB to
 * spare: the program's calling context tree for a 64 MiB caller table
 * is as large, so the maps are made, its mapping fails, everything is
 * undone, and the old session goes on counting.  (The bucket counters
 * are a hash, never mapped: a 16 MiB buffer no longer needs 64 MiB of
 * them.  The spare room is what a sanitizer's own allocations need.)
 */
static int counters_cannot_be_mapped_child(void)
{
	const size_t bytes = 16ul << 20, table_bytes = 64ul << 20;
	struct prof good, big;
	struct rlimit rl;
	void *buf = wl_map(bytes, PROT_READ | PROT_WRITE);
	void *table = wl_map(table_bytes, PROT_READ | PROT_WRITE);
	char line[256];
	unsigned long vm = 0;
	FILE *f;

	CHECK(buf && table, "mmap");
	big = region_of(wl_work_b, buf, bytes);
	CHECK(start_good(&good) == 0, "sprofil: %s", strerror(errno));
	f = fopen("/proc/self/status", "r");
	CHECK(f, "/proc/self/status");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmSize: %lu kB", &vm) == 1)
			break;
	fclose(f);
	CHECK(vm > 0, "no VmSize");
	rl.rlim_cur = rl.rlim_max = (vm << 10) + (16ul << 20);
	CHECK(setrlimit(RLIMIT_AS, &rl) == 0, "setrlimit: %s",
	      strerror(errno));
	CHECK(sprofil_callers(table, table_bytes, 16) == 0,
	      "sprofil_callers: %s", strerror(errno));
	errno = 0;
	CHECK(sprofil(&big, 1, NULL, PROF_USHORT) == -1, "it succeeded");
	CHECK(errno == ENOMEM, "errno %s", strerror(errno));
	return still_counting(&good, "a tree that cannot be mapped");
}

static void counters_that_cannot_be_mapped_are_enomem(void **state)
{
	char err[4096];

	(void)state;
	assert_int_equal(in_child("counters-cannot-be-mapped", "bpf", false,
				  err,
				  sizeof(err)), 0);
	assert_string_equal(err, "");
}

int main(int argc, char **argv)
{
	static const struct {
		const char *role;
		int (*run)(void);
	} roles[] = {
		{ "unprivileged-auto", unprivileged_auto_child },
		{ "unprivileged-bpf", unprivileged_bpf_child },
		{ "too-many-buckets", too_many_buckets_child },
		{ "counters-cannot-be-mapped", counters_cannot_be_mapped_child },
	};
	size_t i;

	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_caches_fit_2_mib_on_many_cpus),
		cmocka_unit_test(the_table_with_16bit_buckets),
		cmocka_unit_test(the_table_with_32bit_buckets),
		cmocka_unit_test(the_largest_region_set_as_mapping_h),
		cmocka_unit_test(unprivileged_auto_falls_back_silently),
		cmocka_unit_test(unprivileged_bpf_by_name_is_enodev),
		cmocka_unit_test(too_many_buckets_is_enomem),
		cmocka_unit_test(counters_that_cannot_be_mapped_are_enomem),
	};

	for (i = 0; argc == 2 && i < sizeof(roles) / sizeof(*roles); i++)
		if (!strcmp(argv[1], roles[i].role))
			return roles[i].run();
	return cmocka_run_group_tests_name("bpf", tests, NULL, NULL);
}
