// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The sampling side of libsprofil's bpf backend (backend_bpf.c loads it):
 * attached to one perf task-clock counter per thread of the profiled
 * process, it files each sample's user PC with the mapping of
 * <sprofil/mapping.h> into a mappable array of 64-bit counters, one per
 * bucket, which the library folds into the caller's buffers.
 *
 * The program cannot write the caller's buffers itself: it runs in hard
 * IRQ (task-clock is an hrtimer event), where bpf_probe_write_user() is
 * refused.  Hence the counters, and the fold.
 *
 * One loaded program samples every profiled process of a run (`sprofil
 * record` loads it once and hands it to each process; docs/backends.md,
 * "One program for a process tree"): each process's state and counters
 * are inner maps of the sp_p* maps below, keyed by its process id,
 * which the process's library creates, maps and registers.  A sample of
 * a process with no entry is not counted.  The region sets live in the
 * process's state: the library fills the idle one of two with what
 * spm_prepare() built and flips an index, so dlopen()/dlclose()
 * changing the set costs no reload.  Every index into them is masked,
 * which is all the verifier needs.
 *
 * Types: the sample comes in UAPI types (struct bpf_perf_event_data and
 * the user pt_regs), whose layout is the kernel's ABI.  Two kernel
 * structures are read besides, through CO-RE, declared below with only
 * the fields used: libbpf relocates them against the running kernel's
 * BTF, so the object built here loads on 6.1 as on 6.18 (docs/backends.md
 * says why no vmlinux.h).
 */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/types.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

/*
 * The walk's hooks (<sprofil/callers.h>, included by sprofil_bpf.h);
 * ctx is a struct spb_walk.  The functions behind them come below.
 */
struct spb_walk;
struct spc_node;
__noinline int spb_text_known(struct spb_walk *w, __u64 pc);
struct spb_frame_rec;
__noinline long spb_read_frame(struct spb_frame_rec *rec, __u64 addr);
static __always_inline long spb_read_word(__u64 *val, __u64 addr);
static __always_inline struct spc_node *spb_cnode(__u32 i);
static __always_inline void spb_cnode_counted(__u32 i);
__noinline long spb_find_add(__u32 parent, __u64 pc);
#define SPC_READ_FRAME(ctx, fp, rec) \
	spb_read_frame((struct spb_frame_rec *)(rec), (fp))
#define SPC_TEXT_KNOWN(ctx, pc)	spb_text_known((ctx), (pc))
#define SPC_READ_CODE(ctx, addr, code) \
	bpf_probe_read_user((code), 8, (const void *)(addr))
#define SPC_NODE(t, i)		spb_cnode(i)
#define SPC_COUNTED(t, i)	spb_cnode_counted(i)
#define SPC_FIND_ADD(t, parent, pc)	spb_find_add((parent), (pc))

/*
 * The unwind walk's hooks (<sprofil/unwind_table.h>): the tables are the
 * running process's, read from its inner map of sp_punwind an element at
 * a time; a step is a global function (below).
 */
struct spb_utab;
struct spu_row;
struct spu_regs;
struct spu_rule;
static __always_inline __u32 spb_uword(void *map, __u32 w, __u32 bad);
static __always_inline struct spu_row spb_urow(const struct spb_utab *t,
					       __u32 i);
static __always_inline __u32 spb_upage(const struct spb_utab *t, __u32 p);
struct spb_ucache;
static __always_inline int spb_urule(struct spb_ucache *uc, __u64 addr,
				     struct spu_rule *rule);
__noinline int spb_ustep(struct spu_regs *r, struct spb_ucache *uc);
#define SPU_PAGE_AT(t, p)	spb_upage((const struct spb_utab *)(t), (p))
#define SPU_ROW_AT(t, i)	spb_urow((const struct spb_utab *)(t), (i))
#define SPU_FIND_RULE(ctx, addr, rule) \
	spb_urule((struct spb_ucache *)(ctx), (addr), (rule))
#define SPU_READ_WORD(ctx, addr, val)	spb_read_word((val), (addr))
#define SPU_STEP(ctx, r)	spb_ustep((r), (struct spb_ucache *)(ctx))
#include <sprofil/unwind_table.h>

#include "sprofil_bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/*
 * The kernel's side of the program's context, and of the counter that
 * fired: its parent (set on the copies threads inherit), its count (a
 * local64_t: a struct of structs of one s64, hence one here) and its id,
 * unique for the life of the system.
 */
struct task_struct {
	int pid;
} __attribute__((preserve_access_index));

struct hw_perf_event {
	struct task_struct *target;	/* the thread it was created for */
} __attribute__((preserve_access_index));

struct perf_event {
	struct perf_event *parent;
	struct hw_perf_event hw;
	struct {
		__s64 value;
	} count;
	__u64 id;
} __attribute__((preserve_access_index));

struct bpf_perf_event_data_kern {
	struct perf_event *event;
} __attribute__((preserve_access_index));

/*
 * The outer maps' inner maps are described by templates the loaders
 * create without BTF, as every process creates its own
 * (sprofil_load.h, spb_inner_map()): a template made from a BTF
 * definition here would carry BTF that the kernel compares (6.1 refuses
 * a struct-valued inner map without it), and the program needs none.
 */
