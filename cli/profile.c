// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a profile file says about its program: the module record flagged
 * as the main executable holds the path it ran from
 * (docs/gmon-format.md, "Tag 1: module"), which is all report needs;
 * the analyzer finds the other modules by the paths and build-ids of
 * their records itself.
 */
#include <limits.h>
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

/* A module record's body is its fixed part, a path and a build-id. */
#define MODULE_BODY_MAX	(GMF_MODULE_FIXED + PATH_MAX + 1024)

int cli_profile_program(const char *file, char *path, size_t size)
{
	unsigned char head[GMF_HEADER_SIZE], rec[GMF_EXT_RECORD_HEAD];
	unsigned char body[MODULE_BODY_MAX];
	struct gmf_cursor c = { 0 };
	struct gmf_module m;
	uint32_t version, tag;
	unsigned int revision;
	uint64_t len;
	bool swap;
	FILE *f = fopen(file, "re");
	int ret = -1;

	if (!f)
		return -1;
	if (read_exact(f, head, sizeof(head)) ||
	    memcmp(head, GMF_COOKIE, 4))
		goto out;
	version = gmf_load(head + 4, 4, false);
	revision = gmf_ext_revision(version, &swap);
	if (!revision) {
		/* GNU's (in either byte order): no module records. */
		ret = version == GMF_GNU_VERSION ||
		      version == GMF_BSD44_VERSION ||
		      __builtin_bswap32(version) == GMF_GNU_VERSION ? 0 : -1;
		goto out;
	}
	ret = 0;
	while (!read_exact(f, rec, sizeof(rec))) {
		c = (struct gmf_cursor){ .p = rec, .end = rec + sizeof(rec),
					 .swap = swap };
		tag = gmf_get(&c, 4);
		len = gmf_get(&c, 8);
		if (tag != GMF_TAG_MODULE || len > sizeof(body)) {
			if (len > INT64_MAX || fseeko(f, (off_t)len, SEEK_CUR))
				break;
			continue;
		}
		if (read_exact(f, body, len))
			break;
		c = (struct gmf_cursor){ .p = body, .end = body + len,
					 .swap = swap };
		if (gmf_module_get(&c, &m) && (m.flags & GMF_MODULE_MAIN) &&
		    m.name_len < size) {
			memcpy(path, m.name, m.name_len);
			path[m.name_len] = '\0';
			ret = 1;
			break;
		}
	}
out:
	fclose(f);
	return ret;
}
