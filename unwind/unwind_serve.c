// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sprofil-unwind --serve NAME -O DIR: the unwind table server of a
 * `sprofil record` run on the signal backend (docs/callers.md, "Tables
 * for a recorded tree").  Each process of the run, at its start, asks
 * on the abstract unix socket NAME for the modules it has loaded whose
 * table DIR lacks (libsprofil/backends/unwind_load.c); the server
 * builds each with libdw, once, writes it as DIR/<build-id>.spu and
 * answers one byte per request.  libdw stays here: the profiled
 * processes only map the tables.
 *
 * Requests are served one connection at a time, so that two processes
 * asking for the same module build it once; a connection that says
 * nothing for CLIENT_TIMEOUT_S is dropped.  It says "ready" on stdout
 * once it serves and serves until its stdin ends (record holds the other
 * end).  Only processes of the same user (or root) are served.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "unwind_build.h"
#include "unwind_serve.h"
#include "run_server.h"

#define CLIENT_TIMEOUT_S	10
/* Modules whose build failed: not tried again for each process. */
#define FAILED_MAX		256

static char *failed[FAILED_MAX];
static unsigned int nfailed;

static bool failed_before(const char *path)
{
	unsigned int i;

	for (i = 0; i < nfailed; i++)
		if (!strcmp(failed[i], path))
			return true;
	return false;
}

/*
 * Writes @bytes of @t as @dir/<hex>.spu: a file of its own renamed into
 * place, so that a process never maps half a table, mode 0644 whatever
 * the umask (the library refuses tables others may write).
 */
int spu_write_named(const char *dir, const char *hex, const void *t,
		    size_t bytes, char *err, size_t errlen)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	const char *p = t;
	size_t done = 0;
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s.spu", dir, hex) >=
	    sizeof(path) ||
	    (size_t)snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, hex) >=
	    sizeof(tmp)) {
		snprintf(err, errlen, "%s: %s", dir, strerror(ENAMETOOLONG));
		return -1;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	errno = 0;
	while (done < bytes) {
		ssize_t n = write(fd, p + done, bytes - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	if (done < bytes || fchmod(fd, 0644)) {
		snprintf(err, errlen, "%s: %s", tmp,
			 strerror(done < bytes && !errno ? EIO : errno));
		close(fd);
		unlink(tmp);
		return -1;
	}
	if (close(fd)) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		unlink(tmp);
		return -1;
	}
	if (rename(tmp, path)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* Builds the table of module @path into @dir; 0 when it is there. */
static int build_one(const char *dir, const char *path)
{
	char err[PATH_MAX + 512], id[2 * SPU_BUILD_ID_MAX + 1];
	struct spu_build_stats st;
	struct spu_header *h;
	size_t bytes;
	__u32 k;
	int r = -1;

	if (failed_before(path))
		return -1;
	h = spu_build_file(path, &bytes, &st, err, sizeof(err));
	if (h && !h->build_id_len)
		snprintf(err, sizeof(err), "%s: no build-id to name its table by",
			 path);
	if (h && h->build_id_len) {
		for (k = 0; k < h->build_id_len; k++)
			sprintf(id + 2 * k, "%02x", h->build_id[k]);
		r = spu_write_named(dir, id, h, bytes, err, sizeof(err));
	}
	free(h);
	if (r) {
		fprintf(stderr, "sprofil-unwind: %s\n", err);
		if (nfailed < FAILED_MAX)
			failed[nfailed++] = strdup(path);
	}
	return r;
}

/* Answers the requests of one connected process until it closes. */
static void serve_client(int c, const char *dir)
{
	struct timeval tv = { .tv_sec = CLIENT_TIMEOUT_S };
	char path[PATH_MAX + 1];

	setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	for (;;) {
		ssize_t n = recv(c, path, sizeof(path) - 1, 0);
		unsigned char answer;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		path[n] = '\0';
		answer = path[0] == '/' && !build_one(dir, path) ? 0 : 1;
		if (send(c, &answer, 1, MSG_NOSIGNAL) != 1)
			return;
	}
}

static void serve_one(int conn, void *dir)
{
	serve_client(conn, dir);
}

int spu_serve(const char *name, const char *dir)
{
	struct run_server srv = {
		.who = "sprofil-unwind", .serve = serve_one,
		.arg = (void *)dir,
	};

	/* Build errors stay on record's stderr. */
	return run_server(name, &srv);
}
