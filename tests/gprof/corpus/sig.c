// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A signal handler is entered from the kernel's trampoline in libc, so
 * its caller lies outside the profiled text and gprof shows it as
 * <spontaneous>, with its own callee below it.
 */
#include <signal.h>
#include <string.h>

static volatile unsigned long sink;

void handler_work(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

static void on_usr1(int sig)
{
	handler_work(60000 + sig);
}

void main_work(void)
{
	for (unsigned long i = 0; i < 2000000; i++)
		sink += i;
}

int main(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	for (int i = 0; i < 300; i++)
		raise(SIGUSR1);
	for (int i = 0; i < 30; i++)
		main_work();
	return (int)(sink & 0);
}
