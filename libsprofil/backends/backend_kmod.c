// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kmod backend: sprofil.ko does the sampling in the kernel, writing
 * straight into the caller's (pinned) buffers; this file only speaks the
 * ioctl ABI of include/uapi/linux/sprofil.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <sprofil/events.h>
#include <sprofil/unwind_table.h>

#include "backend.h"
#include "unwind_load.h"

static int kmod_fd = -1;

static int kmod_probe(const char **why)
{
	static char reason[160];
	const struct sp_event *ev = sp_event_next();

	/* A PMU event's handler would run in NMI context: not counted. */
	if (spe_event(ev->type) && spe_event(ev->type)->pmu) {
		snprintf(reason, sizeof(reason),
			 "the module does not count PMU events such as %s (the bpf backend does)",
			 spe_event(ev->type)->name);
		*why = reason;
		return -EOPNOTSUPP;
	}
	if (kmod_fd >= 0)
		return 0;
	/* CLOEXEC: exec ends the session anyway; the fd must not leak. */
	kmod_fd = open("/dev/sprofil", O_RDWR | O_CLOEXEC);
	if (kmod_fd >= 0)
		return 0;
	snprintf(reason, sizeof(reason), "cannot open /dev/sprofil: %s",
		 strerror(errno));
	*why = reason;
	return -ENODEV;
}

/*
 * The unwind tables of the modules loaded now (unwind_load.c) into @um,
 * for the module to walk chains through code without frame pointers:
 * their number.  Another process's (SPROFIL_TARGET) when one is
 * sampled, at its biases.
 */
static unsigned int kmod_unwind_tables(struct sprofil_unwind_module *um)
{
	/* 4 KiB: static, not on a thread's stack; under the backend's lock. */
	static struct sp_unwind_table got[SPROFIL_MAX_UNWIND];
	unsigned int n, i;

	sp_unwind_load();
	n = sp_unwind_tables(got, SPROFIL_MAX_UNWIND);
	for (i = 0; i < n; i++) {
		const struct spu_header *h = got[i].t->hdr;

		um[i].bias = got[i].bias;
		um[i].table = (uintptr_t)h;
		um[i].bytes = spu_table_bytes(h->nrules, h->span, h->nrows);
	}
	return n;
}

static int kmod_start(const struct sprofil_region *r, unsigned int n,
		      unsigned int flags, uint64_t *period_ns,
		      const struct sp_callers *callers,
		      const struct sp_event *ev)
{
	struct sprofil_start args = {
		.size = sizeof(args),
		.flags = flags,
		.regions = (uintptr_t)r,
		.nregions = n,
		.period_ns = sp_event_counted(ev) ? 0 : *period_ns,
		.event_type = ev->type,
		.event_period = sp_event_counted(ev) ? ev->period : 0,
	};
	/* 6 KiB, as got[] above. */
	static struct sprofil_unwind_module um[SPROFIL_MAX_UNWIND];
	static bool unwind_refused;
	char mem[40];
	int err = 0;

	/* The module walks and files each sample's chain itself. */
	if (callers) {
		args.flags |= SPROFIL_CALLERS;
		args.callers = (uintptr_t)callers->table;
		args.callers_size = callers->bytes;
		args.callers_depth = callers->depth;
		args.nunwind = kmod_unwind_tables(um);
		args.unwind = args.nunwind ? (uintptr_t)um : 0;
	}
	/*
	 * Another process: the module takes it from an open /proc/PID/mem,
	 * whose opening made the kernel's ptrace access check, and keeps
	 * its memory, not the file, for as long as this file samples it.
	 */
	if (sp_target()) {
		snprintf(mem, sizeof(mem), "/proc/%d/mem", (int)sp_target());
		args.target_fd = open(mem, O_RDONLY | O_CLOEXEC);
		if (args.target_fd < 0)
			return -errno;
		args.flags |= SPROFIL_TARGET;
	}
	err = ioctl(kmod_fd, SPROFIL_IOC_START, &args) ? -errno : 0;
	/*
	 * A module before revision 3 (E2BIG: a longer structure than it
	 * knows, with its tail set), or tables it will not take (E2BIG
	 * beyond its cap, ENOMEM at the memory cgroup's limit): if the
	 * session starts without them, its chains are walked by frame
	 * records, and that is said once.
	 */
	if (err && args.nunwind && err != -EINTR) {
		unsigned int tables = args.nunwind;
		int refused = err;

		args.unwind = 0;
		args.nunwind = 0;
		err = ioctl(kmod_fd, SPROFIL_IOC_START, &args) ? -errno : 0;
		if (!err && !unwind_refused)
			fprintf(stderr, "libsprofil: the module did not take %u unwind tables (%s); chains stop where frame pointers do\n",
				tables, strerror(-refused));
		unwind_refused = unwind_refused || !err;
	}
	if (!err)
		*period_ns = sp_event_counted(ev) ? ev->period :
			     args.period_ns;
	if (args.flags & SPROFIL_TARGET)
		close(args.target_fd);
	return err;
}

static int kmod_stop(void)
{
	return ioctl(kmod_fd, SPROFIL_IOC_STOP) ? -errno : 0;
}

static int kmod_status(struct sprofil_status *st)
{
	return ioctl(kmod_fd, SPROFIL_IOC_STATUS, st) ? -errno : 0;
}

/* The session is the process's, not the fd's: the child has none. */
static void kmod_forget(void)
{
}

const struct sp_backend sp_backend_kmod = {
	.name = "kmod",
	.probe = kmod_probe,
	.start = kmod_start,
	.stop = kmod_stop,
	.status = kmod_status,
	.forget = kmod_forget,
};
