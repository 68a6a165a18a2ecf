/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Workloads and measurements shared by the module's in-VM tests
 * (tests/kmod) and libsprofil's suite (tests/lib): functions whose cost
 * per iteration is the same, so a CPU split can be known by construction,
 * and the clocks and bucket sums the tests check samples against.
 */
#ifndef SPROFIL_TEST_WORKLOAD_H
#define SPROFIL_TEST_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

/* Address and size of a function (the tests link with -rdynamic). */
struct wl_func {
	uintptr_t start;
	size_t size;
};
struct wl_func wl_func_extent(void *fn);

/*
 * Every wl_work_* runs the same loop body, and so does kt_lib_work() in
 * the tests' shared library (tests/kmod/libkt_spin.c): @n iterations cost
 * the same CPU in each.  wl_calibrate() returns the iterations that take
 * about @seconds of CPU.
 */
uint64_t wl_work_a(uint64_t n);
uint64_t wl_work_b(uint64_t n);
uint64_t wl_work_c(uint64_t n);
uint64_t wl_work_d(uint64_t n);
uint64_t kt_lib_work(uint64_t n);
uint64_t wl_calibrate(double seconds);

/*
 * Iterations per second of the calling thread's CPU time of @run(n), a
 * loop of n iterations: n grown until one run takes 50 ms.
 */
double wl_rate(void (*run)(uint64_t n));

/* CPU time of the calling thread, and of the whole process. */
double wl_thread_seconds(void);
double wl_cpu_seconds(void);

/*
 * Calls @fn with @chunk iterations until the calling thread has spent
 * @seconds of CPU (a split in CPU time holds even where equal iteration
 * counts are not equal CPU time, as under qemu TCG); returns the CPU time
 * it really took.
 */
double wl_spin_cpu(uint64_t (*fn)(uint64_t), uint64_t chunk, double seconds);

/*
 * Whether @ratio, the CPU time short-lived threads were sampled for over
 * the CPU time they took, shows them accounted for under qemu TCG.  There
 * the guest's tick split of user and system time, which the carry of
 * their unfinished periods follows as getrusage() does, is no oracle: on
 * 6.1-rt it puts about 1 ms of each thread's start and exit in user mode.
 * So this checks what the carry does, not how accurately: a thread's work
 * is neither dropped (0.16-0.19 without the carry) nor counted twice.
 * Accuracy is judged on the host (docs/testing.md).
 */
int wl_tcg_short_threads_accounted(double ratio);

/* An anonymous private mapping with @prot, or NULL. */
void *wl_map(size_t bytes, int prot);

/* Sum of buckets [first, last) of a 16-bit, or with @flags bit 0 (PROF_UINT,
 * SPROFIL_UINT) 32-bit, buffer. */
uint64_t wl_sum(const void *buf, unsigned int flags, size_t first,
		size_t last);

/*
 * Moves into a new scratch directory /tmp/<name>.XXXXXX, where the
 * programs under test write their profiles; wl_leave_tmpdir() goes back
 * and removes it.  Both return 0 or -1.
 */
int wl_enter_tmpdir(const char *name);
int wl_leave_tmpdir(void);

#endif /* SPROFIL_TEST_WORKLOAD_H */
