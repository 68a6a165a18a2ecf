// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The unwind tables of every backend (include/sprofil/unwind_table.h,
 * docs/callers.md "Unwind tables"): the tables of the process's modules,
 * built beforehand by the collector or sprofil-unwind into the directory
 * SPROFIL_UNWIND_DIR names, one file per module named by its build-id
 * (<hex>.spu), and the signal handler's walk over them.  The bpf and
 * kmod backends take the loaded set (sp_unwind_tables()) to their
 * program's maps and to the module.
 *
 * libdw never enters the process: a table is only mapped and checked
 * here.  At each start with a caller table (under the backend's lock,
 * outside any handler) the loaded modules are listed with
 * dl_iterate_phdr(); a module whose build-id has a file gets it mapped,
 * read-only, once it passes spu_table_view() and names the same
 * build-id.  Entries are added, never moved: the handler reads the count
 * with acquire order and an entry's span with an acquire load of its
 * end, and a module that is gone at a later start has its span emptied,
 * so that a module mapped later at its addresses is not walked with its
 * rules.  Its table stays mapped (a handler may be reading it), at most
 * SP_UNWIND_MAX of them, and the module loaded again (a dlopen() and
 * dlclose() loop) takes its emptied entry back at its new bias: its
 * table is the same file, named by the same build-id.
 *
 * Under `sprofil record`, SPROFIL_UNWIND_SERVER names the run's table
 * server (sprofil-unwind -S, unwind/unwind_serve.c): a module with a
 * build-id but no table yet is asked for by its path, one request and
 * one byte of answer each, and its table is looked for again once the
 * server has built it.  So each module is built once for the user's
 * cache, by the one process that links libdw, and a later run finds it.
 */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <sprofil/unwind_table.h>

#include "backends/backend.h"
#include "common/settings.h"
#include "pg/elf_headers.h"
#include "pg/gmon.h"
#include "unwind_load.h"

#define SP_UNWIND_MAX	256
/* How long a start waits for the server to build one module's table. */
#define SP_UNWIND_ASK_S	30

/* One scan's directory and its connection to the run's table server. */
struct sp_unwind_scan_arg {
	const char *dir;
	const char *server;		/* abstract socket name, or NULL */
	int fd;				/* -1: not yet, -2: not to be had */
};

struct sp_unwind_mod {
	_Atomic uintptr_t lo, hi;	/* runtime span of its code */
	_Atomic uintptr_t bias;
	struct spu_table t;
	unsigned char id[SPU_BUILD_ID_MAX];
	size_t id_len;
	int seen;			/* found by the current scan */
};

static struct sp_unwind_mod sp_umod[SP_UNWIND_MAX];
static _Atomic unsigned int sp_numod;

/* The entry whose code holds @pc, or NULL; async-signal-safe. */
static const struct sp_unwind_mod *sp_unwind_mod_of(uintptr_t pc)
{
	unsigned int n = atomic_load_explicit(&sp_numod, memory_order_acquire);
	unsigned int i;

	for (i = 0; i < n; i++) {
		const struct sp_unwind_mod *m = &sp_umod[i];

		/* The end first: a span re-armed is published by its end. */
		if (pc < atomic_load_explicit(&m->hi, memory_order_acquire) &&
		    pc >= atomic_load_explicit(&m->lo, memory_order_relaxed))
			return m;
	}
	return NULL;
}

bool sp_unwind_covers(uintptr_t pc)
{
	return sp_unwind_mod_of(pc) != NULL;
}

/* The table file of a module: mapped and checked, or NULL. */
static const struct spu_header *sp_unwind_open(const char *dir,
					       const unsigned char *id,
					       size_t id_len, size_t *bytes,
					       bool *missing)
{
	char path[4096], hex[2 * SPU_BUILD_ID_MAX + 1];
	const struct spu_header *h;
	struct spu_table t;
	struct stat st;
	size_t i;
	void *p;
	int fd;

	for (i = 0; i < id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	if ((size_t)snprintf(path, sizeof(path), "%s/%s.spu", dir, hex) >=
	    sizeof(path))
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	*missing = fd < 0 && errno == ENOENT;
	if (fd < 0)
		return NULL;
	/*
	 * Another user's file, or one others may write, is not used: a
	 * table cannot make the walk fault or loop, but it can make chains
	 * lie.
	 */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (st.st_uid != geteuid() && st.st_uid != 0) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)) || st.st_size < 64 ||
	    (uint64_t)st.st_size > spu_table_bytes(SPU_MAX_RULES, ~0u,
						   SPU_MAX_ROWS)) {
		close(fd);
		return NULL;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	h = p;
	if (spu_table_view(h, (uint64_t)st.st_size, &t) ||
	    h->build_id_len != id_len || memcmp(h->build_id, id, id_len)) {
		fprintf(stderr, "libsprofil: %s: not the unwind table of the module with that build-id; not used\n",
			path);
		munmap(p, (size_t)st.st_size);
		return NULL;
	}
	*bytes = (size_t)st.st_size;
	return h;
}

