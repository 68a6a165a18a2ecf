/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The shape of pg_manyarcs.c, shared with the programs that call it and
 * the driver that checks their profiles.
 */
#ifndef SPROFIL_PG_MANYARCS_H
#define SPROFIL_PG_MANYARCS_H

#define PGARCS_NFUNCS	512	/* pgarc_000 .. pgarc_777, octal */
#define PGARCS_NSITES	400	/* call sites in sweep() */
#define PGARCS_ROUNDS	3	/* sweeps: every arc's count */
#define PGARCS_ARCS	(PGARCS_NSITES * PGARCS_NFUNCS)
#define PGARCS_CALLS	(PGARCS_ARCS * PGARCS_ROUNDS)

/* ROUNDS sweeps, each calling every function from every site once. */
void pgarcs_run(void);

#endif