/*
 * Each profiled process's state (struct spb_proc), by process id: an
 * array of one element, created and mapped by the process's library.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);
	__type(key, __u32);
	__uint(max_entries, SPB_MAX_PROCS);
	__type(value, __u32);		/* struct spb_proc, one */
} sp_procs SEC(".maps");

/*
 * Each process's counters, one per bucket it hit, by bucket index (the
 * set's half, k * spb_proc.half, plus the region's first counter plus
 * the bucket): a hash, so that they take memory for the buckets hit,
 * not for all text (a dense array took 8 bytes per bucket of every
 * module, 22 MB for a shell).  Counts only grow: the fold takes the
 * difference from what it saw last (backend_bpf_fold.c).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);
	__type(key, __u32);
	__uint(max_entries, SPB_MAX_PROCS);
	__type(value, __u32);		/* a hash of __u32 to __u64 */
} sp_pcounts SEC(".maps");

/*
 * One flag per 2^SPB_CNODE_CHUNK_SHIFT nodes of the calling context
 * tree, set after a count: the fold then reads only the chunks that
 * changed.  64-bit, since an array's elements are 8-byte aligned in its
 * mapping whatever their size.
 */
/*
 * Caller sampling (docs/callers.md): each sample's user call chain is
 * walked with the rules of <sprofil/callers.h> and filed into the
 * process's own calling context tree, its inner map of sp_pcnodes, which
 * the library's fold merges into the caller's table
 * (libsprofil/backends/callers_merge.c): the program cannot write the caller's
 * memory from its hard IRQ.  The tree keeps its nodes for the session's
 * life; the fold takes the counts.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);
	__type(key, __u32);
	__uint(max_entries, SPB_MAX_PROCS);
	__type(value, __u32);		/* struct spc_node[] */
} sp_pcnodes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);
	__type(key, __u32);
	__uint(max_entries, SPB_MAX_PROCS);
	__type(value, __u32);		/* __u64[] */
} sp_pcdirty SEC(".maps");

/*
 * Each process's unwind tables (struct spb_uhdr, spb_umod and the
 * tables' words, sprofil_bpf.h), by process id: an array of 64-byte
 * elements, sized for the process's tables, that its library creates,
 * fills from the tables it mapped (libsprofil/backends/unwind_load.c)
 * and replaces whole when its modules change.  A process without one
 * is walked by its frame pointers alone.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);
	__type(key, __u32);
	__uint(max_entries, SPB_MAX_PROCS);
	__type(value, __u32);		/* 64-byte elements */
} sp_punwind SEC(".maps");

/*
 * Task-clock count of each counter at its last counted period, by the
 * counter's id: not by thread, since perf swaps the inherited counters
 * of sibling threads between them at context switches (their contexts
 * are clones), and a counter's count follows the counter; not by
 * address, which a new counter may reuse.  An LRU: the counters of
 * threads gone are never sampled again and go first.  Ids are unique
 * for the life of the system, so every process shares it.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u64);
	__type(value, __u64);
	__uint(max_entries, SPB_MAX_THREADS);
} sp_stamp SEC(".maps");

/*
 * Threads given a counter of their own by their library, which removes
 * them again when the counter goes.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u8);
	__uint(max_entries, SPB_MAX_THREADS);
} sp_owned SEC(".maps");

/*
 * Rules the unwind walk found, per CPU, by return address: a chain's
 * return addresses are a program's call sites, seen again sample after
 * sample, and a slot found costs one lookup where a search costs the
 * module's element, its page index and about ten rows' (each a lookup
 * of the process's map).  A slot holds its address, process id and the
 * generation of the process's tables (struct spb_uhdr): a process's new
 * map or a later process of the same id misses.  Direct-mapped; a
 * collision only costs the search again.
 */
/*
 * The slots of each of the program's per-CPU caches (sp_urules,
 * sp_cfound): a power of two, set by the loader before the load with the
 * maps' sizes (sprofil_load.h, spb_cache_slots()).
 */
const volatile __u32 sp_cache_slots = SPB_CACHE_SLOTS_MAX;

struct spb_urule_slot {
	__u64 addr;
	__u64 gen;
	__u32 tgid;
	__u32 rule;		/* struct spu_rule's 4 bytes, if found */
	__u32 found;		/* else the tables name none */
	__u32 reserved;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct spb_urule_slot);
	__uint(max_entries, SPB_CACHE_SLOTS_MAX);
} sp_urules SEC(".maps");

/*
 * The interrupted thread's stack as this CPU's walk last read it: a
 * window of up to SPB_WINDOW bytes from a word the walk asked for, to
 * the end of that word's page at most (which is mapped if the word is),
 * so that the next frames' words, a few dozen bytes further on, are
 * read from it rather than by a bpf_probe_read_user() each.  A walk
 * empties it first: the stack changes between samples.
 */
#define SPB_WINDOW		512

struct spb_window {
	__u64 lo;
	__u32 len;
	__u32 reserved;
	__u8 bytes[SPB_WINDOW];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct spb_window);
	__uint(max_entries, 1);
} sp_window SEC(".maps");

