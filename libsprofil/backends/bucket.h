/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Adding to a bucket of the caller's buffer, as kmod/table.c
 * bucket_add() does: by compare-and-swap, since whatever adds the samples
 * (a signal handler, the bpf backend's fold) races with gmon.c taking the
 * counts for a SPROFIL_SIGDUMP dump (an atomic exchange to zero) and with
 * other threads' handlers.  A plain read-modify-write would write back a
 * count the dump already took: it would be in two dumps.
 */
#ifndef LIBSPROFIL_BUCKET_H
#define LIBSPROFIL_BUCKET_H

#include <stdatomic.h>
#include <stdint.h>

#include <sprofil/mapping.h>

/* Adds @n (at most the bucket's maximum) to the bucket at @bucket,
 * saturating; returns the increments lost to a full bucket. */
static inline uint32_t sp_bucket_add(uintptr_t bucket, uint32_t shift,
				     uint32_t n)
{
	uint32_t max = spm_bucket_max(shift), before, next;

	if (shift == 1) {
		_Atomic uint16_t *c = (_Atomic uint16_t *)bucket;
		uint16_t old = atomic_load_explicit(c, memory_order_relaxed);

		do {
			next = spm_saturating_add(old, n, max);
		} while (next != old &&
			 !atomic_compare_exchange_weak_explicit(c, &old, next,
				memory_order_relaxed, memory_order_relaxed));
		before = old;
	} else {
		_Atomic uint32_t *c = (_Atomic uint32_t *)bucket;
		uint32_t old = atomic_load_explicit(c, memory_order_relaxed);

		do {
			next = spm_saturating_add(old, n, max);
		} while (next != old &&
			 !atomic_compare_exchange_weak_explicit(c, &old, next,
				memory_order_relaxed, memory_order_relaxed));
		before = old;
	}
	return n - (next - before);
}

#endif /* LIBSPROFIL_BUCKET_H */
