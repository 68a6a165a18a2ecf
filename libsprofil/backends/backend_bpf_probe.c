// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Whether the bpf backend can run here (sp_backend.probe): BPF allowed,
 * its program accepted by this kernel's verifier, a task-clock counter
 * with kernel periods allowed.
 *
 * The verifier's answer is the slow part: loading the program takes the
 * kernel about half a second of CPU (its walk's bounded loops), and a
 * start loads it again, sized for its regions.  Every process paid both
 * (`sprofil record` a third, in sprofil-probe), 1 s of system time per
 * profiled process, most of a short program's cost.  The answer cannot
 * change for one program on one kernel with the same privileges, so it
 * is kept for the boot: a marker in /dev/shm (a tmpfs, emptied at boot)
 * named by a hash of the kernel, the program's bytes, the user and its
 * effective capabilities.  A marker makes the probe skip the load, never
 * the permission checks; a wrong one (another user cannot make one that
 * this user trusts: it must be this user's own, not writable by others)
 * only moves a refusal to the start, which says why.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "backend.h"
#include "backend_bpf_session.h"
#include "sprofil_load.h"
#include "sprofil.skel.h"

#define SB_MARKER_DIR	"/dev/shm"

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--) {
		h ^= *b++;
		h *= 0x100000001b3ull;
	}
	return h;
}

/* This process's effective capabilities, as /proc/self/status says. */
static uint64_t cap_eff(void)
{
	unsigned long long v = 0;
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

/* The marker's path for this kernel, program, user and capabilities. */
static void marker_path(char *path, size_t size)
{
	uint64_t h = 0xcbf29ce484222325ull, caps = cap_eff();
	uid_t uid = geteuid();
	struct utsname u;
	const void *elf;
	size_t len;

	elf = sprofil_bpf__elf_bytes(&len);
	h = fnv1a(h, elf, len);
	if (!uname(&u)) {
		h = fnv1a(h, u.release, strlen(u.release));
		h = fnv1a(h, u.version, strlen(u.version));
	}
	h = fnv1a(h, &caps, sizeof(caps));
	snprintf(path, size, SB_MARKER_DIR "/sprofil-bpf-verified-%u-%016llx",
		 (unsigned int)uid, (unsigned long long)h);
}

/* Whether this user's marker says the program was accepted this boot. */
static bool verified_before(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && S_ISREG(st.st_mode) &&
	       st.st_uid == geteuid() && !(st.st_mode & 022);
}

static void remember_verified(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		      O_CLOEXEC, 0600);

	/* No /dev/shm, or another process was first: no matter. */
	if (fd >= 0)
		close(fd);
}

int sb_probe(const char **why)
{
	static char reason[256];
	const struct spb_program *prog;
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.sample_period = 1000000000,
		.disabled = 1,
		.exclude_hv = 1,
	};
	char marker[128];
	int err, fd, loading = 0;

	/*
	 * A one-entry map first: refused at once where BPF is not
	 * permitted, before libbpf parses the kernel's BTF for the load.
	 */
	fd = spb_map_create(BPF_MAP_TYPE_ARRAY, sizeof(__u32), sizeof(__u32),
			    1, 0);
	err = fd < 0 ? -errno : 0;
	if (fd >= 0)
		close(fd);
	marker_path(marker, sizeof(marker));
	/*
	 * Then the real program: the one true test.  Kept for the start
	 * (a record run's server hands it over at no cost).
	 */
	if (!err && !sb_program_ready() && !verified_before(marker)) {
		loading = 1;
		pthread_mutex_lock(&sb_lock);
		err = sb_program(&prog);
		pthread_mutex_unlock(&sb_lock);
		if (!err)
			remember_verified(marker);
	}
	/*
	 * A map it could make: BPF is permitted, and EACCES from the
	 * program's load is its verifier's refusal.
	 */
	if (err) {
		snprintf(reason, sizeof(reason),
			 loading && err == -EACCES ?
			 "this kernel's verifier refused its BPF program: %s" :
			 err == -EPERM || err == -EACCES ?
			 "BPF is not permitted (needs CAP_BPF and CAP_PERFMON, or root): %s" :
			 "cannot load its BPF program: %s",
			 strerror(-err));
		*why = reason;
		return -ENODEV;
	}
	err = sb_event_supported(sp_event_next(), reason, sizeof(reason));
	if (err) {
		*why = reason;
		return err;
	}
	fd = sb_perf_event_open(&attr, 0);
	if (fd < 0) {
		snprintf(reason, sizeof(reason),
			 "no perf task-clock counter with kernel periods (needs CAP_PERFMON or perf_event_paranoid <= 1): %s",
			 strerror(errno));
		*why = reason;
		return -ENODEV;
	}
	close(fd);
	return 0;
}