/*
 * Nodes the filing found, per CPU, by (parent, pc): a sample's chain is
 * mostly the chain of the sample before it, whose nodes are there
 * already; a slot found is one lookup where finding the node costs
 * the process's state, and a lookup of its tree per slot probed.  A
 * slot holds the process id and the tree's generation (struct spb_proc's
 * cgen), so another process's tree or the process's next one misses.
 * A tree's nodes stay where they are for its life (the fold takes only
 * their counts).  Direct-mapped; only nodes found or added are kept.
 */
struct spb_cfound_slot {
	__u64 pc;
	__u64 cgen;
	__u32 tgid;
	__u32 parent;
	__u32 node;
	__u32 reserved;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct spb_cfound_slot);
	__uint(max_entries, SPB_CACHE_SLOTS_MAX);
} sp_cfound SEC(".maps");

/* The chain being walked and filed. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct spb_chain);
	__uint(max_entries, 1);
} sp_chain SEC(".maps");

/*
 * The self-tests' inputs and outputs (tests/bpf), in the program's own
 * data: only a test loads the programs that read them.
 */
__u64 sp_test_pc[SPB_TEST_PCS];
struct spb_test_result sp_test_out[SPB_TEST_PCS];
struct spb_test_chain sp_test_chain[SPB_TEST_CHAINS];
struct spb_test_unwind sp_test_unwind;
__u64 sp_test_frame[SPB_TEST_FRAMES];

/* The process the running task belongs to. */
static __always_inline __u32 spb_tgid(void)
{
	return bpf_get_current_pid_tgid() >> 32;
}

/* The running process's state, or NULL when it is not profiled. */
static __always_inline struct spb_proc *spb_proc(void)
{
	__u32 tgid = spb_tgid(), zero = 0;
	void *inner = bpf_map_lookup_elem(&sp_procs, &tgid);

	return inner ? bpf_map_lookup_elem(inner, &zero) : NULL;
}

/* Element @i of the running process's inner map of @outer, or NULL. */
static __always_inline void *spb_elem(void *outer, __u32 i)
{
	__u32 tgid = spb_tgid();
	void *inner = bpf_map_lookup_elem(outer, &tgid);

	return inner ? bpf_map_lookup_elem(inner, &i) : NULL;
}

static __always_inline struct spc_node *spb_cnode(__u32 i)
{
	return spb_elem(&sp_pcnodes, i);
}

static __always_inline void spb_cnode_counted(__u32 i)
{
	__u64 *dirty = spb_elem(&sp_pcdirty, i >> SPB_CNODE_CHUNK_SHIFT);

	if (dirty)
		*dirty = 1;
}

/* The state of one segment search, carried from step to step. */
struct spb_search {
	__u64 pc;
	const struct spb_set *set;	/* the set searched */
	__u32 pos;		/* segments known to start at or below pc */
};

/*
 * One step of the search: whether the next @step segments after pos all
 * start at or below pc.  A bpf_loop() callback, verified once for any
 * state: the tables being writable now, the verifier cannot fold the
 * steps of an unrolled search and would explore each path apart.
 */
static long spb_search_step(__u32 i, struct spb_search *c)
{
	const struct spb_set *set = c->set;
	__u32 step = SPB_SEARCH_TOP >> (i & 31), j;

	j = (c->pos + step - 1) & (SPB_MAX_SEGMENTS - 1);
	if (c->pos + step <= set->nsegments && set->segment[j].start <= c->pc)
		c->pos += step;
	return 0;
}

/*
 * Number of segments of @set starting at or below @pc, found bit by bit
 * from the top: the same answer as spm_lookup()'s binary search, in a
 * fixed number of steps whose indexes the verifier can bound (it cannot
 * bound the midpoint of an open-ended search).  Returns the index of the
 * segment holding @pc, or -1.
 */
static __always_inline long spb_segment(const struct spb_set *set, __u64 pc)
{
	struct spb_search c = { .pc = pc, .set = set, .pos = 0 };
	__u32 i;

	bpf_loop(SPB_SEARCH_STEPS, spb_search_step, &c, 0);
	if (!c.pos)
		return -1;
	i = (c.pos - 1) & (SPB_MAX_SEGMENTS - 1);
	if (pc >= set->segment[i].end)
		return -1;
	return i;
}

/* The index into @set's regions of the region owning @pc, or -1. */
static __always_inline long spb_lookup(const struct spb_set *set, __u64 pc)
{
	long i = spb_segment(set, pc);

	if (i < 0)
		return -1;
	return set->segment[i & (SPB_MAX_SEGMENTS - 1)].region &
	       (SPROFIL_MAX_REGIONS - 1);
}

/* Bucket of @pc in region @r of @set, as spm_region_bucket() computes it. */
static __always_inline __u64 spb_bucket(const struct spb_set *set, long r,
					__u64 pc)
{
	return spm_bucket_index(pc - set->region[r].offset, set->shift,
				set->region[r].scale);
}

