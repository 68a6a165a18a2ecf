// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -c: calls found in the code rather than in the profile.  On x86-64 a
 * direct call is E8 followed by a 32-bit displacement from the next
 * instruction; every byte of a function is tried as the start of one,
 * as GNU does, and a target that is exactly the entry of a symbol gets
 * an arc with no calls (shown as 0/0).
 *
 * GNU adds the displacement without sign extension, so on a 64-bit host
 * every call to a lower address lands above 4 GiB and is lost.  Here the
 * displacement is signed: backward calls are found too, and forward ones
 * give exactly GNU's arcs.
 */
#include <string.h>

#include "analyze/analyze.h"

#define CALL_LEN 5		/* E8 and rel32 */

/*
 * GNU only scans the part of a function that a histogram covers, and
 * refuses a function spread over two histograms.  Returns false when
 * nothing is left to scan.
 */
static bool clip_to_histogram(struct profile *prof, uint64_t *lo, uint64_t *hi)
{
	unsigned int i;
	bool found = false;

	for (i = 0; i < prof->num_hist_records; i++) {
		uint64_t l = prof->hist_records[i].lowpc,
			h = prof->hist_records[i].highpc;

		if (l < *lo)
			l = *lo;
		if (h > *hi)
			h = *hi;
		if (l >= h)
			continue;
		if (found)
			fatal("found a symbol that covers several histogram records");
		found = true;
		*lo = l;
		*hi = h;
	}
	return found;
}

static void try_call(struct profile *prof, struct sym *parent, uint64_t pc,
		     const unsigned char *ip)
{
	int32_t disp;
	uint64_t dest;
	struct sym *child;

	if (ip[0] != 0xe8)
		return;
	memcpy(&disp, ip + 1, sizeof(disp));	/* x86 is little-endian */
	dest = pc + CALL_LEN + (uint64_t)(int64_t)disp;
	if (!hist_check_address(prof, dest))
		return;
	child = sym_lookup(&prof->symtab, dest);
	if (child && child->addr == dest)
		arc_add(prof, parent, child, 0);
}

void find_call(struct profile *prof, struct sym *parent, uint64_t lowpc,
	       uint64_t highpc)
{
	const unsigned char *text;
	uint64_t pc, last;

	if (!clip_to_histogram(prof, &lowpc, &highpc))
		return;

	/* The displacement of a call near the end lies past the function. */
	text = core_text(prof, lowpc, highpc + CALL_LEN - 1);
	if (text) {
		for (pc = lowpc; pc < highpc; pc++)
			try_call(prof, parent, pc, text + (pc - lowpc));
		return;
	}
	text = core_text(prof, lowpc, highpc);
	if (!text)
		return;
	last = highpc > lowpc + CALL_LEN - 1 ? highpc - (CALL_LEN - 1) : lowpc;
	for (pc = lowpc; pc < last; pc++)
		try_call(prof, parent, pc, text + (pc - lowpc));
	/* At the very end of the section only whole calls are read. */
	for (; pc < highpc; pc++) {
		const unsigned char *ip = core_text(prof, pc, pc + CALL_LEN);

		if (ip)
			try_call(prof, parent, pc, ip);
	}
}
