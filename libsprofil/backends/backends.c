// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Every backend of libsprofil, in the order SPROFIL_BACKEND=auto tries
 * them: the front end chooses among them (profil.c), and the interposers
 * tell each of them the process's events (backend.h).
 */
#include "backend.h"

const struct sp_backend *const sp_all_backends[SP_NBACKENDS] = {
	&sp_backend_kmod, &sp_backend_bpf, &sp_backend_signal,
};

/* The process sampled from outside (sp_set_target()), or 0: us. */
static pid_t sp_target_pid;

void sp_set_target(pid_t pid)
{
	sp_target_pid = pid;
}

pid_t sp_target(void)
{
	return sp_target_pid;
}
