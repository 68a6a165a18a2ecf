// SPDX-License-Identifier: GPL-2.0-or-later
/* What cli-tree execs: its own work, in leaf_work. */
#include "cli_burn.h"

__attribute__((noinline)) unsigned long leaf_work(void)
{
	return cli_burn_ms(300);
}

int main(void)
{
	return leaf_work() == 42;
}