/* The server's connection, made at the first request of a scan. */
static int sp_unwind_connect(struct sp_unwind_scan_arg *a)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = SP_UNWIND_ASK_S };
	size_t len = strlen(a->server);

	if (a->fd != -1)
		return a->fd;
	a->fd = -2;
	if (!len || len + 1 > sizeof(addr.sun_path))
		return -2;
	memcpy(addr.sun_path + 1, a->server, len);
	a->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (a->fd >= 0 &&
	    (setsockopt(a->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	     connect(a->fd, (struct sockaddr *)&addr,
		     offsetof(struct sockaddr_un, sun_path) + 1 + len))) {
		close(a->fd);
		a->fd = -1;
	}
	if (a->fd < 0) {
		fprintf(stderr, "libsprofil: the unwind table server %s: %s; chains stop where frame pointers do\n",
			a->server, strerror(errno));
		a->fd = -2;
	}
	return a->fd;
}

/*
 * Asks the server to build the table of the module at @name (the main
 * program's: "" from dl_iterate_phdr); true once it says it is built.
 */
static bool sp_unwind_ask(struct sp_unwind_scan_arg *a, const char *name)
{
	char self[4096];
	unsigned char answer;
	ssize_t n;
	int fd;

	if (!*name) {
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0)
			return false;
		self[n] = '\0';
		name = self;
	}
	/* The vDSO and others with no file of their own. */
	if (*name != '/')
		return false;
	fd = sp_unwind_connect(a);
	if (fd < 0)
		return false;
	if (send(fd, name, strlen(name), MSG_NOSIGNAL) < 0 ||
	    recv(fd, &answer, 1, 0) != 1) {
		fprintf(stderr, "libsprofil: the unwind table server %s did not answer for %s; chains stop where frame pointers do\n",
			a->server, name);
		close(fd);
		a->fd = -2;
		return false;
	}
	return answer == 0;
}

/*
 * Publishes @m's span for a module loaded at @bias: its end last, with
 * release order, so that a handler that finds the span reads this bias.
 */
static void sp_unwind_arm(struct sp_unwind_mod *m, uintptr_t bias)
{
	const struct spu_header *h = m->t.hdr;

	m->seen = 1;
	atomic_store_explicit(&m->bias, bias, memory_order_relaxed);
	/* The rows cover [base, base + span) of the link-time addresses. */
	atomic_store_explicit(&m->lo, bias + h->base, memory_order_relaxed);
	atomic_store_explicit(&m->hi, bias + h->base + h->span,
			      memory_order_release);
}

/*
 * Takes the table of the module @name (its path; "" for the main
 * program) with build-id @id, loaded at @bias: the entry it already
 * has, its emptied entry back, or a new one if its file is found or
 * built.
 */
static void sp_unwind_take(struct sp_unwind_scan_arg *a, const void *id,
			   size_t id_len, uintptr_t bias, const char *name)
{
	unsigned int n = atomic_load(&sp_numod);
	const struct spu_header *h = NULL;
	struct sp_unwind_mod *m;
	size_t bytes, i;
	bool missing;

	for (i = 0; i < n; i++) {
		m = &sp_umod[i];
		if (m->id_len != id_len || memcmp(m->id, id, id_len))
			continue;
		if (atomic_load(&m->hi)) {
			if (atomic_load(&m->bias) != bias)
				continue;
			m->seen = 1;
			return;
		}
		/* Gone and loaded again: the same table at the new bias. */
		sp_unwind_arm(m, bias);
		return;
	}
	if (n == SP_UNWIND_MAX)
		return;
	h = sp_unwind_open(a->dir, id, id_len, &bytes, &missing);
	if (!h && missing && a->server && sp_unwind_ask(a, name))
		h = sp_unwind_open(a->dir, id, id_len, &bytes, &missing);
	if (!h)
		return;
	m = &sp_umod[n];
	spu_table_view(h, bytes, &m->t);
	memcpy(m->id, id, id_len);
	m->id_len = id_len;
	sp_unwind_arm(m, bias);
	atomic_store_explicit(&sp_numod, n + 1, memory_order_release);
}

