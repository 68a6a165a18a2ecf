// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pg-arclib: pg_manyarcs.c's 204,800 arcs, in the -pg shared library
 * libpgarcs.so it is linked with.
 */
#include <stdio.h>
#include "pg_manyarcs.h"

int main(void)
{
	pgarcs_run();
	printf("pg-arclib: %d calls over %d arcs in libpgarcs.so\n",
	       PGARCS_CALLS, PGARCS_ARCS);
	return 0;
}
