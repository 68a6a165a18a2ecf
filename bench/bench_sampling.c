// SPDX-License-Identifier: GPL-2.0
/*
 * bench_sampling: what one PC sample costs with sprofil.ko and with a
 * plain userspace SIGPROF sampler, same workload, same run.
 *
 * Every run executes the same CPU-bound loop (a fixed iteration count,
 * calibrated once at start-up) in T threads, in one of these modes:
 *   base    no profiling;
 *   kmod    SPROFIL_IOC_START with one region over the loop's text
 *           (16-bit buckets, scale 0x10000) at period P;
 *   signal  per-thread timer_create(CLOCK_THREAD_CPUTIME_ID,
 *           SIGEV_THREAD_ID) sending SIGPROF every P of the thread's CPU
 *           time; the SA_SIGINFO handler takes the interrupted PC from
 *           the ucontext and files it with the same mapping
 *           (include/sprofil/mapping.h) into the same kind of buffer,
 *           with the same saturating compare-and-swap as the module.
 * Each round runs every profiled mode once, round-robin (starting one mode
 * further each round), and right next to each run a base run, before it
 * in every other round: the host's load, which under TCG shows up in every
 * guest clock, changes much less within such a pair than across a round.
 * Each figure is the median over the rounds of the per-pair figure.
 *
 *   slowdown         t / t_base
 *   per-sample cost  (t - t_base) * T_wall / samples, where T_wall is the
 *                    thread count for wall time (the threads run side by
 *                    side) and 1 for process CPU time
 *   samples/expected samples / (CPU time of base / P)
 *
 * Usage: bench_sampling [-s SECONDS] [-r ROUNDS] [-t THREADS,...]
 *                       [-p PERIOD_US,...]
 * SECONDS is the CPU time of the loop in one thread (default 0.5),
 * ROUNDS defaults to 15, THREADS to 1,2, PERIOD_US to 4000,1000,250.
 * Without /dev/sprofil the kmod mode is left out.  Besides the tables it
 * prints one "BENCH ..." line per mode and one "RATIO ..." line per period.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <sprofil/mapping.h>

#define NSEC_PER_SEC	1000000000ULL
#define MAX_ROUNDS	64
#define MAX_THREADS	16
#define MAX_PERIODS	8
#define MAX_COUNTS	4
#define BUCKET_MAX	0xffffu

#if defined(__x86_64__)
#define UC_PC(uc)	((uint64_t)(uc)->uc_mcontext.gregs[REG_RIP])
#elif defined(__i386__)
#define UC_PC(uc)	((uint64_t)(uint32_t)(uc)->uc_mcontext.gregs[REG_EIP])
#elif defined(__aarch64__)
#define UC_PC(uc)	((uint64_t)(uc)->uc_mcontext.pc)
#else
#error "bench_sampling: no ucontext PC for this architecture"
#endif

enum mode { MODE_BASE, MODE_KMOD, MODE_SIGNAL };

static const char *const mode_name[] = { "base", "kmod", "signal" };

/* The outcome of one run. */
struct run {
	double wall;		/* seconds, CLOCK_MONOTONIC */
	double cpu;		/* seconds, CLOCK_PROCESS_CPUTIME_ID */
	double samples;
	double misses;		/* samples outside the region */
	double saturated;	/* increments lost to a full bucket */
	double overruns;	/* signal: expirations merged into one signal */
};

/* Medians over the rounds of one cell (see cell_stats()). */
struct stats {
	double wall, cpu, samples, misses, saturated, overruns;
	double slow_wall, slow_cpu;	/* t / t_base of the pair */
	double cost_wall, cost_cpu;	/* us per sample */
	double iqr;			/* interquartile range of slow_wall */
};

/* One profiled mode at one period: per round, its run and its base run. */
struct cell {
	enum mode mode;
	uint64_t period_ns;
	unsigned int nruns;
	struct run run[MAX_ROUNDS];
	struct run base[MAX_ROUNDS];
	struct stats st;
};

