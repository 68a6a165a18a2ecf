// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The bpf backend's unwind tables (docs/callers.md, "Unwind tables"):
 * the program walks a sample's chain with the tables of the process's
 * modules, which it reads from the process's inner map of sp_punwind
 * (sprofil_bpf.h, struct spb_umod).  The tables are the signal
 * backend's (unwind_load.c): the same files of SPROFIL_UNWIND_DIR,
 * mapped and checked by the same scan, built on demand by the run's
 * table server.  At each start with a caller table their current set is
 * copied into a new map, which replaces the process's last one whole;
 * the old one is freed by the kernel once no sample reads it, so
 * tables come and go with their modules.  The copy is skipped when the
 * set has not changed (most starts after the first).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "backend_bpf_session.h"
#include "unwind_load.h"

/* Which tables at which biases: what tells one set from another. */
static uint64_t sb_unwind_sig(const struct spb_utable *tab, unsigned int n)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */
	unsigned int i;

	for (i = 0; i < n; i++) {
		h = (h ^ tab[i].bias) * 1099511628211ull;
		h = (h ^ (uintptr_t)tab[i].t->hdr) * 1099511628211ull;
	}
	return h | 1;
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
	struct sp_unwind_table got[SPB_UMODS];
	struct spb_utable tab[SPB_UMODS];
	uint64_t elems, sig;
	unsigned int n, i;
	void *p = NULL;
	int fd, err;

	sp_unwind_load();
	n = sp_unwind_tables(got, SPB_UMODS);
	for (i = 0; i < n; i++) {
		tab[i].bias = got[i].bias;
		tab[i].t = got[i].t;
	}
	sig = n ? sb_unwind_sig(tab, n) : 0;
	if (sig == s->unwind_sig)
		return 0;
	if (!n) {
		sb_unwind_drop(s);
		return 0;
	}
	elems = spb_unwind_elems(tab, n);
	fd = spb_unwind_map(elems);
	if (fd < 0)
		return -errno;
	err = spb_inner_mmap(fd, elems * SPB_UELEM, &p);
	if (!err) {
		spb_unwind_fill(p, tab, n);
		sb_unmap(p, elems * SPB_UELEM);
	}
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
