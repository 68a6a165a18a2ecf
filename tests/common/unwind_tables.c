// SPDX-License-Identifier: LGPL-2.1-or-later
/* Unwind tables for a test (unwind_tables.h). */
#include <dirent.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sprofil/unwind_table.h>

#include "../../libsprofil/pg/elf_headers.h"
#include "unwind_tables.h"

#define CMD_MAX	8192

/*
 * Every module loaded: its file, and the executable's (by its path: the
 * builder runs under a shell, whose /proc/self/exe is the shell).
 */
static int add_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	static char exe[4096];
	char *cmd = arg;
	const char *name = info->dlpi_name;
	ssize_t n;

	(void)size;
	if (!*name) {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n <= 0)
			return 0;
		exe[n] = 0;
		name = exe;
	}
	if (strstr(name, "linux-vdso") || access(name, R_OK))
		return 0;
	if (strlen(cmd) + strlen(name) + 4 < CMD_MAX) {
		strcat(cmd, " '");
		strcat(cmd, name);
		strcat(cmd, "'");
	}
	return 0;
}

int ut_build_tables(const char *tool, const char *dir, const char *extra,
		    const char *out)
{
	static char cmd[CMD_MAX];
	int status;

	snprintf(cmd, sizeof(cmd), "%s -O %s", tool, dir);
	if (extra)
		add_module(&(struct dl_phdr_info){ .dlpi_name = extra }, 0,
			   cmd);
	dl_iterate_phdr(add_module, cmd);
	if (strlen(cmd) + strlen(out) + 3 < sizeof(cmd)) {
		strcat(cmd, " >");
		strcat(cmd, out);
	}
	status = system(cmd);
	if (status)
		fprintf(stderr, "# %s: status %d\n", cmd, status);
	return status;
}

void ut_remove_dir(const char *dir)
{
	char path[4096];
	struct dirent *e;
	DIR *d = opendir(dir);

	if (d) {
		while ((e = readdir(d)))
			if (e->d_name[0] != '.') {
				snprintf(path, sizeof(path), "%s/%s", dir,
					 e->d_name);
				unlink(path);
			}
		closedir(d);
	}
	rmdir(dir);
}

int ut_copy_dir(const char *from, const char *to)
{
	char src[4096], dst[4096], buf[65536];
	struct dirent *e;
	DIR *d = opendir(from);
	int rc = d ? 0 : -1;

	while (d && !rc && (e = readdir(d))) {
		FILE *in, *out;
		size_t n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(src, sizeof(src), "%s/%s", from, e->d_name);
		snprintf(dst, sizeof(dst), "%s/%s", to, e->d_name);
		in = fopen(src, "rb");
		out = fopen(dst, "wb");
		while (in && out && (n = fread(buf, 1, sizeof(buf), in)) > 0)
			if (fwrite(buf, 1, n, out) != n)
				rc = -1;
		if (!in || !out || ferror(in) || chmod(dst, 0644))
			rc = -1;
		if (in)
			fclose(in);
		if (out && fclose(out))
			rc = -1;
	}
	if (d)
		closedir(d);
	return rc;
}

struct load_arg {
	const char *dir;
	struct ut_module *mods;
	unsigned int n, max;
	int err;
};

/* The table of one loaded module with a build-id, read and checked. */
static int load_table(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct load_arg *a = arg;
	char path[4096], hex[2 * SPU_BUILD_ID_MAX + 1];
	const unsigned char *id = NULL;
	struct spu_table *t;
	struct stat st;
	size_t len = 0;
	void *buf;
	FILE *f;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum && !id; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_NOTE)
			id = sp_note_build_id((const void *)(info->dlpi_addr +
							     ph->p_vaddr),
					      ph->p_memsz, ph->p_align, &len);
	}
	if (!id || !len || len > SPU_BUILD_ID_MAX || a->n == a->max || a->err)
		return 0;
	for (size_t k = 0; k < len; k++)
		sprintf(hex + 2 * k, "%02x", id[k]);
	snprintf(path, sizeof(path), "%s/%s.spu", a->dir, hex);
	if (stat(path, &st))
		return 0;
	buf = malloc(st.st_size);
	t = calloc(1, sizeof(*t));
	f = fopen(path, "rb");
	if (!buf || !t || !f ||
	    fread(buf, 1, st.st_size, f) != (size_t)st.st_size ||
	    spu_table_view(buf, st.st_size, t)) {
		fprintf(stderr, "# %s: cannot read it as an unwind table\n",
			path);
		a->err = -1;
		free(buf);
		free(t);
	} else {
		a->mods[a->n].bias = info->dlpi_addr;
		a->mods[a->n].name = info->dlpi_name;
		a->mods[a->n++].t = t;
	}
	if (f)
		fclose(f);
	return 0;
}

int ut_load_tables(const char *dir, struct ut_module *mods, unsigned int max)
{
	struct load_arg a = { .dir = dir, .mods = mods, .max = max };

	dl_iterate_phdr(load_table, &a);
	if (a.err) {
		ut_free_tables(mods, a.n);
		return -1;
	}
	return (int)a.n;
}

void ut_free_tables(struct ut_module *mods, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		free((void *)mods[i].t->hdr);
		free(mods[i].t);
	}
}

int ut_rule_of(const struct ut_module *mods, unsigned int n, uint64_t addr,
	       struct spu_rule *rule)
{
	for (unsigned int i = 0; i < n; i++) {
		const struct spu_table *t = mods[i].t;
		uint64_t lo = mods[i].bias + t->hdr->base;
		long k;

		if (addr < lo || addr >= lo + t->hdr->span)
			continue;
		k = spu_find(t, addr - lo);
		if (k < 0)
			return -1;
		*rule = t->rule[k];
		return 0;
	}
	return -1;
}