/*
 * Periods of CPU time since the counter's last counted one.  The hrtimer
 * behind task-clock fires once however late it is and drops the periods
 * it missed; as the module does, they are credited to this sample, from
 * the counter's count (bpf_perf_prog_read_value() refuses inherited
 * counters, so it is read directly).  A counter's first sample counts one
 * period: the same for a new counter and for one whose stamp the LRU
 * dropped, which must not have its whole history credited again.  A
 * thread cloned while the loader was scanning may have two counters, its
 * own and an inherited one: the inherited one then stays silent, as in
 * the module.
 */
static __always_inline __u64 spb_periods(struct bpf_perf_event_data *ctx,
					 const struct spb_proc *p)
{
	struct bpf_perf_event_data_kern *kctx = (void *)ctx;
	__u32 tid;
	__u64 period = ctx->sample_period, id, n, *stamp;
	struct perf_event *event = BPF_CORE_READ(kctx, event);
	__s64 count;

	if (p->percpu || !event || !period)
		return 1;
	/*
	 * Whose counter it is, not who runs now: on a switch between a
	 * thread and its clone whose counters are all inherited, the kernel
	 * swaps their whole event contexts (perf_event_context_sched_out()),
	 * so a covered thread may run on its clone's inherited counter.
	 */
	tid = BPF_CORE_READ(event, hw.target, pid);
	if (BPF_CORE_READ(event, parent) &&
	    bpf_map_lookup_elem(&sp_owned, &tid))
		return 0;
	if (bpf_core_read(&count, sizeof(count), &event->count))
		return 1;
	id = BPF_CORE_READ(event, id);
	stamp = bpf_map_lookup_elem(&sp_stamp, &id);
	if (!stamp) {
		bpf_map_update_elem(&sp_stamp, &id, &count, BPF_ANY);
		return 1;
	}
	/*
	 * Rounding may put the stamp up to half a period ahead of the
	 * count, and under a virtual machine the clocks behind the timer
	 * and the count may drift apart: then no period has elapsed yet.
	 */
	if ((__u64)count < *stamp)
		return 0;
	n = ((__u64)count - *stamp + period / 2) / period;
	*stamp += n * period;
	return n;
}

/* Empties this CPU's stack window, before a walk. */
static __always_inline void spb_window_reset(void)
{
	__u32 zero = 0;
	struct spb_window *win = bpf_map_lookup_elem(&sp_window, &zero);

	if (win)
		win->len = 0;
}

/*
 * The 16 bytes of the interrupted thread's stack at @addr in this CPU's
 * window, read anew where it does not hold them; NULL if the window
 * cannot hold them (the caller reads them itself).
 */
static __always_inline const __u64 *spb_window_at(__u64 addr)
{
	__u64 end = (addr | 4095) + 1, size;
	struct spb_window *win;
	__u32 zero = 0, off;

	win = bpf_map_lookup_elem(&sp_window, &zero);
	if (!win)
		return NULL;
	if (addr < win->lo || addr + 16 > win->lo + win->len) {
		size = end - addr;
		if (size > SPB_WINDOW)
			size = SPB_WINDOW;
		/* Less than two words left in the page: no window. */
		if (size < 16 ||
		    bpf_probe_read_user(win->bytes, size, (const void *)addr)) {
			win->len = 0;
			return NULL;
		}
		win->lo = addr;
		win->len = (__u32)size;
	}
	off = (__u32)(addr - win->lo);
	/* Never so after the test above: the verifier's bound. */
	if (off > SPB_WINDOW - 16)
		return NULL;
	return (const __u64 *)&win->bytes[off];
}

/*
 * SPC_READ_FRAME and SPU_READ_WORD: the frame record (two words) or the
 * word at @addr, from the window: 0, or nonzero if it cannot be read.
 * The frame's is a global function, verified once rather than at every
 * frame of spc_walk()'s loop; the word's is inline in the unwind step,
 * itself a global function.
 */
struct spb_frame_rec {
	__u64 w[2];		/* the caller's fp, the return address */
};

__noinline long spb_read_frame(struct spb_frame_rec *rec, __u64 addr)
{
	const __u64 *w = spb_window_at(addr);

	if (!rec)
		return -1;
	if (!w)
		return bpf_probe_read_user(rec, 16, (const void *)addr);
	rec->w[0] = w[0];
	rec->w[1] = w[1];
	return 0;
}

static __always_inline long spb_read_word(__u64 *val, __u64 addr)
{
	const __u64 *w = spb_window_at(addr);

	if (!w)
		return bpf_probe_read_user(val, 8, (const void *)addr);
	*val = w[0];
	return 0;
}

/*
 * A walk's view of the known text: the set, and the last segment found,
 * [lo, hi), which most return addresses of a chain fall in again (one
 * program's text), so they cost no search.
 */
struct spb_walk {
	__u32 k;
	__u32 reserved;
	__u64 lo, hi;
};

/*
 * Whether @pc is in a region of the running process's set w->k: the
 * walk's known text.  A global function, verified once rather than at
 * every frame of the walks below (whose states it would multiply by its
 * lookups' branches).
 */
