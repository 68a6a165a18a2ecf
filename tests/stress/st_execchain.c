// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * An exec chain: st-execchain LEVEL LAST ROOT.  Each image moves into
 * ROOT/e<LEVEL>, starts a thread calling bg_work(), calls level_work()
 * 100 + LEVEL times, prints
 *
 *   level <LEVEL> <pid> <level_work calls>
 *
 * and execs itself for LEVEL + 1 (execv, execve, execvp and execl in
 * turn, each one libsprofil must see) until LAST, which exits.  Every
 * image writes its profile, before the exec, into its own directory
 * (the process keeps its pid, so the names alone would collide), and
 * none of them is killed by a profiling signal left over from the one
 * before.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "st_pg.h"

extern char **environ;
/* Per thread: the threads share no data (ThreadSanitizer runs this). */
static _Thread_local volatile uint64_t sink;
static atomic_int bg_stop;

PG_FUNC void level_work(void)
{
	sink += burn(0.0002);
}

PG_FUNC void bg_work(void)
{
	sink++;
}

static void *bg_thread(void *arg)
{
	(void)arg;
	for (unsigned int i = 0; !atomic_load(&bg_stop); i++) {
		bg_work();
		if (i % 256 == 0)
			usleep(100);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	char dir[4096], next[16], self[4096];
	int level, last, calls;
	pthread_t bg;
	ssize_t n;

	if (argc < 4) {
		dprintf(2, "usage: %s LEVEL LAST ROOT\n", argv[0]);
		return 2;
	}
	level = atoi(argv[1]);
	last = atoi(argv[2]);
	snprintf(dir, sizeof(dir), "%s/e%d", argv[3], level);
	if ((mkdir(dir, 0777) && errno != EEXIST) || chdir(dir)) {
		perror(dir);
		return 2;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 2;
	self[n] = '\0';
	st_describe("level_work", (void *)level_work);
	if (pthread_create(&bg, NULL, bg_thread, NULL))
		return 2;
	calls = 100 + level;
	for (int i = 0; i < calls; i++)
		level_work();
	dprintf(1, "level %d %d %d\n", level, (int)getpid(), calls);
	if (level >= last) {
		atomic_store(&bg_stop, 1);
		pthread_join(bg, NULL);
		return 0;
	}
	/* The thread is still calling bg_work(): exec takes it down. */
	snprintf(next, sizeof(next), "%d", level + 1);
	switch (level % 4) {
	case 0:
		execv(self, (char *[]){ self, next, argv[2], argv[3], NULL });
		break;
	case 1:
		execve(self, (char *[]){ self, next, argv[2], argv[3], NULL },
		       environ);
		break;
	case 2:
		execvp(self, (char *[]){ self, next, argv[2], argv[3], NULL });
		break;
	default:
		execl(self, self, next, argv[2], argv[3], (char *)NULL);
		break;
	}
	perror("st-execchain: exec");
	return 127;
}
