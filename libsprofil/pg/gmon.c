// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The gcc -pg runtime: monstartup(), moncontrol() and _mcleanup(), as
 * glibc's gcrt1.o calls them (__monstartup(&__executable_start, &etext)
 * and atexit(_mcleanup) before main), so that a -pg program linked with
 * -lsprofil, or a glibc-built one run with LD_PRELOAD=libsprofil.so,
 * profiles through sprofil() and whichever backend SPROFIL_BACKEND picks.
 *
 * The histogram is one region of 16-bit buckets over [lowpc, highpc), as
 * fine as 4 MiB of buckets allows; the call arcs are counted by mcount.c.
 * Unlike glibc, a forked child keeps profiling, from zero, into its own
 * file, and a process dumps its profile before it execs, since the new
 * image never runs the old one's atexit handlers.
 *
 * Every sample's call chain is recorded too, into a caller table the
 * runtime allocates (docs/callers.md), unless SPROFIL_CALLERS=0;
 * SPROFIL_DEPTH=<n> sets the frames kept per chain (default 64).  The
 * dumps write the chains beside a GNU gmon.out, or inside an extension
 * file (docs/gmon-format.md), so `gprof prog gmon.out` works unchanged.
 */
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sprofil.h>
#include <sprofil/callers.h>
#include <linux/sprofil.h>
#include "backends/backend.h"
#include "common/fork.h"
#include "elf_headers.h"
#include "gmon.h"
#include "gmon_callers.h"
#include "common/settings.h"
#include "thread_table.h"

/* At most this many buckets: 4 MiB covers 4 MiB of text at scale 1. */
#define GM_MAX_BUCKETS	(2ul << 20)
/* The rate glibc writes, for a profile whose sampling could not start. */
#define GM_FALLBACK_PERIOD_NS	10000000ull
/*
 * The caller table: 2^17 nodes (2 MiB), one per distinct calling
 * context, which holds the contexts of large programs; the kmod backend
 * pins it, next to the histogram, within RLIMIT_MEMLOCK's 8 MiB.
 */
#define GM_CALLER_NODES		(1u << 17)
#define GM_DEFAULT_DEPTH	64

static pthread_mutex_t gm_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	bool started;			/* by monstartup, until _mcleanup */
	bool on;			/* moncontrol(1) state */
	bool sampling;			/* sprofil() accepted the region */
	bool yielded;			/* smonitor()/monitor() took over */
	pid_t pid;			/* the process the profile belongs to */
	struct prof prof;
	struct sp_hist hist;
	uint64_t period_ns;
} gm;

/*
 * Every other load module (SPROFIL_MODULES, docs/gmon-format.md): one
 * region over its executable PT_LOAD segments, in its own buffer.  A module
 * that dlclose() unmaps keeps its entry and its buffer (our memory, not
 * the module's) with @gone set, so that the profile still holds its data.
 */
struct gm_mod {
	char *name;			/* dlpi_name, copied */
	uintptr_t bias;
	uintptr_t low, high;		/* runtime span of all its PT_LOADs */
	unsigned char build_id[64];
	size_t build_id_len;
	bool gone;
	struct sp_hist hist;
};

static struct gm_mod *gm_mods;
static size_t gm_nmods;
static unsigned int gm_bsize = 2;	/* LD_PROFILEBUCKET_SIZE / 8 */
static struct sp_callers gm_callers;	/* table NULL: no chains */
static bool gm_default_set;		/* no module list set */
static bool gm_exe_selected = true;
static uintptr_t gm_exe_high;		/* monstartup's highpc */

/* LD_PROFILEBUCKET_SIZE: 16 (the default, GNU-readable) or 32 bits. */
static unsigned int gm_bucket_size(void)
{
	const char *s = sp_setting("LD_PROFILEBUCKET_SIZE");

	if (!s || !*s || !strcmp(s, "16"))
		return 2;
	if (!strcmp(s, "32"))
		return 4;
	fprintf(stderr, "libsprofil: LD_PROFILEBUCKET_SIZE=%s is not 16 or 32; using 16\n",
		s);
	return 2;
}

