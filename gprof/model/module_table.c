// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The load modules the profile files name (their module records), one
 * table for every file read: the profiles of several runs of a program
 * are summed module by module, each module matched by its build-id, so
 * a file of another build is refused here, before anything is summed
 * (docs/pprof.md, "Merging runs").
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

void modules_init(struct profile *prof)
{
	if (prof->modules)
		return;
	prof->modules = xcalloc(1, sizeof(*prof->modules));
	prof->nmodules = 1;
	prof->modules[0].is_main = true;
}


static void hex_id(char *out, const unsigned char *id, size_t len)
{
	size_t i;

	if (!len)
		strcpy(out, "none");
	for (i = 0; i < len && i < 64; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
}

/*
 * Whether the module record (@name, @id) of the file being read can be
 * summed with module @mod, which an earlier file named: the same build
 * or a file that merely has no build-id.  Else one line in @why.
 */
static bool same_build(struct profile *prof, const struct module *mod,
		       const char *name,
		       size_t name_len, const unsigned char *id, size_t id_len,
		       char *why, size_t whylen)
{
	char was[129], now[129];

	if (!mod->recorded || !mod->profile ||
	    !strcmp(mod->profile, prof->module_profile))
		return true;
	if (id_len && mod->build_id_len &&
	    (id_len != mod->build_id_len || memcmp(id, mod->build_id, id_len))) {
		hex_id(was, mod->build_id, mod->build_id_len);
		hex_id(now, id, id_len);
		snprintf(why, whylen, "a profile of another build: %s %.*s has build-id %s, not %s as in %s",
			 mod->is_main ? "its program" : "module", (int)name_len,
			 name, now, was, mod->profile);
		return false;
	}
	if (mod->is_main && (!id_len || !mod->build_id_len) &&
	    (strlen(mod->recorded) != name_len ||
	     memcmp(mod->recorded, name, name_len))) {
		snprintf(why, whylen, "a profile of another program: %.*s, not %s as in %s",
			 (int)name_len, name, mod->recorded, mod->profile);
		return false;
	}
	return true;
}

unsigned int module_add(struct profile *prof, const char *name, size_t name_len,
			       const unsigned char *id, size_t id_len,
			       uint64_t bias, bool is_main, char *why,
			       size_t whylen)
{
	unsigned int m;
	struct module *mod;

	modules_init(prof);
	if (is_main) {
		m = 0;
		if (!same_build(prof, &prof->modules[0], name, name_len, id,
				id_len, why,
				whylen))
			return UINT_MAX;
	} else {
		for (m = 1; m < prof->nmodules; m++) {
			mod = &prof->modules[m];
			if (mod->build_id_len == id_len &&
			    (id_len ? !memcmp(mod->build_id, id, id_len) :
			     strlen(mod->recorded) == name_len &&
			     !memcmp(mod->recorded, name, name_len)))
				return m;
		}
		for (m = 1; m < prof->nmodules; m++) {
			mod = &prof->modules[m];
			if (strlen(mod->recorded) == name_len &&
			    !memcmp(mod->recorded, name, name_len) &&
			    !same_build(prof, mod, name, name_len, id, id_len,
					why,
					whylen))
				return UINT_MAX;
		}
		if (prof->nmodules >= (1u << (64 - MODULE_SHIFT)) - 1) {
			snprintf(why, whylen,
				 "too many load modules in the profiles");
			return UINT_MAX;
		}
		prof->modules = xrealloc(prof->modules,
					 (prof->nmodules + 1) *
					 sizeof(*prof->modules));
		m = prof->nmodules++;
		memset(&prof->modules[m], 0, sizeof(prof->modules[m]));
		prof->multi_module = true;
	}
	mod = &prof->modules[m];
	if (!mod->recorded) {
		mod->recorded = xmalloc(name_len + 1);
		memcpy(mod->recorded, name, name_len);
		mod->recorded[name_len] = 0;
		if (id_len) {
			mod->build_id = xmalloc(id_len);
			memcpy(mod->build_id, id, id_len);
			mod->build_id_len = id_len;
		}
		mod->load_bias = bias;
		mod->profile = prof->module_profile;
	}
	return m;
}
