/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The servers of a record run (cli/bpf_share.c, unwind/unwind_serve.c):
 * one abstract unix socket, "ready" on stdout once listening, and
 * connections of the same user (or root) served one at a time until
 * record's end of our stdin closes.
 */
#ifndef SPROFIL_RUN_SERVER_H
#define SPROFIL_RUN_SERVER_H

#include <stdbool.h>

struct run_server {
	/* Prefixes the server's error messages. */
	const char *who;
	/* Serves one accepted connection; the caller closes it. */
	void (*serve)(int conn, void *arg);
	/* Called after idle_ms without a connection; NULL: never. */
	void (*idle)(void *arg);
	int idle_ms;
	/* Whether stderr, like stdout, goes to /dev/null once ready. */
	bool quiet_stderr;
	void *arg;
};

/* Serves on abstract socket @name until stdin ends: 0, or 1 said. */
int run_server(const char *name, const struct run_server *srv);

#endif
