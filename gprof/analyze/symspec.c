// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Symspecs: the arguments of -e -E -f -F -k -n -N -p -P -q -Q -A -J -C
 * -Z, with GNU's grammar:
 *
 *   spec  := FILE:FUNC | FILE:LINE | FUNC | LINE | FILE
 *   arc   := spec/spec                    (-k, -q and -Q with a '/')
 *
 * A spec without a colon is a file when it holds a dot, a line when it
 * starts with a digit, else a function.  Each option's matches become a
 * table of address ranges (runs of consecutive matching symbols merged,
 * as GNU does), looked up with sym_lookup().  File and line parts make
 * every symbol's source position needed, so only they trigger DWARF.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"

struct pattern {
	const char *file;	/* basename to match, or NULL */
	const char *name;
	uint32_t hash;		/* of name, to skip most strcmp()s */
	int line_num;
};

/* FNV-1a: every symbol is tested against every spec, so cheaply. */
static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

struct match {
	struct sym *prev;	/* last symtab symbol matched */
	size_t *ranges;		/* indices of its ranges in the table */
	size_t count;
};

struct sym_id {
	struct sym_id *next;
	char *spec;
	enum table_id table;
	bool has_right;
	struct pattern left, right;
	struct match lm, rm;
};

static struct sym_id *id_list;

/* Ranges matched by the right half of arc specs (-k a/b). */

/*
 * Arc specs (-k, -q/-Q with '/'): an arc is in a table when its caller
 * lies in a left range and its callee wholly inside a right range of
 * one spec, every left range paired with every right range (GNU).
 */
struct arc_spec {
	uint64_t from_lo, from_hi;	/* caller range, inclusive */
	uint64_t to_lo, to_hi;		/* callee range, inclusive */
	enum table_id table;
};


static void parse_spec(char *spec, struct pattern *p)
{
	char *colon = strrchr(spec, ':');

	memset(p, 0, sizeof(*p));
	if (colon) {
		*colon = 0;
		if (colon > spec)
			p->file = spec;
		spec = colon + 1;
		if (isdigit((unsigned char)spec[0]))
			p->line_num = atoi(spec);
		else if (*spec)
			p->name = spec;
	} else if (strchr(spec, '.')) {
		p->file = spec;
	} else if (isdigit((unsigned char)spec[0])) {
		p->line_num = atoi(spec);
	} else if (*spec) {
		p->name = spec;
	}
}

static bool pattern_matches(struct profile *prof,
			    const struct gprof_options *opt,
			    const struct pattern *p, struct sym *s,
			    uint32_t hash)
{
	if (p->file || p->line_num) {
		sym_source(prof, opt, s);
		if (p->file) {
			const char *base;

			if (!s->file)
				return false;
			base = strrchr(s->file->name, '/');
			base = base ? base + 1 : s->file->name;
			if (strcmp(p->file, base))
				return false;
		}
		if (p->line_num && p->line_num != s->line_num)
			return false;
	}
	return !p->name || (p->hash == hash && !strcmp(p->name, s->name));
}

/* Adds @s to @t, merged with the range before when they are adjacent. */
/* The spec's patterns are parsed once, here; each profile matches them. */
void sym_id_add(const char *spec, enum table_id which)
{
	struct sym_id *id = xcalloc(1, sizeof(*id));
	char *slash;

	id->spec = xstrdup(spec);
	id->table = which;
	id->next = id_list;
	id_list = id;
	slash = strchr(id->spec, '/');
	if (slash) {
		*slash = 0;
		parse_spec(slash + 1, &id->right);
		id->has_right = true;
	}
	parse_spec(id->spec, &id->left);
	if (id->left.name)
		id->left.hash = name_hash(id->left.name);
	if (id->right.name)
		id->right.hash = name_hash(id->right.name);
}

/* GNU's profiling-runtime functions, never shown or charged. */
static const char *const default_excluded[] = {
	"_gprof_mcount", "mcount", "_mcount", "__mcount", "__mcount_internal",
	"__mcleanup", NULL
};