/*
 * The module list: SPROFIL_MODULES, our own variable, else LD_PROFILE
 * (HP-UX's), else NULL (every module).  A non-empty LD_PROFILE in a
 * dynamically linked program has also woken glibc ld.so's own profiler
 * before any of our code ran (every PLT call routed through it, a
 * .profile file in /var/tmp for a module it names), so it is said once
 * per program; LD_PROFILE="" (ld.so ignores an empty value) and a static
 * program keep its meaning silently (docs/gmon-format.md).
 */
static const char *gm_module_list(void)
{
	const char *ours = sp_setting("SPROFIL_MODULES");
	const char *hpux = sp_setting("LD_PROFILE");
	static bool warned;

	/* The collector's: every module unless the command narrowed them. */
	if (!ours && sp_recording())
		ours = "ALL";

	if (hpux && *hpux && getauxval(AT_BASE) && !warned) {
		warned = true;
		fprintf(stderr, "libsprofil: LD_PROFILE=%s also turns on ld.so's own profiler (every PLT call through it, .profile files in /var/tmp)%s; select modules with SPROFIL_MODULES instead\n",
			hpux, ours ? ", and SPROFIL_MODULES overrides it here" : "");
	}
	return ours ? ours : hpux;
}

/*
 * Whether the module list selects the module the loader calls @name (""
 * for the executable, which the list names by its /proc/self/exe path
 * or basename).  A shared object matches by its full dlpi_name or
 * basename.
 */
static bool gm_selected(const char *name)
{
	const char *list = gm_module_list(), *p, *end, *base;
	char exe[PATH_MAX];
	ssize_t n;
	size_t len;

	if (!list || !strcmp(list, "ALL"))
		return true;
	if (!*name) {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n < 0)
			return false;
		exe[n] = '\0';
		name = exe;
	}
	base = strrchr(name, '/');
	base = base ? base + 1 : name;
	for (p = list; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		len = end - p;
		if (len && ((strlen(name) == len && !strncmp(name, p, len)) ||
			    (strlen(base) == len && !strncmp(base, p, len))))
			return true;
	}
	return false;
}

/* Copies the module's GNU build-id, for a writer that outlives it. */
static void gm_build_id(struct dl_phdr_info *info, struct gm_mod *m)
{
	const void *id;
	size_t i, len;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_NOTE)
			continue;
		id = sp_note_build_id((const void *)(info->dlpi_addr +
						     ph->p_vaddr),
				      ph->p_memsz, ph->p_align, &len);
		if (id && len <= sizeof(m->build_id)) {
			memcpy(m->build_id, id, len);
			m->build_id_len = len;
			return;
		}
	}
}

/*
 * A module dlclose() took away and dlopen() brings back, the same file
 * (path, build-id and segment layout): it keeps its entry and its
 * buckets, which count the text relative to the module and so mean the
 * same at any load address, and only its addresses move.  A dlopen()
 * loop thus gives one histogram with every cycle's samples, not one per
 * cycle.  Returns whether @info was such a module (gm_lock held).
 */
static bool gm_reload(struct dl_phdr_info *info, uintptr_t lo, uintptr_t hi,
		      uintptr_t xlo)
{
	struct gm_mod id = { .build_id_len = 0 }, *m;
	size_t i;

	gm_build_id(info, &id);
	for (i = 0; i < gm_nmods; i++) {
		m = &gm_mods[i];
		if (!m->gone || strcmp(m->name, info->dlpi_name) ||
		    m->build_id_len != id.build_id_len ||
		    memcmp(m->build_id, id.build_id, id.build_id_len) ||
		    m->low - m->bias != lo || m->high - m->bias != hi ||
		    m->hist.low_pc - m->bias != xlo)
			continue;
		m->gone = false;
		m->bias = info->dlpi_addr;
		m->low = info->dlpi_addr + lo;
		m->high = info->dlpi_addr + hi;
		m->hist.low_pc = info->dlpi_addr + xlo;
		return true;
	}
	return false;
}

struct gm_scan {
	bool first;			/* the next module is the executable */
	uintptr_t *seen;		/* biases of the live modules */
	size_t nseen, maxseen;
	bool changed;			/* a module was added or came back */
};

