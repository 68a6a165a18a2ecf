/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Sampling another process from outside (docs/record.md, "Static
 * programs and attaching"): `sprofil record` runs sprofil-outside,
 * linked with libsprofil.a, for a static program or a running process.
 */
#ifndef LIBSPROFIL_OUTSIDE_H
#define LIBSPROFIL_OUTSIDE_H

#include <stddef.h>
#include <sys/types.h>

struct sp_target_module;

/*
 * outside_maps.c: the ELF files process @pid has mapped, as
 * /proc/PID/maps shows them now, narrowed by SPROFIL_MODULES, into a
 * malloc()ed *@out of *@n.  Returns 0 or a negative errno.
 */
int sp_outside_modules(pid_t pid, struct sp_target_module **out, size_t *n);
void sp_outside_modules_free(struct sp_target_module *m, size_t n);

/*
 * Samples process @pid and its threads with the bpf backend (its
 * program from SPROFIL_BPF_SHARE, or loaded here) into histograms of
 * its modules and a caller table of ours; says "ready" on @ready once
 * every thread is sampled, and samples until @ctl ends (EOF).  Then
 * writes one profile to @path: the histograms, the chains and, when
 * @pg_file (may be NULL) is a GNU gmon.out the program's own -pg
 * runtime wrote, its call arcs; @pg_file is removed.  Returns 0, or 1
 * after one line on stderr.
 */
int sp_outside_record(pid_t pid, const char *path, int ctl, int ready,
		      const char *pg_file);

#endif /* LIBSPROFIL_OUTSIDE_H */
