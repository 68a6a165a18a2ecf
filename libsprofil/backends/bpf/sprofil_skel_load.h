/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Loading the program through libbpf and its skeleton: for the record
 * run's program server (cli/bpf_share.c), the library's loader plugin
 * (backend_bpf_loader.c) and the self-tests (tests/bpf), the only code
 * that needs libbpf (sprofil_load.h says why).
 */
#ifndef LIBSPROFIL_SPROFIL_SKEL_LOAD_H
#define LIBSPROFIL_SPROFIL_SKEL_LOAD_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "sprofil_load.h"
#include "sprofil.skel.h"

/*
 * Opens and loads the program: the sampler, or with @self_tests only the
 * self-tests (tests/bpf; they want 5.17), with @unwind_test the unwind
 * walk's too (tests/bpf/test_bpf_unwind.c: a syscall program reading
 * user memory, which only that test needs of the kernel).  The outer
 * maps get their inner maps' templates here, made as every process
 * makes its own.
 */
static inline int spb_load_with(struct sprofil_bpf **out, bool self_tests,
				bool unwind_test)
{
	struct sprofil_bpf *skel = sprofil_bpf__open();
	int err;

	struct bpf_map *outer[SPB_INNER_MAPS];
	int inner[SPB_INNER_MAPS], unwind, i;

	if (!skel)
		return -errno;
	outer[SPB_INNER_COUNTS] = skel->maps.sp_pcounts;
	outer[SPB_INNER_CNODES] = skel->maps.sp_pcnodes;
	outer[SPB_INNER_CDIRTY] = skel->maps.sp_pcdirty;
	outer[SPB_INNER_PROC] = skel->maps.sp_procs;
	bpf_program__set_autoload(skel->progs.sp_sample, !self_tests);
	bpf_program__set_autoload(skel->progs.sp_lookup_test, self_tests);
	bpf_program__set_autoload(skel->progs.sp_file_test, self_tests);
	bpf_program__set_autoload(skel->progs.sp_unwind_test,
				  self_tests && unwind_test);
	/* The outer maps' templates: the kernel keeps a copy of each. */
	err = 0;
	for (i = 0; i < SPB_INNER_MAPS; i++) {
		inner[i] = spb_inner_map((enum spb_inner)i, 1);
		if (inner[i] < 0 && !err)
			err = -errno;
		if (inner[i] >= 0 && !err)
			err = bpf_map__set_inner_map_fd(outer[i], inner[i]);
	}
	unwind = spb_unwind_map(1);
	if (unwind < 0 && !err)
		err = -errno;
	if (unwind >= 0 && !err)
		err = bpf_map__set_inner_map_fd(skel->maps.sp_punwind, unwind);
	if (!err) {
		__u32 slots = spb_cache_slots(libbpf_num_possible_cpus());

		skel->rodata->sp_cache_slots = slots;
		err = bpf_map__set_max_entries(skel->maps.sp_urules, slots) ?:
		      bpf_map__set_max_entries(skel->maps.sp_cfound, slots);
	}
	if (!err)
		err = sprofil_bpf__load(skel);
	for (i = 0; i < SPB_INNER_MAPS; i++)
		if (inner[i] >= 0)
			close(inner[i]);
	if (unwind >= 0)
		close(unwind);
	if (err) {
		sprofil_bpf__destroy(skel);
		return err;
	}
	*out = skel;
	return 0;
}

static inline int spb_load(struct sprofil_bpf **out, bool self_tests)
{
	return spb_load_with(out, self_tests, false);
}

/* The descriptors of a loaded @skel (owned by it). */
static inline void spb_program_of(struct sprofil_bpf *skel,
				  struct spb_program *p)
{
	p->fd[SPB_FD_SAMPLE] = bpf_program__fd(skel->progs.sp_sample);
	p->fd[SPB_FD_PROCS] = bpf_map__fd(skel->maps.sp_procs);
	p->fd[SPB_FD_PCOUNTS] = bpf_map__fd(skel->maps.sp_pcounts);
	p->fd[SPB_FD_PCNODES] = bpf_map__fd(skel->maps.sp_pcnodes);
	p->fd[SPB_FD_PCDIRTY] = bpf_map__fd(skel->maps.sp_pcdirty);
	p->fd[SPB_FD_OWNED] = bpf_map__fd(skel->maps.sp_owned);
	p->fd[SPB_FD_PUNWIND] = bpf_map__fd(skel->maps.sp_punwind);
}

static inline int spb_no_print(enum libbpf_print_level level,
				const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/*
 * spb_load() of the sampler with libbpf's own messages silenced: the
 * library's and the server's are one line each.
 */
static inline int spb_load_quietly(struct sprofil_bpf **out)
{
	libbpf_print_fn_t prev = libbpf_set_print(spb_no_print);
	int err = spb_load(out, false);

	libbpf_set_print(prev);
	return err;
}

#endif /* LIBSPROFIL_SPROFIL_SKEL_LOAD_H */