/* One dl_iterate_phdr() step: adds a new selected module (gm_lock held). */
static int gm_scan_one(struct dl_phdr_info *info, size_t size, void *data)
{
	struct gm_scan *s = data;
	uintptr_t xlo, xhi, lo, hi;
	struct gm_mod *m;
	uint64_t used;
	uint32_t scale;
	size_t i;
	bool exe = s->first;

	(void)size;
	s->first = false;
	if (s->nseen < s->maxseen)
		s->seen[s->nseen++] = info->dlpi_addr;
	/* The executable has its own region, from gcrt1.o's bounds. */
	if (exe)
		return 0;
	for (i = 0; i < gm_nmods; i++)
		if (!gm_mods[i].gone && gm_mods[i].bias == info->dlpi_addr &&
		    !strcmp(gm_mods[i].name, info->dlpi_name))
			return 0;
	sp_load_spans(info->dlpi_phdr, info->dlpi_phnum, &lo, &hi, &xlo, &xhi);
	if (xlo >= xhi || !gm_selected(info->dlpi_name))
		return 0;
	xlo &= ~3ul;
	xhi = (xhi + 3) & ~3ul;
	if (gm_reload(info, lo, hi, xlo)) {
		s->changed = true;
		return 0;
	}
	if (sp_fit_scale(xhi - xlo, GM_MAX_BUCKETS, gm_bsize, &scale, &used))
		return 0;
	m = realloc(gm_mods, (gm_nmods + 1) * sizeof(*m));
	if (!m)
		return 0;
	gm_mods = m;
	m = &gm_mods[gm_nmods];
	memset(m, 0, sizeof(*m));
	m->name = strdup(info->dlpi_name);
	m->hist.buckets = sp_buckets_alloc(used, gm_bsize);
	if (!m->name || !m->hist.buckets) {
		free(m->name);
		sp_buckets_free(m->hist.buckets, used, gm_bsize);
		fprintf(stderr, "libsprofil: %s: out of memory, not profiled\n",
			info->dlpi_name);
		return 0;
	}
	m->bias = info->dlpi_addr;
	m->low = info->dlpi_addr + lo;
	m->high = info->dlpi_addr + hi;
	m->hist.low_pc = info->dlpi_addr + xlo;
	m->hist.nbuckets = used;
	m->hist.bucket_size = gm_bsize;
	m->hist.scale = scale;
	gm_build_id(info, m);
	gm_nmods++;
	s->changed = true;
	return 0;
}

/*
 * Finds modules loaded since the last scan and the ones unloaded since:
 * these are handed to the writer's list of gone modules (gm_lock held).
 * Returns whether the profiled set changed: a dlopen() of a module
 * already loaded, or a dlclose() that leaves it loaded, changes nothing,
 * and restarting the sampling for them (ar's plugin probe does both for
 * each member) cost more than the program.
 */
static bool gm_scan(void)
{
	uintptr_t seen[256];
	struct gm_scan s = { .first = true, .seen = seen, .maxseen = 256 };
	uintptr_t tag;
	size_t i, j;

	dl_iterate_phdr(gm_scan_one, &s);
	for (i = 0; i < gm_nmods && s.nseen < s.maxseen; i++) {
		struct gm_mod *m = &gm_mods[i];

		if (m->gone)
			continue;
		for (j = 0; j < s.nseen && seen[j] != m->bias; j++)
			;
		if (j < s.nseen)
			continue;
		m->gone = true;
		s.changed = true;
		tag = sp_gmon_module_gone(m->name, m->bias, m->low, m->high,
					  m->build_id, m->build_id_len);
		if (!tag)
			continue;
		/* Its data moves where no later load can be (gmon.h). */
		sp_arcs_move(m->low, m->high, tag - m->bias);
		m->hist.low_pc += tag - m->bias;
		m->low += tag - m->bias;
		m->high += tag - m->bias;
		m->bias = tag;
	}
	return s.changed;
}