struct worker {
	pthread_t thread;
	enum mode mode;
	uint64_t period_ns;
	uint64_t iterations;
	uint64_t sink;
	uint64_t samples;
	uint64_t misses;
	uint64_t saturated;
	uint64_t overruns;
	int err;
};

/*
 * The workload, alone in its own section: the linker's __start_ and
 * __stop_ symbols then bound exactly the text the region must cover.
 */
#define WORK_SECTION	"bench_work_text"
extern const char __start_bench_work_text[], __stop_bench_work_text[];

__attribute__((noinline, section(WORK_SECTION)))
static uint64_t bench_work(uint64_t n)
{
	uint64_t x = n;
	uint64_t i;

	for (i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static uint16_t *buckets;
static size_t nbuckets;
static struct sprofil_region region;
static int sprofil_fd = -1;
static pthread_barrier_t start_line;

/* The signal sampler's copy of the prepared region set. */
static struct spm_region sig_region[1];
static struct spm_segment sig_segment[SPM_MAX_SEGMENTS(1)];
static __u32 sig_stack[1];
static struct spm_map sig_map = {
	.region = sig_region,
	.segment = sig_segment,
	.stack = sig_stack,
};

static __thread uint64_t sig_samples, sig_misses, sig_saturated, sig_overruns;

static double now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* What the module does in its overflow handler, done in userland. */
static void on_sigprof(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	uint64_t pc = UC_PC(uc);
	long r = spm_lookup(&sig_map, pc);
	uint16_t *c, old;

	(void)sig;
	sig_samples++;
	sig_overruns += si->si_overrun;
	if (r < 0) {
		sig_misses++;
		return;
	}
	c = &buckets[spm_region_bucket(&sig_map, &sig_map.region[r], pc)];
	old = __atomic_load_n(c, __ATOMIC_RELAXED);
	do {
		if (spm_saturating_add(old, 1, BUCKET_MAX) == old) {
			sig_saturated++;
			return;
		}
	} while (!__atomic_compare_exchange_n(c, &old, old + 1, false,
					      __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
}

static int arm_thread_timer(timer_t *timer, uint64_t period_ns)
{
	struct sigevent sev = {
		.sigev_notify = SIGEV_THREAD_ID,
		.sigev_signo = SIGPROF,
	};
	struct itimerspec its = {
		.it_interval = {
			.tv_sec = period_ns / NSEC_PER_SEC,
			.tv_nsec = period_ns % NSEC_PER_SEC,
		},
	};

	sev._sigev_un._tid = gettid();
	its.it_value = its.it_interval;
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, timer))
		return -errno;
	if (timer_settime(*timer, 0, &its, NULL)) {
		int err = -errno;

		timer_delete(*timer);
		return err;
	}
	return 0;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	timer_t timer;

	if (w->mode == MODE_SIGNAL)
		w->err = arm_thread_timer(&timer, w->period_ns);
	pthread_barrier_wait(&start_line);
	w->sink = bench_work(w->iterations);
	if (w->mode == MODE_SIGNAL && !w->err) {
		timer_delete(timer);
		w->samples = sig_samples;
		w->misses = sig_misses;
		w->saturated = sig_saturated;
		w->overruns = sig_overruns;
	}
	return NULL;
}

static int kmod_start(uint64_t period_ns)
{
	struct sprofil_start a = {
		.size = sizeof(a),
		.flags = SPROFIL_USHORT,
		.regions = (uintptr_t)&region,
		.nregions = 1,
		.period_ns = period_ns,
	};

	if (ioctl(sprofil_fd, SPROFIL_IOC_START, &a))
		return -errno;
	if (a.period_ns != period_ns) {
		fprintf(stderr, "kmod: asked for %llu ns, got %llu ns\n",
			(unsigned long long)period_ns,
			(unsigned long long)a.period_ns);
		return -ERANGE;
	}
	return 0;
}

static int kmod_stop(struct run *out)
{
	struct sprofil_status st = { .size = sizeof(st) };

	if (ioctl(sprofil_fd, SPROFIL_IOC_STOP) ||
	    ioctl(sprofil_fd, SPROFIL_IOC_STATUS, &st))
		return -errno;
	out->samples = st.samples;
	out->misses = st.misses;
	out->saturated = st.saturated;
	return 0;
}

static uint64_t bucket_sum(void)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < nbuckets; i++)
		sum += buckets[i];
	return sum;
}

