// SPDX-License-Identifier: GPL-2.0
/*
 * Random ioctls against /dev/sprofil, SPROFIL_ATTACK_IOCTLS of them
 * (default 200,000; 10^6 on the debug kernel) split between a root and
 * an unprivileged worker.  A START that succeeds and its STOP cost tens
 * of milliseconds under TCG (RCU grace periods); a START refused in a
 * process without a session costs 20 ms (one is created and destroyed),
 * with one 10-20 us.
 *
 * Commands are the real ones, the real ones with another size or
 * direction, and their neighbours; arguments have random sizes, flags,
 * periods, region counts up to and past SPROFIL_MAX_REGIONS and caller
 * tables (SPROFIL_CALLERS, with and without the flag); pointers
 * (to the argument, to the region array, to buffers) are garbage, kernel
 * addresses, read-only, PROT_NONE, holes, text, MAP_SHARED and MAP_PRIVATE
 * files, FUSE files, and userfaultfd ranges served at once or only after
 * a timeout.  Checks: unknown commands get ENOTTY, every other failure is
 * a documented errno, a successful START shows in STATUS and STOP ends
 * it, and afterwards no session and no pinned page is left.  The kernel
 * log is checked by the VM harness.  Seeded: SPROFIL_ATTACK_SEED replays.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "at.h"

#define MAX_REGIONS	(SPROFIL_MAX_REGIONS + 8)
#define POOL_BYTES	(64 << 10)
#define REPORT_MAX	10
/*
 * Each touched page of the userfaultfd range served after 50 ms costs the
 * call 50 ms, so re-arming it with the others (every 1024 calls) made it
 * most of the run: ~0.8 ms a call.  Every 16 rounds, 10^6 calls still
 * wait on it (or on another slow pin) ~4,300 times (the debug kernel,
 * 2026-11-24).
 */
#define SLOW_REARM_EVERY	16

struct pool {
	const char *name;
	uint8_t *addr;
	size_t len;
	/*
	 * Every how many rounds of 1024 calls the pages are dropped so that
	 * they fault again; 0: never.
	 */
	unsigned int rearm_every;
};

static struct pool pool[16];
static int npool;
static const char *fuse_path;
static int fuse_fd = -1;

struct tally {
	long calls, started, refused, bad_errno, bad_state;
	long blocked;		/* calls that waited 40 ms or more */
	double t_ok, t_refused, t_unknown;	/* seconds in the ioctl */
};

static void add_pool(const char *name, void *addr, size_t len,
		     unsigned int rearm_every)
{
	if (addr == MAP_FAILED || !addr) {
		printf("# fuzz: no %s buffer (%s)\n", name, strerror(errno));
		return;
	}
	pool[npool++] = (struct pool){ name, addr, len, rearm_every };
}

static void *map_file(const char *path, int flags, int prot, int mode)
{
	int fd = open(path, mode);
	void *p;

	if (fd < 0)
		return MAP_FAILED;
	p = mmap(NULL, POOL_BYTES, prot, flags, fd, 0);
	close(fd);
	return p;
}

