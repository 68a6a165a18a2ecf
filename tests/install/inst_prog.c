// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The installed library as a user gets it: built through pkg-config
 * only (tests/install/run-install), dynamic, static or -pg.  Profiles
 * its own text from monstartup() to _mcleanup() (gcrt1.o does both for
 * the -pg build), so that gmon.out has burn()'s samples, and checks
 * that sprofil_info(), a versioned symbol, answers.  INST_PLAIN: burn()
 * alone, for sprofil record.  check-dkms-vm runs it in the VM on the
 * kmod backend, linked with the tree's libsprofil.a.
 */
#include <stdio.h>
#include <sprofil.h>

extern char __executable_start[], etext[];

static volatile unsigned long sink;

/*
 * About half a second of user time, in one function gprof can name;
 * check-dkms-vm asks for less, as qemu's TCG runs it several times
 * slower.
 */
#ifndef INST_LOOPS
#define INST_LOOPS 400000000UL
#endif

static void __attribute__((noinline)) burn(void)
{
	unsigned long i;

	for (i = 0; i < INST_LOOPS; i++)
		sink += i;
}

#ifdef INST_PLAIN
int main(void)
{
	burn();
	return 0;
}
#else
int main(void)
{
	struct sprofil_info info;

#ifndef INST_PG
	monstartup((unsigned long)__executable_start, (unsigned long)etext);
#endif
	burn();
	if (sprofil_info(&info)) {
		perror("sprofil_info");
		return 1;
	}
	printf("backend %s, %llu samples\n", info.backend,
	       (unsigned long long)info.samples);
#ifndef INST_PG
	_mcleanup();
#endif
	return 0;
}
#endif
