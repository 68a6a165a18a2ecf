// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The bpf backend's program, one per process tree: `sprofil record`
 * loads it once and serves its descriptors on an abstract unix socket
 * (cli/bpf_share.c) named in SPROFIL_BPF_SHARE, and each process of the
 * run receives them here instead of loading a program of its own.  The
 * kernel's verifier and libbpf's reading of the kernel's BTF then run
 * once per run, not once per process (docs/backends.md, "One program
 * for a process tree").  A fork child keeps its parent's descriptors;
 * an exec'd image asks again.  Without a server (a program calling
 * sprofil() itself, or a process outside the run), the process loads the
 * program itself, as every process did before, through the loader
 * (backend_bpf_loader.c), so that only then are libbpf, libelf and libz
 * mapped into it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "backend_bpf_loader.h"
#include "backend_bpf_session.h"
#include "common/settings.h"

static struct spb_program sb_prog;
static bool sb_prog_ready;

bool sb_program_ready(void)
{
	return sb_prog_ready;
}

/*
 * The abstract socket address of server @name ("@name" in ss(8)'s
 * words); its length, or 0 when the name does not fit.
 */
static socklen_t sb_share_addr(const char *name, struct sockaddr_un *a)
{
	size_t len = strlen(name);

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (!len || len + 1 > sizeof(a->sun_path))
		return 0;
	memcpy(a->sun_path + 1, name, len);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len);
}

/*
 * The descriptors from server @name: 0, or a negative errno when there
 * is none (it ended, or this process is in another network namespace)
 * or it answers something else.
 */
static int sb_share_receive(const char *name, struct spb_program *p)
{
	union {
		char buf[CMSG_SPACE(SPB_NFDS * sizeof(int))];
		struct cmsghdr align;
	} control;
	struct sockaddr_un addr;
	socklen_t len = sb_share_addr(name, &addr);
	uint32_t magic = 0;
	struct iovec iov = { .iov_base = &magic, .iov_len = sizeof(magic) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control.buf,
		.msg_controllen = sizeof(control.buf),
	};
	struct cmsghdr *c;
	int fd, err = 0, i;
	ssize_t n;

	if (!len)
		return -EINVAL;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&addr, len)) {
		err = -errno;
		close(fd);
		return err;
	}
	do
		n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		err = -errno;
	close(fd);
	if (err)
		return err;
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
	    c->cmsg_len != CMSG_LEN(SPB_NFDS * sizeof(int))) {
		/* Descriptors of another kind of message: not kept. */
		for (; c; c = CMSG_NXTHDR(&msg, c))
			if (c->cmsg_level == SOL_SOCKET &&
			    c->cmsg_type == SCM_RIGHTS)
				for (i = 0; (size_t)i < (c->cmsg_len -
				     CMSG_LEN(0)) / sizeof(int); i++)
					close(((int *)CMSG_DATA(c))[i]);
		return -EPROTO;
	}
	memcpy(p->fd, CMSG_DATA(c), sizeof(p->fd));
	if (n != sizeof(magic) || magic != SPB_SHARE_MAGIC ||
	    (msg.msg_flags & MSG_CTRUNC)) {
		for (i = 0; i < SPB_NFDS; i++)
			close(p->fd[i]);
		return -EPROTO;
	}
	return 0;
}

/*
 * The loader: linked in (libsprofil.a, SB_LOADER_LINKED), or the plugin
 * beside libsprofil.so, opened only now.
 */
static int sb_load_here(struct spb_program *p)
{
#ifdef SB_LOADER_LINKED
	return sprofil_bpf_loader_load(p->fd);
#else
	typedef void *(*dlopen_fn)(const char *, int);
	char path[PATH_MAX], *slash;
	dlopen_fn real_dlopen;
	sb_loader_fn load;
	Dl_info self;
	void *h;

	if (!dladdr((void *)sb_load_here, &self) || !self.dli_fname)
		return -ENOENT;
	slash = strrchr(self.dli_fname, '/');
	if (snprintf(path, sizeof(path), "%.*s%s",
		     slash ? (int)(slash - self.dli_fname + 1) : 0,
		     self.dli_fname, SB_LOADER_PLUGIN) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	/*
	 * Not through our own dlopen(): it tells the -pg runtime of a new
	 * module, under the lock its start holds while it starts sampling.
	 * The loader is ours, not the program's.
	 */
	real_dlopen = (dlopen_fn)dlsym(RTLD_NEXT, "dlopen");
	h = real_dlopen ? real_dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
	if (!h)
		return -ENOENT;
	load = (sb_loader_fn)dlsym(h, "sprofil_bpf_loader_load");
	return load ? load(p->fd) : -ENOENT;
#endif
}

int sb_program(const struct spb_program **out)
{
	const char *share = sp_setting(SPB_SHARE_ENV);
	int err, saved = errno;

	if (!sb_prog_ready) {
		err = share && *share ? sb_share_receive(share, &sb_prog) : -1;
		if (err) {
			err = sb_load_here(&sb_prog);
			if (err)
				return err;
		}
		sb_prog_ready = true;
		/* A server that was not there is no error of the caller's. */
		errno = saved;
	}
	*out = &sb_prog;
	return 0;
}
