// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The bpf backend's perf events (backend_bpf.c): what makes the program
 * run.  One task-clock counter per thread of the sampled process (this
 * one, or the target of sp_set_target()), found in /proc/PID/task and
 * inherited by the threads they create; or, for measurement only, one
 * cpu-clock counter per CPU.  Each event gets the program attached
 * before it is enabled.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sprofil/events.h>

#include "backend.h"
#include "backend_bpf_session.h"
#include "common/settings.h"
#include "sprofil_load.h"

/* Bound on rescans of /proc/PID/task while threads keep appearing. */
#define SB_SCAN_ROUNDS	64

/* The process the sessions sample and register under. */
pid_t sb_tgid(void)
{
	pid_t target = sp_target();

	return target ? target : getpid();
}

int sb_perf_event_open(struct perf_event_attr *attr, pid_t tid)
{
	return (int)syscall(SYS_perf_event_open, attr, tid, -1, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

/*
 * The counter of one thread: task-clock, so samples follow its CPU time;
 * inherited by the threads it creates but not by fork children; removed
 * by exec.  Kernel-mode periods are seen (and not counted) so that the
 * program can tell how many periods of CPU time a user-mode sample closes.
 * Created disabled: it must have the program before it fires.
 */
static int sb_open_event(pid_t tid, uint64_t period, uint32_t event,
			 bool inherit)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.sample_period = period,
		.disabled = 1,
		.inherit = inherit,
		.inherit_thread = inherit,
		.remove_on_exec = 1,
		.exclude_hv = 1,
	};
	struct sp_event ev = { .type = event, .period = period };

	/*
	 * Another event counts in user mode only (a page fault's regs are
	 * then the user's), but for one that only happens in kernel mode (a
	 * context switch), which the program files at the thread's user
	 * regs.
	 */
	if (sp_event_counted(&ev)) {
		sp_event_attr(&ev, &attr);
		attr.inherit = inherit;
		attr.inherit_thread = inherit;
		attr.remove_on_exec = 1;
	}
	return sb_perf_event_open(&attr, tid);
}

int sb_event_supported(const struct sp_event *ev, char *why, size_t size)
{
	char buf[256];
	const struct spe_event *e = spe_event(ev->type);

	if (!why) {
		why = buf;
		size = sizeof(buf);
	}
	if (ev->type == SP_EVENT_BAD || !e) {
		snprintf(why, size, "SPROFIL_EVENT names no event");
		return -EINVAL;
	}
	if (!sp_event_counted(ev))
		return 0;
	if (sb_percpu()) {
		snprintf(why, size, "SPROFIL_BPF_EVENTS=cpu samples CPU time only");
		return -EOPNOTSUPP;
	}
	/* Kernel-mode periods are seen, as the program needs. */
	return sp_event_check(ev, e->kernel, why, size);
}

/* Closes the events, after which the program runs no more for them. */
void sb_close_events(struct sb_session *s)
{
	while (s->nfd)
		close(s->fd[--s->nfd]);
}

/* Room for one more event. */
static int sb_grow(struct sb_session *s)
{
	size_t cap = s->capacity ? 2 * s->capacity : 16;
	int *fds;
	pid_t *tids;

	if (s->nfd < s->capacity)
		return 0;
	fds = realloc(s->fd, cap * sizeof(*fds));
	if (!fds)
		return -ENOMEM;
	s->fd = fds;
	tids = realloc(s->tid, cap * sizeof(*tids));
	if (!tids)
		return -ENOMEM;
	s->tid = tids;
	s->capacity = cap;
	return 0;
}

ssize_t sb_find_tid(const struct sb_session *s, pid_t tid)
{
	size_t i;

	for (i = 0; i < s->nfd; i++)
		if (s->tid[i] == tid)
			return (ssize_t)i;
	return -1;
}

/*
 * Gives thread @tid its counter with the program attached, and tells the
 * program so (a counter it also inherited must stay silent).
 */
