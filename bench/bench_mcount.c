// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The cost of one mcount call: libsprofil's lock-free arc table against
 * glibc's runtime, which guards its table with one busy flag and drops
 * the arc of any thread that finds it taken.
 *
 * One source, built three ways (bench/bench.mk): -pg linked with
 * -lsprofil, -pg with glibc's own runtime, and without -pg as the
 * baseline.  "bench_mcount run <threads> <calls>" is the measured
 * program: each thread calls tiny() <calls> times and the program prints
 * the wall and the CPU time of the loops.  Without arguments (the no -pg
 * build) it is the driver: it runs every variant, 1 and 4 threads, in
 * the same run and interleaved, so that they share the machine's state,
 * takes the median of the rounds, and counts with GNU gprof the calls to
 * tiny() that each runtime recorded against the calls made.  With
 * BENCH_MCOUNT_BEFORE=<an older libsprofil.so> one more variant runs the
 * -lsprofil build on that library (LD_PRELOAD), side by side.
 *
 * "bench_mcount-sprofil arcs <n>" measures the arc table itself: it
 * makes <n> distinct arcs by calling __fentry__ from <n> made-up call
 * sites (one callee), then calls each again (three times), and prints
 * the ns per call of the first pass and of the best later one, and how
 * much the resident set grew.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOIPA __attribute__((noipa))

static volatile uint64_t sink;
static long calls_per_thread;
static pthread_barrier_t start;

/* What mcount is called for: small enough that mcount is the cost. */
static NOIPA void tiny(long i)
{
	sink = i;
}

static double now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static NOIPA void *loop(void *cpu)
{
	double t0;
	long i;

	pthread_barrier_wait(&start);
	t0 = now(CLOCK_THREAD_CPUTIME_ID);
	for (i = 0; i < calls_per_thread; i++)
		tiny(i);
	*(double *)cpu = now(CLOCK_THREAD_CPUTIME_ID) - t0;
	return NULL;
}

/* The measured program: prints "<wall s> <cpu s>" of all the loops. */
static int run_loops(int nthreads, long calls)
{
	pthread_t t[64];
	double cpu[64], wall, sum = 0;
	int i;

	if (nthreads < 1 || nthreads > 64 || calls < 1)
		return 2;
	calls_per_thread = calls;
	pthread_barrier_init(&start, NULL, nthreads + 1);
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&t[i], NULL, loop, &cpu[i]))
			return 2;
	/* Every thread is created: thread creation is not timed. */
	pthread_barrier_wait(&start);
	wall = now(CLOCK_MONOTONIC);
	for (i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	wall = now(CLOCK_MONOTONIC) - wall;
	for (i = 0; i < nthreads; i++)
		sum += cpu[i];
	printf("%.9f %.9f\n", wall, sum);
	return 0;
}

/* ---- the arc table: many distinct arcs ---- */

/* Resident set of this process, in kB (VmRSS), or -1. */
static long rss_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/*
 * One counted call from the made-up call site @from: __fentry__ takes
 * the callee from its own return address and the caller from the word
 * above it, which is @from here.  Below the red zone, 16-byte aligned
 * at __fentry__'s entry as in a real call; it saves the argument
 * registers, and the C code it calls may change r11.
 */
static inline void arc_call(uintptr_t from)
{
#if defined(__x86_64__)
	__asm__ volatile("sub $128, %%rsp\n\t"
			 "push %0\n\t"
			 "call __fentry__\n\t"
			 "add $136, %%rsp"
			 : : "r"(from) : "r11", "cc", "memory");
#else
	(void)from;
#endif
}

/*
 * Call site @i: distinct for distinct @i (a bijection of 32-bit
 * numbers, murmur3's finalizer), in no order a hash could profit from.
 */
static uintptr_t arc_site(long i)
{
	uint32_t x = (uint32_t)i;

	x ^= x >> 16;
	x *= 0x85ebca6bu;
	x ^= x >> 13;
	x *= 0xc2b2ae35u;
	x ^= x >> 16;
	return 0x100000000ul + x;
}

