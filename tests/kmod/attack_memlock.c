// SPDX-License-Identifier: GPL-2.0
/*
 * RLIMIT_MEMLOCK is the bound on what one unprivileged user can pin,
 * however the pins are spread: over many processes (forks, each its own
 * mm), over forks sharing one MAP_SHARED buffer, over threads of one
 * process replacing each other's region sets, and over many regions on
 * one page (pinned and charged once per table).  The module charges the
 * user, as RDMA and io_uring charge user->locked_vm, so the user's pins
 * stay within the limit in every case.  The limit is LIMIT_PAGES; the
 * module's pinned_pages parameter (nothing else profiles meanwhile)
 * gives the pins.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "at.h"

#define PAGE		4096
#define LIMIT_PAGES	32
#define BUF_PAGES	12
#define FORKS		16
#define THREADS		8

static uint8_t *shared_buf;	/* MAP_SHARED, inherited by forks */
static uint64_t spin;

/* Starts into @buf and holds the session until @hold closes. */
static int holder(uint8_t *buf, int report, int hold)
{
	uintptr_t pc = wl_func_extent(wl_work_a).start;
	struct sprofil_region r = kt_region(buf, BUF_PAGES * PAGE, pc,
					    0x10000);
	int fd = kt_open(), err = kt_start(fd, &r, 1, SPROFIL_USHORT, NULL);
	char c = err == 0 ? 'y' : err == -ENOMEM ? 'n' : 'e';

	if (write(report, &c, 1) != 1)
		return 1;
	while (read(hold, &c, 1) == 1)
		;
	return 0;
}

struct spread {
	bool shared;		/* all forks into shared_buf */
	int ok, refused, other;
	long pinned;		/* pinned_pages while all hold */
};

static void over_forks(struct spread *s)
{
	int report[2], hold[2], status;
	pid_t pid[FORKS];
	char c;

	if (pipe(report) || pipe(hold))
		abort();
	for (int i = 0; i < FORKS; i++) {
		pid[i] = fork();
		if (pid[i] == 0) {
			uint8_t *own = wl_map(BUF_PAGES * PAGE,
					      PROT_READ | PROT_WRITE);

			close(hold[1]);
			_exit(holder(s->shared ? shared_buf : own, report[1],
				     hold[0]));
		}
	}
	close(hold[0]);
	for (int i = 0; i < FORKS && read(report[0], &c, 1) == 1; i++) {
		s->ok += c == 'y';
		s->refused += c == 'n';
		s->other += c == 'e';
	}
	s->pinned = kt_module_param("pinned_pages");
	close(hold[1]);
	for (int i = 0; i < FORKS; i++)
		waitpid(pid[i], &status, 0);
	close(report[0]);
	close(report[1]);
}

static int fd_threads;
static int thread_errors;

static void *thread_start(void *arg)
{
	uintptr_t pc = wl_func_extent(wl_work_a).start;
	uint8_t *buf = arg;
	struct sprofil_region r = kt_region(buf, BUF_PAGES * PAGE, pc,
					    0x10000);

	for (int i = 0; i < 20; i++) {
		int err = kt_start(fd_threads, &r, 1, SPROFIL_USHORT, NULL);

		if (err && err != -ENOMEM)
			__atomic_add_fetch(&thread_errors, 1,
					   __ATOMIC_RELAXED);
		wl_work_a(spin);
	}
	return NULL;
}

/* Threads of one process replacing each other's region sets. */
static int over_threads(void *arg)
{
	pthread_t t[THREADS];
	long *max_pinned = arg;

	fd_threads = kt_open();
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, thread_start,
			       wl_map(BUF_PAGES * PAGE,
				      PROT_READ | PROT_WRITE));
	for (int n = 0; n < 200; n++) {
		long p = kt_module_param("pinned_pages");

		if (p > *max_pinned)
			*max_pinned = p;
		at_sleep(0.005);
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	return thread_errors ? 1 : 0;
}

/* 1,024 regions on one page: one pin, one page charged. */
static int one_page(void *arg)
{
	static struct sprofil_region r[SPROFIL_MAX_REGIONS];
	uint16_t *page = wl_map(PAGE, PROT_READ | PROT_WRITE);
	uintptr_t pc = wl_func_extent(wl_work_a).start;
	long *pinned = arg;
	int err;

	for (int i = 0; i < SPROFIL_MAX_REGIONS; i++)
		r[i] = kt_region(page, PAGE, pc + i * 64, 0x10000);
	err = kt_start(kt_open(), r, SPROFIL_MAX_REGIONS, SPROFIL_USHORT,
		       NULL);
	*pinned = kt_module_param("pinned_pages");
	if (err)
		printf("# memlock: 1,024 regions on one page: %s\n",
		       strerror(-err));
	return err ? 1 : 0;
}

static int run_child(int (*fn)(void *), void *arg)
{
	int status;

	if (at_wait(at_spawn(fn, arg), 60, &status) < 0)
		return -1;
	return status;
}

int main(void)
{
	struct rlimit rl = { LIMIT_PAGES * PAGE, LIMIT_PAGES * PAGE };
	struct spread own = { .shared = false }, shared = { .shared = true };
	long *pinned = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int status;

	setvbuf(stdout, NULL, _IOLBF, 0);
	spin = wl_calibrate(0.001);
	shared_buf = mmap(NULL, BUF_PAGES * PAGE, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (setrlimit(RLIMIT_MEMLOCK, &rl) || at_become(AT_UID_A) ||
	    shared_buf == MAP_FAILED || pinned == MAP_FAILED) {
		perror("memlock: setup");
		return 1;
	}

	over_forks(&own);
	printf("# memlock: %d forks with own buffers: %d started, %d ENOMEM, %ld pages pinned\n",
	       FORKS, own.ok, own.refused, own.pinned);
	at_check(own.ok >= 1 && !own.other && own.pinned <= LIMIT_PAGES,
		 "memlock: %d forks pin %ld pages, within the user's %d [kmod fix]",
		 FORKS, own.pinned, LIMIT_PAGES);

	over_forks(&shared);
	printf("# memlock: %d forks on one MAP_SHARED buffer: %d started, %d ENOMEM, %ld pages pinned\n",
	       FORKS, shared.ok, shared.refused, shared.pinned);
	at_check(shared.ok >= 1 && !shared.other &&
		 shared.pinned <= LIMIT_PAGES,
		 "memlock: %d forks on one MAP_SHARED buffer pin %ld pages, within %d [kmod fix]",
		 FORKS, shared.pinned, LIMIT_PAGES);

	*pinned = 0;
	status = run_child(over_threads, pinned);
	at_check(at_exited_ok(status) && *pinned <= LIMIT_PAGES,
		 "memlock: %d threads replacing region sets pin at most %ld pages, within %d",
		 THREADS, *pinned, LIMIT_PAGES);

	status = run_child(one_page, pinned);
	at_check(at_exited_ok(status) && *pinned >= 1 && *pinned <= 2,
		 "memlock: %d regions on one page start and pin it once (%ld pinned) [kmod fix]",
		 SPROFIL_MAX_REGIONS, *pinned);

	at_check(at_param_settles("pinned_pages", 0, 10),
		 "memlock: no page pinned once the processes exited");
	return at_done();
}