int sb_cover_thread(struct sb_session *s, pid_t tid, int prog_fd)
{
	int owned = s->prog->fd[SPB_FD_OWNED];
	__u32 key = (__u32)tid;
	__u8 one = 1;
	int fd, err;

	err = sb_grow(s);
	if (err)
		return err;
	fd = sb_open_event(tid, s->period, s->event, !s->own_counters);
	if (fd < 0)
		return -errno;
	/* A full table only costs the rare double count it prevents. */
	spb_map_update(owned, &key, &one, BPF_ANY);
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog_fd) ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		err = -errno;
		close(fd);
		return err;
	}
	s->fd[s->nfd] = fd;
	s->tid[s->nfd] = tid;
	s->nfd++;
	return 0;
}

/*
 * Covers every thread of the process.  A thread cloned during the scan by
 * one already covered inherits its counter, but one cloned by a thread
 * not yet covered, or before its creator's counter was enabled, has none
 * that counts: hence the rescans, until one finds nothing new.
 */
int sb_cover_all(struct sb_session *s)
{
	int prog_fd = s->prog->fd[SPB_FD_SAMPLE];
	struct dirent *d;
	bool found = true;
	int round, err = 0;
	char task[64];
	DIR *dir;
	pid_t tid;

	snprintf(task, sizeof(task), "/proc/%d/task", (int)sb_tgid());
	for (round = 0; found && round < SB_SCAN_ROUNDS; round++) {
		dir = opendir(task);
		if (!dir)
			return -errno;
		found = false;
		while (!err && (d = readdir(dir))) {
			if (d->d_name[0] == '.')
				continue;
			tid = (pid_t)atoi(d->d_name);
			if (sb_find_tid(s, tid) >= 0)
				continue;
			found = true;
			err = sb_cover_thread(s, tid, prog_fd);
			/* It exited meanwhile. */
			if (err == -ESRCH)
				err = 0;
		}
		closedir(dir);
		if (err)
			return err;
	}
	/*
	 * Still finding threads after every round means the process keeps
	 * creating them, nearly all from threads already covered, whose
	 * counters they inherit.  Only a thread cloned during the last round
	 * by one cloned during the round before, and so on for every round,
	 * could lack a counter: not a reason to refuse (EAGAIN did, under
	 * any steady thread churn).
	 */
	return 0;
}

/*
 * SPROFIL_BPF_EVENTS=cpu: a cpu-clock counter on every CPU instead, the
 * program keeping this process's samples (one period each: the clock
 * runs whoever is on the CPU).  For measurement only: it samples wall
 * time while the process runs, costs every CPU an interrupt per period
 * whatever runs there, and misses CPUs that come online later.
 */
bool sb_percpu(void)
{
	const char *e = sp_setting("SPROFIL_BPF_EVENTS");

	return e && !strcmp(e, "cpu");
}

int sb_cover_cpus(struct sb_session *s)
{
	int prog_fd = s->prog->fd[SPB_FD_SAMPLE];
	long cpu, ncpu = sysconf(_SC_NPROCESSORS_CONF);
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = s->period,
		.disabled = 1,
		.exclude_hv = 1,
	};
	int fd, err;

	for (cpu = 0; cpu < ncpu; cpu++) {
		err = sb_grow(s);
		if (err)
			return err;
		fd = (int)syscall(SYS_perf_event_open, &attr, -1, (int)cpu, -1,
				  PERF_FLAG_FD_CLOEXEC);
		/* An offline CPU has nothing to sample. */
		if (fd < 0 && errno == ENODEV)
			continue;
		if (fd < 0)
			return -errno;
		s->fd[s->nfd] = fd;
		s->tid[s->nfd++] = -1;
		if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog_fd) ||
		    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
			return -errno;
	}
	return 0;
}

/*
 * The counter of an exiting thread of a per-thread session: its fd is
 * closed, or a program with many short threads would run out of them.
 */
void sb_uncover_thread(struct sb_session *s, pid_t tid)
{
	ssize_t i = sb_find_tid(s, tid);

	if (i < 0)
		return;
	close(s->fd[i]);
	s->nfd--;
	s->fd[i] = s->fd[s->nfd];
	s->tid[i] = s->tid[s->nfd];
}
