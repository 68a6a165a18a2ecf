// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The exec family, wrapped so that a program started by a profiled one is
 * not killed by a sampling signal queued before the exec (glibc's
 * "Profiling timer expired" bug): the signal backend's before_exec op
 * (backend.h) deletes our timers and drains their signals, and if the
 * exec fails sampling resumes.
 * A gcc -pg process also writes its profile first (sp_gmon_before_exec()),
 * since the new image never runs its atexit(_mcleanup).
 *
 * Each wrapper ends in the real execve, execvpe, fexecve or execveat; the
 * list forms build their argv on the stack, because an exec may run in a
 * vfork child, where malloc is not safe.  The real functions are looked up
 * at load time for the same reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backends/backend.h"
#include "interpose/libc_next.h"
#include "pg/gmon.h"

typedef int (*sp_execve_fn)(const char *, char *const[], char *const[]);
typedef int (*sp_fexecve_fn)(int, char *const[], char *const[]);
typedef int (*sp_execveat_fn)(int, const char *, char *const[],
			      char *const[], int);

static sp_execve_fn real_execve, real_execvpe;
static sp_fexecve_fn real_fexecve;
static sp_execveat_fn real_execveat;

/*
 * A static program's (libc_next.h): the PATH search is glibc's, whose
 * __execvpe posix_spawnp's member reaches; the others are one system
 * call each, as in glibc.
 */
extern int __execvpe(const char *file, char *const argv[],
		     char *const envp[]) __attribute__((weak));
SP_LIBC_ANCHOR(posix_spawnp);

static int sp_sys_execve(const char *path, char *const argv[],
			 char *const envp[])
{
	return syscall(SYS_execve, path, argv, envp);
}

static int sp_sys_execveat(int dirfd, const char *path, char *const argv[],
			   char *const envp[], int flags)
{
	return syscall(SYS_execveat, dirfd, path, argv, envp, flags);
}

static int sp_sys_fexecve(int fd, char *const argv[], char *const envp[])
{
	return sp_sys_execveat(fd, "", argv, envp, AT_EMPTY_PATH);
}

__attribute__((constructor)) static void sp_exec_init(void)
{
	real_execve = (sp_execve_fn)sp_libc_next("execve", sp_sys_execve);
	real_execvpe = (sp_execve_fn)sp_libc_next("execvpe", __execvpe);
	real_fexecve = (sp_fexecve_fn)sp_libc_next("fexecve", sp_sys_fexecve);
	real_execveat = (sp_execveat_fn)sp_libc_next("execveat",
						     sp_sys_execveat);
}

/* The exec returned: it failed, with errno set. */
static int sp_exec_failed(unsigned int suspended)
{
	sp_backends_after_failed_exec(suspended);
	return -1;
}

static int sp_no_exec(void)
{
	errno = ENOSYS;
	return -1;
}

int execve(const char *path, char *const argv[], char *const envp[])
{
	unsigned int suspended;

	if (!real_execve)
		return sp_no_exec();
	sp_gmon_before_exec();
	suspended = sp_backends_before_exec();
	real_execve(path, argv, envp);
	return sp_exec_failed(suspended);
}

int execvpe(const char *file, char *const argv[], char *const envp[])
{
	unsigned int suspended;

	if (!real_execvpe)
		return sp_no_exec();
	sp_gmon_before_exec();
	suspended = sp_backends_before_exec();
	real_execvpe(file, argv, envp);
	return sp_exec_failed(suspended);
}

int fexecve(int fd, char *const argv[], char *const envp[])
{
	unsigned int suspended;

	if (!real_fexecve)
		return sp_no_exec();
	sp_gmon_before_exec();
	suspended = sp_backends_before_exec();
	real_fexecve(fd, argv, envp);
	return sp_exec_failed(suspended);
}

int execveat(int dirfd, const char *path, char *const argv[],
	     char *const envp[], int flags)
{
	unsigned int suspended;

	if (!real_execveat)
		return sp_no_exec();
	sp_gmon_before_exec();
	suspended = sp_backends_before_exec();
	real_execveat(dirfd, path, argv, envp, flags);
	return sp_exec_failed(suspended);
}

int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

/* Entries of a list form's argv, from @arg0 to the NULL that ends it. */
static size_t sp_count_args(const char *arg0, va_list ap)
{
	size_t n = 1;

	for (; arg0; arg0 = va_arg(ap, const char *))
		n++;
	return n;
}

/*
 * Fills @argv (sp_count_args() entries) and returns what follows the NULL
 * when @envp is wanted (execle).
 */
static char **sp_collect_args(char **argv, const char *arg0, va_list ap,
			      bool envp)
{
	size_t i = 0;

	argv[0] = (char *)arg0;
	while (argv[i])
		argv[++i] = va_arg(ap, char *);
	return envp ? va_arg(ap, char **) : NULL;
}

int execl(const char *path, const char *arg0, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, arg0);
	n = sp_count_args(arg0, ap);
	va_end(ap);
	{
		char *argv[n];

		va_start(ap, arg0);
		sp_collect_args(argv, arg0, ap, false);
		va_end(ap);
		return execve(path, argv, environ);
	}
}

int execlp(const char *file, const char *arg0, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, arg0);
	n = sp_count_args(arg0, ap);
	va_end(ap);
	{
		char *argv[n];

		va_start(ap, arg0);
		sp_collect_args(argv, arg0, ap, false);
		va_end(ap);
		return execvpe(file, argv, environ);
	}
}

int execle(const char *path, const char *arg0, ...)
{
	va_list ap;
	char **envp;
	size_t n;

	va_start(ap, arg0);
	n = sp_count_args(arg0, ap);
	va_end(ap);
	{
		char *argv[n];

		va_start(ap, arg0);
		envp = sp_collect_args(argv, arg0, ap, true);
		va_end(ap);
		return execve(path, argv, envp);
	}
}
