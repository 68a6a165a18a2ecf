// SPDX-License-Identifier: GPL-2.0
/*
 * The per-sample cost of caller sampling on the bpf backend, same run:
 *   bench_callers [-s seconds] [-r rounds] [-z hz]
 *
 * Each round runs one single-threaded workload, a spin loop at the
 * bottom of a 70-deep recursion (every chain has more frames than the
 * deepest depth asked), in a child process per mode:
 *   none         no profiling;
 *   bpf          the bpf backend, no caller table;
 *   bpf d4/16/64 with a caller table, chains of 4, 16 or 64 frames,
 *                walked by the program's bpf_probe_read_user() loop;
 *   stack d16/64 the same, chains from bpf_get_stack(BPF_F_USER_STACK)
 *                (SPROFIL_BPF_WALK=stack);
 *   unwind d4/16/64 the same, walked with the unwind tables in
 *                BENCH_UNWIND_DIR (SPROFIL_UNWIND_DIR; bench.mk builds
 *                them for this program and its libraries), if set;
 *   perf fp      perf record -e task-clock --call-graph fp at the same
 *                rate, if perf is installed.
 * It prints, per mode, the medians of: the program's own run time per
 * sample (kernel BPF statistics, enabled by this program while it runs:
 * BPF_ENABLE_STATS), the workload's CPU time per sample above the
 * unprofiled run (the sampling interrupt, the walk, the fold thread),
 * perf's own process CPU time per sample (it writes the samples out),
 * and the caller table's nodes in use.  As root.  BENCH_MODES, a comma
 * list of mode names, runs only those (and none, the reference).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <sprofil.h>
#include <sprofil/callers.h>

#define MAX_ROUNDS	32
#define REC_DEPTH	70
#define TABLE_NODES	(1u << 16)

extern char __executable_start[], etext[];

struct mode {
	const char *name;
	int bpf;		/* profiled by libsprofil's bpf backend */
	unsigned int depth;	/* caller table depth, 0: none */
	const char *walk;	/* SPROFIL_BPF_WALK */
	int perf;
	int unwind;		/* with the tables of BENCH_UNWIND_DIR */
};

static const struct mode modes[] = {
	{ "none", 0, 0, NULL, 0, 0 },
	{ "bpf", 1, 0, NULL, 0, 0 },
	{ "bpf d4", 1, 4, NULL, 0, 0 },
	{ "bpf d16", 1, 16, NULL, 0, 0 },
	{ "bpf d64", 1, 64, NULL, 0, 0 },
	{ "stack d16", 1, 16, "stack", 0, 0 },
	{ "stack d64", 1, 64, "stack", 0, 0 },
	{ "perf fp", 0, 0, NULL, 1, 0 },
	{ "unwind d4", 1, 4, NULL, 0, 1 },
	{ "unwind d16", 1, 16, NULL, 0, 1 },
	{ "unwind d64", 1, 64, NULL, 0, 1 },
};
#define NMODES (sizeof(modes) / sizeof(modes[0]))

struct result {
	double cpu;		/* the workload's CPU seconds */
	double perf_cpu;	/* perf's own CPU seconds */
	double samples;
	double run_cnt, run_ns;	/* the BPF program's statistics */
	double nodes;		/* caller table nodes in use */
};

static volatile uint64_t sink;

__attribute__((noinline)) void spin_done(uint64_t x)
{
	sink += x;
}

/* Not a leaf, so that it has a frame (GCC omits leaf frames). */
__attribute__((noinline)) uint64_t spin(uint64_t n)
{
	uint64_t x = n;

	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	spin_done(x);
	return x;
}

__attribute__((noinline)) uint64_t recurse(int depth, uint64_t n)
{
	uint64_t r = depth ? recurse(depth - 1, n) : spin(n);

	__asm__ volatile("" ::: "memory");
	return r + 1;
}

static double now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The run time and count of this process's perf_event BPF programs. */
static void prog_stats(double *cnt, double *ns)
{
	char path[300], line[128];
	struct dirent *d;
	DIR *dir = opendir("/proc/self/fdinfo");
	unsigned long long v;
	int perf_event;
	FILE *f;

	*cnt = *ns = 0;
	while (dir && (d = readdir(dir))) {
		snprintf(path, sizeof(path), "/proc/self/fdinfo/%s",
			 d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		perf_event = 0;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "prog_type: %llu", &v) == 1)
				perf_event = v == BPF_PROG_TYPE_PERF_EVENT;
			if (perf_event && sscanf(line, "run_time_ns: %llu",
						 &v) == 1)
				*ns += v;
			if (perf_event && sscanf(line, "run_cnt: %llu",
						 &v) == 1)
				*cnt += v;
		}
		fclose(f);
	}
	if (dir)
		closedir(dir);
}