static NOIPA int run_arcs(long n)
{
	double t0, first, again = 0;
	long rss0, rss1, i;
	int r;

	if (n < 1)
		return 2;
	rss0 = rss_kb();
	t0 = now(CLOCK_PROCESS_CPUTIME_ID);
	for (i = 0; i < n; i++)
		arc_call(arc_site(i));
	first = now(CLOCK_PROCESS_CPUTIME_ID) - t0;
	rss1 = rss_kb();
	/* Known arcs: the best of three passes, the machine being shared. */
	for (r = 0; r < 3; r++) {
		t0 = now(CLOCK_PROCESS_CPUTIME_ID);
		for (i = 0; i < n; i++)
			arc_call(arc_site(i));
		t0 = now(CLOCK_PROCESS_CPUTIME_ID) - t0;
		if (!r || t0 < again)
			again = t0;
	}
	printf("%ld distinct arcs: new %.1f ns/call, known %.1f ns/call (CPU, best of 3), resident set +%ld kB (%.1f bytes/arc)\n",
	       n, first * 1e9 / n, again * 1e9 / n, rss1 - rss0,
	       (rss1 - rss0) * 1024.0 / n);
	fflush(stdout);
	/* The profile of made-up call sites is not worth writing. */
	_exit(0);
}

/* ---- the driver ---- */

static char bindir[PATH_MAX / 2];

struct variant {
	const char *name;		/* as in the table */
	const char *prog;		/* next to the driver */
	int pg;				/* writes gmon.out */
	const char *preload;		/* LD_PRELOAD, or NULL */
};

static struct variant variants[] = {
	{ "no -pg (baseline)", "bench_mcount", 0, NULL },
	{ "-pg, glibc", "bench_mcount-glibc", 1, NULL },
	{ "-pg, libsprofil", "bench_mcount-sprofil", 1, NULL },
	{ "-pg, libsprofil before", "bench_mcount-sprofil", 1, NULL },
};

/* The last variant runs only with BENCH_MCOUNT_BEFORE. */
static int nvariants = 3;
#define NVARIANTS	4
#define MAX_ROUNDS	15
static const int thread_counts[] = { 1, 4 };

struct cell {
	double wall[MAX_ROUNDS], cpu[MAX_ROUNDS];
	long counted[MAX_ROUNDS];	/* tiny's calls in gmon.out, or -1 */
};

/* The calls of tiny() in the flat profile of gmon.out; -1 if none. */
static long gprof_calls(const char *prog)
{
	char cmd[PATH_MAX + 64], line[512];
	long calls = -1;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "LC_ALL=C gprof -b -p '%s/%s' gmon.out 2>&1",
		 bindir, prog);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		char *tok[16], *save;
		int n = 0;

		for (char *t = strtok_r(line, " \t\n", &save); t && n < 16;
		     t = strtok_r(NULL, " \t\n", &save))
			tok[n++] = t;
		/* "%time cumulative self calls self/call total/call name" */
		if (n == 7 && !strcmp(tok[6], "tiny"))
			calls = atol(tok[3]);
	}
	pclose(p);
	return calls;
}

