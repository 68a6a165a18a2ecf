// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sprofil/callers.h>
#include <sprofil/gmon_codec.h>
#include <sprofil/gmon_format.h>
#include "callers_file.h"

static uint32_t u32_at(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t u64_at(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static int bad(const char *path, const char *why)
{
	fprintf(stderr, "%s: %s\n", path, why);
	return -1;
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	n = fseek(f, 0, SEEK_END) ? -1 : ftell(f);
	if (n >= 0 && !fseek(f, 0, SEEK_SET)) {
		buf = malloc(n + 1);
		if (buf && fread(buf, 1, n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = n;
	}
	fclose(f);
	return buf;
}

static int read_callers(struct ct_tree *t, struct ct_file *f,
			const unsigned char *b, uint64_t size,
			const char *path)
{
	uint64_t n = u64_at(b), sum = 0, cut = 0;
	int *under_cut;

	if (size < GMF_CALLERS_FIXED ||
	    (size - GMF_CALLERS_FIXED) / GMF_CALLER_NODE_SIZE != n ||
	    (size - GMF_CALLERS_FIXED) % GMF_CALLER_NODE_SIZE)
		return bad(path, "callers record: size does not match nnodes");
	f->has_callers = 1;
	f->depth = u32_at(b + 8);
	t->samples = u64_at(b + 16);
	t->truncated = u64_at(b + 24);
	t->lost = u64_at(b + 32);
	t->busy = u64_at(b + 40);
	f->period_ns = u64_at(b + 48);
	t->n = n;
	t->pc = calloc(n + 1, sizeof(*t->pc));
	t->parent = calloc(n + 1, sizeof(*t->parent));
	t->count = calloc(n + 1, sizeof(*t->count));
	under_cut = calloc(n + 1, sizeof(*under_cut));
	if (!t->pc || !t->parent || !t->count || !under_cut) {
		free(under_cut);
		return bad(path, "out of memory");
	}
	for (uint64_t i = 0; i < n; i++) {
		const unsigned char *p = b + GMF_CALLERS_FIXED +
					 i * GMF_CALLER_NODE_SIZE;
		uint32_t parent = u32_at(p), mod = u32_at(p + 4), tid;
		uint64_t pc = u64_at(p + 8);

		if (parent != GMF_CALLER_TOP && parent >= i) {
			free(under_cut);
			return bad(path, "a node comes before its parent");
		}
		if (mod != GMF_NO_MODULE && mod >= f->nmodules) {
			free(under_cut);
			return bad(path, "a node names a module not yet written");
		}
		t->parent[i] = parent == GMF_CALLER_TOP ? CT_TOP : parent;
		t->pc[i] = mod == GMF_NO_MODULE ? pc : CT_PC(mod, pc);
		t->count[i] = u64_at(p + 16);
		/* The truncated node: at the top, or below a thread's. */
		if (mod == GMF_NO_MODULE && pc == SPC_PC_TRUNCATED &&
		    (parent == GMF_CALLER_TOP ||
		     (t->parent[parent] == CT_TOP &&
		      spc_pc_thread(t->pc[parent], &tid))))
			under_cut[i] = 1;
		else
			under_cut[i] = parent != GMF_CALLER_TOP &&
				       under_cut[parent];
		sum += t->count[i];
		if (under_cut[i])
			cut += t->count[i];
	}
	free(under_cut);
	if (sum != t->samples || cut != t->truncated)
		return bad(path, "callers record: counts do not sum to samples / truncated");
	return 0;
}

int ct_from_file(struct ct_tree *t, struct ct_file *f, const char *path)
{
	size_t len = 0, at = GMF_HEADER_SIZE;
	unsigned char *b = slurp(path, &len);
	bool swap;
	int ret = 0;

	memset(t, 0, sizeof(*t));
	memset(f, 0, sizeof(*f));
	if (!b)
		return bad(path, "cannot read");
	if (len < GMF_HEADER_SIZE || memcmp(b, GMF_COOKIE, 4)) {
		free(b);
		return bad(path, "not a gmon file");
	}
	f->version = u32_at(b + 4);
	if (!gmf_ext_revision(f->version, &swap) || swap) {
		free(b);
		return 0;	/* GNU: no callers record */
	}
	while (!ret && at < len) {
		uint32_t tag;
		uint64_t size;
		const unsigned char *body;

		if (len - at < GMF_EXT_RECORD_HEAD) {
			ret = bad(path, "truncated record head");
			break;
		}
		tag = u32_at(b + at);
		size = u64_at(b + at + 4);
		body = b + at + GMF_EXT_RECORD_HEAD;
		if (size > len - at - GMF_EXT_RECORD_HEAD) {
			ret = bad(path, "record runs past the end");
			break;
		}
		if (tag == GMF_TAG_MODULE) {
			uint32_t nl = u32_at(body + 16);
			uint32_t i = u32_at(body);

			if (i != f->nmodules || i >= CT_MAX_MODULES ||
			    GMF_MODULE_FIXED + (uint64_t)nl > size) {
				ret = bad(path, "bad module record");
				break;
			}
			f->module[i].flags = u32_at(body + 4);
			f->module[i].load_bias = u64_at(body + 8);
			snprintf(f->module[i].name, sizeof(f->module[i].name),
				 "%.*s", (int)nl, body + GMF_MODULE_FIXED);
			f->nmodules++;
		} else if (tag == GMF_TAG_CALLERS) {
			if (f->has_callers) {
				ret = bad(path, "two callers records");
				break;
			}
			ret = read_callers(t, f, body, size, path);
		}
		at += GMF_EXT_RECORD_HEAD + size;
	}
	free(b);
	if (ret)
		ct_free(t);
	return ret;
}

int ct_module(const struct ct_file *f, const char *suffix)
{
	size_t sl = strlen(suffix);

	for (uint32_t i = 0; i < f->nmodules; i++) {
		size_t nl = strlen(f->module[i].name);

		if (nl >= sl && !strcmp(f->module[i].name + nl - sl, suffix))
			return (int)i;
	}
	return -1;
}
