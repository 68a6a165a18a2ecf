// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a profile file says about its program: the module record flagged
 * as the main executable holds the path it ran from
 * (docs/gmon-format.md, "Tag 1: module"), which is all report needs;
 * the analyzer finds the other modules by the paths and build-ids of
 * their records itself.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sprofil/gmon_codec.h>
#include <sprofil/gmon_format.h>

#include "sprofil.h"

static int read_exact(FILE *f, void *buf, size_t n)
{
	return fread(buf, 1, n, f) == n ? 0 : -1;
}

int cli_profile_program(const char *file, char *path, size_t size)
{
	unsigned char head[GMF_HEADER_SIZE], rec[GMF_EXT_RECORD_HEAD];
	unsigned char mod[GMF_MODULE_FIXED];
	uint32_t version, tag, flags, name_len;
	unsigned int revision;
	bool swap;
	uint64_t body;
	FILE *f = fopen(file, "re");
	int ret = -1;

	if (!f)
		return -1;
	if (read_exact(f, head, sizeof(head)) ||
	    memcmp(head, GMF_COOKIE, 4))
		goto out;
	memcpy(&version, head + 4, 4);
	revision = gmf_ext_revision(version, &swap);
	if (!revision || swap) {
		/* GNU's (or the other byte order's): no module records. */
		ret = version == GMF_GNU_VERSION ||
		      version == GMF_BSD44_VERSION || revision ? 0 : -1;
		goto out;
	}
	ret = 0;
	while (!read_exact(f, rec, sizeof(rec))) {
		memcpy(&tag, rec, 4);
		memcpy(&body, rec + 4, 8);
		if (tag != GMF_TAG_MODULE || body < GMF_MODULE_FIXED) {
			if (fseeko(f, (off_t)body, SEEK_CUR))
				break;
			continue;
		}
		if (read_exact(f, mod, sizeof(mod)))
			break;
		memcpy(&flags, mod + 4, 4);
		memcpy(&name_len, mod + 16, 4);
		if ((flags & GMF_MODULE_MAIN) && name_len < size &&
		    name_len <= body - GMF_MODULE_FIXED &&
		    !read_exact(f, path, name_len)) {
			path[name_len] = '\0';
			ret = 1;
			break;
		}
		if (fseeko(f, (off_t)(body - GMF_MODULE_FIXED), SEEK_CUR))
			break;
	}
out:
	fclose(f);
	return ret;
}
