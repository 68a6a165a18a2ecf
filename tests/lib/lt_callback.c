// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A shared library that calls back into the program, for caller chains
 * that cross modules: executable -> library -> executable.  Built with
 * frame pointers, as the program is.
 */
#include <stdint.h>

__attribute__((noipa)) uint64_t lt_cb_call(uint64_t (*cb)(uint64_t),
					   uint64_t n)
{
	return cb(n) + 3;
}
