/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The unwind table of sprofil, defined once: how one module's call frame
 * information (CFI) is stored for a sampler, and the one walk that steps
 * from a frame to its caller with it.
 *
 * Programs built without frame pointers (Debian builds nearly everything
 * so) leave no frame records to walk, but their .eh_frame says, for every
 * instruction, where the caller's registers are.  Interpreting DWARF CFI
 * in a sampling handler is too slow and too large, so a builder in
 * userland (libdw's CFI interpreter; unwind/unwind_build.c) compiles each
 * module's CFI once, keyed by its build-id, into this table: per address
 * range, the three rules an x86-64 walk needs.  The kernel module, the
 * BPF program and the signal backend walk it alike.  Pure code: no
 * allocation, no locking, no libc; compiles in the kernel, in BPF C and
 * in userland.
 *
 * Rules (docs/callers.md, "Unwind tables"):
 *  - a table is a 64-byte header, the module's distinct rules (a few
 *    hundred), a page index and 4-byte rows sorted by strictly increasing
 *    start; a row covers its start up to the next row's (the last row up
 *    to hdr.span) and names its rule; a start is its 64 KiB page (from
 *    the index) and 16 bits within it, so a lookup is one page's binary
 *    search; addresses are offsets from hdr.base, a link-time virtual
 *    address of the module, so one table serves every process that maps
 *    the module, whatever its load address;
 *  - a rule says where the canonical frame address (CFA, the caller's sp)
 *    is: sp or fp plus 8 * cfa; the return address is at CFA - 8 (the
 *    x86-64 ABI's call; the builder writes SPU_CFA_NONE for CFI that puts
 *    it elsewhere); and where the caller's fp is: unchanged, saved at
 *    CFA + 8 * fp, or lost (the walk goes on until a rule needs it);
 *  - SPU_CFA_END: the return address is undefined, the outermost frame
 *    (_start, a thread's clone child): the chain is complete there;
 *  - SPU_CFA_NONE: no usable information (a gap between functions, CFI
 *    that no row can express): the chain is cut there, never guessed;
 *  - SPU_CFA_SIGNAL: the signal trampoline (glibc's __restore_rt, whose
 *    FDE has the 'S' augmentation): sp points at the kernel's ucontext,
 *    whose saved sp, pc and fp are at sp + 8 * cfa, sp + 8 * cfa + 8 and
 *    sp + 8 * fp; the pc found there is the interrupted instruction
 *    itself, not a return address;
 *  - a return address is looked up at pc - 1 (the call may be the last
 *    instruction of its function); an interrupted pc (the sample's, or one
 *    from a signal frame) at pc itself;
 *  - each ordinary step moves sp strictly up (CFA >= sp + 8), and a walk
 *    takes at most its depth steps, so every walk ends; a word that
 *    cannot be read, a return address that is no user address, a
 *    rule needing an unknown fp cut the chain, with the reason.
 *
 * PLT stubs: the linker's CFI for .plt is one expression (sp + 8, or
 * sp + 16 from the push of each 16-byte entry on); the builder expands it
 * into two rows per entry.  .plt.got and .plt.sec have plain CFI.
 * Leaf functions need no rule of their own: their CFI says CFA = sp + 8.
 */
#ifndef SPROFIL_UNWIND_TABLE_H
#define SPROFIL_UNWIND_TABLE_H

#if defined(__KERNEL__)
#include <linux/errno.h>
#include <linux/types.h>
#else
/* Userland and BPF C: the uapi types and errno values are the same. */
#include <errno.h>
#include <linux/types.h>
#endif

#define SPU_MAGIC		0x57555053u	/* "SPUW" little-endian */
#define SPU_VERSION		1u
#define SPU_MACHINE_X86_64	62u		/* EM_X86_64 */
#define SPU_BUILD_ID_MAX	32u
/* Rows a table may hold: 2^24, 64 MiB, far beyond any module. */
#define SPU_MAX_ROWS		0x1000000u
/* Distinct rules: a row names its rule with 16 bits. */
#define SPU_MAX_RULES		0x10000u
#define SPU_PAGE_SHIFT		16		/* 64 KiB of text per page */
/* Frames a walk keeps at most: SPROFIL_MAX_DEPTH, a power of two. */
#define SPU_MAX_DEPTH		128

/*
 * At the start of a table; 64 bytes.  Then, each 4-byte aligned:
 *   struct spu_rule rule[nrules];	the distinct rules
 *   __u32 page[npages + 1];		first row of each 64 KiB page
 *   struct spu_row row[nrows];		sorted by start
 * with npages = spu_npages(span).  Page p's rows are page[p] up to
 * page[p + 1]; page[0] is 0 and page[npages] is nrows.
 */
struct spu_header {
	__u32 magic;		/* SPU_MAGIC */
	__u16 version;		/* SPU_VERSION */
	__u16 machine;		/* ELF e_machine the rules are for */
	__u32 nrows;
	__u32 span;		/* end of the last row, from base */
	__u64 base;		/* link-time address row starts are from */
	__u32 build_id_len;	/* bytes of build_id used, 0 if none */
	__u32 nrules;
	__u8 build_id[SPU_BUILD_ID_MAX];
};

/* How to find the caller's registers; 4 bytes. */
struct spu_rule {
	__s16 cfa;		/* CFA offset from its register, 8-byte units */
	__s8 fp;		/* where the caller's fp is, 8-byte units */
	__u8 how;		/* SPU_CFA_* | SPU_FP_* */
};

/*
 * One address range, from its start to the next row's (the last row's
 * to hdr.span); 4 bytes.  Its start is page * 64 KiB + low, the page
 * being the one whose rows it is among.
 */
struct spu_row {
	__u16 low;		/* start within its page */
	__u16 rule;		/* index into the rules */
};

/* How the CFA is found: the low three bits of spu_rule.how. */
#define SPU_CFA_NONE		0u	/* no information: cut */
#define SPU_CFA_SP		1u	/* CFA = sp + 8 * cfa */
#define SPU_CFA_FP		2u	/* CFA = fp + 8 * cfa */
#define SPU_CFA_END		3u	/* outermost frame: complete */
#define SPU_CFA_SIGNAL		4u	/* a signal frame (see the rules) */
#define SPU_CFA_MASK		7u

/* Where the caller's fp is: bits 3-4 of spu_rule.how (0x18: invalid). */
#define SPU_FP_SAME		0x00u	/* this frame's fp is the caller's */
#define SPU_FP_AT		0x08u	/* saved at CFA + 8 * fp */
#define SPU_FP_LOST		0x10u	/* not known */
#define SPU_FP_MASK		0x18u

/* Results of a step besides SPU_STEP_CALLER: why a chain ends. */
#define SPU_STEP_CALLER		0	/* the caller's registers are set */
#define SPU_STEP_END		1	/* the outermost frame: complete */
#define SPU_CUT_NOROW		(-1)	/* no table or row for the pc */
#define SPU_CUT_NOINFO		(-2)	/* a row without information */
#define SPU_CUT_FP		(-3)	/* the CFA needs an fp not known */
#define SPU_CUT_READ		(-4)	/* a stack word cannot be read */
#define SPU_CUT_STACK		(-5)	/* the CFA is not above sp */
#define SPU_CUT_PC		(-6)	/* the return address is no user pc */
#define SPU_CUT_DEPTH		(-7)	/* the depth limit */

/* The registers of one frame of a walk. */
struct spu_regs {
	__u64 pc;
	__u64 sp;
	__u64 fp;
	__u32 flags;		/* SPU_REGS_* */
	__u32 reserved;
};

#define SPU_REGS_FP_KNOWN	1u	/* fp holds the frame's true value */
#define SPU_REGS_EXACT		2u	/* pc was interrupted, not a return */

/* A return address is in the user half, above the first page. */
#define SPU_USER_PC_MIN		0x1000ull
#define SPU_USER_PC_END		0x0100000000000000ull

/* A checked table's parts (spu_table_view()). */
struct spu_table {
	const struct spu_header *hdr;
	const struct spu_rule *rule;
	const __u32 *page;
	const struct spu_row *row;
	__u32 npages;
};

static inline int spu_how_valid(__u8 how)
{
	return (how & SPU_CFA_MASK) <= SPU_CFA_SIGNAL &&
	       (how & SPU_FP_MASK) != SPU_FP_MASK &&
	       !(how & ~(SPU_CFA_MASK | SPU_FP_MASK));
}

static inline __u32 spu_npages(__u32 span)
{
	return (__u32)(((__u64)span + (1u << SPU_PAGE_SHIFT) - 1) >>
		       SPU_PAGE_SHIFT);
}

/* Bytes of a table of @nrules rules and @nrows rows covering @span. */
static inline __u64 spu_table_bytes(__u32 nrules, __u32 span, __u32 nrows)
{
	return sizeof(struct spu_header) +
	       (__u64)nrules * sizeof(struct spu_rule) +
	       ((__u64)spu_npages(span) + 1) * sizeof(__u32) +
	       (__u64)nrows * sizeof(struct spu_row);
}

/*
 * Checks a table of @bytes handed over by someone else (the module's
 * ioctl, the library's cache file) before any walk uses it, and fills
 * @t: the header, every rule, the pages' bounds, each row's rule index
 * and the order of the starts, on which the binary search relies.  0 or
 * -EINVAL; reads only inside @bytes, and @t only on success.
 */
static inline int spu_table_view(const struct spu_header *h, __u64 bytes,
				 struct spu_table *t)
{
	const struct spu_rule *rule = (const struct spu_rule *)(h + 1);
	const __u32 *page;
	const struct spu_row *row;
	__u32 np, p, i;

	if (bytes < sizeof(*h) || h->magic != SPU_MAGIC ||
	    h->version != SPU_VERSION || h->machine != SPU_MACHINE_X86_64 ||
	    h->nrows > SPU_MAX_ROWS || h->nrules > SPU_MAX_RULES ||
	    h->build_id_len > SPU_BUILD_ID_MAX ||
	    bytes < spu_table_bytes(h->nrules, h->span, h->nrows) ||
	    h->base + h->span < h->base)
		return -EINVAL;
	np = spu_npages(h->span);
	page = (const __u32 *)(rule + h->nrules);
	row = (const struct spu_row *)(page + np + 1);
	for (i = 0; i < h->nrules; i++)
		if (!spu_how_valid(rule[i].how))
			return -EINVAL;
	if (page[0] != 0 || page[np] != h->nrows)
		return -EINVAL;
	for (p = 0; p < np; p++) {
		if (page[p + 1] < page[p])
			return -EINVAL;
		for (i = page[p]; i < page[p + 1]; i++) {
			if (row[i].rule >= h->nrules ||
			    ((__u64)p << SPU_PAGE_SHIFT) + row[i].low >= h->span ||
			    (i > page[p] && row[i].low <= row[i - 1].low))
				return -EINVAL;
		}
	}
	t->hdr = h;
	t->rule = rule;
	t->page = page;
	t->row = row;
	t->npages = np;
	return 0;
}

/*
 * How spu_find() reads a table's page index and rows: through the
 * checked view's pointers, unless the includer defines both first (the
 * BPF program reads them from a map, an element at a time).
 */
#ifndef SPU_PAGE_AT
#define SPU_PAGE_AT(t, p)	(((const struct spu_table *)(t))->page[p])
#define SPU_ROW_AT(t, i)	(((const struct spu_table *)(t))->row[i])
#endif

/* A search of spu_find_in(), carried from halving to halving. */
struct spu_search {
	__u32 lo, hi;		/* the rows left: [lo, hi) */
	__u32 first;		/* the page's first row */
	__u32 low;		/* the offset within its page */
};

/* Halvings of a page's rows: at most 2^16 of them. */
#define SPU_FIND_HALVINGS	17

/* The page of @off, its rows to search; 0, or -1 if @off is beyond. */
static inline int spu_find_begin(const void *t, __u32 span, __u64 off,
				 struct spu_search *s)
{
	__u32 p;

	if (off >= span)
		return -1;
	p = (__u32)(off >> SPU_PAGE_SHIFT);
	s->low = (__u32)off & ((1u << SPU_PAGE_SHIFT) - 1);
	s->first = SPU_PAGE_AT(t, p);
	s->lo = s->first;
	s->hi = SPU_PAGE_AT(t, p + 1);
	return 0;
}

/* One halving; nothing once the search is done (lo == hi). */
static inline void spu_find_step(const void *t, struct spu_search *s)
{
	__u32 mid;

	if (s->lo >= s->hi)
		return;
	mid = s->lo + (s->hi - s->lo) / 2;
	if (SPU_ROW_AT(t, mid).low <= s->low)
		s->lo = mid + 1;
	else
		s->hi = mid;
}

/*
 * The rule of a finished search: its last row starting at or below the
 * offset; before its page's first row, the row before that, from an
 * earlier page; -1 if none.
 */
static inline long spu_find_end(const void *t, const struct spu_search *s)
{
	if (s->lo > s->first)
		return SPU_ROW_AT(t, s->lo - 1).rule;
	return s->first ? SPU_ROW_AT(t, s->first - 1).rule : -1;
}

/*
 * The rule covering @off (an address minus hdr.base) in a checked
 * table @t of @span bytes, read through SPU_PAGE_AT and SPU_ROW_AT: its
 * index, or -1.  One page's rows are searched, at most 17 halvings (the
 * BPF program runs the same three parts, its halvings in bpf_loop()).
 */
static inline long spu_find_in(const void *t, __u32 span, __u64 off)
{
	struct spu_search s;
	int i;

	if (spu_find_begin(t, span, off, &s))
		return -1;
	for (i = 0; i < SPU_FIND_HALVINGS && s.lo < s.hi; i++)
		spu_find_step(t, &s);
	return spu_find_end(t, &s);
}

/* spu_find_in() of a checked view. */
static inline long spu_find(const struct spu_table *t, __u64 off)
{
	return spu_find_in(t, t->hdr->span, off);
}

static inline int spu_user_pc(__u64 pc)
{
	return pc >= SPU_USER_PC_MIN && pc < SPU_USER_PC_END;
}

#endif /* SPROFIL_UNWIND_TABLE_H */

/*
 * The step, for the includer that defines two hooks first (before its
 * first inclusion that has them: the format above may have been
 * included already, without them, by another header):
 *   int SPU_FIND_RULE(ctx, addr, struct spu_rule *rule): the rule of
 *	the module mapped at @addr (its table's lookup at addr minus the
 *	load bias and hdr.base: spu_find()); 0, or nonzero if none;
 *   int SPU_READ_WORD(ctx, addr, __u64 *val): reads the 8 bytes at a
 *	user address without faulting or sleeping; 0, or nonzero if it
 *	cannot (the module: copy_from_user_nofault(); BPF:
 *	bpf_probe_read_user(); the signal handler: a bounds-checked load).
 * Neither may be called with a lock the handler could already hold.
 */
#if defined(SPU_READ_WORD) && !defined(SPROFIL_UNWIND_WALK_H)
#define SPROFIL_UNWIND_WALK_H

/*
 * Replaces @r by its caller's registers: SPU_STEP_CALLER; or returns
 * SPU_STEP_END at the outermost frame, or an SPU_CUT_* reason, leaving
 * @r unchanged.
 */
static inline int spu_step(void *ctx, struct spu_regs *r)
{
	__u64 addr = r->flags & SPU_REGS_EXACT ? r->pc : r->pc - 1;
	__u64 cfa, pc, fp = r->fp, sp;
	__u32 flags = r->flags & SPU_REGS_FP_KNOWN;
	struct spu_rule row;

	if (SPU_FIND_RULE(ctx, addr, &row))
		return SPU_CUT_NOROW;
	switch (row.how & SPU_CFA_MASK) {
	case SPU_CFA_END:
		return SPU_STEP_END;
	case SPU_CFA_SIGNAL:
		/* The kernel's ucontext: the interrupted registers. */
		if (SPU_READ_WORD(ctx, r->sp + 8 * (__s64)row.cfa, &sp) ||
		    SPU_READ_WORD(ctx, r->sp + 8 * (__s64)row.cfa + 8, &pc) ||
		    SPU_READ_WORD(ctx, r->sp + 8 * (__s64)row.fp, &fp))
			return SPU_CUT_READ;
		if (!pc)
			return SPU_STEP_END;
		if (!spu_user_pc(pc))
			return SPU_CUT_PC;
		r->pc = pc;
		r->sp = sp;
		r->fp = fp;
		r->flags = SPU_REGS_FP_KNOWN | SPU_REGS_EXACT;
		return SPU_STEP_CALLER;
	case SPU_CFA_SP:
		cfa = r->sp + 8 * (__s64)row.cfa;
		break;
	case SPU_CFA_FP:
		if (!(r->flags & SPU_REGS_FP_KNOWN))
			return SPU_CUT_FP;
		cfa = r->fp + 8 * (__s64)row.cfa;
		break;
	default:
		return SPU_CUT_NOINFO;
	}
	/* Strictly up, and no wrap: the walk cannot loop. */
	if (cfa < r->sp + 8 || r->sp + 8 < r->sp)
		return SPU_CUT_STACK;
	if (SPU_READ_WORD(ctx, cfa - 8, &pc))
		return SPU_CUT_READ;
	switch (row.how & SPU_FP_MASK) {
	case SPU_FP_AT:
		if (SPU_READ_WORD(ctx, cfa + 8 * (__s64)row.fp, &fp))
			return SPU_CUT_READ;
		flags = SPU_REGS_FP_KNOWN;
		break;
	case SPU_FP_LOST:
		flags = 0;
		break;
	}
	/* A zero return address is the ABI's end of the chain. */
	if (!pc)
		return SPU_STEP_END;
	if (!spu_user_pc(pc))
		return SPU_CUT_PC;
	r->pc = pc;
	r->sp = cfa;
	r->fp = fp;
	r->flags = flags;
	return SPU_STEP_CALLER;
}

/*
 * A step as the walk below takes it: spu_step() unless the includer
 * defines its own way to call it (BPF: a global function, verified once
 * instead of once per frame of the walk).
 */
#ifndef SPU_STEP
#define SPU_STEP(ctx, r)	spu_step((ctx), (r))
#endif

/*
 * The walk: from an interrupted thread's @pc, @sp and @fp, fills @chain
 * (room for @depth, 1 to SPU_MAX_DEPTH) with the pc and then one return
 * address (or signal-interrupted pc) per frame, innermost first, and
 * *@len.  Returns 0 when the chain is complete (it reached the outermost
 * frame), or the SPU_CUT_* reason it was cut for (SPU_CUT_DEPTH when
 * the frame beyond the last one kept is not the outermost).  At most
 * @depth steps; the loop's constant bound and the index mask are for
 * BPF's verifier, which cannot see @depth's.
 */
static inline int spu_walk(void *ctx, __u64 pc, __u64 sp, __u64 fp,
			   __u32 depth, __u64 *chain, __u32 *len)
{
	struct spu_regs r = {
		.pc = pc, .sp = sp, .fp = fp,
		.flags = SPU_REGS_FP_KNOWN | SPU_REGS_EXACT,
	};
	__u32 n = 1;
	int i, ret = SPU_CUT_DEPTH;

	chain[0] = pc;
	for (i = 0; i < SPU_MAX_DEPTH && n <= depth; i++) {
		ret = SPU_STEP(ctx, &r);
		if (ret != SPU_STEP_CALLER)
			break;
		ret = SPU_CUT_DEPTH;
		if (n >= depth)
			break;
		chain[n++ & (SPU_MAX_DEPTH - 1)] = r.pc;
	}
	*len = n;
	return ret == SPU_STEP_END ? 0 : ret;
}
#endif /* SPU_READ_WORD */
