// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The collector `sprofil record` injects (docs/record.md): libsprofil
 * preloaded into a program that was not built with -pg starts the -pg
 * runtime itself, from a constructor, over the executable's text and
 * every load module, and writes the profile at exit as a -pg program
 * would.  In a -pg program this constructor runs before the executable's
 * own __monstartup(), which then finds the runtime started and is
 * ignored; mcount counts its calls as usual.  Forked children keep
 * profiling and exec'd programs start their own collector (LD_PRELOAD
 * stays in their environment), each into a file of its own, named here.
 *
 * The command passes what it was asked in two variables:
 * SPROFIL_RECORD, the output (a file, or a directory when it ends in
 * '/'), and SPROFIL_RECORD_PID, the process it started.
 */
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/gmon.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pg/gmon.h"
#include "common/settings.h"

#define SP_RECORD_SUFFIX	".gmon"

bool sp_recording(void)
{
	const char *out = sp_setting("SPROFIL_RECORD");

	return out && *out;
}

static bool sp_exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

/* "<stem>[-<k>][.<seq>]<suffix>", or -ENAMETOOLONG. */
static int sp_record_name(char *buf, size_t size, const char *stem,
			  unsigned int k, unsigned int seq, const char *suffix)
{
	char gen[16] = "", dump[16] = "";
	int len;

	if (k > 1)
		snprintf(gen, sizeof(gen), "-%u", k);
	if (seq)
		snprintf(dump, sizeof(dump), ".%u", seq);
	len = snprintf(buf, size, "%s%s%s%s", stem, gen, dump, suffix);
	return len < 0 || (size_t)len >= size ? -ENAMETOOLONG : 0;
}

/*
 * The file of this process image's dump @seq (0: the one at exit or
 * exec), for sp_gmon_dump() while recording:
 *  - a directory: "<dir>/<prog>.<pid>.gmon";
 *  - a file: the process the command started writes the file itself,
 *    every other image (a forked child, an exec'd program)
 *    "<file minus .gmon>.<prog>.<pid>.gmon".
 * The program a process execs keeps its pid and finds the file of the
 * image before it there: it takes the next "<...>.<pid>-<k>.gmon" instead,
 * since no image overwrites another's profile.  @ours tells the files
 * this image wrote, which it may write again.  SPROFIL_SIGDUMP's dump
 * <seq> puts ".<seq>" before the suffix.
 */
int sp_record_path(char *buf, size_t size, unsigned int seq,
		   bool (*ours)(const char *path))
{
	const char *out = sp_setting("SPROFIL_RECORD");
	const char *root = sp_setting("SPROFIL_RECORD_PID");
	const char *prog = program_invocation_short_name;
	char stem[PATH_MAX];
	const char *suffix = SP_RECORD_SUFFIX;
	size_t len = strlen(out);
	unsigned int k;
	int ret;

	if (out[len - 1] == '/') {
		ret = snprintf(stem, sizeof(stem), "%s%s.%d", out, prog,
			       (int)getpid());
	} else {
		size_t slen = strlen(SP_RECORD_SUFFIX);

		if (len <= slen || strcmp(out + len - slen, SP_RECORD_SUFFIX))
			suffix = "";
		ret = snprintf(stem, sizeof(stem), "%.*s",
			       (int)(len - strlen(suffix)), out);
		if (ret >= 0 && (size_t)ret < sizeof(stem) && root &&
		    atoi(root) == getpid() &&
		    (!sp_exists(out) || ours(out)))
			return sp_record_name(buf, size, stem, 1, seq, suffix);
		if (ret >= 0 && (size_t)ret < sizeof(stem))
			ret = snprintf(stem + ret, sizeof(stem) - ret,
				       ".%s.%d", prog, (int)getpid());
	}
	if (ret < 0 || (size_t)ret >= sizeof(stem))
		return -ENAMETOOLONG;
	for (k = 1; k < UINT_MAX; k++) {
		ret = sp_record_name(buf, size, stem, k, seq, suffix);
		if (ret || !sp_exists(buf) || ours(buf))
			return ret;
	}
	return -EEXIST;
}

/* The executable's text: its executable PT_LOAD segments, at run time. */
static int sp_exe_text(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t *range = data;
	size_t i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (lo < range[0])
			range[0] = lo;
		if (lo + ph->p_memsz > range[1])
			range[1] = lo + ph->p_memsz;
	}
	return 1;		/* the first module is the executable */
}

__attribute__((constructor)) static void sp_collector_start(void)
{
	uintptr_t range[2] = { UINTPTR_MAX, 0 };

	if (!sp_recording())
		return;
	dl_iterate_phdr(sp_exe_text, range);
	if (range[0] >= range[1]) {
		fprintf(stderr, "libsprofil: %s: no executable text found: not profiled\n",
			program_invocation_short_name);
		return;
	}
	__monstartup(range[0], range[1]);
	atexit(_mcleanup);
}