void sym_id_add_defaults(void)
{
	const char *const *ex;

	for (ex = default_excluded; *ex; ex++) {
		sym_id_add(*ex, EXCL_TIME);
		sym_id_add(*ex, EXCL_GRAPH);
		sym_id_add(*ex, EXCL_FLAT);
	}
}

static void extend(struct match *m, struct sym *s, struct sym_table *t)
{
	if (m->prev != s - 1 || !m->count) {
		t->base = xrealloc(t->base, (t->len + 1) * sizeof(*t->base));
		t->base[t->len] = *s;
		t->base[t->len].next = NULL;
		m->ranges = xrealloc(m->ranges,
				     (m->count + 1) * sizeof(*m->ranges));
		m->ranges[m->count++] = t->len++;
	}
	t->base[m->ranges[m->count - 1]].end_addr = s->end_addr;
	m->prev = s;
}

void sym_id_parse(struct profile *prof, const struct gprof_options *opt)
{
	struct sym_id *id;
	size_t i;

	/* Each profile's matches start anew. */
	for (id = id_list; id; id = id->next) {
		free(id->lm.ranges);
		free(id->rm.ranges);
		memset(&id->lm, 0, sizeof(id->lm));
		memset(&id->rm, 0, sizeof(id->rm));
	}
	for (i = 0; i < prof->symtab.len; i++) {
		struct sym *s = &prof->symtab.base[i];
		uint32_t hash = name_hash(s->name);

		for (id = id_list; id; id = id->next) {
			if (pattern_matches(prof, opt, &id->left, s, hash))
				extend(&id->lm, s, &prof->syms[id->table]);
			if (id->has_right &&
			    pattern_matches(prof, opt, &id->right, s, hash))
				extend(&id->rm, s, &prof->right_ids);
		}
	}
	for (id = id_list; id; id = id->next) {
		size_t l, r;

		for (l = 0; id->has_right && l < id->lm.count; l++) {
			const struct sym *left =
				&prof->syms[id->table].base[id->lm.ranges[l]];

			for (r = 0; r < id->rm.count; r++) {
				const struct sym *right =
					&prof->right_ids.base[id->rm.ranges[r]];
				struct arc_spec *a;

				prof->arc_specs =
					xreallocarray(prof->arc_specs,
						      prof->narc_specs + 1,
						      sizeof(*prof->arc_specs));
				a = &prof->arc_specs[prof->narc_specs++];
				a->from_lo = left->addr;
				a->from_hi = left->end_addr;
				a->to_lo = right->addr;
				a->to_hi = right->end_addr;
				a->table = id->table;
			}
		}
	}
	for (i = 0; i < NUM_TABLES; i++)
		symtab_finalize(prof, &prof->syms[i]);
}

bool sym_id_arc_is_present(struct profile *prof, struct sym_table *t,
			   struct sym *from,
			   struct sym *to)
{
	enum table_id table = (enum table_id)(t - prof->syms);
	size_t i;

	for (i = 0; i < prof->narc_specs; i++) {
		const struct arc_spec *a = &prof->arc_specs[i];

		if (a->table == table &&
		    from->addr >= a->from_lo && from->addr <= a->from_hi &&
		    to->addr >= a->to_lo && to->end_addr <= a->to_hi)
			return true;
	}
	return false;
}

void sym_id_reset(struct profile *prof)
{
	size_t i;

	for (i = 0; i < NUM_TABLES; i++) {
		free(prof->syms[i].base);
		prof->syms[i].base = NULL;
		prof->syms[i].len = 0;
	}
	free(prof->right_ids.base);
	prof->right_ids.base = NULL;
	prof->right_ids.len = 0;
	free(prof->arc_specs);
	prof->arc_specs = NULL;
	prof->narc_specs = 0;
}

void sym_id_free(void)
{
	struct sym_id *id, *next;

	for (id = id_list; id; id = next) {
		next = id->next;
		free(id->lm.ranges);
		free(id->rm.ranges);
		free(id->spec);
		free(id);
	}
	id_list = NULL;
}