/* One run of @nthreads loops of @iterations in @mode. */
static int run_once(enum mode mode, uint64_t period_ns, int nthreads,
		    uint64_t iterations, struct run *out)
{
	struct worker w[MAX_THREADS];
	double wall0, cpu0;
	uint64_t filed;
	int i, err = 0;

	memset(out, 0, sizeof(*out));
	memset(w, 0, sizeof(w));
	memset(buckets, 0, nbuckets * sizeof(*buckets));
	pthread_barrier_init(&start_line, NULL, nthreads + 1);
	for (i = 0; i < nthreads; i++) {
		w[i].mode = mode;
		w[i].period_ns = period_ns;
		w[i].iterations = iterations;
		err = pthread_create(&w[i].thread, NULL, worker_main, &w[i]);
		if (err) {
			fprintf(stderr, "pthread_create: %s\n", strerror(err));
			exit(1);
		}
	}
	/* Covers the threads waiting at the start line. */
	if (mode == MODE_KMOD)
		err = kmod_start(period_ns);
	wall0 = now(CLOCK_MONOTONIC);
	cpu0 = now(CLOCK_PROCESS_CPUTIME_ID);
	pthread_barrier_wait(&start_line);
	for (i = 0; i < nthreads; i++)
		pthread_join(w[i].thread, NULL);
	out->wall = now(CLOCK_MONOTONIC) - wall0;
	out->cpu = now(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
	pthread_barrier_destroy(&start_line);

	if (mode == MODE_KMOD && !err)
		err = kmod_stop(out);
	for (i = 0; i < nthreads; i++) {
		if (w[i].err)
			err = w[i].err;
		out->samples += w[i].samples;
		out->misses += w[i].misses;
		out->saturated += w[i].saturated;
		out->overruns += w[i].overruns;
	}
	if (err) {
		fprintf(stderr, "%s run failed: %s\n", mode_name[mode],
			strerror(-err));
		return err;
	}
	/* Both samplers must have filed what they counted. */
	filed = bucket_sum();
	if (filed + out->misses + out->saturated != out->samples)
		fprintf(stderr,
			"warning: %s: %llu filed + %.0f missed + %.0f saturated != %.0f samples\n",
			mode_name[mode], (unsigned long long)filed,
			out->misses, out->saturated, out->samples);
	return 0;
}

static uint64_t calibrate(double seconds)
{
	uint64_t n = 1 << 16;
	double t0, t;

	bench_work(n);
	for (;;) {
		t0 = now(CLOCK_THREAD_CPUTIME_ID);
		bench_work(n);
		t = now(CLOCK_THREAD_CPUTIME_ID) - t0;
		if (t > 0.2)
			return (uint64_t)(n * seconds / t) + 1;
		n *= 4;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts @v; @q = 0.5 gives the median, 0.25 and 0.75 the quartiles. */
static double quantile(double *v, unsigned int n, double q)
{
	double pos = q * (n - 1);
	unsigned int lo = (unsigned int)pos;

	qsort(v, n, sizeof(*v), cmp_double);
	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + (pos - lo) * (v[lo + 1] - v[lo]);
}

static const char *rate_name(uint64_t period_ns, char *buf, size_t len)
{
	double hz = (double)NSEC_PER_SEC / period_ns;

	if (hz >= 1000)
		snprintf(buf, len, "%gkHz", hz / 1000);
	else
		snprintf(buf, len, "%gHz", hz);
	return buf;
}

/* Per-sample cost in microseconds, or 0 without samples. */
static double cost_us(double t, double t_base, double threads,
		      double samples)
{
	return samples > 0 ? (t - t_base) * threads / samples * 1e6 : 0;
}

/*
 * Medians over the rounds of one cell.  Slowdown and cost are taken per
 * round against the base run paired with it, then the median of those:
 * the host's load changes between rounds, much less within a pair.
 */
static void cell_stats(struct cell *c, int nthreads)
{
	struct stats *st = &c->st;
	double v[MAX_ROUNDS];
	unsigned int i, n = c->nruns;

#define STAT_OF(out, expr)				\
	do {						\
		for (i = 0; i < n; i++)			\
			v[i] = (expr);			\
		(out) = quantile(v, n, 0.5);		\
	} while (0)
	STAT_OF(st->wall, c->run[i].wall);
	STAT_OF(st->cpu, c->run[i].cpu);
	STAT_OF(st->samples, c->run[i].samples);
	STAT_OF(st->misses, c->run[i].misses);
	STAT_OF(st->saturated, c->run[i].saturated);
	STAT_OF(st->overruns, c->run[i].overruns);
	STAT_OF(st->slow_wall, c->run[i].wall / c->base[i].wall);
	STAT_OF(st->slow_cpu, c->run[i].cpu / c->base[i].cpu);
	STAT_OF(st->cost_wall, cost_us(c->run[i].wall, c->base[i].wall,
				       nthreads, c->run[i].samples));
	STAT_OF(st->cost_cpu, cost_us(c->run[i].cpu, c->base[i].cpu, 1,
				      c->run[i].samples));
#undef STAT_OF
	for (i = 0; i < n; i++)
		v[i] = c->run[i].wall / c->base[i].wall;
	st->iqr = quantile(v, n, 0.75) - quantile(v, n, 0.25);
}

static void report(struct cell *cells, unsigned int ncells, int nthreads,
		   double seconds)
{
	double base_wall, base_cpu, expected, kmod_cw[MAX_PERIODS],
	       kmod_cc[MAX_PERIODS], bw[2 * MAX_PERIODS * MAX_ROUNDS],
	       bc[2 * MAX_PERIODS * MAX_ROUNDS];
	unsigned int i, j, p = 0, nb = 0;
	char rate[16];

	/* The base runs of every pair, together. */
	for (i = 0; i < ncells; i++) {
		cell_stats(&cells[i], nthreads);
		for (j = 0; j < cells[i].nruns; j++) {
			bw[nb] = cells[i].base[j].wall;
			bc[nb++] = cells[i].base[j].cpu;
		}
	}
	base_wall = quantile(bw, nb, 0.5);
	base_cpu = quantile(bc, nb, 0.5);

	printf("\n== %d thread%s, %.2f s CPU of loop per thread, median of %u paired rounds ==\n",
	       nthreads, nthreads > 1 ? "s" : "", seconds, cells[0].nruns);
	printf("%-6s %6s %7s %7s %7s %7s %6s %8s %8s %6s %9s %9s %6s\n",
	       "mode", "rate", "wall_s", "cpu_s", "slow_w", "slow_c", "iqr_w",
	       "samples", "expected", "s/exp", "us/s_wall", "us/s_cpu",
	       "miss%");
	printf("%-6s %6s %7.3f %7.3f %7s %7s %6s %8s %8s %6s %9s %9s %6s\n",
	       "base", "-", base_wall, base_cpu, "1", "1", "-", "-", "-", "-",
	       "-", "-", "-");
	printf("BENCH threads=%d mode=base wall_s=%.4f cpu_s=%.4f runs=%u\n",
	       nthreads, base_wall, base_cpu, nb);
	for (i = 0; i < ncells; i++) {
		const struct cell *c = &cells[i];
		const struct stats *m = &c->st;

		expected = base_cpu * NSEC_PER_SEC / c->period_ns;
		rate_name(c->period_ns, rate, sizeof(rate));
		printf("%-6s %6s %7.3f %7.3f %7.3f %7.3f %6.3f %8.0f %8.0f %6.3f %9.2f %9.2f %6.2f\n",
		       mode_name[c->mode], rate, m->wall, m->cpu, m->slow_wall,
		       m->slow_cpu, m->iqr, m->samples, expected,
		       m->samples / expected, m->cost_wall, m->cost_cpu,
		       m->samples > 0 ? m->misses * 100 / m->samples : 0);
		/* One line, printed in pieces. */
		printf("BENCH threads=%d mode=%s hz=%.0f period_us=%.0f",
		       nthreads, mode_name[c->mode],
		       (double)NSEC_PER_SEC / c->period_ns,
		       c->period_ns / 1e3);
		printf(" wall_s=%.4f cpu_s=%.4f slowdown_wall=%.4f slowdown_cpu=%.4f iqr_slowdown_wall=%.4f",
		       m->wall, m->cpu, m->slow_wall, m->slow_cpu, m->iqr);
		printf(" samples=%.0f expected=%.0f samples_per_expected=%.4f",
		       m->samples, expected, m->samples / expected);
		printf(" us_per_sample_wall=%.3f us_per_sample_cpu=%.3f",
		       m->cost_wall, m->cost_cpu);
		printf(" misses=%.0f saturated=%.0f overruns=%.0f\n",
		       m->misses, m->saturated, m->overruns);
		if (c->mode == MODE_KMOD && p < MAX_PERIODS) {
			kmod_cw[p] = m->cost_wall;
			kmod_cc[p++] = m->cost_cpu;
		}
	}

	/* Cells are kmod per period, then signal per period. */
	if (!p)
		return;
	printf("ratio signal/kmod per-sample cost:");
	for (i = 0; i < p; i++) {
		const struct stats *s = &cells[p + i].st;

		printf("  %s %.2f (wall) %.2f (cpu)",
		       rate_name(cells[p + i].period_ns, rate, sizeof(rate)),
		       kmod_cw[i] ? s->cost_wall / kmod_cw[i] : 0,
		       kmod_cc[i] ? s->cost_cpu / kmod_cc[i] : 0);
	}
	printf("\n");
	for (i = 0; i < p; i++) {
		const struct stats *s = &cells[p + i].st;

		printf("RATIO threads=%d hz=%.0f", nthreads,
		       (double)NSEC_PER_SEC / cells[p + i].period_ns);
		printf(" signal_over_kmod_us_per_sample_wall=%.3f",
		       kmod_cw[i] ? s->cost_wall / kmod_cw[i] : 0);
		printf(" signal_over_kmod_us_per_sample_cpu=%.3f",
		       kmod_cc[i] ? s->cost_cpu / kmod_cc[i] : 0);
		printf(" slowdown_wall_kmod=%.4f slowdown_wall_signal=%.4f\n",
		       cells[i].st.slow_wall, s->slow_wall);
	}
}

static unsigned int parse_list(const char *arg, long *out, unsigned int max,
			       long lo, long hi)
{
	unsigned int n = 0;
	char *end;

	while (*arg) {
		long v = strtol(arg, &end, 10);

		if (end == arg || v < lo || v > hi || n == max ||
		    (*end && *end != ','))
			return 0;
		out[n++] = v;
		arg = *end ? end + 1 : end;
	}
	return n;
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-s SECONDS] [-r ROUNDS] [-t THREADS,...] [-p PERIOD_US,...]\n",
		prog);
	exit(2);
}

static void setup_region(void)
{
	struct spm_map *m = &sig_map;
	uintptr_t start = (uintptr_t)__start_bench_work_text;
	size_t text = __stop_bench_work_text - __start_bench_work_text;
	int err;

	nbuckets = (text + 1) / 2;
	buckets = calloc(nbuckets, sizeof(*buckets));
	if (!buckets) {
		perror("calloc");
		exit(1);
	}
	region.base = (uintptr_t)buckets;
	region.size = nbuckets * sizeof(*buckets);
	region.offset = start;
	region.scale = SPM_SCALE_ONE;
	err = spm_prepare(m, &region, 1, SPROFIL_USHORT);
	if (err || m->nregions != 1) {
		fprintf(stderr, "spm_prepare: %d\n", err);
		exit(1);
	}
	printf("workload text %#lx, %zu bytes, %zu 16-bit buckets\n",
	       (unsigned long)start, text, nbuckets);
}

static void setup_signal(void)
{
	struct sigaction sa = {
		.sa_sigaction = on_sigprof,
		.sa_flags = SA_SIGINFO | SA_RESTART,
	};

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPROF, &sa, NULL)) {
		perror("sigaction");
		exit(1);
	}
}

