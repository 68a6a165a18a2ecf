// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Which load module holds an address (gmon_modules.h).
 */
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "elf_headers.h"
#include "gmon.h"
#include "gmon_modules.h"

/*
 * A profile of another process (sp_gmon_set_target()): its modules, and
 * the file it goes to.
 */
static const struct sp_target_module *tgt_mod;
static size_t tgt_nmod;
static const char *tgt_path;

static pthread_mutex_t gone_lock = PTHREAD_MUTEX_INITIALIZER;

void sp_modules_fork_prepare(void)
{
	pthread_mutex_lock(&gone_lock);
}

void sp_modules_fork_parent(void)
{
	pthread_mutex_unlock(&gone_lock);
}

void sp_modules_fork_child(void)
{
	pthread_mutex_unlock(&gone_lock);
}

const char *sp_gmon_target_path(void)
{
	return tgt_path;
}

/* The NT_GNU_BUILD_ID note of a loaded module, if it has one. */
static void find_build_id(struct dl_phdr_info *info, struct sp_module *m)
{
	const ElfW(Phdr) *ph;
	size_t i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		m->build_id = sp_note_build_id((const void *)(info->dlpi_addr +
							      ph->p_vaddr),
					       ph->p_memsz, ph->p_align,
					       &m->build_id_len);
		if (m->build_id)
			return;
	}
}

/*
 * A module holds the addresses from its first PT_LOAD to the end of its
 * last, gaps included: a region may start between two segments.
 */
static int module_of(struct dl_phdr_info *info, size_t size, void *data)
{
	struct sp_module *m = data;
	uintptr_t low = UINTPTR_MAX, high = 0;
	size_t i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (ph->p_vaddr < low)
			low = ph->p_vaddr;
		if (ph->p_vaddr + ph->p_memsz > high)
			high = ph->p_vaddr + ph->p_memsz;
	}
	if (low < high && m->addr - info->dlpi_addr >= low &&
	    m->addr - info->dlpi_addr < high) {
		m->found = true;
		m->bias = info->dlpi_addr;
		m->load_bias = info->dlpi_addr;
		m->low = info->dlpi_addr + low;
		m->high = info->dlpi_addr + high;
		m->name = info->dlpi_name;
		find_build_id(info, m);
		return 1;
	}
	/* The first module dl_iterate_phdr() reports is the executable. */
	m->main = false;
	return 0;
}

/*
 * Modules dlclose() took away: their profiled addresses still map, at
 * each place the module had (caller chains keep those addresses) and at
 * its place among the gone modules (histograms and arcs, gmon.h).
 */
struct sp_gone {
	char *name;
	uintptr_t bias, low, high;
	uintptr_t tag;			/* its moved bias, or 0 */
	void *build_id;
	size_t build_id_len;
};
static struct sp_gone *gone;
static size_t ngone;
static uintptr_t next_tag = SP_GONE_BASE;

/* Whether @g is a load of the same file as the module described. */
static bool gone_same_file(const struct sp_gone *g, const char *name,
			   uintptr_t bias, uintptr_t low, uintptr_t high,
			   const void *build_id, size_t len)
{
	return g->low - g->bias == low - bias &&
	       g->high - g->bias == high - bias && g->build_id_len == len &&
	       !strcmp(g->name, name) &&
	       (!len || !memcmp(g->build_id, build_id, len));
}

uintptr_t sp_gmon_module_gone(const char *name, uintptr_t bias,
			      uintptr_t low, uintptr_t high,
			      const void *build_id, size_t len)
{
	struct sp_gone *g;
	uintptr_t tag = 0;
	size_t i;

	pthread_mutex_lock(&gone_lock);
	for (i = 0; i < ngone && !tag; i++)
		if (gone_same_file(&gone[i], name, bias, low, high, build_id,
				   len))
			tag = gone[i].tag;
	/* A dlopen() loop unloads the same module at the same place. */
	for (i = 0; i < ngone; i++)
		if (gone[i].bias == bias &&
		    gone_same_file(&gone[i], name, bias, low, high, build_id,
				   len))
			goto out;
	if (!tag && high - bias <= SP_GONE_STRIDE &&
	    next_tag - SP_GONE_BASE < 0 - SP_GONE_BASE - SP_GONE_STRIDE)
		tag = next_tag;
	g = realloc(gone, (ngone + 1) * sizeof(*g));
	if (!g) {
		tag = 0;
		goto out;
	}
	gone = g;
	g = &gone[ngone];
	g->name = strdup(name);
	g->build_id = malloc(len ? len : 1);
	if (!g->name || !g->build_id) {
		free(g->name);
		free(g->build_id);
		tag = 0;
		goto out;
	}
	if (len)
		memcpy(g->build_id, build_id, len);
	g->bias = bias;
	g->low = low;
	g->high = high;
	g->tag = tag;
	g->build_id_len = len;
	ngone++;
	if (tag == next_tag)
		next_tag += SP_GONE_STRIDE;
out:
	pthread_mutex_unlock(&gone_lock);
	return tag;
}

/* The live modules first: a gone module's range may have been reused. */
static void find_gone(uintptr_t addr, struct sp_module *m)
{
	const struct sp_gone *g;
	uintptr_t bias;
	size_t i;

	pthread_mutex_lock(&gone_lock);
	for (i = ngone; i-- > 0; ) {
		g = &gone[i];
		bias = addr >= SP_GONE_BASE ? g->tag : g->bias;
		if (!bias || addr < g->low - g->bias + bias ||
		    addr >= g->high - g->bias + bias)
			continue;
		m->found = true;
		m->bias = bias;
		m->load_bias = g->bias;
		m->low = g->low - g->bias + bias;
		m->high = g->high - g->bias + bias;
		m->name = g->name;
		m->build_id = g->build_id;
		m->build_id_len = g->build_id_len;
		break;
	}
	pthread_mutex_unlock(&gone_lock);
}

void sp_gmon_set_target(const struct sp_target_module *mods, size_t n,
			const char *path)
{
	tgt_mod = mods;
	tgt_nmod = n;
	tgt_path = path;
}

static void find_target_module(uintptr_t addr, struct sp_module *m)
{
	const struct sp_target_module *t;
	size_t i;

	for (i = 0; i < tgt_nmod; i++) {
		t = &tgt_mod[i];
		if (addr < t->low || addr >= t->high)
			continue;
		m->found = true;
		m->main = t->main;
		m->bias = t->bias;
		m->load_bias = t->bias;
		m->low = t->low;
		m->high = t->high;
		m->name = t->name;
		m->build_id = t->build_id;
		m->build_id_len = t->build_id_len;
		return;
	}
	m->name = "";
}

void sp_module_find(uintptr_t addr, struct sp_module *m)
{
	memset(m, 0, sizeof(*m));
	m->addr = addr;
	if (tgt_path) {
		find_target_module(addr, m);
		return;
	}
	m->main = true;
	dl_iterate_phdr(module_of, m);
	if (!m->found) {
		m->main = false;
		find_gone(addr, m);
	}
	if (!m->found) {
		/* Anonymous text (a JIT, say): absolute addresses. */
		m->main = false;
		m->name = "";
	}
}

void sp_module_find_cached(uintptr_t addr, struct sp_module *m,
			       struct sp_module *last)
{
	if (last->found && addr >= last->low && addr < last->high) {
		*m = *last;
		m->addr = addr;
		return;
	}
	sp_module_find(addr, m);
	*last = *m;
}
