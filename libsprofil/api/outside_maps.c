// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The load modules of another process, for sampling it from outside
 * (outside.c): every ELF file /proc/PID/maps shows mapped, its load bias
 * found from a mapping of it and its program headers, read from the
 * file itself (through /proc/PID/root, the process's own view of the
 * file system), as dl_iterate_phdr() tells a process its own.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "api/outside.h"
#include "common/settings.h"
#include "pg/elf_headers.h"
#include "pg/gmon.h"

/* Program headers read per file: more is no ELF a linker makes. */
#define OM_MAX_PHDRS	64

/* One file's ELF headers. */
struct om_elf {
	Elf64_Ehdr eh;
	Elf64_Phdr ph[OM_MAX_PHDRS];
	unsigned int nph;
};

/*
 * Where a module's ELF image is read from: its file, or for the vDSO,
 * our own copy in memory (the kernel maps the same image into every
 * 64-bit process).
 */
struct om_src {
	int fd;				/* -1: mem */
	const unsigned char *mem;
	size_t size;
};

static ssize_t om_read(const struct om_src *src, void *buf, size_t len,
		       uint64_t off)
{
	if (src->fd >= 0)
		return pread(src->fd, buf, len, (off_t)off);
	if (off >= src->size)
		return 0;
	if (len > src->size - off)
		len = src->size - off;
	memcpy(buf, src->mem + off, len);
	return (ssize_t)len;
}

/* Our vDSO's image, its size bounded by its loaded segments. */
static int om_vdso(struct om_src *src)
{
	const unsigned char *base = (const void *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const void *)base;
	const Elf64_Phdr *ph;
	unsigned int i;

	if (!base)
		return -ENOENT;
	src->fd = -1;
	src->mem = base;
	src->size = eh->e_phoff + (size_t)eh->e_phnum * sizeof(*ph);
	ph = (const void *)(base + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD &&
		    ph[i].p_offset + ph[i].p_filesz > src->size)
			src->size = ph[i].p_offset + ph[i].p_filesz;
	return 0;
}

static int om_open(pid_t pid, const char *path)
{
	char root[PATH_MAX + 32];
	int fd;

	snprintf(root, sizeof(root), "/proc/%d/root%s", (int)pid, path);
	fd = open(root, O_RDONLY | O_CLOEXEC);
	return fd >= 0 ? fd : open(path, O_RDONLY | O_CLOEXEC);
}

static int om_read_elf(const struct om_src *src, struct om_elf *e)
{
	unsigned int i;

	if (om_read(src, &e->eh, sizeof(e->eh), 0) != sizeof(e->eh) ||
	    memcmp(e->eh.e_ident, ELFMAG, SELFMAG) ||
	    e->eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    e->eh.e_phentsize != sizeof(Elf64_Phdr))
		return -ENOEXEC;
	e->nph = e->eh.e_phnum < OM_MAX_PHDRS ? e->eh.e_phnum : OM_MAX_PHDRS;
	for (i = 0; i < e->nph; i++)
		if (om_read(src, &e->ph[i], sizeof(e->ph[i]), e->eh.e_phoff +
			    (uint64_t)i * sizeof(e->ph[i])) != sizeof(e->ph[i]))
			return -ENOEXEC;
	return 0;
}

/* The NT_GNU_BUILD_ID of the file, if it has one, into @m. */
static void om_build_id(const struct om_src *src, const struct om_elf *e,
			struct sp_target_module *m)
{
	unsigned char buf[1024];
	const void *id;
	unsigned int i;
	size_t len;
	ssize_t got;

	for (i = 0; i < e->nph; i++) {
		if (e->ph[i].p_type != PT_NOTE)
			continue;
		len = e->ph[i].p_filesz < sizeof(buf) ? e->ph[i].p_filesz :
		      sizeof(buf);
		got = om_read(src, buf, len, e->ph[i].p_offset);
		if (got < 0)
			continue;
		id = sp_note_build_id(buf, (size_t)got, e->ph[i].p_align, &len);
		if (id && len <= sizeof(m->build_id)) {
			memcpy(m->build_id, id, len);
			m->build_id_len = len;
			return;
		}
	}
}

/*
 * The load bias that puts @e's PT_LOAD mapped from file offset @off at
 * @start, or 0 with *ok false when no PT_LOAD starts in that page.
 */
