/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The workload of tests/unit/test_unwind_oracle.c (unwind_work.c). */
#ifndef UNWIND_WORK_H
#define UNWIND_WORK_H

extern volatile int uw_stop;

/* Runs the chains until uw_stop is set (by the caller's signal handler). */
void uw_run(void);

unsigned long uw_work(unsigned long n);
unsigned long uw_mid(unsigned long n);
unsigned long uw_sort(unsigned long n);
unsigned long uw_vla(unsigned long n);
void uw_trap(void);

#endif /* UNWIND_WORK_H */