/* SPROFIL_DEPTH: frames per chain, 1 to SPROFIL_MAX_DEPTH. */
static unsigned int gm_depth(void)
{
	const char *s = sp_setting("SPROFIL_DEPTH");
	unsigned long v;
	char *end;

	if (!s || !*s)
		return GM_DEFAULT_DEPTH;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < 1 || v > SPROFIL_MAX_DEPTH) {
		fprintf(stderr, "libsprofil: SPROFIL_DEPTH=%s is not a depth from 1 to %d; using %d\n",
			s, SPROFIL_MAX_DEPTH, GM_DEFAULT_DEPTH);
		return GM_DEFAULT_DEPTH;
	}
	return (unsigned int)v;
}

/*
 * The caller table, unless SPROFIL_CALLERS=0: allocated once (it stays
 * for the life of the process, as the arc table does), formatted and
 * registered at each monstartup (gm_lock held).
 */
static void gm_callers_start(void)
{
	const char *env = sp_setting("SPROFIL_CALLERS");
	uint64_t bytes = spc_table_bytes(GM_CALLER_NODES);
	static void *table;

	if (env && !strcmp(env, "0")) {
		gm_callers.table = NULL;
		return;
	}
	if (!table) {
		table = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (table == MAP_FAILED) {
			table = NULL;
			fprintf(stderr, "libsprofil: monstartup: no memory for the caller table: caller chains not recorded\n");
			return;
		}
	}
	gm_callers.table = table;
	gm_callers.bytes = bytes;
	gm_callers.depth = gm_depth();
	if (sprofil_callers(table, bytes, gm_callers.depth)) {
		fprintf(stderr, "libsprofil: monstartup: caller chains not recorded: %s\n",
			strerror(errno));
		gm_callers.table = NULL;
	}
}

/*
 * sprofil() for the runtime's regions; a backend that cannot record
 * chains yet refuses them with EOPNOTSUPP, and then the histogram runs
 * without them, said once.
 */
static int gm_sprofil(struct prof *prof, unsigned int n, unsigned int flags)
{
	int ret;

	if (gm_callers.table && sp_per_thread())
		flags |= PROF_THREADS;
	ret = sprofil(prof, n, NULL, flags);
	if (ret && errno == EOPNOTSUPP && gm_callers.table) {
		flags &= ~PROF_THREADS;
		struct sprofil_info info = { .backend = "this" };

		sprofil_info(&info);
		fprintf(stderr, "libsprofil: the %s backend cannot record caller chains: profiling without them\n",
			info.backend);
		sprofil_callers(NULL, 0, 0);
		gm_callers.table = NULL;
		ret = sprofil(prof, n, NULL, flags);
	}
	return ret;
}

/* Starts or stops the histogram (gm_lock held). */
static void gm_sample(bool on)
{
	struct sprofil_info info;
	struct prof *prof;
	unsigned int n = 0;
	size_t i;
	int ret;

	/* The application's smonitor() set owns the sampling now. */
	if (on && gm.yielded)
		return;
	if (!on) {
		if (gm.sampling && sprofil(NULL, 0, NULL, 0))
			fprintf(stderr, "libsprofil: cannot stop profiling: %s\n",
				strerror(errno));
		gm.sampling = false;
		return;
	}

	prof = calloc(gm_nmods + 1, sizeof(*prof));
	if (!prof) {
		fprintf(stderr, "libsprofil: monstartup: out of memory\n");
		return;
	}
	if (gm_exe_selected)
		prof[n++] = gm.prof;
	for (i = 0; i < gm_nmods && n < SPROFIL_MAX_REGIONS; i++) {
		const struct sp_hist *h = &gm_mods[i].hist;

		if (gm_mods[i].gone)
			continue;
		prof[n].pr_base = (void *)h->buckets;
		prof[n].pr_size = h->nbuckets * h->bucket_size;
		prof[n].pr_off = h->low_pc;
		prof[n++].pr_scale = h->scale;
	}
	/* An empty module list: no histogram until smonitor() asks. */
	if (!n) {
		free(prof);
		if (gm.sampling)
			sprofil(NULL, 0, NULL, 0);
		gm.sampling = false;
		return;
	}
	/* One call: sprofil() replaces the whole set at once. */
	ret = gm_sprofil(prof, n, gm_bsize == 4 ? PROF_UINT : PROF_USHORT);
	free(prof);
	if (ret) {
		fprintf(stderr, "libsprofil: monstartup: cannot start sampling (call counts only): %s\n",
			strerror(errno));
		return;
	}
	gm.sampling = true;
	sp_thread_table_sampling();
	if (!sprofil_info(&info) && info.period_ns)
		gm.period_ns = info.period_ns;
}