/* The worker's buffers, each kind a hostile user can make. */
static void build_pool(void)
{
	void *hole = wl_map(POOL_BYTES, PROT_NONE);
	void *addr;
	int uffd;

	npool = 0;
	add_pool("anonymous", wl_map(POOL_BYTES, PROT_READ | PROT_WRITE),
		 POOL_BYTES, 1);
	add_pool("read-only", wl_map(POOL_BYTES, PROT_READ), POOL_BYTES, 0);
	add_pool("PROT_NONE", wl_map(POOL_BYTES, PROT_NONE), POOL_BYTES, 0);
	if (hole)
		munmap(hole, POOL_BYTES);
	add_pool("hole", hole, POOL_BYTES, 0);
	add_pool("text", (void *)((uintptr_t)wl_work_a & ~4095ul), 4096, 0);
	add_pool("shared file", map_file("/tmp/at_fuzz_shared", MAP_SHARED,
					 PROT_READ | PROT_WRITE, O_RDWR),
		 POOL_BYTES, 0);
	add_pool("shared read-only file",
		 map_file("/tmp/at_fuzz_rootfile", MAP_SHARED, PROT_READ,
			  O_RDONLY), POOL_BYTES, 0);
	add_pool("private file",
		 map_file("/tmp/at_fuzz_rootfile", MAP_PRIVATE,
			  PROT_READ | PROT_WRITE, O_RDONLY), POOL_BYTES, 1);
	if (fuse_path) {
		add_pool("FUSE shared", map_file(fuse_path, MAP_SHARED,
						 PROT_READ | PROT_WRITE,
						 O_RDWR), POOL_BYTES, 0);
		add_pool("FUSE private", map_file(fuse_path, MAP_PRIVATE,
						  PROT_READ | PROT_WRITE,
						  O_RDONLY), POOL_BYTES, 1);
		fuse_fd = open(fuse_path, O_RDONLY);
	}
	uffd = at_uffd_map(POOL_BYTES, &addr);
	if (uffd >= 0 && !at_uffd_serve_thread(uffd, 0))
		add_pool("userfaultfd", addr, POOL_BYTES, 1);
	else
		printf("# fuzz: no userfaultfd buffer (%s)\n", strerror(-uffd));
	uffd = at_uffd_map(POOL_BYTES, &addr);
	if (uffd >= 0 && !at_uffd_serve_thread(uffd, 0.05))
		add_pool("userfaultfd served after a timeout", addr,
			 POOL_BYTES, SLOW_REARM_EVERY);
}

/*
 * Makes the pool's pages fault again (COW copies, uffd, FUSE reads), in
 * round @round of 1024 calls.
 */
static void rearm_pool(long round)
{
	for (int i = 0; i < npool; i++)
		if (pool[i].rearm_every && round % pool[i].rearm_every == 0)
			madvise(pool[i].addr, pool[i].len, MADV_DONTNEED);
	if (fuse_fd >= 0)
		posix_fadvise(fuse_fd, 0, 0, POSIX_FADV_DONTNEED);
}

static uint64_t pick(const uint64_t *v, size_t n)
{
	return v[at_rnd() % n];
}

static uint64_t random_pointer(void)
{
	static const uint64_t wild[] = {
		0, 1, 4096, 0x00007ffffffff000ull, 0x0000800000000000ull,
		0xffff800000000000ull, 0xffff888000000000ull,
		0xffffffff81000000ull, 0xffffffffff600000ull, ~0ull,
		~0ull - 31,
	};
	struct pool *p = &pool[at_rnd() % npool];

	switch (at_rnd() % 8) {
	case 0:
		return at_rnd();
	case 1:
		return pick(wild, sizeof(wild) / sizeof(wild[0]));
	case 2:
		return (uintptr_t)p->addr + at_rnd() % p->len;
	default:
		return (uintptr_t)p->addr + (at_rnd() % 4) * 4096;
	}
}

static uint64_t random_size(void)
{
	static const uint64_t sizes[] = {
		0, 1, 2, 3, 4, 8, 4094, 4096, POOL_BYTES, POOL_BYTES + 2,
		SPROFIL_MAX_REGION_BYTES, SPROFIL_MAX_REGION_BYTES + 4,
		~0ull, ~0ull - 1, 1ull << 32,
	};

	if (at_rnd() % 2)
		return (at_rnd() % (2 * POOL_BYTES)) & ~1ull;
	return pick(sizes, sizeof(sizes) / sizeof(sizes[0]));
}

/*
 * Mostly refused, at different depths.  A START that succeeds costs tens
 * of milliseconds under TCG (see random_cmd()), so few do: scales that
 * make the region valid are rare, and so are scales below 2, which make
 * it ignored (a START whose regions are all ignored succeeds).
 */
