// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The bpf backend's unwind tables (docs/callers.md, "Unwind tables"):
 * the program walks a sample's chain with the tables of the process's
 * modules, which it reads from the process's inner map of sp_punwind
 * (sprofil_bpf.h, struct spb_umod).  The tables are the signal
 * backend's (signal_unwind.c): the same files of SPROFIL_UNWIND_DIR,
 * mapped and checked by the same scan, built on demand by the run's
 * table server.  At each start with a caller table their current set is
 * copied into a new map, which replaces the process's last one whole;
 * the old one is freed by the kernel once no sample reads it, so
 * tables come and go with their modules.  The copy is skipped when the
 * set has not changed (most starts after the first).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <sprofil/unwind_table.h>

#include "backend_bpf_session.h"
#include "signal_internal.h"

/* Words of @t's rules, page index and rows, as its file has them. */
static uint64_t sb_unwind_words(const struct spu_table *t)
{
	return (uint64_t)t->hdr->nrules + t->npages + 1 + t->hdr->nrows;
}

/* Which tables at which biases: what tells one set from another. */
static uint64_t sb_unwind_sig(const struct sp_unwind_table *tab,
			      unsigned int n)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */
	unsigned int i;

	for (i = 0; i < n; i++) {
		h = (h ^ tab[i].bias) * 1099511628211ull;
		h = (h ^ (uintptr_t)tab[i].t->hdr) * 1099511628211ull;
	}
	return h | 1;
}

/* Copies @n tables into map @fd of @elems elements: 0 or -errno. */
static int sb_unwind_fill(int fd, uint64_t elems,
			  const struct sp_unwind_table *tab, unsigned int n)
{
	size_t bytes = elems * SPB_UELEM;
	struct spb_uhdr *h;
	struct spb_umod *m;
	__u32 *word;
	uint64_t w = (1 + (uint64_t)n) * SPB_UWORDS;
	unsigned int i;
	void *p = NULL;
	int err;

	err = spb_inner_mmap(fd, bytes, &p);
	if (err)
		return err;
	h = p;
	m = (struct spb_umod *)(h + 1);
	word = p;
	h->nmods = n;
	for (i = 0; i < n; i++) {
		const struct spu_table *t = tab[i].t;

		m[i].lo = tab[i].bias + t->hdr->base;
		m[i].hi = m[i].lo + t->hdr->span;
		m[i].base = m[i].lo;
		m[i].nrules = t->hdr->nrules;
		m[i].npages = t->npages;
		m[i].span = t->hdr->span;
		m[i].rule = (__u32)w;
		memcpy(word + w, t->rule, t->hdr->nrules * sizeof(*t->rule));
		w += t->hdr->nrules;
		m[i].page = (__u32)w;
		memcpy(word + w, t->page, (t->npages + 1) * sizeof(*t->page));
		w += t->npages + 1;
		m[i].row = (__u32)w;
		memcpy(word + w, t->row, t->hdr->nrows * sizeof(*t->row));
		w += t->hdr->nrows;
	}
	sb_unmap(p, bytes);
	return 0;
}

/* Takes @s's tables out of the program: its chains by frame pointers. */
static void sb_unwind_drop(struct sb_session *s)
{
	if (s->unwind_fd < 0)
		return;
	if (s->registered && s->tgid == (__u32)sb_tgid())
		spb_map_delete(s->prog->fd[SPB_FD_PUNWIND], &s->tgid);
	close(s->unwind_fd);
	s->unwind_fd = -1;
	s->unwind_sig = 0;
}

void sb_unwind_close(struct sb_session *s)
{
	if (s->unwind_fd >= 0)
		close(s->unwind_fd);
	s->unwind_fd = -1;
	s->unwind_sig = 0;
}

int sb_unwind_update(struct sb_session *s)
{
	struct sp_unwind_table tab[SPB_UMODS];
	uint64_t words = 0, elems, sig;
	unsigned int n, i;
	int fd, err;

	sp_unwind_load();
	n = sp_unwind_tables(tab, SPB_UMODS);
	sig = n ? sb_unwind_sig(tab, n) : 0;
	if (sig == s->unwind_sig)
		return 0;
	if (!n) {
		sb_unwind_drop(s);
		return 0;
	}
	for (i = 0; i < n; i++)
		words += sb_unwind_words(tab[i].t);
	elems = 1 + n + (words + SPB_UWORDS - 1) / SPB_UWORDS;
	fd = spb_unwind_map(elems);
	if (fd < 0)
		return -errno;
	err = sb_unwind_fill(fd, elems, tab, n);
	if (!err && spb_map_update(s->prog->fd[SPB_FD_PUNWIND], &s->tgid, &fd,
				   BPF_ANY))
		err = -errno;
	if (err) {
		close(fd);
		return err;
	}
	if (s->unwind_fd >= 0)
		close(s->unwind_fd);
	s->unwind_fd = fd;
	s->unwind_sig = sig;
	s->unwind_bytes = elems * SPB_UELEM;
	return 0;
}