/*
 * Writes what the profile holds so far (gm_lock held).  @seq 0 is the
 * normal dump; else it is SPROFIL_SIGDUMP's dump @seq, which takes the
 * counts (the profile restarts from zero) and goes to "<name>.<seq>".
 */
static int gm_dump(unsigned int seq)
{
	struct sp_profile p = { .period_ns = gm.period_ns, .seq = seq };
	struct sp_callers_data callers;
	struct sp_hist *hist;
	void **taken;
	int ret;
	struct sp_arc *arcs;
	uint64_t lost;
	size_t limit, i;
	ssize_t n;
	bool other = !gm_default_set;

	/* The bpf backend's counts reach the buffers only when asked. */
	sprofil_flush();
	hist = calloc(gm_nmods + 1, sizeof(*hist));
	taken = calloc(gm_nmods + 1, sizeof(*taken));
	if (!hist || !taken) {
		fprintf(stderr, "libsprofil: out of memory: no profile written\n");
		free(hist);
		free(taken);
		return -ENOMEM;
	}

	if (seq)
		n = sp_arcs_snapshot_reset(&arcs, &lost, &limit);
	else
		n = sp_arcs_collect(&arcs, &lost, &limit);
	if (n < 0) {
		fprintf(stderr, "libsprofil: out of memory: the call arcs are not written\n");
		n = 0;
	}
	if (lost)
		fprintf(stderr, "libsprofil: %llu call arcs lost: the arc table (%zu entries) is full\n",
			(unsigned long long)lost, limit);
	/*
	 * With no module list, a program whose only -pg module is the
	 * executable (every callee there) gets the GNU gmon.out glibc
	 * writes, the other modules' samples left out as glibc loses them;
	 * a second -pg module, or a module list set, keeps every module.
	 */
	for (i = 0; i < (size_t)n && !other; i++)
		other = arcs[i].self < gm.hist.low_pc ||
			arcs[i].self >= gm_exe_high;
	/*
	 * After smonitor() took over, the histogram is the one its dumps
	 * write, with the arcs up to then: this dump holds the arcs since,
	 * and is not written if there are none.
	 */
	if (gm.yielded && !n) {
		free(arcs);
		free(hist);
		free(taken);
		return 0;
	}
	/* The threads' CPU times before this dump's own work adds to them. */
	if (sp_per_thread())
		p.threads = sp_thread_table_snapshot(&p.nthreads);
	/* Taken with the arcs: each chain in one dump (sigdump's). */
	if (sp_callers_for_dump(seq != 0, &callers))
		p.callers = &callers;
	if (gm_exe_selected && !gm.yielded)
		hist[p.nhist++] = gm.hist;
	for (i = 0; i < gm_nmods && !gm.yielded && (other || !p.nhist); i++)
		hist[p.nhist++] = gm_mods[i].hist;
	p.hist = hist;
	for (i = 0; i < p.nhist; i++) {
		/*
		 * Out of memory: the live buckets are written (a sigdump's
		 * samples stay, for this dump and the next).
		 */
		taken[i] = sp_buckets_copy(&hist[i], seq != 0);
		if (taken[i])
			hist[i].buckets = taken[i];
		hist[i].live = !taken[i];
	}
	ret = sp_gmon_dump_arcs(&p, arcs, n);
	if (p.callers)
		sp_callers_data_free(&callers);
	free((void *)p.threads);
	for (i = 0; i < p.nhist; i++)
		sp_buckets_free(taken[i], hist[i].nbuckets,
				hist[i].bucket_size);
	free(taken);
	free(arcs);
	free(hist);
	return ret;
}

/*
 * smonitor.c, a monitor session's sprofil() call having replaced the
 * runtime's set (HP-UX): the runtime's own sampling stops for good and
 * its samples so far are discarded; mcount goes on counting arcs.
 */
