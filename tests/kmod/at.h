/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the attack_* programs, which run sprofil.ko in the VM as a
 * hostile user would: one TAP line per check, timed children, identity
 * changes, and buffers whose page faults somebody else holds (a
 * userfaultfd nobody serves, a FUSE file whose reads are never answered).
 */
#ifndef SPROFIL_AT_H
#define SPROFIL_AT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "kmod_test.h"

/* Unprivileged identities used in the VM (no /etc/passwd needed). */
#define AT_UID_A	65534
#define AT_UID_B	65533

/* Prints "ok - NAME" or "not ok - NAME"; returns @ok. */
bool at_check(bool ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Prints "ok - NAME # SKIP WHY". */
void at_skip(const char *why, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Exit status for main(): 1 if any check failed. */
int at_done(void);

double at_now(void);
void at_sleep(double seconds);
/* A positive integer from the environment, or @def. */
long at_env_long(const char *name, long def);

/*
 * Drops root for good: no groups, real/effective/saved ids @uid, and
 * dumpable (so the user's own processes may ptrace it).
 */
int at_become(uid_t uid);

/* xorshift64*, seeded; same seed, same run. */
uint64_t at_rnd(void);
void at_seed(uint64_t seed);

/*
 * Runs @fn(@arg) in a child and returns its pid; the child exits with
 * @fn's return value.
 */
pid_t at_spawn(int (*fn)(void *), void *arg);
/*
 * Waits up to @timeout seconds for @pid.  Returns the seconds waited and
 * sets *@status, or returns -1 if @pid is still running.
 */
double at_wait(pid_t pid, double timeout, int *status);
/* True if @status is a normal exit with status 0. */
bool at_exited_ok(int status);

/* Waits up to @timeout s for the module's @param to read @want. */
bool at_param_settles(const char *param, long want, double timeout);

/*
 * A private anonymous mapping of @len bytes registered with a new
 * userfaultfd for missing pages; returns the userfaultfd or -errno.
 */
int at_uffd_map(size_t len, void **addr);
/*
 * Serves every fault of @uffd with a zero page, each @delay seconds after
 * it came, from a thread that lives as long as the process; @uffd must
 * stay open.
 */
int at_uffd_serve_thread(int uffd, double delay);

/* FUSE server modes: how reads of the file's pages are answered. */
enum at_fuse_mode {
	AT_FUSE_SERVE,		/* at once */
	AT_FUSE_SLOW,		/* after 20 ms each */
	AT_FUSE_HOLD,		/* never */
};

#define AT_FUSE_FILE	"f"
#define AT_FUSE_SIZE	(1 << 20)

struct at_fuse {
	pid_t pid;		/* server process */
	int held;		/* readable once a read is being held */
	char mnt[64];
	char path[80];		/* the one file, AT_FUSE_SIZE bytes */
};

/*
 * Loads fuse.ko if needed (FUSE_KO in the environment names it), mounts
 * a one-file FUSE file system served by a child process on @mnt, for any
 * user (allow_other).  Returns 0 or -errno (-ENODEV: no FUSE here).
 */
int at_fuse_start(struct at_fuse *f, const char *mnt, enum at_fuse_mode m);
/*
 * From now on the server holds every read (one it is answering is
 * answered); 0 or -ESRCH.
 */
int at_fuse_hold(struct at_fuse *f);
/* Kills the server (aborting held requests) and unmounts. */
void at_fuse_stop(struct at_fuse *f);

#endif /* SPROFIL_AT_H */
