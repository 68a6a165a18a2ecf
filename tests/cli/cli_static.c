// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Built -static: record samples it from outside (the bpf backend) and
 * refuses it on signal, which must preload a collector.  Its work is in
 * static_work, by CPU time.
 */
#include <stdio.h>
#include "cli_burn.h"

__attribute__((noinline)) unsigned long static_work(void)
{
	return cli_burn_ms(600);
}

/* The work's result goes somewhere: the compiler keeps the work. */
static volatile unsigned long sink;

int main(void)
{
	sink = static_work();
	return puts("ran") == EOF;
}