void sp_gmon_monitor_started(void)
{
	size_t i;

	pthread_mutex_lock(&gm_lock);
	if (gm.started && gm.pid == getpid() && !gm.yielded) {
		gm.yielded = true;
		gm.sampling = false;
		sp_buckets_clear(gm.hist.buckets, gm.hist.nbuckets,
				 gm.hist.bucket_size);
		for (i = 0; i < gm_nmods; i++)
			sp_buckets_clear(gm_mods[i].hist.buckets,
					 gm_mods[i].hist.nbuckets,
					 gm_mods[i].hist.bucket_size);
		/* Its chains too: the monitor session files its own there. */
		if (gm_callers.table)
			sp_callers_reset(&gm_callers);
	}
	pthread_mutex_unlock(&gm_lock);
}

ssize_t sp_gmon_monitor_arcs(struct sp_arc **arcs)
{
	uint64_t lost = 0;
	size_t limit;
	ssize_t n = 0;

	*arcs = NULL;
	pthread_mutex_lock(&gm_lock);
	if (gm.started && gm.pid == getpid()) {
		n = sp_arcs_snapshot_reset(arcs, &lost, &limit);
		if (n < 0)
			fprintf(stderr, "libsprofil: out of memory: the call arcs are not written\n");
		if (lost)
			fprintf(stderr, "libsprofil: %llu call arcs lost: the arc table (%zu entries) is full\n",
				(unsigned long long)lost, limit);
	}
	pthread_mutex_unlock(&gm_lock);
	return n;
}

/*
 * dlopen.c, after dlopen() or dlclose(): profiles the modules it brought
 * and keeps the data of the ones it took away.
 */
void sp_gmon_modules_changed(void)
{
	pthread_mutex_lock(&gm_lock);
	if (gm.started && gm_scan() && gm.on)
		gm_sample(true);
	pthread_mutex_unlock(&gm_lock);
}

/*
 * SPROFIL_SIGDUMP (sigdump.c's thread, never a signal handler): writes
 * the profile so far as dump @seq and starts again from zero.
 */
int sp_gmon_dump_reset(unsigned int seq)
{
	int ret = -ESRCH;

	pthread_mutex_lock(&gm_lock);
	/* A fork child's inherited request is not ours (sigdump.c). */
	if (gm.started && gm.pid == getpid())
		ret = gm_dump(seq);
	pthread_mutex_unlock(&gm_lock);
	return ret;
}

/* fork.c: gm_lock in its place in the lock order. */
void sp_gmon_fork_prepare(void)
{
	pthread_mutex_lock(&gm_lock);
}

void sp_gmon_fork_parent(void)
{
	pthread_mutex_unlock(&gm_lock);
}

/*
 * The child keeps profiling (profil.c re-arms the sampling) but its file
 * must hold only its own work: start from zero.
 */
void sp_gmon_fork_child(void)
{
	pthread_mutex_unlock(&gm_lock);
	if (!gm.started)
		return;
	gm.pid = getpid();
	sp_buckets_clear(gm.hist.buckets, gm.hist.nbuckets,
			 gm.hist.bucket_size);
	for (size_t i = 0; i < gm_nmods; i++)
		sp_buckets_clear(gm_mods[i].hist.buckets,
				 gm_mods[i].hist.nbuckets,
				 gm_mods[i].hist.bucket_size);
	sp_arcs_reset();
	if (gm_callers.table)
		sp_callers_reset(&gm_callers);
}