/*
 * One round of one cell: its run and a base run right next to it, the
 * base first in every other round so neither always follows the other.
 */
static int run_pair(struct cell *c, int nthreads, uint64_t iterations,
		    bool base_first)
{
	struct run *run = &c->run[c->nruns], *base = &c->base[c->nruns];

	if (base_first && run_once(MODE_BASE, 0, nthreads, iterations, base))
		return 1;
	if (run_once(c->mode, c->period_ns, nthreads, iterations, run))
		return 1;
	if (!base_first && run_once(MODE_BASE, 0, nthreads, iterations, base))
		return 1;
	c->nruns++;
	return 0;
}

int main(int argc, char **argv)
{
	long threads[MAX_COUNTS] = { 1, 2 }, periods[MAX_PERIODS] = {
		4000, 1000, 250 };
	unsigned int nthreads_list = 2, nperiods = 3, rounds = 15;
	unsigned int ncells, t, r, k, i;
	static struct cell cells[MAX_COUNTS][2 * MAX_PERIODS];
	double seconds = 0.5, t0;
	uint64_t iterations;
	struct run warm;
	bool kmod;
	int opt;

	while ((opt = getopt(argc, argv, "s:r:t:p:")) != -1) {
		switch (opt) {
		case 's':
			seconds = atof(optarg);
			if (seconds <= 0)
				usage(argv[0]);
			break;
		case 'r':
			rounds = atoi(optarg);
			if (rounds < 1 || rounds > MAX_ROUNDS)
				usage(argv[0]);
			break;
		case 't':
			nthreads_list = parse_list(optarg, threads, MAX_COUNTS,
						   1, MAX_THREADS);
			if (!nthreads_list)
				usage(argv[0]);
			break;
		case 'p':
			nperiods = parse_list(optarg, periods, MAX_PERIODS,
					      SPROFIL_MIN_PERIOD_NS / 1000,
					      SPROFIL_MAX_PERIOD_NS / 1000);
			if (!nperiods)
				usage(argv[0]);
			break;
		default:
			usage(argv[0]);
		}
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	setup_region();
	setup_signal();
	sprofil_fd = open("/dev/sprofil", O_RDWR | O_CLOEXEC);
	kmod = sprofil_fd >= 0;
	if (!kmod)
		printf("no /dev/sprofil (%s): kmod mode left out\n",
		       strerror(errno));

	/* Cells: kmod at each period, then signal at each period. */
	k = 0;
	for (i = 0; i < nperiods && kmod; i++, k++) {
		cells[0][k].mode = MODE_KMOD;
		cells[0][k].period_ns = periods[i] * 1000ULL;
	}
	for (i = 0; i < nperiods; i++, k++) {
		cells[0][k].mode = MODE_SIGNAL;
		cells[0][k].period_ns = periods[i] * 1000ULL;
	}
	ncells = k;
	for (t = 1; t < nthreads_list; t++)
		memcpy(cells[t], cells[0], sizeof(cells[0]));

	iterations = calibrate(seconds);
	printf("calibrated: %llu iterations = %.2f s of CPU; %u rounds\n",
	       (unsigned long long)iterations, seconds, rounds);
	run_once(MODE_BASE, 0, 1, iterations / 4, &warm);

	t0 = now(CLOCK_MONOTONIC);
	for (r = 0; r < rounds; r++) {
		for (t = 0; t < nthreads_list; t++)
			for (i = 0; i < ncells; i++)
				if (run_pair(&cells[t][(i + r) % ncells],
					     threads[t], iterations,
					     (i + r) % 2 == 0))
					return 1;
		printf("round %u/%u done at %.0f s\n", r + 1, rounds,
		       now(CLOCK_MONOTONIC) - t0);
	}

	for (t = 0; t < nthreads_list; t++)
		report(cells[t], ncells, threads[t], seconds);
	return 0;
}