static int sp_unwind_scan(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t lo, hi, xlo, xhi;
	const void *id = NULL;
	size_t id_len = 0, i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum && !id; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_NOTE)
			id = sp_note_build_id((const void *)(info->dlpi_addr +
							     ph->p_vaddr),
					      ph->p_memsz, ph->p_align,
					      &id_len);
	}
	if (!id || !id_len || id_len > SPU_BUILD_ID_MAX)
		return 0;
	sp_load_spans(info->dlpi_phdr, info->dlpi_phnum, &lo, &hi, &xlo, &xhi);
	if (xlo < xhi)
		sp_unwind_take(arg, id, id_len, info->dlpi_addr,
			       info->dlpi_name);
	return 0;
}

/* Another process's modules (outside.c), scanned instead of ours. */
static const struct sp_target_module *sp_utarget;
static size_t sp_nutarget;

void sp_unwind_set_target(const struct sp_target_module *m, size_t n)
{
	sp_utarget = m;
	sp_nutarget = n;
}

void sp_unwind_load(void)
{
	const char *server = sp_setting("SPROFIL_UNWIND_SERVER");
	struct sp_unwind_scan_arg a = {
		.dir = sp_setting("SPROFIL_UNWIND_DIR"),
		.server = server && *server ? server : NULL,
		.fd = -1,
	};
	unsigned int n = atomic_load(&sp_numod), i;

	if (!a.dir || !*a.dir)
		return;
	for (i = 0; i < n; i++)
		sp_umod[i].seen = 0;
	/*
	 * Sampling another process: its modules, at its biases, or none
	 * if it was not said which (ours would be at ours).
	 */
	for (i = 0; sp_target() && i < sp_nutarget; i++) {
		const struct sp_target_module *m = &sp_utarget[i];

		if (m->build_id_len && m->build_id_len <= SPU_BUILD_ID_MAX &&
		    m->xlow < m->xhigh)
			sp_unwind_take(&a, m->build_id, m->build_id_len,
				       m->bias, m->name);
	}
	if (!sp_target())
		dl_iterate_phdr(sp_unwind_scan, &a);
	if (a.fd >= 0)
		close(a.fd);
	/* Modules gone since the last scan: their spans are emptied. */
	for (i = 0; i < n; i++)
		if (!sp_umod[i].seen)
			atomic_store(&sp_umod[i].hi, 0);
}

unsigned int sp_unwind_tables(struct sp_unwind_table *out, unsigned int max)
{
	unsigned int n = atomic_load(&sp_numod), i, k = 0;

	for (i = 0; i < n && k < max; i++) {
		if (!atomic_load(&sp_umod[i].hi))
			continue;
		out[k].bias = sp_umod[i].bias;
		out[k++].t = &sp_umod[i].t;
	}
	return k;
}

/* The walk's hooks: rules from the entries, words inside the stack. */
struct sp_unwind_ctx {
	uintptr_t lo, hi;		/* the readable stack */
};

static int sp_unwind_rule(uintptr_t addr, struct spu_rule *rule)
{
	const struct sp_unwind_mod *m = sp_unwind_mod_of(addr);
	long k;

	if (!m)
		return -1;
	k = spu_find(&m->t, addr -
		     atomic_load_explicit(&m->bias, memory_order_relaxed) -
		     m->t.hdr->base);
	if (k < 0)
		return -1;
	*rule = m->t.rule[k];
	return 0;
}

/*
 * Inside the interrupted thread's stack only: the handler has no load
 * that fails instead of faulting.  Saved registers and return addresses,
 * never a sanitizer's redzone.
 */
__attribute__((no_sanitize_address))
static int sp_unwind_read(const struct sp_unwind_ctx *c, uintptr_t addr,
			  __u64 *val)
{
	if (addr < c->lo || addr > c->hi - 8 || (addr & 7))
		return -1;
	*val = *(const __u64 *)addr;
	return 0;
}

#define SPU_FIND_RULE(ctx, addr, rule)	sp_unwind_rule((addr), (rule))
#define SPU_READ_WORD(ctx, addr, val) \
	sp_unwind_read((const struct sp_unwind_ctx *)(ctx), (addr), (val))
#include <sprofil/unwind_table.h>

int sp_unwind_walk(__u64 pc, uintptr_t sp, __u64 fp, uintptr_t stack_end,
		   __u32 depth, __u64 *chain, __u32 *len)
{
	struct sp_unwind_ctx c = { .lo = sp, .hi = stack_end };

	return spu_walk(&c, pc, sp, fp, depth, chain, len);
}
