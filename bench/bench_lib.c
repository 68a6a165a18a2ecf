// SPDX-License-Identifier: GPL-2.0
/*
 * libsprofil against glibc's profil(), same workload, same run:
 *   bench_lib [-s seconds] [-r rounds] [-b backend,...] [-z hz,...]
 *
 * Each round runs, in child processes (libsprofil reads SPROFIL_BACKEND
 * and SPROFIL_HZ when it loads, so each is this program exec'd again
 * with them set): no profiling; glibc's own function; and
 * libsprofil's on each backend named, with 1 and then 4 busy threads, at
 * two equal rates:
 *  - glibc's profil() rate, 100 Hz (libsprofil's profil() with
 *    SPROFIL_HZ=100);
 *  - one kernel tick: glibc's sprofil() arms ITIMER_PROF for every tick,
 *    as does libsprofil's sprofil() by default.
 * A child reports its CPU and wall time, the CPU time of the starting call
 * and the samples its buffer got; the parent prints, per mode, the median
 * slowdown (wall, start included) against the base run next to it, the
 * cost per sample and samples received / expected (expected = CPU time x
 * rate), both without the start, and the start's CPU time in ms (the bpf
 * backend loads and verifies a program there).  Process-wide ITIMER_PROF, which glibc
 * uses, delivers at most one signal per tick to the whole process, so it
 * loses samples as soon as the busy threads need more than that.
 *
 * With -z, the backends alone (glibc has no rate to set) through sprofil()
 * at each rate given (SPROFIL_HZ), e.g. -b bpf,signal -z 250,1000,4000,10000
 * for the per-sample cost of the bpf backend against the signal one.
 * A mode "bpf-percpu" is the bpf backend with SPROFIL_BPF_EVENTS=cpu (its
 * per-CPU alternative, kept for this comparison: docs/backends.md).
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <sprofil.h>

#define MAX_MODES	8
#define MAX_ROUNDS	64
#define RATE_HZ		100

extern const char __executable_start[], etext[];

struct result {
	double wall, cpu;
	double start;		/* CPU time of the starting call itself */
	uint64_t samples;
};

static uint64_t iterations;	/* per thread, calibrated by the parent */

static __attribute__((noinline)) uint64_t work(uint64_t n)
{
	uint64_t x = n;

	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static void *worker(void *arg)
{
	(void)arg;
	work(iterations);
	return NULL;
}

static double now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

typedef int (*sprofil_fn)(struct prof *, int, struct timeval *,
			  unsigned int);

/* glibc's own function, not libsprofil's, which this binary links first. */
static void *glibc_function(const char *name)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);

	return libc ? dlsym(libc, name) : NULL;
}

/*
 * Runs the workload in @threads threads under @mode, at glibc's profil()
 * rate (@tick false) or every tick through sprofil(); in a child.
 */
static struct result run_mode(const char *mode, int threads, bool tick)
{
	size_t text = etext - __executable_start, nb = text / 2 + 1;
	unsigned short *buf = calloc(nb, sizeof(*buf));
	unsigned short overflow = 0;
	struct prof p[2] = {
		{ buf, nb * 2, (uintptr_t)__executable_start, 0x10000 },
		{ &overflow, 2, 0, 2 },
	};
	bool base = !strcmp(mode, "base"), glibc = !strcmp(mode, "glibc");
	sprofil_fn sprof = glibc ? glibc_function("sprofil") : sprofil;
	int (*prof)(unsigned short *, size_t, size_t, unsigned int) =
		glibc ? glibc_function("profil") : profil;
	pthread_t tid[8];
	struct result r = { 0 };
	double w0, c0;
	int err = 0;