static void random_region(struct sprofil_region *r)
{
	static const uint64_t scales[] = {
		2, 3, 0x8000, 0xffff, 0x10000, 0x10001, 0x20000, 0xffffffff,
	};

	r->base = random_pointer();
	r->size = random_size();
	r->offset = at_rnd() % 2 ? (uintptr_t)wl_work_a + at_rnd() % 4096 :
				   at_rnd();
	if (at_rnd() % 512 == 0)
		r->scale = at_rnd() % 2;
	else if (at_rnd() % 64)
		r->scale = (uint32_t)at_rnd() | 2;
	else
		r->scale = pick(scales, sizeof(scales) / 8);
	r->reserved = at_rnd() % 32 ? 0 : (uint32_t)at_rnd();
}

/* A region likely to be accepted: one page of a pool buffer. */
static void plausible_region(struct sprofil_region *r, uint64_t offset)
{
	struct pool *p = &pool[at_rnd() % npool];

	*r = kt_region(p->addr + (at_rnd() % (p->len / 4096)) * 4096,
		       2 << (at_rnd() % 12), offset, 0x10000);
}

static unsigned int random_nregions(void)
{
	static const uint64_t n[] = {
		1, 2, 3, 1023, SPROFIL_MAX_REGIONS,
		SPROFIL_MAX_REGIONS + 1, MAX_REGIONS, 0x80000000u, ~0u,
	};

	/* 0 stops: as rare as STOP. */
	if (at_rnd() % 4096 == 0)
		return 0;
	return at_rnd() % 4 ? 1 + at_rnd() % 4 : pick(n, sizeof(n) / 8);
}

/*
 * EBADF: SPROFIL_TARGET with a tail byte that names no open file;
 * EOPNOTSUPP: a PMU event, which the module does not count (uapi header).
 */
static bool documented(int err)
{
	return err == EINVAL || err == EFAULT || err == ENOMEM ||
	       err == E2BIG || err == EBADF || err == EOPNOTSUPP;
}

static void note(struct tally *t, long i, unsigned long cmd, int err,
		 const char *what)
{
	if (t->bad_errno + t->bad_state <= REPORT_MAX)
		printf("# fuzz: call %ld, cmd %#lx: %s (errno %d, %s)\n", i,
		       cmd, what, err, strerror(err));
}

/*
 * A command number: the real ones, resized, redirected or neighbours.
 * STOP is rare, and so is a START that succeeds (see random_arg()): both
 * wait for RCU grace periods, under the global lock, which takes tens of
 * milliseconds under TCG and would dominate the run.
 */
static unsigned long random_cmd(void)
{
	unsigned long cmd = SPROFIL_IOC_START;
	uint64_t r = at_rnd() % 4096;

	if (r < 2)
		cmd = SPROFIL_IOC_STOP;
	else if (r < 512)
		cmd = SPROFIL_IOC_STATUS;
	switch (at_rnd() % 16) {
	case 0:		/* the size field is not part of the match */
		return (cmd & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
		       ((at_rnd() % _IOC_SIZEMASK) << _IOC_SIZESHIFT);
	case 1:
		return _IOC(at_rnd() % 4, SPROFIL_IOC_MAGIC, at_rnd() % 8,
			    at_rnd() % 512);
	case 2:
		return _IOC(_IOC_DIR(cmd), SPROFIL_IOC_MAGIC + 1 - at_rnd() % 3,
			    _IOC_NR(cmd), _IOC_SIZE(cmd));
	case 3:
		return (uint32_t)at_rnd();
	default:
		return cmd;
	}
}

static bool known_cmd(unsigned long cmd)
{
	unsigned long base = cmd & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT);
	unsigned long m = ~(_IOC_SIZEMASK << _IOC_SIZESHIFT);

	return base == (SPROFIL_IOC_START & m) ||
	       base == (SPROFIL_IOC_STOP & m) ||
	       base == (SPROFIL_IOC_STATUS & m);
}

/* Fills @a, an argument of some size, for START or STATUS. */
static void *random_arg(uint8_t *space, size_t space_len,
			struct sprofil_region *regions)
{
	struct sprofil_start *a;
	uint32_t size = sizeof(*a);
	unsigned int n;

