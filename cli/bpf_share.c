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
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "sprofil_skel_load.h"
#include "probe_helper.h"
#include "run_server.h"

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

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(SPB_NFDS * sizeof(int));
	memcpy(CMSG_DATA(c), prog->fd, sizeof(prog->fd));
	while (sendmsg(fd, &msg, MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
}

static void serve_one(int conn, void *prog)
{
	hand_over(conn, prog);
}

static void sweep_idle(void *prog)
{
	sweep(prog);
}

int probe_serve(const char *name)
{
	struct sprofil_bpf *skel = NULL;
	struct spb_program prog;
	struct run_server srv = {
		.who = "sprofil-probe", .serve = serve_one,
		.idle = sweep_idle, .idle_ms = SWEEP_MS,
		.quiet_stderr = true, .arg = &prog,
	};
	int err, ret;

	err = spb_load_quietly(&skel);
	if (err) {
		fprintf(stderr, "cannot load the bpf program: %s\n",
			strerror(-err));
		return 1;
	}
	spb_program_of(skel, &prog);
	ret = run_server(name, &srv);
	sprofil_bpf__destroy(skel);
	return ret;
}
