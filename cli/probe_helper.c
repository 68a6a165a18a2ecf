// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sprofil-probe, run by `sprofil record` with libsprofil preloaded and
 * the backend asked for in SPROFIL_BACKEND (cli/probe.c): starts
 * sampling a region of its own text and stops.  Exit 0 when sampling
 * starts; else 1, libsprofil and this program having said why on
 * stderr.  On bpf, choosing the backend is the test: its probe had the
 * kernel verify the program (once per boot, backend_bpf_probe.c), and a
 * start would load it again, half a second of CPU for every record.  A program of its own because the command itself is static
 * (so that ld.so never runs in it: see docs/record.md, LD_PROFILE).
 * On success it says the backend chosen on stdout ("backend NAME").
 *
 * With --serve NAME, it is instead the run's bpf program server
 * (bpf_share.c), started only when the probe chose bpf.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/gmon.h>
#include <sys/profil.h>

#include <sprofil.h>

#include "probe_helper.h"

typedef int (*sprofil_fn)(struct prof *, int, struct timeval *,
			  unsigned int);
typedef int (*info_fn)(struct sprofil_info *);

int main(int argc, char **argv)
{
	static unsigned short buckets[256];
	struct prof region = {
		.pr_base = buckets, .pr_size = sizeof(buckets),
		.pr_off = (size_t)(void *)main, .pr_scale = 0x10000,
	};
	sprofil_fn start = (sprofil_fn)dlsym(RTLD_DEFAULT, "sprofil");
	info_fn info = (info_fn)dlsym(RTLD_DEFAULT, "sprofil_info");
	struct sprofil_info chosen = { 0 };
	struct timeval tick;

	if (argc == 3 && !strcmp(argv[1], "--serve"))
		return probe_serve(argv[2]);
	if (!start || !info) {
		fprintf(stderr, "libsprofil is not loaded (LD_PRELOAD)\n");
		return 1;
	}
	if (!info(&chosen) && chosen.backend &&
	    !strcmp(chosen.backend, "bpf")) {
		printf("backend bpf\n");
		return 0;
	}
	if (start(&region, 1, &tick, PROF_USHORT)) {
		fprintf(stderr, "sampling does not start: %s\n",
			strerror(errno));
		return 1;
	}
	start(NULL, 0, NULL, 0);
	if (!info(&chosen) && chosen.backend)
		printf("backend %s\n", chosen.backend);
	return 0;
}