static uintptr_t om_bias(const struct om_elf *e, uint64_t start,
			 uint64_t off, bool *ok)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	unsigned int i;

	for (i = 0; i < e->nph; i++) {
		const Elf64_Phdr *ph = &e->ph[i];

		if (ph->p_type != PT_LOAD || ph->p_offset < off ||
		    ph->p_offset - off >= page)
			continue;
		*ok = true;
		return start + (ph->p_offset - off) - ph->p_vaddr;
	}
	*ok = false;
	return 0;
}

/* Whether SPROFIL_MODULES (record's --modules) selects @path. */
static bool om_selected(const char *path)
{
	const char *list = sp_setting("SPROFIL_MODULES");
	const char *base = strrchr(path, '/');
	const char *p, *end;
	size_t len;

	base = base ? base + 1 : path;
	if (!list || !*list || !strcmp(list, "ALL"))
		return true;
	for (p = list; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		len = (size_t)(end - p);
		if ((strlen(path) == len && !strncmp(path, p, len)) ||
		    (strlen(base) == len && !strncmp(base, p, len)))
			return true;
	}
	return false;
}

/* Fills @m for the file @path mapped at @start from offset @off. */
static int om_module(pid_t pid, const char *path, uint64_t start,
		     uint64_t off, struct sp_target_module *m)
{
	struct om_elf e;
	struct om_src src = { .fd = -1 };
	uintptr_t lo, hi, xlo, xhi;
	bool ok;
	int err;

	if (!strcmp(path, "[vdso]")) {
		err = om_vdso(&src);
	} else {
		src.fd = om_open(pid, path);
		err = src.fd < 0 ? -errno : 0;
	}
	if (!err)
		err = om_read_elf(&src, &e);
	if (!err) {
		m->bias = om_bias(&e, start, off, &ok);
		if (!ok)
			err = -ENOEXEC;
	}
	if (!err)
		om_build_id(&src, &e, m);
	if (src.fd >= 0)
		close(src.fd);
	if (err)
		return err;
	sp_load_spans(e.ph, e.nph, &lo, &hi, &xlo, &xhi);
	if (xlo >= xhi)
		return -ENOEXEC;
	m->low = m->bias + lo;
	m->high = m->bias + hi;
	m->xlow = (m->bias + xlo) & ~3ul;
	m->xhigh = (m->bias + xhi + 3) & ~3ul;
	m->name = strdup(path);
	return m->name ? 0 : -ENOMEM;
}

static bool om_known(const struct sp_target_module *m, size_t n,
		     const char *path)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(m[i].name, path))
			return true;
	return false;
}

void sp_outside_modules_free(struct sp_target_module *m, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(m[i].name);
	free(m);
}

int sp_outside_modules(pid_t pid, struct sp_target_module **out, size_t *n)
{
	char maps[64], exe[PATH_MAX], line[PATH_MAX + 128], path[PATH_MAX];
	struct sp_target_module *m = NULL, *grown;
	uint64_t start, end, off;
	char perms[8];
	ssize_t len;
	size_t cap = 0;
	FILE *f;
	int err = 0;

	*n = 0;
	snprintf(maps, sizeof(maps), "/proc/%d/exe", (int)pid);
	len = readlink(maps, exe, sizeof(exe) - 1);
	exe[len > 0 ? len : 0] = '\0';
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "re");
	if (!f)
		return -errno;
	while (!err && fgets(line, sizeof(line), f)) {
		path[0] = '\0';
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64
			   " %*s %*s %4095[^\n]", &start, &end, perms, &off,
			   path) < 4 || (path[0] != '/' && strcmp(path, "[vdso]")) ||
		    om_known(m, *n, path) || !om_selected(path))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			grown = realloc(m, cap * sizeof(*m));
			if (!grown) {
				err = -ENOMEM;
				break;
			}
			m = grown;
		}
		memset(&m[*n], 0, sizeof(m[*n]));
		/* Not an ELF we can read (a data file): not a module. */
		if (om_module(pid, path, start, off, &m[*n]))
			continue;
		m[*n].main = !strcmp(path, exe);
		(*n)++;
	}
	fclose(f);
	if (err) {
		sp_outside_modules_free(m, *n);
		return err;
	}
	*out = m;
	return 0;
}