__noinline int spb_text_known(struct spb_walk *w, __u64 pc)
{
	const struct spm_segment *seg;
	const struct spb_set *set;
	struct spb_proc *p;
	long i;

	if (!w)
		return 0;
	if (pc >= w->lo && pc < w->hi)
		return 1;
	p = spb_proc();
	if (!p)
		return 0;
	set = &p->set[w->k & 1];
	i = spb_segment(set, pc);
	if (i < 0)
		return 0;
	seg = &set->segment[i & (SPB_MAX_SEGMENTS - 1)];
	w->lo = seg->start;
	w->hi = seg->end;
	return 1;
}

/*
 * The table the program files into for process @p: its own tree, in
 * sp_pcnodes.
 */
static __always_inline struct spc_table spb_ctable(struct spb_proc *p)
{
	__u32 depth = p->cdepth;
	struct spc_table t = {
		.hdr = &p->chdr,
		.mask = p->cmask,
		.depth = depth > SPROFIL_MAX_DEPTH ? SPROFIL_MAX_DEPTH : depth,
	};

	return t;
}

/*
 * spc_file()'s step, verified once: inline, its probe loop would be
 * explored once per frame, beyond what the verifier allows.
 */
__noinline long spb_node_find_add(__u32 parent, __u64 pc)
{
	struct spb_proc *p = spb_proc();
	struct spc_table t;

	if (!p)
		return SPC_FULL;
	t = spb_ctable(p);
	return spc_node_find_add(&t, parent, pc);
}

/*
 * The same through the cache of nodes found, sp_cfound: apart, the
 * probe loop above is verified once, not once per outcome of the
 * cache's lookups.
 */
__noinline long spb_find_add(__u32 parent, __u64 pc)
{
	struct spb_cfound_slot *f = NULL;
	struct spb_chain *c;
	__u32 zero = 0, i;
	long node;

	/* The tree's process and generation, as spb_file() set them. */
	c = bpf_map_lookup_elem(&sp_chain, &zero);
	if (c && c->cgen) {
		i = spc_hash(pc, parent) & (sp_cache_slots - 1);
		f = bpf_map_lookup_elem(&sp_cfound, &i);
		if (f && f->pc == pc && f->parent == parent &&
		    f->cgen == c->cgen && f->tgid == c->tgid)
			return f->node;
	}
	node = spb_node_find_add(parent, pc);
	if (f && c && node >= 0) {
		f->pc = pc;
		f->parent = parent;
		f->cgen = c->cgen;
		f->tgid = c->tgid;
		f->node = (__u32)node;
	}
	return node;
}

static __always_inline __u32 spb_depth(void)
{
	struct spb_proc *p = spb_proc();

	return p ? spb_ctable(p).depth : 0;
}

/*
 * Walks the interrupted thread's user frames into its CPU's sp_chain.
 * Global functions are verified once, on their own, rather than once
 * per path into them: the walk and the filing each have a bounded loop
 * with many exits.
 */
__noinline int spb_walk(__u64 pc, __u64 fp, __u64 sp, __u32 k)
{
	struct spb_walk w = { .k = k };
	struct spb_chain *c;
	__u32 zero = 0, len = 0;

	c = bpf_map_lookup_elem(&sp_chain, &zero);
	if (!c)
		return -1;
	spb_window_reset();
	c->truncated = spc_walk(&w, pc, fp, sp, 0, spb_depth(), c->pc, &len);
	c->len = len;
	return 0;
}

/* Word @w of the tables in @map (an inner map of sp_punwind), or @bad. */
static __always_inline __u32 spb_uword(void *map, __u32 w, __u32 bad)
{
	__u32 i = w / SPB_UWORDS;
	__u32 *e = bpf_map_lookup_elem(map, &i);

	return e ? e[w & (SPB_UWORDS - 1)] : bad;
}

/* Where spu_find_in() reads one module's page index and rows. */
struct spb_utab {
	void *map;
	__u32 page, row;
};

static __always_inline __u32 spb_upage(const struct spb_utab *t, __u32 p)
{
	return spb_uword(t->map, t->page + p, 0);
}

static __always_inline struct spu_row spb_urow(const struct spb_utab *t,
					       __u32 i)
{
	union {
		__u32 w;
		struct spu_row r;
	} u;

	/* A row that cannot be read names no rule: the search fails. */
	u.w = spb_uword(t->map, t->row + i, 0xffffffffu);
	return u.r;
}

/* The running process's tables: its inner map of sp_punwind, or NULL. */
static __always_inline void *spb_umap(void)
{
	__u32 tgid = spb_tgid();

	return bpf_map_lookup_elem(&sp_punwind, &tgid);
}

/*
 * The element of the running process's module whose table covers
 * @addr, or -1.  Global functions, verified once, return scalars: the
 * verifier then goes on from one state, not from one per exit of their
 * loops (which doubled the program's verified instructions).
 */
__noinline long spb_umod_find(__u64 addr)
{
	void *map = spb_umap();
	struct spb_uhdr *h;
	__u32 i, zero = 0, n;

	if (!map)
		return -1;
	h = bpf_map_lookup_elem(map, &zero);
	if (!h)
		return -1;
	n = h->nmods;
	for (i = 1; i <= SPB_UMODS && i <= n; i++) {
		/* Its address taken, the loop's count would lose its bound. */
		__u32 key = i;
		struct spb_umod *m = bpf_map_lookup_elem(map, &key);

		if (m && addr >= m->lo && addr < m->hi)
			return i;
	}
	return -1;
}

