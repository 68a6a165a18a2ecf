// SPDX-License-Identifier: GPL-2.0
/*
 * START and STOP racing everything that can change a profile buffer's
 * memory, for SPROFIL_ATTACK_SECONDS (default 8) seconds: threads that
 * start and stop profiling into a set of buffer slots while others
 * munmap and remap them, mremap them onto each other, mprotect and
 * madvise(MADV_DONTNEED) them, and fork children that profile into the
 * inherited buffers and then exec or exit.  Every thread keeps sampled
 * code running, so the module writes buckets all the while.
 *
 * Checks: every ioctl succeeds or fails with a documented errno, the run
 * ends on time, the forked children all end, and afterwards no session
 * or pinned page is left.  The kernel log is checked by the VM harness.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "at.h"

#define SLOTS		8
#define SLOT_BYTES	(4 * 4096)
#define STARTERS	3
#define MUTATORS	3
#define FORKERS		2

static uint8_t *area;		/* SLOTS * SLOT_BYTES, reserved */
static double deadline;
static uint64_t spin;		/* iterations of about 1 ms */
static atomic_long starts, refused, bad_errno, mutations, children;
static atomic_long bad_children;
static const char *self;

static uint8_t *slot(unsigned int i)
{
	return area + (size_t)(i % SLOTS) * SLOT_BYTES;
}

static void fill_regions(struct sprofil_region *r, unsigned int n,
			 uint64_t seed)
{
	uintptr_t pc = wl_func_extent(wl_work_a).start;

	for (unsigned int i = 0; i < n; i++)
		r[i] = kt_region(slot(seed + i), SLOT_BYTES, pc, 0x10000);
}

static bool documented(int err)
{
	return err == EINVAL || err == EFAULT || err == ENOMEM;
}

static void tally(int err)
{
	if (!err) {
		starts++;
		return;
	}
	refused++;
	if (!documented(-err) && bad_errno++ < 5)
		printf("# race: START failed with %s\n", strerror(-err));
}

static void *starter(void *arg)
{
	struct sprofil_region r[SLOTS];
	uint64_t seed = (uintptr_t)arg;
	int fd = kt_open();

	while (at_now() < deadline) {
		seed = seed * 6364136223846793005ull + 1;
		fill_regions(r, 1 + (seed >> 33) % SLOTS, seed >> 40);
		tally(kt_start(fd, r, 1 + (seed >> 33) % SLOTS,
			       (seed >> 20) & SPROFIL_UINT, NULL));
		wl_work_a(spin);
		if ((seed >> 50) % 3 == 0 && kt_stop(fd))
			bad_errno++;
	}
	close(fd);
	return NULL;
}

static void *mutator(void *arg)
{
	uint64_t seed = (uintptr_t)arg;

	while (at_now() < deadline) {
		unsigned int i, j;
		uint8_t *p, *q;

		seed = seed * 6364136223846793005ull + 1;
		i = (seed >> 33) % SLOTS;
		j = (seed >> 40) % SLOTS;
		p = slot(i);
		q = slot(j);
		switch ((seed >> 50) % 6) {
		case 0:
			munmap(p, SLOT_BYTES);
			mmap(p, SLOT_BYTES, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
			break;
		case 1:
			if (i != j)
				mremap(p, SLOT_BYTES, SLOT_BYTES,
				       MREMAP_MAYMOVE | MREMAP_FIXED, q);
			mmap(p, SLOT_BYTES, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
			break;
		case 2:
			mprotect(p, SLOT_BYTES, PROT_READ);
			wl_work_b(spin / 4);
			mprotect(p, SLOT_BYTES, PROT_READ | PROT_WRITE);
			break;
		case 3:
			madvise(p, SLOT_BYTES, MADV_DONTNEED);
			break;
		case 4:
			mprotect(p, SLOT_BYTES, PROT_NONE);
			mprotect(p, SLOT_BYTES, PROT_READ | PROT_WRITE);
			break;
		default:
			/* Shrink then grow in place. */
			mremap(p, SLOT_BYTES, 4096, 0);
			mremap(p, 4096, SLOT_BYTES, 0);
			mmap(p, SLOT_BYTES, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
			break;
		}
		mutations++;
		wl_work_b(spin / 4);
	}
	return NULL;
}

/* A child profiles into the inherited slots, then execs or exits. */
static void child(uint64_t seed)
{
	struct sprofil_region r[SLOTS];
	int fd = kt_open(), err;

	fill_regions(r, SLOTS, seed);
	err = kt_start(fd, r, SLOTS, 0, NULL);
	if (err && !documented(-err))
		_exit(3);
	wl_work_c(spin);
	if (seed & 1) {
		execl(self, self, "--exec-child", (char *)NULL);
		_exit(4);
	}
	_exit(0);
}

static void *forker(void *arg)
{
	uint64_t seed = (uintptr_t)arg;

	while (at_now() < deadline) {
		pid_t pid;
		int status;

		seed = seed * 6364136223846793005ull + 1;
		pid = fork();
		if (pid == 0)
			child(seed >> 33);
		if (pid < 0)
			continue;
		children++;
		if (at_wait(pid, 30, &status) < 0 || !at_exited_ok(status)) {
			if (bad_children++ < 5)
				printf("# race: child %d status %#x\n", pid,
				       status);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long seconds = at_env_long("SPROFIL_ATTACK_SECONDS", 8);
	pthread_t t[STARTERS + MUTATORS + FORKERS];
	int n = 0;
	double t0;

	if (argc > 1 && !strcmp(argv[1], "--exec-child")) {
		struct sprofil_status st;
		int fd = kt_open();

		/* exec ended the session the parent image had. */
		return kt_status(fd, &st) || st.state ? 5 : 0;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	self = argv[0];
	spin = wl_calibrate(0.001);
	area = mmap(NULL, SLOTS * SLOT_BYTES, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return 1;
	t0 = at_now();
	deadline = t0 + seconds;
	for (int i = 0; i < STARTERS; i++)
		pthread_create(&t[n++], NULL, starter, (void *)(uintptr_t)(i + 1));
	for (int i = 0; i < MUTATORS; i++)
		pthread_create(&t[n++], NULL, mutator,
			       (void *)(uintptr_t)(i + 11));
	for (int i = 0; i < FORKERS; i++)
		pthread_create(&t[n++], NULL, forker,
			       (void *)(uintptr_t)(i + 21));
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("# race: %.1f s, %ld starts, %ld refused, %ld mutations, %ld children\n",
	       at_now() - t0, (long)starts, (long)refused, (long)mutations,
	       (long)children);
	at_check(!bad_errno,
		 "race: START/STOP racing munmap, mremap, mprotect, madvise, fork, exec: documented errnos only (%ld bad)",
		 (long)bad_errno);
	at_check(starts > 0 && mutations > 0 && children > 0,
		 "race: every kind of racer ran (%ld starts, %ld mutations, %ld children)",
		 (long)starts, (long)mutations, (long)children);
	at_check(!bad_children,
		 "race: every forked child profiled, exec'd or exited cleanly (%ld bad)",
		 (long)bad_children);
	at_check(at_now() - t0 < seconds + 30,
		 "race: ended on time (%.1f s for %ld s)", at_now() - t0,
		 seconds);
	kt_stop(kt_open());
	at_check(at_param_settles("pinned_pages", 0, 10),
		 "race: no page pinned after STOP and the children's exits");
	return at_done();
}
