// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -R's map file: the lines "file.o:... function" that name the object
 * file of each function, read as GNU gprof's read_function_mappings()
 * does; the symbols read/core.c makes of them, and the file ordering
 * (report/cg_order.c) that prints them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "read/read.h"

bool sym_is_mapped(struct profile *prof, const struct sym *s)
{
	uintptr_t p = (uintptr_t)s->name, lo = (uintptr_t)prof->map_names;

	return prof->map_names && p >= lo && p < lo + prof->map_names_len;
}

static int cmp_map_function(const void *l, const void *r)
{
	return strcmp(((const struct function_map *)l)->function_name,
		      ((const struct function_map *)r)->function_name);
}

static int cmp_map_file(const void *l, const void *r)
{
	return strcmp(((const struct function_map *)l)->file_name,
		      ((const struct function_map *)r)->file_name);
}

/* As glibc's bsearch, so duplicate names give GNU's pick. */
struct function_map *symbol_map_find(struct profile *prof, const char *name)
{
	size_t lo = 0, hi = prof->symbol_map_count;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(name, prof->symbol_map[mid].function_name);

		if (c < 0)
			hi = mid;
		else if (c > 0)
			lo = mid + 1;
		else
			return &prof->symbol_map[mid];
	}
	return NULL;
}

/*
 * Sorts an array of structs stably (glibc's qsort is a merge sort) by
 * going through an array of pointers to them.
 */
static void sort_map(struct profile *prof, int (*cmp)(const void *,
						      const void *))
{
	struct function_map *copy, **v;
	unsigned int i;

	if (prof->symbol_map_count < 2)
		return;
	v = xmalloc(prof->symbol_map_count * sizeof(*v));
	copy = xmalloc(prof->symbol_map_count * sizeof(*copy));
	memcpy(copy, prof->symbol_map, prof->symbol_map_count * sizeof(*copy));
	for (i = 0; i < prof->symbol_map_count; i++)
		v[i] = &copy[i];
	cg_sort(v, prof->symbol_map_count, cmp);
	for (i = 0; i < prof->symbol_map_count; i++)
		prof->symbol_map[i] = *v[i];
	free(copy);
	free(v);
}

/* Element comparisons through the pointers cg_sort hands over. */
static int cmp_map_function_p(const void *l, const void *r)
{
	return cmp_map_function(*(void *const *)l, *(void *const *)r);
}

static int cmp_map_file_p(const void *l, const void *r)
{
	return cmp_map_file(*(void *const *)l, *(void *const *)r);
}

#define MAP_LINE 1024

/*
 * Reads one "FILE:...FUNCTION" entry the way GNU's two fscanf calls do;
 * returns 0 for a "No symbols in" line, 1 for an entry, -1 on junk.
 */
static int read_map_entry(FILE *f, char *file, char *rest)
{
	if (!fscanf(f, "%1023[^\n:]", file))
		return -1;
	if (!strncmp(file, "No symbols in ", 14))
		return fscanf(f, "\n") == EOF ? -1 : 0;
	if (!fscanf(f, "%1023[^\n]\n", rest))
		return -1;
	return 1;
}

int read_function_mappings(struct profile *prof, const char *path)
{
	FILE *f = fopen(path, "r");
	char file[MAP_LINE] = "", rest[MAP_LINE] = "";
	size_t count = 0, names = 0, off = 0, i;
	int r;

	if (!f)
		return profile_error(prof, "could not open %s.", path);

	/* First pass: how many entries, and room for their file names. */
	while (!feof(f)) {
		r = read_map_entry(f, file, rest);
		if (r < 0)
			goto bad;
		if (r) {
			count++;
			names += strlen(file) + 1;
		}
	}
	prof->symbol_map = xcalloc(count + 1, sizeof(*prof->symbol_map));
	prof->map_names = xmalloc(names + 1);
	prof->map_names_len = names + 1;
	/* The room: a second pass that finds more is an error. */
	prof->symbol_map_count = (unsigned int)count;
	rewind(f);

	count = 0;
	while (!feof(f)) {
		const char *fn;

		r = read_map_entry(f, file, rest);
		if (r < 0)
			goto bad;
		if (!r)
			continue;
		if (off + strlen(file) + 1 > prof->map_names_len ||
		    count == prof->symbol_map_count) {
			fclose(f);
			return profile_error(prof,
					     "mapping file %s changed while read",
					     path);
		}
		prof->symbol_map[count].file_name =
			strcpy(prof->map_names + off, file);
		off += strlen(file) + 1;
		fn = strrchr(rest, ' ');
		fn = fn ? fn + 1 : rest;
		prof->symbol_map[count].function_name = xstrdup(fn);
		count++;
	}
	fclose(f);
	/* Every name made so far is in the map: function_map_reset frees. */
	prof->symbol_map_count = (unsigned int)count;

	for (i = 0; i < count; i++)
		prof->symbol_map[i].is_first = i == 0 ||
			strcmp(prof->symbol_map[i].file_name,
			       prof->symbol_map[i - 1].file_name) != 0;
	sort_map(prof, cmp_map_function_p);
	return 0;
bad:
	fclose(f);
	return profile_error(prof, "unable to parse mapping file %s.", path);
}

void function_map_reset(struct profile *prof)
{
	unsigned int i;

	for (i = 0; i < prof->symbol_map_count; i++)
		free(prof->symbol_map[i].function_name);
	free(prof->symbol_map);
	prof->symbol_map = NULL;
	prof->symbol_map_count = 0;
	free(prof->map_names);
	prof->map_names = NULL;
	prof->map_names_len = 0;
}

void function_map_sort_by_file(struct profile *prof)
{
	sort_map(prof, cmp_map_file_p);
}