/*
 * A row search's halvings: a bpf_loop() callback, verified once; as a
 * bounded loop each halving's two outcomes made states of their own
 * (135,000 more verified instructions).
 */
struct spb_usearch {
	struct spb_utab t;
	struct spu_search s;
};

static long spb_usearch_step(__u32 i, struct spb_usearch *c)
{
	spu_find_step(&c->t, &c->s);
	return c->s.lo >= c->s.hi;
}

/*
 * A walk's last module, whose span most return addresses of a chain
 * fall in again: they cost no module search.  Empty (hi 0) at first.
 * With the process's id and its tables' generation, the key of the
 * rules it finds in sp_urules.
 */
struct spb_ucache {
	struct spb_umod m;
	__u64 gen;
	__u32 tgid;
	__u32 reserved;
};

/* The slot of sp_urules that @addr's rule is cached in. */
static __always_inline struct spb_urule_slot *spb_urule_slot(__u64 addr)
{
	__u32 i = (__u32)((addr * 0x9e3779b97f4a7c15ull) >> 40) &
		  (sp_cache_slots - 1);

	return bpf_map_lookup_elem(&sp_urules, &i);
}

/* The rule (struct spu_rule's 4 bytes) of the tables at @addr, or -1. */
static __always_inline long spb_urule_search(__u64 addr,
					     struct spb_ucache *uc)
{
	void *map = spb_umap();
	struct spb_usearch c;
	struct spb_umod *m;
	__u32 key;
	long i, k;

	if (!map)
		return -1;
	if (addr < uc->m.lo || addr >= uc->m.hi) {
		i = spb_umod_find(addr);
		if (i < 0)
			return -1;
		key = (__u32)i;
		m = bpf_map_lookup_elem(map, &key);
		if (!m)
			return -1;
		uc->m = *m;
	}
	c.t.map = map;
	c.t.page = uc->m.page;
	c.t.row = uc->m.row;
	if (spu_find_begin(&c.t, uc->m.span, addr - uc->m.base, &c.s))
		return -1;
	bpf_loop(SPU_FIND_HALVINGS, spb_usearch_step, &c, 0);
	k = spu_find_end(&c.t, &c.s);
	if (k < 0 || k >= uc->m.nrules)
		return -1;
	return spb_uword(map, uc->m.rule + (__u32)k, 0);
}

/* A walk's cache, keyed by the running process's tables' generation. */
static __always_inline void spb_ucache_init(struct spb_ucache *uc)
{
	void *map = spb_umap();
	struct spb_uhdr *h;
	__u32 zero = 0;

	uc->tgid = spb_tgid();
	h = map ? bpf_map_lookup_elem(map, &zero) : NULL;
	uc->gen = h ? h->gen : 0;
}

/*
 * A rule not in sp_urules: searched, and kept there (in @addr's slot,
 * for the walk's process and generation) whether found or not.
 */
__noinline long spb_urule_miss(__u64 addr, struct spb_ucache *uc)
{
	struct spb_urule_slot *slot;
	long rule;

	if (!uc)
		return -1;
	rule = spb_urule_search(addr, uc);
	slot = uc->gen ? spb_urule_slot(addr) : NULL;
	if (slot) {
		slot->addr = addr;
		slot->gen = uc->gen;
		slot->tgid = uc->tgid;
		slot->rule = (__u32)rule;
		slot->found = rule >= 0;
	}
	return rule;
}

/*
 * SPU_FIND_RULE: the rule of the running process's tables at @addr,
 * from sp_urules if it holds it (inline in the step, a global function
 * verified once), else searched.
 */
static __always_inline int spb_urule(struct spb_ucache *uc, __u64 addr,
				     struct spu_rule *rule)
{
	struct spb_urule_slot *slot = uc->gen ? spb_urule_slot(addr) : NULL;
	long w;
	__u32 v;

	if (slot && slot->addr == addr && slot->gen == uc->gen &&
	    slot->tgid == uc->tgid)
		w = slot->found ? (long)slot->rule : -1;
	else
		w = spb_urule_miss(addr, uc);
	if (w < 0)
		return -1;
	v = (__u32)w;
	__builtin_memcpy(rule, &v, sizeof(v));
	return 0;
}

/*
 * One step of the unwind walk, <sprofil/unwind_table.h>'s: a global
 * function, verified once rather than once per frame of spu_walk().
 */
__noinline int spb_ustep(struct spu_regs *r, struct spb_ucache *uc)
{
	if (!r || !uc)
		return SPU_CUT_NOROW;
	return spu_step(uc, r);
}

/* Whether @pc is in a module of the running process with a table. */
static __always_inline int spb_ucovers(__u64 pc)
{
	return spb_umod_find(pc) >= 0;
}

