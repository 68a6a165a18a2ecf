// SPDX-License-Identifier: GPL-2.0
/*
 * A statically linked program for test_outside: profiled from outside,
 * it has no libsprofil and no dynamic loader.  It says where its text is
 * and where its hot function starts, waits for a byte on stdin, spins in
 * that function for argv[1] seconds of CPU time (by its own clock, as the
 * VM's TCG speed varies), says its CPU time, waits for another byte and
 * exits.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

extern const char __executable_start[], etext[];

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The hot function: about a millisecond of work a call. */
static __attribute__((noinline)) uint64_t static_hot(uint64_t n)
{
	volatile uint64_t x = 1;

	while (n--)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0, t0;
	struct rusage ru;
	char c;

	printf("%lx %lx %lx\n", (unsigned long)__executable_start,
	       (unsigned long)etext, (unsigned long)static_hot);
	fflush(stdout);
	if (read(0, &c, 1) != 1)
		return 1;
	t0 = cpu_seconds();
	while (cpu_seconds() - t0 < seconds)
		static_hot(100000);
	getrusage(RUSAGE_SELF, &ru);
	/* User and system: a tick-sampled split may move time between them. */
	printf("%f\n", ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	fflush(stdout);
	return read(0, &c, 1) == 1 ? 0 : 1;
}