/* The child: one mode, one run; prints its result on stdout. */
static int child(const struct mode *m, uint64_t iters)
{
	size_t size = (size_t)(etext - __executable_start + 8) & ~(size_t)3;
	size_t bytes = spc_table_bytes(TABLE_NODES);
	struct prof p = {
		.pr_base = calloc(1, size), .pr_size = size,
		.pr_off = (uintptr_t)__executable_start, .pr_scale = 0x10000,
	};
	struct spc_header *h = calloc(1, bytes);
	struct spc_node *node = (struct spc_node *)(h + 1);
	struct sprofil_info info = { 0 };
	struct result r = { 0 };
	double t0;
	uint32_t i;

	if (!p.pr_base || !h)
		return 1;
	if (m->depth && sprofil_callers(h, bytes, m->depth)) {
		perror("sprofil_callers");
		return 1;
	}
	if (m->bpf && sprofil(&p, 1, NULL, PROF_UINT)) {
		perror("sprofil");
		return 1;
	}
	/* From here: the program is loaded and verified. */
	t0 = now(CLOCK_PROCESS_CPUTIME_ID);
	recurse(REC_DEPTH, iters);
	r.cpu = now(CLOCK_PROCESS_CPUTIME_ID) - t0;
	if (m->bpf) {
		prog_stats(&r.run_cnt, &r.run_ns);
		sprofil(NULL, 0, NULL, 0);
		sprofil_info(&info);
		r.samples = (double)info.samples;
	}
	for (i = 0; m->depth && i < TABLE_NODES; i++)
		r.nodes += node[i].parent != SPC_FREE;
	printf("%.9f %.0f %.0f %.0f %.0f\n", r.cpu, r.samples, r.run_cnt,
	       r.run_ns, r.nodes);
	if (getenv("BENCH_DEBUG"))
		fprintf(stderr, "%s: cpu %.3f samples %.0f table %llu filed %llu cut %llu lost %llu busy\n",
			m->name, r.cpu, r.samples,
			(unsigned long long)h->samples,
			(unsigned long long)h->truncated,
			(unsigned long long)h->lost,
			(unsigned long long)h->busy);
	return 0;
}

static int run(const char *self, const struct mode *m, uint64_t iters,
	       unsigned int hz, struct result *out)
{
	char iters_s[32], hz_s[16], mode_s[8], period_s[32];
	int fds[2], status;
	struct rusage ru;
	char buf[256];
	ssize_t len;
	FILE *in;
	pid_t pid;

	snprintf(iters_s, sizeof(iters_s), "%llu", (unsigned long long)iters);
	snprintf(hz_s, sizeof(hz_s), "%u", hz);
	snprintf(mode_s, sizeof(mode_s), "%d", (int)(m - modes));
	snprintf(period_s, sizeof(period_s), "%u", 1000000000u / hz);
	if (pipe(fds))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(fds[1], 1);
		close(fds[0]);
		setenv("SPROFIL_BACKEND", "bpf", 1);
		setenv("SPROFIL_HZ", hz_s, 1);
		if (m->walk)
			setenv("SPROFIL_BPF_WALK", m->walk, 1);
		if (m->unwind)
			setenv("SPROFIL_UNWIND_DIR", getenv("BENCH_UNWIND_DIR"),
			       1);
		if (m->perf)
			execlp("perf", "perf", "record", "-q", "-e",
			       "task-clock", "-c", period_s, "--call-graph",
			       "fp", "-o", "/tmp/bench_callers.perf.data",
			       "--", self, "--child", mode_s, iters_s,
			       (char *)NULL);
		else
			execl(self, self, "--child", mode_s, iters_s,
			      (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	in = fdopen(fds[0], "r");
	len = in && fgets(buf, sizeof(buf), in) ? (ssize_t)strlen(buf) : 0;
	if (in)
		fclose(in);
	if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) || len <= 0)
		return -1;
	memset(out, 0, sizeof(*out));
	if (sscanf(buf, "%lf %lf %lf %lf %lf", &out->cpu, &out->samples,
		   &out->run_cnt, &out->run_ns, &out->nodes) != 5)
		return -1;
	if (m->perf) {
		/* perf's and the workload's CPU, less the workload's. */
		out->perf_cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
				ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6 -
				out->cpu;
		/* Samples: the rate times the CPU time it sampled. */
		out->samples = out->cpu * hz;
	}
	return 0;
}

