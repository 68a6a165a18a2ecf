// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * _exit() and _Exit(), wrapped for `sprofil record` (record.c): a
 * process that ends through them never runs atexit(_mcleanup), and many
 * do (dash's exit builtin, a forked child that must not flush its
 * parent's stdio), so the collector's profile is written first, as
 * before an exec.  Without `sprofil record` they only exit: a -pg
 * program's _exit() writes nothing, as with glibc.  exit() reaches the
 * kernel through libc's internal call, not through here.
 */
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pg/gmon.h"

void _exit(int status)
{
	/* Not in a vfork child: sp_gmon_before_exec() checks the pid. */
	if (sp_recording())
		sp_gmon_before_exec();
	for (;;)
		syscall(SYS_exit_group, status);
}

void _Exit(int status) __attribute__((alias("_exit")));