	if (!buf || !sprof || !prof) {
		fprintf(stderr, "bench_lib: cannot set up mode %s\n", mode);
		exit(2);
	}
	w0 = now(CLOCK_MONOTONIC);
	c0 = now(CLOCK_PROCESS_CPUTIME_ID);
	if (!base)
		err = tick ? sprof(p, 2, NULL, PROF_USHORT) :
			     prof(buf, nb * 2, p[0].pr_off, 0x10000);
	r.start = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
	if (err) {
		fprintf(stderr, "bench_lib: %s (%s): %s\n",
			tick ? "sprofil" : "profil", mode, strerror(errno));
		exit(2);
	}
	for (int i = 0; i < threads; i++)
		pthread_create(&tid[i], NULL, worker, NULL);
	for (int i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	/*
	 * Stop: glibc's sprofil() stops on any call once running (and a
	 * second real start would double-free), ours on profcnt 0.
	 */
	if (!base && tick)
		sprof(p, glibc ? 2 : 0, NULL, PROF_USHORT);
	else if (!base)
		prof(NULL, 0, 0, 0);
	r.samples = overflow;
	r.cpu = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
	r.wall = now(CLOCK_MONOTONIC) - w0;
	for (size_t i = 0; i < nb; i++)
		r.samples += buf[i];
	return r;
}

/* The child: "--child MODE THREADS TICK ITERATIONS FD", the result to FD. */
static int child_main(char **argv)
{
	struct result r;

	iterations = strtoull(argv[5], NULL, 10);
	r = run_mode(argv[2], atoi(argv[3]), atoi(argv[4]));
	return write(atoi(argv[6]), &r, sizeof(r)) == sizeof(r) ? 0 : 2;
}

/* Runs one mode in a new process and reads back its result. */
static struct result measure(const char *mode, int threads, bool tick,
			     unsigned int hz)
{
	char rate[16], threads_s[16], iters_s[32], fd_s[16];

	struct result r = { 0 };
	int fd[2], status;
	pid_t pid;

	if (pipe(fd) || (pid = fork()) < 0) {
		perror("bench_lib: fork");
		exit(2);
	}
	if (pid == 0) {
		close(fd[0]);
		if (!strcmp(mode, "bpf-percpu")) {
			setenv("SPROFIL_BACKEND", "bpf", 1);
			setenv("SPROFIL_BPF_EVENTS", "cpu", 1);
		} else if (strcmp(mode, "base") && strcmp(mode, "glibc")) {
			setenv("SPROFIL_BACKEND", mode, 1);
		}
		snprintf(rate, sizeof(rate), "%u", hz ? hz : RATE_HZ);
		if (!tick || hz)
			setenv("SPROFIL_HZ", rate, 1);
		snprintf(threads_s, sizeof(threads_s), "%d", threads);
		snprintf(iters_s, sizeof(iters_s), "%llu",
			 (unsigned long long)iterations);
		snprintf(fd_s, sizeof(fd_s), "%d", fd[1]);
		execl("/proc/self/exe", "bench_lib", "--child", mode,
		      threads_s, tick ? "1" : "0", iters_s, fd_s,
		      (char *)NULL);
		perror("bench_lib: exec");
		_exit(2);
	}
	close(fd[1]);
	if (read(fd[0], &r, sizeof(r)) != sizeof(r) ||
	    waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "bench_lib: mode %s failed (status %#x)\n",
			mode, status);
		exit(1);
	}
	close(fd[0]);
	return r;
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

static uint64_t calibrate(double seconds)
{
	double t0 = now(CLOCK_THREAD_CPUTIME_ID);

	work(1 << 24);
	return (uint64_t)((1 << 24) * seconds /
			  (now(CLOCK_THREAD_CPUTIME_ID) - t0));
}

static double tick_ns(void)
{
	struct timespec res;

	/* A coarse clock advances once per tick: its resolution is one. */
	clock_getres(CLOCK_MONOTONIC_COARSE, &res);
	return res.tv_nsec;
}

/* Runs @rounds pairs (base, @mode) and prints the medians. */
static void report(const char *mode, int threads, bool tick, double rate,
		   unsigned int hz, int rounds)
{
	double slow[MAX_ROUNDS], cost[MAX_ROUNDS], got[MAX_ROUNDS];
	double start[MAX_ROUNDS], samples = 0, cpu = 0;

	for (int i = 0; i < rounds; i++) {
		struct result b = measure("base", threads, tick, hz);
		struct result r = measure(mode, threads, tick, hz);

		slow[i] = r.wall / b.wall;
		/* The start is paid once, not per sample: see start_ms. */
		cost[i] = r.samples ? (r.cpu - r.start - (b.cpu - b.start)) *
				      1e6 / r.samples : 0;
		got[i] = r.samples / ((r.cpu - r.start) * rate);
		start[i] = r.start * 1e3;
		samples += r.samples;
		cpu += r.cpu;
	}
	printf("%-10s %5.0fHz %7d %8.3f %9.2f %10.0f %8.1f%% %8.2f\n", mode,
	       rate, threads, median(slow, rounds), median(cost, rounds),
	       samples / rounds, 100 * median(got, rounds),
	       median(start, rounds));
	printf("BENCH mode=%s hz=%.0f threads=%d slowdown=%.4f us_per_sample=%.3f samples_per_expected=%.4f cpu_s=%.3f start_ms=%.3f\n",
	       mode, rate, threads, median(slow, rounds),
	       median(cost, rounds), median(got, rounds), cpu / rounds,
	       median(start, rounds));
}

int main(int argc, char **argv)
{
	const char *modes[MAX_MODES] = { "glibc" };
	char backends[256] = "signal", rates[256] = "";
	double seconds = 1.0, tick_hz;
	int nmodes = 1, rounds = 7, opt;

	if (argc == 7 && !strcmp(argv[1], "--child"))
		return child_main(argv);
	while ((opt = getopt(argc, argv, "s:r:b:z:")) != -1) {
		if (opt == 's')
			seconds = atof(optarg);
		else if (opt == 'r')
			rounds = atoi(optarg);
		else if (opt == 'b')
			snprintf(backends, sizeof(backends), "%s", optarg);
		else if (opt == 'z')
			snprintf(rates, sizeof(rates), "%s", optarg);
		else
			return 2;
	}
	if (rounds < 1 || rounds > MAX_ROUNDS || seconds <= 0)
		return 2;
	for (char *b = strtok(backends, ","); b && nmodes < MAX_MODES;
	     b = strtok(NULL, ","))
		modes[nmodes++] = b;
	iterations = calibrate(seconds);
	tick_hz = 1e9 / tick_ns();
	printf("# %d rounds, %.2f s of CPU per thread; tick %.0f Hz\n",
	       rounds, seconds, tick_hz);
	printf("%-10s %6s %7s %8s %9s %10s %9s %8s\n", "mode", "rate",
	       "threads", "slowdown", "us/sample", "samples", "received",
	       "start_ms");
	if (*rates) {
		for (char *z = strtok(rates, ","); z; z = strtok(NULL, ",")) {
			unsigned int hz = (unsigned int)atoi(z);

			if (!hz)
				return 2;
			for (int threads = 1; threads <= 4; threads += 3)
				for (int m = 1; m < nmodes; m++)
					report(modes[m], threads, true, hz,
					       hz, rounds);
		}
		return 0;
	}
	for (int pass = 0; pass < 2; pass++) {
		bool tick = pass == 1;
		double rate = tick ? tick_hz : RATE_HZ;

		for (int threads = 1; threads <= 4; threads += 3)
			for (int m = 0; m < nmodes; m++)
				report(modes[m], threads, tick, rate, 0,
				       rounds);
	}
	return 0;
}
