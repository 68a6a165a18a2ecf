// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * SPROFIL_SIGDUMP: work A, a dump, work B, a dump, work C, exit.  Each
 * piece of work has its own functions (aN calls to a1 from work_a, and so
 * on, plus CPU), so a dump that holds anything from another piece shows
 * up by name.  argv[1] is the file name the dumps extend ("gmon.out":
 * the dumps are gmon.out.1 and gmon.out.2; a %d in it stands for the
 * pid, as in "pfx.%d"), or "-" for no signal at all.
 * The program waits for each dump's file before going on: the dump
 * thread writes it, and the rename makes it appear whole.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "pg_burn.h"

volatile uint64_t sink;

static PG_FUNC void a1(int i)
{
	sink = i;
}

static PG_FUNC void b1(int i)
{
	sink = i;
}

static PG_FUNC void c1(int i)
{
	sink = i;
}

static PG_FUNC void work_a(void)
{
	for (int i = 0; i < 1000; i++)
		a1(i);
	sink = burn(0.2);
}

static PG_FUNC void work_b(void)
{
	for (int i = 0; i < 2000; i++)
		b1(i);
	sink = burn(0.2);
}

static PG_FUNC void work_c(void)
{
	for (int i = 0; i < 3000; i++)
		c1(i);
	sink = burn(0.2);
}

/* Asks for dump @n and waits (10 s at most) until its file is there. */
static int dump(const char *name, int n)
{
	char base[200], file[256];

	if (!strcmp(name, "-"))
		return 0;
	snprintf(base, sizeof(base), name, (int)getpid());
	snprintf(file, sizeof(file), "%s.%d", base, n);
	raise(SIGUSR1);
	for (int i = 0; i < 1000; i++) {
		if (!access(file, F_OK))
			return 0;
		usleep(10000);
	}
	fprintf(stderr, "pg-sigdump: %s never appeared\n", file);
	return 1;
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "gmon.out";

	work_a();
	if (dump(name, 1))
		return 2;
	work_b();
	if (dump(name, 2))
		return 2;
	work_c();
	return 0;
}