void __monstartup(unsigned long lowpc, unsigned long highpc)
{
	static bool have_arcs;
	uint64_t text, used;
	uint32_t scale;
	void *buckets;
	int err;

	/* Maybe from a -pg library's _init, before our constructors. */
	sp_fork_handlers_register();
	pthread_mutex_lock(&gm_lock);
	if (gm.started)
		goto out;		/* glibc too ignores a second call */
	lowpc &= ~3ul;
	highpc = (highpc + 3) & ~3ul;
	if (highpc <= lowpc) {
		fprintf(stderr, "libsprofil: monstartup: empty text range\n");
		goto out;
	}
	text = highpc - lowpc;
	gm_exe_high = highpc;
	gm_bsize = gm_bucket_size();
	gm_default_set = !gm_module_list();
	gm_exe_selected = gm_selected("");
	if (sp_fit_scale(text, GM_MAX_BUCKETS, gm_bsize, &scale, &used)) {
		fprintf(stderr, "libsprofil: monstartup: the text is too large to profile\n");
		goto out;
	}
	buckets = sp_buckets_alloc(used, gm_bsize);
	if (!buckets) {
		fprintf(stderr, "libsprofil: monstartup: out of memory\n");
		goto out;
	}
	if (!have_arcs) {
		/* It grows: neither the text nor the libraries size it. */
		err = sp_arcs_init();
		if (err) {
			fprintf(stderr, "libsprofil: monstartup: no room for the call arcs: %s\n",
				strerror(-err));
			sp_buckets_free(buckets, used, gm_bsize);
			goto out;
		}
		have_arcs = true;
	} else {
		/* Profiling again after _mcleanup: nobody counts now. */
		sp_arcs_reset();
	}
	gm.hist.low_pc = lowpc;
	gm.hist.buckets = buckets;
	gm.hist.nbuckets = used;
	gm.hist.bucket_size = gm_bsize;
	gm.hist.scale = scale;
	gm.prof.pr_base = buckets;
	gm.prof.pr_size = used * gm_bsize;
	gm.prof.pr_off = lowpc;
	gm.prof.pr_scale = scale;
	gm.period_ns = GM_FALLBACK_PERIOD_NS;
	gm.pid = getpid();
	gm_scan();
	gm_callers_start();
	gm_sample(true);
	gm.started = true;
	gm.on = true;
	sp_arcs_enable(1);
out:
	pthread_mutex_unlock(&gm_lock);
	/* Outside gm_lock: the dump thread it starts takes it. */
	sp_sigdump_start();
}

void monstartup(unsigned long lowpc, unsigned long highpc)
	__attribute__((alias("__monstartup")));

void moncontrol(int mode)
{
	pthread_mutex_lock(&gm_lock);
	if (gm.started && !mode != !gm.on) {
		gm.on = mode;
		if (mode) {
			gm_sample(true);
			sp_arcs_enable(1);
		} else {
			sp_arcs_enable(0);
			gm_sample(false);
		}
	}
	pthread_mutex_unlock(&gm_lock);
}

void _mcleanup(void)
{
	/* A monitor session still sampling writes its profile (and arcs). */
	sp_monitor_stop("libsprofil");
	pthread_mutex_lock(&gm_lock);
	if (!gm.started)
		goto out;
	sp_arcs_enable(0);
	gm_sample(false);
	gm_dump(0);
	/*
	 * The histogram goes (sampling has stopped); the arc table stays
	 * mapped, because a thread may still be inside sp_mcount().
	 */
	sp_buckets_free(gm.hist.buckets, gm.hist.nbuckets,
			gm.hist.bucket_size);
	memset(&gm.hist, 0, sizeof(gm.hist));
	while (gm_nmods--) {
		struct sp_hist *h = &gm_mods[gm_nmods].hist;

		free(gm_mods[gm_nmods].name);
		sp_buckets_free(h->buckets, h->nbuckets, h->bucket_size);
	}
	free(gm_mods);
	gm_mods = NULL;
	gm_nmods = 0;
	gm.started = false;
	gm.on = false;
	gm.yielded = false;
out:
	pthread_mutex_unlock(&gm_lock);
}

void sp_gmon_before_exec(void)
{
	/*
	 * In a vfork child the memory is the parent's and so is the
	 * profile: it is not ours to write (and malloc is not safe there).
	 */
	if (!__atomic_load_n(&gm.started, __ATOMIC_RELAXED) ||
	    getpid() != gm.pid)
		return;
	/* If the exec fails, profiling goes on and _mcleanup rewrites it. */
	pthread_mutex_lock(&gm_lock);
	if (gm.started)
		gm_dump(0);
	pthread_mutex_unlock(&gm_lock);
}
