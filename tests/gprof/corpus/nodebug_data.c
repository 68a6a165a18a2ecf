// SPDX-License-Identifier: GPL-2.0-or-later
/* Data only, compiled with -g: see nodebug.c. */
int nodebug_table[4] = { 1, 2, 3, 4 };
