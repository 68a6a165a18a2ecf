/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The expected buckets of synthetic PCs, written once, by hand from the
 * contract (docs/contract.md), not computed by <sprofil/mapping.h>:
 * every backend's lookup is compared to these rows (tests/bpf/test_bpf.c
 * runs mapping.h and the BPF program against them, on the host and in
 * the VM on Debian's 6.1 kernel; the module is held to mapping.h by
 * tests/kmod/test_regions.c).
 *
 * The entries are given unsorted and overlap: on overlap the larger
 * offset wins, on equal offsets the later entry; scale 1 is ignored;
 * offset 0 scale 2 is the overflow bin, never a region.
 */
#ifndef SPROFIL_BUCKET_TABLE_H
#define SPROFIL_BUCKET_TABLE_H

#include <stdint.h>

struct bt_entry {
	uint64_t offset;
	uint64_t size;		/* bytes */
	uint32_t scale;
};

struct bt_row {
	uint64_t pc;
	int entry;		/* expected entry index, -1 for none */
	uint64_t bucket;
};

/* 16-bit buckets (PROF_USHORT): one bucket per 2 bytes at scale 0x10000. */
static const struct bt_entry bt_ushort_entries[] = {
	/* 0: 0x1000 buckets over [0x400000, 0x402000) */
	{ 0x400000, 0x2000, 0x10000 },
	/* 1: half scale, 0x80 buckets over [0x401000, 0x401200), inside 0 */
	{ 0x401000, 0x100, 0x8000 },
	/* 2: scale 2, 8 buckets of 64 KiB over [0x7fff00000000, +0x80000) */
	{ 0x7fff00000000ull, 0x10, 2 },
	/* 3: scale 1: ignored */
	{ 0x500000, 0x100, 1 },
	/* 4: the overflow bin */
	{ 0, 2, 2 },
	/* 5: same offset as 0, given later: wins [0x400000, 0x400008) */
	{ 0x400000, 8, 0x10000 },
	/* 6: reaches past the top of the address space: clamped there */
	{ 0xffffffffffff0000ull, 0x100000, 0x10000 },
};

static const struct bt_row bt_ushort_rows[] = {
	{ 0x3fffff, -1, 0 },
	{ 0x400000, 5, 0 },
	{ 0x400007, 5, 3 },
	{ 0x400008, 0, 4 },
	{ 0x400fff, 0, 0x7ff },
	{ 0x401000, 1, 0 },
	{ 0x401003, 1, 0 },		/* (3 / 2) * 0x8000 / 0x10000 */
	{ 0x401004, 1, 1 },
	{ 0x4011ff, 1, 0x7f },
	{ 0x401200, 0, 0x900 },		/* region 1 ends: 0 again */
	{ 0x401fff, 0, 0xfff },
	{ 0x402000, -1, 0 },
	{ 0x500000, -1, 0 },		/* entry 3 is ignored */
	{ 0x7fff00000000ull, 2, 0 },
	{ 0x7fff0007ffffull, 2, 7 },	/* 0x3ffff * 2 / 0x10000 */
	{ 0x7fff00080000ull, -1, 0 },
	{ 0xffffffffffff0000ull, 6, 0 },
	{ 0xfffffffffffffffeull, 6, 0x7fff },
	{ 0xffffffffffffffffull, -1, 0 },	/* segment ends are exclusive */
	{ 0, -1, 0 },
};

/* 32-bit buckets (PROF_UINT): one bucket per 4 bytes at scale 0x10000. */
static const struct bt_entry bt_uint_entries[] = {
	/* 0: 16 buckets over [0x1000, 0x1040) */
	{ 0x1000, 0x40, 0x10000 },
	/* 1: quarter scale, 2 buckets over [0x1020, 0x1040) */
	{ 0x1020, 8, 0x4000 },
};

static const struct bt_row bt_uint_rows[] = {
	{ 0xfff, -1, 0 },
	{ 0x1000, 0, 0 },
	{ 0x101f, 0, 7 },
	{ 0x1020, 1, 0 },
	{ 0x102f, 1, 0 },		/* (0xf / 4) * 0x4000 / 0x10000 */
	{ 0x1030, 1, 1 },
	{ 0x103f, 1, 1 },
	{ 0x1040, -1, 0 },
};

#endif /* SPROFIL_BUCKET_TABLE_H */
