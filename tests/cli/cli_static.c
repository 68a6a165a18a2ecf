// SPDX-License-Identifier: GPL-2.0-or-later
/* Built -static: record must refuse it (no loader to preload into). */
#include <stdio.h>

int main(void)
{
	return puts("ran") == EOF;
}
