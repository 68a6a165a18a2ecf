// SPDX-License-Identifier: GPL-2.0
/*
 * A one-file FUSE file system spoken directly over /dev/fuse (libfuse is
 * not a build dependency): the root directory holds AT_FUSE_FILE, whose
 * reads are answered at once, slowly, or never (see enum at_fuse_mode).
 * Reads are asynchronous (FUSE_ASYNC_READ), as with libfuse's default, so
 * a page fault waiting on a held read waits on the page lock, killably.
 * at_fuse_hold() turns a server that answers into one that holds every
 * read from then on.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "at.h"

#define FILE_NODE	2
#define MAX_WRITE	(64 << 10)
#define VALID_SECONDS	3600

/* The file's content: a byte of its offset, so reads are checkable. */
static unsigned char content_at(uint64_t off)
{
	return (unsigned char)(off * 7 + 1);
}

static void reply(int fd, uint64_t unique, int error, const void *data,
		  size_t len)
{
	struct fuse_out_header h = {
		.len = sizeof(h) + (error ? 0 : len),
		.error = error,
		.unique = unique,
	};
	struct iovec iov[2] = {
		{ &h, sizeof(h) },
		{ (void *)data, error ? 0 : len },
	};

	/* ENOENT: the request was interrupted and is gone; fine. */
	if (writev(fd, iov, 2) < 0 && errno != ENOENT)
		perror("at_fuse: reply");
}

static void fill_attr(struct fuse_attr *a, uint64_t node)
{
	memset(a, 0, sizeof(*a));
	a->ino = node;
	a->nlink = 1;
	a->blksize = 4096;
	if (node == FUSE_ROOT_ID) {
		a->mode = S_IFDIR | 0755;
	} else {
		a->mode = S_IFREG | 0666;
		a->size = AT_FUSE_SIZE;
		a->blocks = AT_FUSE_SIZE / 512;
	}
}

static void do_init(int fd, const struct fuse_in_header *in,
		    const struct fuse_init_in *arg)
{
	struct fuse_init_out out = {
		.major = FUSE_KERNEL_VERSION,
		.minor = 31,
		.max_readahead = arg->max_readahead,
		.flags = FUSE_ASYNC_READ,
		.max_background = 16,
		.congestion_threshold = 12,
		.max_write = MAX_WRITE,
	};

	reply(fd, in->unique, 0, &out, sizeof(out));
}

static void do_entry(int fd, const struct fuse_in_header *in,
		     const char *name)
{
	struct fuse_entry_out out = { 0 };

	if (in->nodeid != FUSE_ROOT_ID || strcmp(name, AT_FUSE_FILE)) {
		reply(fd, in->unique, -ENOENT, NULL, 0);
		return;
	}
	out.nodeid = FILE_NODE;
	out.generation = 1;
	out.entry_valid = VALID_SECONDS;
	out.attr_valid = VALID_SECONDS;
	fill_attr(&out.attr, FILE_NODE);
	reply(fd, in->unique, 0, &out, sizeof(out));
}

static void do_getattr(int fd, const struct fuse_in_header *in)
{
	struct fuse_attr_out out = { .attr_valid = VALID_SECONDS };

	fill_attr(&out.attr, in->nodeid);
	reply(fd, in->unique, 0, &out, sizeof(out));
}

static void do_read(int fd, const struct fuse_in_header *in,
		    const struct fuse_read_in *arg, unsigned char *data)
{
	uint64_t end = arg->offset + arg->size;
	size_t len;

	if (arg->offset >= AT_FUSE_SIZE) {
		reply(fd, in->unique, 0, NULL, 0);
		return;
	}
	if (end > AT_FUSE_SIZE)
		end = AT_FUSE_SIZE;
	len = end - arg->offset;
	for (size_t i = 0; i < len; i++)
		data[i] = content_at(arg->offset + i);
	reply(fd, in->unique, 0, data, len);
}

/* Set by SIGUSR1 (at_fuse_hold()): hold every read from now on. */
static volatile sig_atomic_t hold_from_now;

static void on_hold(int sig)
{
	(void)sig;
	hold_from_now = 1;
}

