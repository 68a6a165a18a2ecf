// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The smallest dynamic program, for bench/run-in-vm's start-up part:
 * what a process of a recorded tree costs with the collector preloaded,
 * on each backend, is all start-up and exit.
 */
int main(void)
{
	return 0;
}
