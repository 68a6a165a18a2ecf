// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The bpf backend's loader: loads the program through libbpf when no
 * record run's server hands it over (backend_bpf_program.c).  Built as
 * the plugin sprofil/bpf-loader.so beside libsprofil.so, which loads it
 * only then, so that libbpf, libelf and libz are mapped only into the
 * processes that load the program; linked straight into libsprofil.a.
 */
#include "sprofil_skel_load.h"
#include "backend_bpf_loader.h"

int sprofil_bpf_loader_load(int fd[SPB_NFDS])
{
	/* Kept for the life of the process, as its descriptors are. */
	static struct sprofil_bpf *skel;
	struct spb_program p;
	int err = 0;

	if (!skel)
		err = spb_load_quietly(&skel);
	if (err)
		return err;
	spb_program_of(skel, &p);
	memcpy(fd, p.fd, sizeof(p.fd));
	return 0;
}
