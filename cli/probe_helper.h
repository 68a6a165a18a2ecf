/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sprofil-probe's parts (probe_helper.c). */
#ifndef SPROFIL_CLI_PROBE_HELPER_H
#define SPROFIL_CLI_PROBE_HELPER_H

/* `sprofil-probe --serve NAME` (bpf_share.c): its exit status. */
int probe_serve(const char *name);

#endif
