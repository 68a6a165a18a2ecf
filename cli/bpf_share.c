// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `sprofil-probe --serve NAME`: the record run's bpf program server.
 * Loads the bpf backend's program once (the kernel's verifier and
 * libbpf's reading of the kernel's BTF: a quarter to half a second of
 * CPU), then hands its descriptors to every process of the run that
 * connects to the abstract unix socket NAME, which record puts in their
 * SPROFIL_BPF_SHARE (libsprofil/backends/backend_bpf_program.c receives
 * them).
 * A new process then costs a few maps and perf events, never a load
 * (docs/backends.md, "One program for a process tree").
 *
 * It says "ready" on stdout once it serves, and serves until its stdin
 * ends: record holds the other end of that pipe, so the server ends
 * with record however record ends.  Only processes of the same user (or
 * root) get the descriptors.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "sprofil_skel_load.h"
#include "probe_helper.h"

/* Every so often, the registrations of processes gone are taken out. */
#define SWEEP_MS	250
/* Processes swept per batch. */
#define SWEEP_BATCH	256

/*
 * Takes the registrations of processes that ended out of @prog: their
 * inner maps (a state, a tree, counters: about 2 MB each with chains)
 * would otherwise live as long as the program.  A process takes itself
 * out only when its session ends, not at exit, where each removal would
 * wait for an RCU grace period (the kernel's rule for map-in-map
 * updates).  One batch per outer map, so the waits do not add up per
 * process.  A pid reused meanwhile by a new process of the run keeps its
 * new registration: only pids with no process are taken.
 */
static void sweep(const struct spb_program *prog)
{
	uint32_t dead[SWEEP_BATCH], key, next, n = 0, count;
	static const int outer[] = {
		SPB_FD_PROCS, SPB_FD_PCOUNTS, SPB_FD_PCNODES, SPB_FD_PCDIRTY,
		SPB_FD_PUNWIND,
	};
	union bpf_attr a;
	unsigned int i;
	void *at = NULL;

	while (n < SWEEP_BATCH &&
	       !bpf_map_get_next_key(prog->fd[SPB_FD_PROCS], at, &next)) {
		key = next;
		at = &key;
		if (kill((pid_t)key, 0) && errno == ESRCH)
			dead[n++] = key;
	}
	for (i = 0; n && i < sizeof(outer) / sizeof(outer[0]); i++) {
		memset(&a, 0, sizeof(a));
		a.batch.map_fd = (uint32_t)prog->fd[outer[i]];
		a.batch.keys = (uintptr_t)dead;
		a.batch.count = count = n;
		/* Older kernels without batches for this map: one by one. */
		if (spb_sys(BPF_MAP_DELETE_BATCH, &a) && errno != ENOENT)
			while (count--)
				spb_map_delete(prog->fd[outer[i]], &dead[count]);
	}
}

/* Sends the program's descriptors to the process connected on @fd. */
static void hand_over(int fd, const struct spb_program *prog)
{
	union {
		char buf[CMSG_SPACE(SPB_NFDS * sizeof(int))];
		struct cmsghdr align;
	} control;
	uint32_t magic = SPB_SHARE_MAGIC;
	struct iovec iov = { .iov_base = &magic, .iov_len = sizeof(magic) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control.buf,
		.msg_controllen = sizeof(control.buf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	struct ucred peer;
	socklen_t len = sizeof(peer);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) ||
	    (peer.uid != geteuid() && peer.uid != 0))
		return;
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(SPB_NFDS * sizeof(int));
	memcpy(CMSG_DATA(c), prog->fd, sizeof(prog->fd));
	while (sendmsg(fd, &msg, MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
}

int probe_serve(const char *name)
{
	struct sprofil_bpf *skel = NULL;
	struct spb_program prog;
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	size_t len = strlen(name);
	struct pollfd pfd[2];
	int fd, c, err, null;

	if (!len || len + 1 > sizeof(addr.sun_path)) {
		fprintf(stderr, "%s: not a socket name\n", name);
		return 1;
	}
	memcpy(addr.sun_path + 1, name, len);
	err = spb_load_quietly(&skel);
	if (err) {
		fprintf(stderr, "cannot load the bpf program: %s\n",
			strerror(-err));
		return 1;
	}
	spb_program_of(skel, &prog);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr,
			   offsetof(struct sockaddr_un, sun_path) + 1 + len) ||
	    listen(fd, 128)) {
		fprintf(stderr, "%s: %s\n", name, strerror(errno));
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	/* Record reads our output until it ends. */
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, 1);
		dup2(null, 2);
		close(null);
	}
	pfd[0] = (struct pollfd){ .fd = fd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = 0, .events = POLLIN };
	for (;;) {
		int ready = poll(pfd, 2, SWEEP_MS);

		if (ready < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (!ready) {
			sweep(&prog);
			continue;
		}
		/* Record is gone, or done: its end of our stdin closed. */
		if (pfd[1].revents)
			break;
		if (!(pfd[0].revents & POLLIN))
			continue;
		c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			continue;
		hand_over(c, &prog);
		close(c);
	}
	close(fd);
	sprofil_bpf__destroy(skel);
	return 0;
}