/* Whether mode @m is left out: BENCH_MODES, or what it needs missing. */
static int skipped(const struct mode *m, int have_perf, int have_tables)
{
	const char *want = getenv("BENCH_MODES");
	size_t n = strlen(m->name);
	const char *at;

	if ((m->perf && !have_perf) || (m->unwind && !have_tables))
		return 1;
	if (!want || !*want || m == modes)
		return 0;
	for (at = want; (at = strstr(at, m->name)); at++)
		if ((at == want || at[-1] == ',') &&
		    (at[n] == ',' || !at[n]))
			return 0;
	return 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	static struct result res[NMODES][MAX_ROUNDS];
	double seconds = 2, v[MAX_ROUNDS], t0;
	unsigned int hz = 10000, rounds = 3, k, r;
	uint64_t iters = 1 << 20;
	int opt, stats_fd, have_perf, have_tables;

	if (argc == 4 && !strcmp(argv[1], "--child"))
		return child(&modes[atoi(argv[2]) % NMODES],
			     strtoull(argv[3], NULL, 10));
	while ((opt = getopt(argc, argv, "s:r:z:")) != -1) {
		if (opt == 's')
			seconds = atof(optarg);
		else if (opt == 'r')
			rounds = (unsigned int)atoi(optarg);
		else if (opt == 'z')
			hz = (unsigned int)atoi(optarg);
		else
			return 2;
	}
	if (rounds < 1 || rounds > MAX_ROUNDS || !hz)
		return 2;
	/* Calibrate: iterations for the seconds asked. */
	for (;;) {
		t0 = now(CLOCK_THREAD_CPUTIME_ID);
		spin(iters);
		t0 = now(CLOCK_THREAD_CPUTIME_ID) - t0;
		if (t0 > 0.1)
			break;
		iters *= 2;
	}
	iters = (uint64_t)(iters * seconds / t0);
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0)
		fprintf(stderr, "bench_callers: no BPF run-time statistics: %s\n",
			strerror(errno));
	have_perf = !system("perf --version >/dev/null 2>&1");
	have_tables = getenv("BENCH_UNWIND_DIR") && *getenv("BENCH_UNWIND_DIR");
	printf("# %u Hz, %.1f s of CPU per run, %u rounds, recursion %d deep%s\n",
	       hz, seconds, rounds, REC_DEPTH,
	       have_perf ? "" : "; perf is not installed");
	for (r = 0; r < rounds; r++)
		for (k = 0; k < NMODES; k++) {
			if (skipped(&modes[k], have_perf, have_tables))
				continue;
			if (run(argv[0], &modes[k], iters, hz, &res[k][r])) {
				fprintf(stderr, "bench_callers: mode %s failed\n",
					modes[k].name);
				return 1;
			}
		}
	printf("%-10s %12s %14s %14s %12s %8s\n", "mode", "samples",
	       "prog ns/smpl", "+cpu ns/smpl", "perf ns/smpl", "nodes");
	for (k = 0; k < NMODES; k++) {
		double samples, prog, extra, perf_ns, nodes;

		if (skipped(&modes[k], have_perf, have_tables))
			continue;
		for (r = 0; r < rounds; r++)
			v[r] = res[k][r].samples;
		samples = median(v, rounds);
		for (r = 0; r < rounds; r++)
			v[r] = res[k][r].run_cnt ?
			       res[k][r].run_ns / res[k][r].run_cnt : 0;
		prog = median(v, rounds);
		for (r = 0; r < rounds; r++)
			v[r] = res[k][r].samples ?
			       (res[k][r].cpu - res[0][r].cpu) * 1e9 /
			       res[k][r].samples : 0;
		extra = median(v, rounds);
		for (r = 0; r < rounds; r++)
			v[r] = res[k][r].samples ?
			       res[k][r].perf_cpu * 1e9 / res[k][r].samples : 0;
		perf_ns = median(v, rounds);
		for (r = 0; r < rounds; r++)
			v[r] = res[k][r].nodes;
		nodes = median(v, rounds);
		printf("%-10s %12.0f %14.0f %14.0f %12.0f %8.0f\n",
		       modes[k].name, samples, prog, extra, perf_ns, nodes);
	}
	if (stats_fd >= 0)
		close(stats_fd);
	unlink("/tmp/bench_callers.perf.data");
	return 0;
}