/*
 * Walks the interrupted thread's user frames with the unwind tables
 * into its CPU's sp_chain, as the signal backend does: a sample in a
 * module with a table is walked with the tables (which say where frame
 * pointers are to be used), any other by its frame pointers.
 */
__noinline int spb_uwalk(__u64 pc, __u64 fp, __u64 sp)
{
	struct spb_ucache uc = { 0 };
	struct spb_chain *c;
	__u32 zero = 0, len = 0;

	c = bpf_map_lookup_elem(&sp_chain, &zero);
	if (!c)
		return -1;
	spb_ucache_init(&uc);
	spb_window_reset();
	c->truncated = spu_walk(&uc, pc, sp, fp, spb_depth(), c->pc,
				&len) != 0;
	c->len = len;
	return 0;
}

/*
 * The same chain from the kernel's own user-stack walk, cut by the same
 * text rule: the perf unwinder applies none of the frame rules (above
 * the previous record, inside the stack) and says not why it stopped.
 * Only for bench/'s comparison (sp_cwalk 1).
 */
__noinline int spb_get_stack(struct bpf_perf_event_data *ctx, __u32 k)
{
	struct spb_walk w = { .k = k };
	struct spb_chain *c;
	__u32 zero = 0, depth = spb_depth(), i;
	long got;

	c = bpf_map_lookup_elem(&sp_chain, &zero);
	if (!c)
		return -1;
	got = bpf_get_stack(ctx, c->pc, sizeof(c->pc), BPF_F_USER_STACK);
	if (got <= 0)
		return -1;
	got /= 8;
	if (got > depth)
		got = depth;
	c->len = got;
	c->truncated = got == depth;
	for (i = 1; i < SPROFIL_MAX_DEPTH && i < got; i++) {
		if (!SPC_TEXT_KNOWN(&w, c->pc[i])) {
			c->len = i + 1;
			c->truncated = i + 1 < got;
			break;
		}
	}
	return 0;
}

/*
 * Files @n samples of the chain in this CPU's sp_chain into sp_cnodes;
 * under the thread's node with SPROFIL_THREADS, unless @own: the
 * profiler's own work is no thread of the program's.
 */
__noinline int spb_file(__u32 n, __u32 own)
{
	struct spb_proc *p = spb_proc();
	struct spb_chain *c;
	struct spc_table t;
	__u32 zero = 0;

	c = bpf_map_lookup_elem(&sp_chain, &zero);
	if (!p || !c || c->len > SPROFIL_MAX_DEPTH)
		return -1;
	c->cgen = p->cgen;
	c->tgid = spb_tgid();
	t = spb_ctable(p);
	/* The thread id in the initial pid namespace (docs/callers.md). */
	return spc_file(&t, c->pc, c->len, c->truncated, n,
			p->cthreads && !own ?
			spc_thread_pc((__u32)bpf_get_current_pid_tgid()) : 0);
}

/* The chain of a sample of the profiler's own work: @pc alone. */
static __always_inline int spb_own_chain(__u64 pc)
{
	struct spb_chain *c;
	__u32 zero = 0;

	c = bpf_map_lookup_elem(&sp_chain, &zero);
	if (!c)
		return -1;
	c->pc[0] = pc;
	c->len = 1;
	c->truncated = 0;
	return 0;
}

/*
 * What a sample needs of the regs it is of: the overflow's, or for an
 * event that happens in kernel mode (p->uregs) the thread's user regs,
 * where it returns to user mode.  Four words, not the 168-byte struct
 * pt_regs: the sampler's stack and its walks' share a 512-byte limit
 * (6.1 refused the program at 544).
 */
struct spb_regs {
	__u64 ip, sp, fp, cs;
};

/* Field @f of the pt_regs at @r, read from the kernel, or 0. */
#define SPB_KREG(r, f) ({						\
	__u64 v_ = 0;							\
	bpf_probe_read_kernel(&v_, sizeof(v_), &(r)->f);		\
	v_;								\
})

/* The sample's regs; -1 if they cannot be read. */
static __always_inline int spb_regs(struct bpf_perf_event_data *ctx,
				     const struct spb_proc *p,
				     struct spb_regs *r)
{
	const bpf_user_pt_regs_t *k;

	if (!p->uregs) {
		r->ip = ctx->regs.rip;
		r->sp = ctx->regs.rsp;
		r->fp = ctx->regs.rbp;
		r->cs = ctx->regs.cs;
		return 0;
	}
	k = (const void *)bpf_task_pt_regs(bpf_get_current_task_btf());
	r->cs = SPB_KREG(k, cs);
	r->ip = SPB_KREG(k, rip);
	r->sp = SPB_KREG(k, rsp);
	r->fp = SPB_KREG(k, rbp);
	return r->ip ? 0 : -1;
}