/* The server's loop; @held gets a byte when a read is first held. */
static int serve(int fd, enum at_fuse_mode mode, int held)
{
	size_t bufsize = MAX_WRITE + 8192;
	unsigned char *buf = malloc(bufsize), *data = malloc(MAX_WRITE * 2);
	bool told = false;

	if (!buf || !data)
		return 1;
	for (;;) {
		ssize_t n = read(fd, buf, bufsize);
		struct fuse_in_header *in = (void *)buf;
		void *arg = buf + sizeof(*in);

		if (n < 0 && (errno == EINTR || errno == ENOENT))
			continue;
		if (n < (ssize_t)sizeof(*in))
			return n < 0 && errno == ENODEV ? 0 : 1;
		switch (in->opcode) {
		case FUSE_INIT:
			do_init(fd, in, arg);
			break;
		case FUSE_LOOKUP:
			do_entry(fd, in, arg);
			break;
		case FUSE_GETATTR:
		case FUSE_SETATTR:
			do_getattr(fd, in);
			break;
		case FUSE_OPEN:
		case FUSE_OPENDIR: {
			struct fuse_open_out out = { .fh = 1 };

			reply(fd, in->unique, 0, &out, sizeof(out));
			break;
		}
		case FUSE_READ:
			if (mode == AT_FUSE_HOLD || hold_from_now) {
				if (!told && write(held, "h", 1) == 1)
					told = true;
				break;
			}
			if (mode == AT_FUSE_SLOW)
				at_sleep(0.02);
			do_read(fd, in, arg, data);
			break;
		case FUSE_WRITE: {
			const struct fuse_write_in *w = arg;
			struct fuse_write_out out = { .size = w->size };

			reply(fd, in->unique, 0, &out, sizeof(out));
			break;
		}
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
		case FUSE_INTERRUPT:
			break;
		case FUSE_FLUSH:
		case FUSE_RELEASE:
		case FUSE_RELEASEDIR:
		case FUSE_FSYNC:
		case FUSE_DESTROY:
			reply(fd, in->unique, 0, NULL, 0);
			break;
		default:
			reply(fd, in->unique, -ENOSYS, NULL, 0);
			break;
		}
	}
}

/* Loads fuse.ko (FUSE_KO) unless /dev/fuse already exists. */
static void load_fuse(void)
{
	const char *ko = getenv("FUSE_KO");
	char cmd[256];

	if (access("/dev/fuse", F_OK) == 0 || !ko || access(ko, R_OK))
		return;
	snprintf(cmd, sizeof(cmd), "insmod %s 2>/dev/null", ko);
	if (system(cmd))
		return;
	for (int i = 0; i < 100 && access("/dev/fuse", F_OK); i++)
		at_sleep(0.01);
}

int at_fuse_start(struct at_fuse *f, const char *mnt, enum at_fuse_mode m)
{
	char opts[128];
	int fd, pipefd[2], err;

	memset(f, 0, sizeof(*f));
	f->pid = -1;
	f->held = -1;
	load_fuse();
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ENODEV : -errno;
	snprintf(f->mnt, sizeof(f->mnt), "%s", mnt);
	snprintf(f->path, sizeof(f->path), "%s/%s", mnt, AT_FUSE_FILE);
	mkdir(mnt, 0755);
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other", fd);
	if (mount("at_fuse", mnt, "fuse", MS_NOSUID | MS_NODEV, opts)) {
		err = -errno;
		close(fd);
		return err;
	}
	if (pipe2(pipefd, O_CLOEXEC)) {
		err = -errno;
		umount2(mnt, MNT_DETACH);
		close(fd);
		return err;
	}
	fflush(stdout);
	f->pid = fork();
	if (f->pid == 0) {
		struct sigaction sa = { .sa_handler = on_hold };

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* No SA_RESTART: a read of /dev/fuse waiting returns EINTR. */
		sigaction(SIGUSR1, &sa, NULL);
		close(pipefd[0]);
		_exit(serve(fd, m, pipefd[1]));
	}
	close(pipefd[1]);
	close(fd);
	f->held = pipefd[0];
	if (f->pid < 0) {
		err = -errno;
		at_fuse_stop(f);
		return err;
	}
	/* The first access waits for INIT: make sure the server answers. */
	if (access(f->path, R_OK)) {
		err = -errno;
		at_fuse_stop(f);
		return err;
	}
	return 0;
}

int at_fuse_hold(struct at_fuse *f)
{
	/*
	 * The handler runs before the server takes its next request: it
	 * is woken from its read, or runs when its current reply returns.
	 */
	return f->pid > 0 && kill(f->pid, SIGUSR1) == 0 ? 0 : -ESRCH;
}

void at_fuse_stop(struct at_fuse *f)
{
	if (f->pid > 0) {
		kill(f->pid, SIGKILL);
		waitpid(f->pid, NULL, 0);
	}
	if (f->mnt[0])
		umount2(f->mnt, MNT_DETACH);
	if (f->held >= 0)
		close(f->held);
	f->pid = -1;
	f->held = -1;
	f->mnt[0] = 0;
}
