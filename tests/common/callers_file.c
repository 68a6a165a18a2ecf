// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sprofil/callers.h>
#include <sprofil/gmon_codec.h>
#include <sprofil/gmon_format.h>
#include "callers_file.h"

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
			struct gmf_cursor *b, const char *path)
{
	struct gmf_callers_head h;
	struct gmf_caller_node node;
	uint64_t n, sum = 0, cut = 0;
	int *under_cut;

	if (!gmf_callers_head_get(b, &h))
		return bad(path, b->err);
	if (gmf_left(b) != gmf_callers_size(h.nnodes) - GMF_CALLERS_FIXED)
		return bad(path, "callers record: size does not match nnodes");
	n = h.nnodes;
	f->has_callers = 1;
	f->depth = h.depth;
	t->samples = h.samples;
	t->truncated = h.truncated;
	t->lost = h.lost;
	t->busy = h.busy;
	f->period_ns = h.period_ns;
	t->n = n;
	t->pc = calloc(n + 1, sizeof(*t->pc));
	t->parent = calloc(n + 1, sizeof(*t->parent));
	t->count = calloc(n + 1, sizeof(*t->count));
	under_cut = calloc(n + 1, sizeof(*under_cut));
	if (!t->pc || !t->parent || !t->count || !under_cut) {
		free(under_cut);
		return bad(path, "out of memory");
	}
	for (uint64_t i = 0; i < n && gmf_caller_node_get(b, &node); i++) {
		uint32_t parent = node.parent, mod = node.module, tid;
		uint64_t pc = node.pc;

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
		t->count[i] = node.count;
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
	if (b->failed)
		return bad(path, b->err);
	if (sum != t->samples || cut != t->truncated)
		return bad(path, "callers record: counts do not sum to samples / truncated");
	return 0;
}

int ct_from_file(struct ct_tree *t, struct ct_file *f, const char *path)
{
	size_t len = 0;
	unsigned char *b = slurp(path, &len);
	char err[160] = "";
	struct gmf_cursor c = { .err = err, .errlen = sizeof(err) }, body;
	struct gmf_module m;
	uint32_t tag;
	int ret = 0;

	memset(t, 0, sizeof(*t));
	memset(f, 0, sizeof(*f));
	if (!b)
		return bad(path, "cannot read");
	if (len < GMF_HEADER_SIZE || memcmp(b, GMF_COOKIE, 4)) {
		free(b);
		return bad(path, "not a gmon file");
	}
	f->version = gmf_load(b + 4, 4, false);
	if (!gmf_ext_revision(f->version, &c.swap) || c.swap) {
		free(b);
		return 0;	/* GNU: no callers record */
	}
	c.p = b + GMF_HEADER_SIZE;
	c.end = b + len;
	while (!ret && gmf_record_next(&c, &tag, &body)) {
		if (tag == GMF_TAG_MODULE) {
			if (!gmf_module_get(&body, &m) ||
			    m.index != f->nmodules ||
			    m.index >= CT_MAX_MODULES) {
				ret = bad(path, "bad module record");
				break;
			}
			f->module[m.index].flags = m.flags;
			f->module[m.index].load_bias = m.bias;
			snprintf(f->module[m.index].name,
				 sizeof(f->module[m.index].name), "%.*s",
				 (int)m.name_len, m.name);
			f->nmodules++;
		} else if (tag == GMF_TAG_CALLERS) {
			if (f->has_callers) {
				ret = bad(path, "two callers records");
				break;
			}
			ret = read_callers(t, f, &body, path);
		}
	}
	if (!ret && c.failed)
		ret = bad(path, err);
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