SEC("perf_event")
int sp_sample(struct bpf_perf_event_data *ctx)
{
	__u64 pc, n, *count, id = bpf_get_current_pid_tgid();
	struct spb_regs regs;
	const struct spb_set *set;
	struct spb_proc *p = spb_proc();
	__u32 key, cur, tgid, slot;
	void *counts;
	int own;
	long r;

	if (!p || !p->on)
		return 0;
	own = (__u32)id == p->quiet_tid || (__u32)id == p->busy_tid;
	if (own && !p->own_pc)
		return 0;
	n = spb_periods(ctx, p);
	/* Kernel-mode periods pass uncounted, as with the module. */
	if (!n || spb_regs(ctx, p, &regs) || !(regs.cs & 3))
		return 0;
	pc = regs.ip;
	if (own)
		pc = p->own_pc;
	cur = p->cur & 1;
	set = &p->set[cur];
	__sync_fetch_and_add(&p->samples[cur], n);
	if (p->cdepth) {
		int err = own ? spb_own_chain(pc) :
			  p->cwalk ? spb_get_stack(ctx, cur) :
			  spb_ucovers(pc) ?
			  spb_uwalk(pc, regs.fp, regs.sp) :
			  spb_walk(pc, regs.fp, regs.sp, cur);

		if (!err)
			spb_file((__u32)n, own);
	}
	r = spb_lookup(set, pc);
	if (r < 0) {
		__sync_fetch_and_add(&p->misses[cur], n);
		return 0;
	}
	key = cur * p->half + set->first[r] + (__u32)spb_bucket(set, r, pc);
	tgid = spb_tgid();
	counts = bpf_map_lookup_elem(&sp_pcounts, &tgid);
	if (!counts)
		return 0;
	count = bpf_map_lookup_elem(counts, &key);
	if (count) {
		__sync_fetch_and_add(count, n);
	} else if (bpf_map_update_elem(counts, &key, &n, BPF_NOEXIST)) {
		/* Another CPU added it first, or there is no room. */
		count = bpf_map_lookup_elem(counts, &key);
		if (!count) {
			__sync_fetch_and_add(&p->lost[cur], n);
			return 0;
		}
		__sync_fetch_and_add(count, n);
	}
	slot = __sync_fetch_and_add(&p->ring_head, 1);
	p->ring[slot & (SPB_RING - 1)] = key + 1;
	return 0;
}

static long spb_test_one(__u32 i, void *unused)
{
	struct spb_proc *p = spb_proc();
	const struct spb_set *set;
	struct spb_test_result *out;
	__u64 pc;
	long r;

	if (i >= SPB_TEST_PCS || !p)
		return 1;
	set = &p->set[p->cur & 1];
	pc = sp_test_pc[i];
	out = &sp_test_out[i];
	r = spb_lookup(set, pc);
	out->entry = r < 0 ? -1 : (__s32)set->region[r].id;
	out->bucket = r < 0 ? 0 : spb_bucket(set, r, pc);
	return 0;
}

/*
 * The lookup self-test: files sp_test_pc[0 .. *npcs) with the very code
 * the sampler runs, through bpf_prog_test_run(), so that the tests can
 * compare its buckets with <sprofil/mapping.h>'s and the module's.
 */
SEC("syscall")
int sp_lookup_test(__u32 *npcs)
{
	__u32 n = *npcs;

	if (n > SPB_TEST_PCS)
		return -1;
	bpf_loop(n, spb_test_one, NULL, 0);
	return 0;
}

static long spb_test_file_one(__u32 i, void *unused)
{
	struct spb_test_chain *tc;
	struct spb_chain *c;
	__u32 zero = 0, j, first, len;

	if (i >= SPB_TEST_CHAINS)
		return 1;
	tc = &sp_test_chain[i];
	c = bpf_map_lookup_elem(&sp_chain, &zero);
	if (!c)
		return 1;
	first = tc->first;
	len = tc->len;
	if (len > SPROFIL_MAX_DEPTH)
		return 1;
	for (j = 0; j < SPROFIL_MAX_DEPTH && j < len; j++)
		c->pc[j] = sp_test_frame[(first + j) & (SPB_TEST_FRAMES - 1)];
	c->len = len;
	c->truncated = tc->truncated;
	spb_file(tc->n, 0);
	return 0;
}

/*
 * The filing self-test: files sp_test_chain[0 .. *nchains) with the very
 * code the sampler runs, so that tests/bpf can compare the tree with the
 * one <sprofil/callers.h> builds from the same chains.
 */
SEC("syscall")
int sp_file_test(__u32 *nchains)
{
	__u32 n = *nchains;

	if (n > SPB_TEST_CHAINS)
		return -1;
	bpf_loop(n, spb_test_file_one, NULL, 0);
	return 0;
}

/*
 * The unwind self-test: walks the calling process's stack from the
 * registers in sp_test_unwind with the very code the sampler runs, so
 * that tests/bpf can compare its chains with <sprofil/unwind_table.h>'s
 * walk in userland over the same stack.
 */
SEC("syscall")
int sp_unwind_test(void *unused)
{
	struct spb_test_unwind *u = &sp_test_unwind;
	__u32 len = 0, depth = u->depth;
	struct spb_ucache uc = { 0 };

	if (depth < 1 || depth > SPROFIL_MAX_DEPTH)
		return -1;
	spb_ucache_init(&uc);
	spb_window_reset();
	u->ret = spu_walk(&uc, u->pc, u->sp, u->fp, depth, u->chain, &len);
	u->len = len;
	return 0;
}