	switch (at_rnd() % 16) {
	case 0:
		return (void *)(uintptr_t)random_pointer();
	case 1:
		size = at_rnd() % 64;
		break;
	case 2:
		size = at_rnd() % (space_len + 64);
		break;
	}
	memset(space, 0, space_len);
	if (at_rnd() % 8 == 0)		/* a tail that must be zero */
		space[at_rnd() % space_len] = (uint8_t)at_rnd();
	a = (struct sprofil_start *)space;
	a->size = size;
	a->flags = at_rnd() % 4 ? at_rnd() % 4 : (uint32_t)at_rnd();
	a->nregions = random_nregions();
	a->reserved = at_rnd() % 32 ? 0 : 1;
	a->period_ns = at_rnd() % 4 ? 0 : at_rnd() % 2000000000ull;
	a->regions = at_rnd() % 16 ? (uintptr_t)regions : random_pointer();
	/*
	 * The caller table: pool memory of random size and depth, often with
	 * the flag, sometimes without it (EINVAL), so its checks and its pin
	 * run on every kind of memory the pool has.
	 */
	if (at_rnd() % 4 == 0) {
		if (at_rnd() % 8)
			a->flags |= SPROFIL_CALLERS;
		a->callers = random_pointer();
		a->callers_size = random_size();
		a->callers_depth = at_rnd() % 4 ?
				   at_rnd() % (SPROFIL_MAX_DEPTH + 2) :
				   (uint32_t)at_rnd();
	}
	n = a->nregions < MAX_REGIONS ? a->nregions : MAX_REGIONS;
	if (n <= 8 && at_rnd() % 1024 == 0) {
		/* Mostly well formed, so the pinning paths run too. */
		for (unsigned int k = 0; k < n; k++)
			plausible_region(&regions[k], (uintptr_t)wl_work_a +
					 k * 4096);
		if (n)
			random_region(&regions[at_rnd() % n]);
	} else {
		for (unsigned int k = 0; k < n; k++)
			random_region(&regions[k]);
	}
	return space;
}

static void check_started(int fd, struct tally *t, long i)
{
	struct sprofil_status st;
	int err = kt_status(fd, &st);

	if (err || !(st.state & SPROFIL_STATE_ENABLED)) {
		t->bad_state++;
		note(t, i, SPROFIL_IOC_STATUS, -err,
		     "START succeeded but STATUS does not show it");
	}
	err = kt_stop(fd);
	if (!err)
		err = kt_status(fd, &st);
	if (err || (st.state & SPROFIL_STATE_ENABLED)) {
		t->bad_state++;
		note(t, i, SPROFIL_IOC_STOP, -err, "STOP did not stop");
	}
}

static void fuzz(long calls, struct tally *t)
{
	static struct sprofil_region regions[MAX_REGIONS];
	static uint8_t space[8192] __attribute__((aligned(4096)));
	int fd = kt_open();
	double start = at_now();

	for (long i = 0; i < calls; i++) {
		if (calls >= 10 && i % (calls / 10) == 0)
			printf("# fuzz (uid %d): %ld calls in %.1f s\n",
			       getuid(), i, at_now() - start);
		unsigned long cmd = random_cmd();
		void *arg = random_arg(space, at_rnd() % 8 ? 64 : sizeof(space),
				       regions);
		double t0 = at_now();
		int r = ioctl(fd, cmd, arg), err = errno;
		double dt = at_now() - t0;

		t->calls++;
		t->blocked += dt >= 0.04;
		*(r ? known_cmd(cmd) ? &t->t_refused : &t->t_unknown :
		      &t->t_ok) += dt;
		if (!known_cmd(cmd)) {
			if (r != -1 || err != ENOTTY) {
				t->bad_errno++;
				note(t, i, cmd, err, "unknown command not ENOTTY");
			}
			continue;
		}
		if (r) {
			t->refused++;
			if (!documented(err)) {
				t->bad_errno++;
				note(t, i, cmd, err, "undocumented errno");
			}
		} else if ((cmd & 0xffff) == (SPROFIL_IOC_START & 0xffff)) {
			const struct sprofil_start *a = arg;

			/* nregions 0 stops; anything else must show. */
			if (arg == space && a->nregions) {
				t->started++;
				check_started(fd, t, i);
			}
		}
		if (i % 1024 == 0)
			rearm_pool(i / 1024);
	}
	kt_stop(fd);
	close(fd);
}