/* Runs one variant once; 0 or -1. */
static int run_once(const struct variant *v, int nthreads, long calls,
		    double *wall, double *cpu, long *counted)
{
	char path[PATH_MAX], nt[16], nc[32], out[256];
	char *argv[] = { path, "run", nt, nc, NULL };
	posix_spawn_file_actions_t fa;
	char *envp[256], preload[PATH_MAX + 16];
	int fd[2], status, n = 0;
	ssize_t len;
	pid_t pid;

	for (char **e = environ; *e && n < 254; e++)
		if (strncmp(*e, "LD_PRELOAD=", 11))
			envp[n++] = *e;
	if (v->preload) {
		snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", v->preload);
		envp[n++] = preload;
	}
	envp[n] = NULL;

	snprintf(path, sizeof(path), "%s/%s", bindir, v->prog);
	snprintf(nt, sizeof(nt), "%d", nthreads);
	snprintf(nc, sizeof(nc), "%ld", calls);
	unlink("gmon.out");
	if (pipe(fd))
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
	posix_spawn_file_actions_addclose(&fa, fd[0]);
	posix_spawn_file_actions_addclose(&fa, fd[1]);
	if (posix_spawn(&pid, path, &fa, NULL, argv, envp)) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	len = read(fd[0], out, sizeof(out) - 1);
	close(fd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) || len <= 0)
		return -1;
	out[len] = '\0';
	if (sscanf(out, "%lf %lf", wall, cpu) != 2)
		return -1;
	*counted = v->pg ? gprof_calls(v->prog) : -1;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
	double s[MAX_ROUNDS];

	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static int drive(int rounds, long calls)
{
	static struct cell cells[2][NVARIANTS];
	char tmpdir[] = "/tmp/bench_mcount.XXXXXX", exe[PATH_MAX / 2], *slash;
	double base_cpu[2];
	ssize_t n;
	int r, t, v;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return 1;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	*slash = '\0';
	snprintf(bindir, sizeof(bindir), "%s", exe);
	/* gmon.out goes to the current directory: a scratch one. */
	if (!mkdtemp(tmpdir) || chdir(tmpdir))
		return 1;

	printf("# mcount: %ld calls of tiny() per thread, median of %d rounds, SPROFIL_BACKEND=%s, %ld CPUs\n",
	       calls, rounds, getenv("SPROFIL_BACKEND") ?: "(default)",
	       sysconf(_SC_NPROCESSORS_ONLN));
	for (r = 0; r < rounds; r++)
		for (t = 0; t < 2; t++)
			for (v = 0; v < nvariants; v++) {
				struct cell *c = &cells[t][v];

				if (run_once(&variants[v], thread_counts[t],
					     calls, &c->wall[r], &c->cpu[r],
					     &c->counted[r])) {
					fprintf(stderr, "bench_mcount: %s with %d threads failed\n",
						variants[v].prog,
						thread_counts[t]);
					return 1;
				}
			}

	printf("\n| runtime | threads | wall ns/call | CPU ns/call | mcount CPU ns/call | calls counted / made (worst round) |\n");
	printf("|---|---|---|---|---|---|\n");
	for (t = 0; t < 2; t++) {
		double made = (double)calls * thread_counts[t];

		base_cpu[t] = median(cells[t][0].cpu, rounds) * 1e9 / made;
		for (v = 0; v < nvariants; v++) {
			struct cell *c = &cells[t][v];
			double wall = median(c->wall, rounds) * 1e9 / made;
			double cpu = median(c->cpu, rounds) * 1e9 / made;
			char counted[64] = "-";
			long worst = LONG_MAX;

			if (variants[v].pg) {
				for (r = 0; r < rounds; r++)
					if (c->counted[r] < worst)
						worst = c->counted[r];
				snprintf(counted, sizeof(counted),
					 "%ld / %.0f (%.2f%%)", worst, made,
					 worst * 100.0 / made);
			}
			char cost[32] = "-";

			if (v)
				snprintf(cost, sizeof(cost), "%.2f",
					 cpu - base_cpu[t]);
			printf("| %s | %d | %.2f | %.2f | %s | %s |\n",
			       variants[v].name, thread_counts[t], wall, cpu,
			       cost, counted);
		}
	}
	printf("\n(mcount CPU ns/call: CPU ns/call minus the baseline's, same thread count; wall ns/call: loop wall time over all calls, so with 4 threads it is the throughput.)\n");
	(void)!chdir("/");
	unlink(strcat(tmpdir, "/gmon.out"));
	*strrchr(tmpdir, '/') = '\0';
	rmdir(tmpdir);
	return 0;
}

int main(int argc, char **argv)
{
	const char *s;
	int rounds = 5;
	long calls = 20000000;

	if (argc == 4 && !strcmp(argv[1], "run"))
		return run_loops(atoi(argv[2]), atol(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "arcs"))
		return run_arcs(atol(argv[2]));
	s = getenv("BENCH_MCOUNT_BEFORE");
	if (s && *s) {
		variants[3].preload = s;
		nvariants = 4;
	}
	s = getenv("BENCH_ROUNDS");
	if (s && atoi(s) > 0)
		rounds = atoi(s) < MAX_ROUNDS ? atoi(s) : MAX_ROUNDS;
	s = getenv("BENCH_CALLS");
	if (s && atol(s) > 0)
		calls = atol(s);
	return drive(rounds, calls);
}
