// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The threads of a per-thread profile (thread_table.h): noted at their
 * exit, under a lock of their own (a thread's exit is no hot path), and
 * read from /proc/self/task for the live ones at each dump.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <sprofil/gmon_format.h>

#include "common/settings.h"
#include "thread_table.h"

static pthread_mutex_t tt_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sp_thread_rec *tt_exited;
static size_t tt_n, tt_cap;
/* The main thread's CPU time when sampling started (the collector's). */
static uint64_t tt_main_cpu0;
static pid_t tt_main_pid;

/* Looked up once: every thread's exit asks. */
bool sp_per_thread(void)
{
	static _Atomic int on = -1;
	int v = atomic_load_explicit(&on, memory_order_relaxed);

	if (v < 0) {
		const char *e = sp_setting("SPROFIL_THREADS");

		v = e && !strcmp(e, "1");
		atomic_store_explicit(&on, v, memory_order_relaxed);
	}
	return v;
}

void sp_thread_table_exiting(void)
{
	struct sp_thread_rec r = {
		.tid = (uint32_t)syscall(SYS_gettid),
		.flags = GMF_THREAD_EXITED,
	};
	struct timespec ts;

	if (!sp_per_thread())
		return;
	if (!clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)) {
		r.cpu_ns = (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
		r.flags |= GMF_THREAD_CPU;
	}
	prctl(PR_GET_NAME, r.name);
	pthread_mutex_lock(&tt_lock);
	if (tt_n == tt_cap) {
		size_t cap = tt_cap ? 2 * tt_cap : 64;
		struct sp_thread_rec *p = realloc(tt_exited, cap * sizeof(*p));

		/* No memory: the thread's samples stay, under its id alone. */
		if (p) {
			tt_exited = p;
			tt_cap = cap;
		}
	}
	if (tt_n < tt_cap)
		tt_exited[tt_n++] = r;
	pthread_mutex_unlock(&tt_lock);
}

/* Reads /proc/self/task/<tid>/<file> into @buf; its length, or -1. */
static ssize_t task_file(const char *tid, const char *file, char *buf,
			 size_t size)
{
	char path[64];
	ssize_t len;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%s/%s", tid, file);
	f = fopen(path, "re");
	if (!f)
		return -1;
	len = (ssize_t)fread(buf, 1, size - 1, f);
	fclose(f);
	buf[len] = '\0';
	return len;
}

/*
 * A live thread's CPU time: schedstat's first field, in ns; else stat's
 * utime and stime, in clock ticks.  0 when neither can be read.
 */
static int live_cpu(const char *tid, uint64_t *ns)
{
	unsigned long long run, ut, st;
	char buf[1024], *p;

	if (task_file(tid, "schedstat", buf, sizeof(buf)) > 0 &&
	    sscanf(buf, "%llu", &run) == 1) {
		*ns = run;
		return 1;
	}
	if (task_file(tid, "stat", buf, sizeof(buf)) <= 0)
		return 0;
	/* After the name, which may hold spaces and ')': fields 3 on. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &ut, &st) != 2)
		return 0;
	*ns = (ut + st) * (1000000000ull / (uint64_t)sysconf(_SC_CLK_TCK));
	return 1;
}

void sp_thread_table_sampling(void)
{
	char tid[16];
	uint64_t ns;

	snprintf(tid, sizeof(tid), "%d", (int)getpid());
	if (!sp_per_thread() || tt_main_pid == getpid() ||
	    !live_cpu(tid, &ns))
		return;
	pthread_mutex_lock(&tt_lock);
	tt_main_cpu0 = ns;
	tt_main_pid = getpid();
	pthread_mutex_unlock(&tt_lock);
}

static void live_thread(const char *tid, struct sp_thread_rec *r)
{
	char name[64];
	ssize_t len;

	memset(r, 0, sizeof(*r));
	r->tid = (uint32_t)strtoul(tid, NULL, 10);
	len = task_file(tid, "comm", name, sizeof(name));
	if (len > 0) {
		if (name[len - 1] == '\n')
			name[len - 1] = '\0';
		memcpy(r->name, name, strnlen(name, sizeof(r->name) - 1));
	}
	if (live_cpu(tid, &r->cpu_ns))
		r->flags |= GMF_THREAD_CPU;
	if (r->tid == (uint32_t)tt_main_pid && tt_main_pid == getpid())
		r->cpu_ns -= r->cpu_ns < tt_main_cpu0 ? r->cpu_ns : tt_main_cpu0;
}

struct sp_thread_rec *sp_thread_table_snapshot(size_t *n)
{
	struct sp_thread_rec *out = NULL, *p;
	size_t len = 0, cap = 0;
	struct dirent *e;
	DIR *d;

	pthread_mutex_lock(&tt_lock);
	if (tt_n) {
		cap = tt_n + 16;
		out = malloc(cap * sizeof(*out));
		if (out) {
			memcpy(out, tt_exited, tt_n * sizeof(*out));
			len = tt_n;
		}
	}
	pthread_mutex_unlock(&tt_lock);
	d = opendir("/proc/self/task");
	while (d && (e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		if (len == cap) {
			cap = cap ? 2 * cap : 16;
			p = realloc(out, cap * sizeof(*out));
			if (!p)
				break;
			out = p;
		}
		live_thread(e->d_name, &out[len]);
		/* The library's own threads (sigdump.c, backend_bpf_fold.c). */
		if (strncmp(out[len].name, SP_OWN_THREAD, strlen(SP_OWN_THREAD)))
			len++;
	}
	if (d)
		closedir(d);
	*n = out ? len : 0;
	return out;
}

void sp_thread_table_fork_prepare(void)
{
	pthread_mutex_lock(&tt_lock);
}

void sp_thread_table_fork_parent(void)
{
	pthread_mutex_unlock(&tt_lock);
}

/* The child's profile restarts from zero, with its one thread. */
void sp_thread_table_fork_child(void)
{
	tt_n = 0;
	tt_main_pid = 0;
	pthread_mutex_unlock(&tt_lock);
}
