// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The library of tests/gprof/run-trust, built there with
 * -fno-toplevel-reorder so that the static function lies between the
 * two exported ones: stripped, it has no dynamic symbol, and its time
 * must come from a separate debug file, or else show as a gap
 * ("libtrust.so+0x..."), never as trust_global's.  Never run.
 */
static volatile unsigned long sink;

static unsigned long trust_static(unsigned long n);

__attribute__((noinline)) unsigned long trust_global(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink ^= i;
	return trust_static(n);
}

__attribute__((noinline)) static unsigned long trust_static(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 3;
	return sink;
}

__attribute__((noinline)) unsigned long trust_after(unsigned long n)
{
	return trust_global(n) + 1;
}

#ifdef TRUST_MARKER
/* libsprofil's API: marks a library as the profiler whatever its name. */
int sprofil_info(void *info)
{
	(void)info;
	return 0;
}
#endif
