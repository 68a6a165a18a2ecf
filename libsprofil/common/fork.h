/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fork() and libsprofil's locks.  No fork may copy one of them held (the
 * child could never take it again), so fork takes them all first; and
 * it must take them in the one order every other path nests them in, or
 * a fork racing with, say, a SPROFIL_SIGDUMP dump deadlocks.  fork.c
 * owns that order; each file with a lock gives it these three steps.
 */
#ifndef LIBSPROFIL_FORK_H
#define LIBSPROFIL_FORK_H

/*
 * Registers fork.c's one set of handlers, once.  Called by every entry
 * that may take a lock first (the constructor, __monstartup, which a -pg
 * library's _init can call before any constructor of ours, the
 * sprofil() front end and smonitor()), so that the order of the locks
 * never depends on the order in which the library was initialised.
 */
void sp_fork_handlers_register(void);

/* smonitor.c: mon_lock. */
void sp_monitor_fork_prepare(void);
void sp_monitor_fork_parent(void);
void sp_monitor_fork_child(void);

/* gmon.c: gm_lock; the child's profile restarts from zero. */
void sp_gmon_fork_prepare(void);
void sp_gmon_fork_parent(void);
void sp_gmon_fork_child(void);

/* profil.c: the front end's lock; the child's sampling starts again. */
void sp_front_fork_prepare(void);
void sp_front_fork_parent(void);
void sp_front_fork_child(void);

/* gmon_write.c: wr_lock and gone_lock; the child names its own files. */
void sp_writer_fork_prepare(void);
void sp_writer_fork_parent(void);
void sp_writer_fork_child(void);

/* thread_table.c: its lock, taken last; the child's table is empty. */
void sp_thread_table_fork_prepare(void);
void sp_thread_table_fork_parent(void);
void sp_thread_table_fork_child(void);

/* threads.c: under ASan, new threads may get stacks fork left (no lock). */
void sp_threads_fork_child(void);

/* sigdump.c: the child's own dump thread (no lock). */
void sp_sigdump_fork_child(void);

#endif /* LIBSPROFIL_FORK_H */
