// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The one set of fork handlers of libsprofil, and the order of its locks.
 *
 * Lock order, outermost first; a path may skip any, never go back up:
 *
 *	mon_lock	smonitor.c: a monitor session (dumps, sprofil())
 *	gm_lock		gmon.c: the -pg runtime (scans, dumps, sprofil())
 *	sp_lock		profil.c: the front end; a backend's own lock
 *			nests inside it (backend.h: called with it held)
 *	wr_lock		gmon_write.c: picking a file name to its rename()
 *	gone_lock	gmon_write.c: the modules dlclose() took away
 *	tt_lock		thread_table.c: the exited threads of a per-thread
 *			profile (a dump reads them under wr_lock)
 *
 * pthread_atfork() runs prepare handlers in the reverse order of their
 * registration, and each file used to register its own from wherever it
 * was first used.  When a -pg library's _init called __monstartup before
 * libsprofil's constructors (libz does: crti.o calls __gmon_start__),
 * fork took wr_lock before gm_lock while a SPROFIL_SIGDUMP dump held
 * gm_lock and waited for wr_lock: a deadlock.  Here one prepare handler
 * takes every lock in the order above, whoever registered it first.
 */
#include <pthread.h>
#include "fork.h"

static void fork_prepare(void)
{
	sp_monitor_fork_prepare();
	sp_gmon_fork_prepare();
	sp_front_fork_prepare();
	sp_writer_fork_prepare();
	sp_thread_table_fork_prepare();
}

static void fork_parent(void)
{
	sp_thread_table_fork_parent();
	sp_writer_fork_parent();
	sp_front_fork_parent();
	sp_gmon_fork_parent();
	sp_monitor_fork_parent();
}

/*
 * Only this thread runs in the child, so the order of the unlocks does
 * not matter; gmon.c zeroes the child's histograms before the front end
 * starts the child's sampling, so that no sample of the child is lost.
 */
static void fork_child(void)
{
	sp_threads_fork_child();
	sp_thread_table_fork_child();
	sp_writer_fork_child();
	sp_gmon_fork_child();
	sp_front_fork_child();
	sp_monitor_fork_child();
	/* Last: it starts a thread, which may take the locks at once. */
	sp_sigdump_fork_child();
}

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void fork_register(void)
{
	/* Fails only with ENOMEM, this early: then fork stays as it was. */
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

void sp_fork_handlers_register(void)
{
	pthread_once(&fork_once, fork_register);
}

__attribute__((constructor)) static void fork_init(void)
{
	sp_fork_handlers_register();
}
