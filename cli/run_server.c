// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The loop both servers of a record run share (run_server.h).  Record
 * holds the other end of the server's stdin, so the server ends with
 * record however record ends; it reads the server's stdout until "ready"
 * and then until it ends, which is why stdout goes to /dev/null then.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "run_server.h"

static int listen_abstract(const char *who, const char *name)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	size_t len = strlen(name);
	int fd;

	if (!len || len + 1 > sizeof(addr.sun_path)) {
		fprintf(stderr, "%s: %s: not a socket name\n", who, name);
		return -1;
	}
	memcpy(addr.sun_path + 1, name, len);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr,
			   offsetof(struct sockaddr_un, sun_path) + 1 + len) ||
	    listen(fd, 128)) {
		fprintf(stderr, "%s: %s: %s\n", who, name, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Only processes of the server's user, or root's, are served. */
static bool peer_allowed(int conn)
{
	struct ucred peer;
	socklen_t len = sizeof(peer);

	return !getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &peer, &len) &&
	       (peer.uid == geteuid() || peer.uid == 0);
}

int run_server(const char *name, const struct run_server *srv)
{
	int timeout = srv->idle ? srv->idle_ms : -1;
	struct pollfd pfd[2];
	int fd, c, null;

	fd = listen_abstract(srv->who, name);
	if (fd < 0)
		return 1;
	printf("ready\n");
	fflush(stdout);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, 1);
		if (srv->quiet_stderr)
			dup2(null, 2);
		close(null);
	}
	pfd[0] = (struct pollfd){ .fd = fd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = 0, .events = POLLIN };
	for (;;) {
		int ready = poll(pfd, 2, timeout);

		if (ready < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (!ready) {
			srv->idle(srv->arg);
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
		if (peer_allowed(c))
			srv->serve(c, srv->arg);
		close(c);
	}
	close(fd);
	return 0;
}