struct worker {
	uid_t uid;
	long calls;
	uint64_t seed;
	struct tally *out;	/* shared with the parent */
};

static int worker_main(void *arg)
{
	struct worker *w = arg;

	if (w->uid && at_become(w->uid))
		return 2;
	at_seed(w->seed);
	build_pool();
	fuzz(w->calls, w->out);
	return 0;
}

static void make_file(const char *path, mode_t mode)
{
	static uint8_t page[POOL_BYTES];
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, mode);

	memset(page, 0x5a, sizeof(page));
	if (fd < 0 || write(fd, page, sizeof(page)) != sizeof(page))
		perror(path);
	if (fd >= 0)
		close(fd);
	chmod(path, mode);
}

int main(void)
{
	long calls = at_env_long("SPROFIL_ATTACK_IOCTLS", 200000);
	uint64_t seed = at_env_long("SPROFIL_ATTACK_SEED", 0x5eed);
	struct tally *t = mmap(NULL, 2 * sizeof(*t), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct worker w[2] = {
		{ 0, calls / 2, seed, &t[0] },
		{ AT_UID_A, calls - calls / 2, seed + 1, &t[1] },
	};
	struct at_fuse f = { .pid = -1, .held = -1 };
	pid_t pid[2];
	int status[2], err, fd;
	double t0 = at_now(), took;

	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(t, 0, 2 * sizeof(*t));
	make_file("/tmp/at_fuzz_shared", 0666);
	make_file("/tmp/at_fuzz_rootfile", 0644);
	fd = open("/proc/sys/vm/unprivileged_userfaultfd", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "1", 1) != 1)
			perror("unprivileged_userfaultfd");
		close(fd);
	}
	err = at_fuse_start(&f, "/tmp/at_fuzz_fuse", AT_FUSE_SERVE);
	if (!err)
		fuse_path = f.path;
	else
		printf("# fuzz: no FUSE buffers: %s\n", strerror(-err));
	printf("# fuzz: %ld ioctls, seed %#llx (SPROFIL_ATTACK_IOCTLS, SPROFIL_ATTACK_SEED)\n",
	       calls, (unsigned long long)seed);
	for (int i = 0; i < 2; i++)
		pid[i] = at_spawn(worker_main, &w[i]);
	for (int i = 0; i < 2; i++)
		at_wait(pid[i], 1e9, &status[i]);
	took = at_now() - t0;
	at_fuse_stop(&f);
	for (int i = 0; i < 2; i++) {
		const char *who = w[i].uid ? "user" : "root";

		printf("# fuzz (%s): %ld calls, %ld starts, %ld refused, %.0f calls/s\n",
		       who, t[i].calls, t[i].started, t[i].refused,
		       t[i].calls / took);
		printf("# fuzz (%s): %.1f s in ioctls that succeeded, %.1f s refused, %.1f s unknown; %ld calls waited >= 40 ms\n",
		       who, t[i].t_ok, t[i].t_refused, t[i].t_unknown,
		       t[i].blocked);
		at_check(at_exited_ok(status[i]) && t[i].calls == w[i].calls,
			 "fuzz (%s): %ld random ioctls ran (status %#x)", who,
			 t[i].calls, status[i]);
		at_check(!t[i].bad_errno,
			 "fuzz (%s): unknown commands ENOTTY, every error documented (%ld bad)",
			 who, t[i].bad_errno);
		at_check(!t[i].bad_state,
			 "fuzz (%s): each successful START shows in STATUS, STOP ends it (%ld bad)",
			 who, t[i].bad_state);
		at_check(t[i].started > 0 && t[i].refused > 0,
			 "fuzz (%s): some starts succeed (%ld), some are refused (%ld)",
			 who, t[i].started, t[i].refused);
	}
	at_check(at_param_settles("sessions", 0, 10) &&
		 at_param_settles("pinned_pages", 0, 10),
		 "fuzz: no session or pinned page left");
	return at_done();
}
