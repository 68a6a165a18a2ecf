// SPDX-License-Identifier: GPL-2.0
/* See at.h. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "at.h"

static int failures;

static void tap_line(const char *verdict, const char *fmt, va_list ap,
		     const char *tail)
{
	char name[512];

	vsnprintf(name, sizeof(name), fmt, ap);
	printf("%s - %s%s\n", verdict, name, tail ? tail : "");
	fflush(stdout);
}

bool at_check(bool ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_line(ok ? "ok" : "not ok", fmt, ap, NULL);
	va_end(ap);
	if (!ok)
		failures++;
	return ok;
}

void at_skip(const char *why, const char *fmt, ...)
{
	char tail[256];
	va_list ap;

	snprintf(tail, sizeof(tail), " # SKIP %s", why);
	va_start(ap, fmt);
	tap_line("ok", fmt, ap, tail);
	va_end(ap);
}

int at_done(void)
{
	return failures ? 1 : 0;
}

double at_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void at_sleep(double seconds)
{
	struct timespec ts = {
		.tv_sec = (time_t)seconds,
		.tv_nsec = (long)((seconds - (time_t)seconds) * 1e9),
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

long at_env_long(const char *name, long def)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || !*s)
		return def;
	v = strtol(s, &end, 0);
	return *end || v <= 0 ? def : v;
}

int at_become(uid_t uid)
{
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		return -errno;
	/* Changing ids cleared it: be an ordinary, traceable process. */
	return prctl(PR_SET_DUMPABLE, 1) ? -errno : 0;
}

static uint64_t rng_state = 0x5eed5eed12345678ull;

void at_seed(uint64_t seed)
{
	rng_state = seed ? seed : 1;
}

uint64_t at_rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

pid_t at_spawn(int (*fn)(void *), void *arg)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0)
		_exit(fn(arg));
	return pid;
}

double at_wait(pid_t pid, double timeout, int *status)
{
	double t0 = at_now();

	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid || (r < 0 && errno != EINTR))
			return at_now() - t0;
		if (at_now() - t0 > timeout)
			return -1;
		at_sleep(0.005);
	}
}

bool at_exited_ok(int status)
{
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

bool at_param_settles(const char *param, long want, double timeout)
{
	double t0 = at_now();

	while (kt_module_param(param) != want) {
		if (at_now() - t0 > timeout) {
			printf("# %s is %ld, expected %ld\n", param,
			       kt_module_param(param), want);
			return false;
		}
		at_sleep(0.01);
	}
	return true;
}

int at_uffd_map(size_t len, void **addr)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	int fd, err;

	*addr = mmap(NULL, len, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*addr == MAP_FAILED)
		return -errno;
	fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		goto fail;
	reg.range.start = (uintptr_t)*addr;
	reg.range.len = len;
	if (ioctl(fd, UFFDIO_API, &api) || ioctl(fd, UFFDIO_REGISTER, &reg))
		goto fail;
	return fd;
fail:
	err = -errno;
	if (fd >= 0)
		close(fd);
	munmap(*addr, len);
	return err;
}

struct uffd_server {
	int fd;
	double delay;
};

static void *uffd_serve(void *arg)
{
	struct uffd_server *srv = arg;
	int fd = srv->fd;
	long page = sysconf(_SC_PAGESIZE);
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct uffd_msg msg;

	while (poll(&p, 1, -1) >= 0 && !(p.revents & (POLLERR | POLLNVAL))) {
		struct uffdio_zeropage z = { 0 };

		if (read(fd, &msg, sizeof(msg)) != sizeof(msg))
			continue;
		if (msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		if (srv->delay > 0)
			at_sleep(srv->delay);
		z.range.start = msg.arg.pagefault.address & ~(page - 1);
		z.range.len = page;
		/* EEXIST (raced with another fault) is fine too. */
		ioctl(fd, UFFDIO_ZEROPAGE, &z);
	}
	return NULL;
}

int at_uffd_serve_thread(int uffd, double delay)
{
	struct uffd_server *srv = malloc(sizeof(*srv));
	pthread_t t;
	int err;

	if (!srv)
		return -ENOMEM;
	srv->fd = uffd;
	srv->delay = delay;
	err = pthread_create(&t, NULL, uffd_serve, srv);
	if (err) {
		free(srv);
		return -err;
	}
	pthread_detach(t);
	return 0;
}
