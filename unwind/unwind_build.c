// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The unwind table builder: every executable byte of a module is asked
 * of libdw's CFI interpreter (dwarf_cfi_addrframe(), which gives the
 * frame state and the range it holds for), and each state is reduced to
 * the three rules of a row (unwind_table.h).  libdw does all of DWARF's
 * CFI; this file only decides which states a row can express, and says
 * so (the stats) when one cannot: such a state becomes a row without
 * information, where a walk stops, rather than a guess.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unwind_build.h"

#define DW_REG_RBP	6
#define DW_REG_RSP	7
#define DW_REG_RIP	16

/* A row before the table is laid out: its start and its rule. */
struct brow {
	__u32 start;
	struct spu_rule r;
};

struct builder {
	struct brow *row;
	size_t nrows, cap;
	__u64 base;
	struct spu_build_stats *st;
	int failed;
};

static void say(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

const char *spu_cut_name(int reason)
{
	switch (reason) {
	case 0: return "complete";
	case SPU_CUT_NOROW: return "no table or row";
	case SPU_CUT_NOINFO: return "no unwind information";
	case SPU_CUT_FP: return "frame pointer unknown";
	case SPU_CUT_READ: return "stack unreadable";
	case SPU_CUT_STACK: return "CFA not above sp";
	case SPU_CUT_PC: return "return address not user code";
	case SPU_CUT_DEPTH: return "depth limit";
	}
	return "unknown";
}

static int same_rule(const struct spu_rule *a, const struct spu_rule *b)
{
	return a->cfa == b->cfa && a->fp == b->fp && a->how == b->how;
}

/* A row from @addr on; merged into the last when its rules are the same. */
static void emit(struct builder *b, __u64 addr, const struct spu_rule *r)
{
	struct brow *last = b->nrows ? &b->row[b->nrows - 1] : NULL;

	if (last && same_rule(&last->r, r))
		return;
	if (last && last->start == addr - b->base) {
		last->r = *r;
		if (b->nrows > 1 && same_rule(&last[-1].r, r))
			b->nrows--;	/* the replaced row left a twin */
		return;
	}
	if (b->nrows == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 4096;
		struct brow *n = realloc(b->row, cap * sizeof(*n));

		if (!n) {
			b->failed = 1;
			return;
		}
		b->row = n;
		b->cap = cap;
	}
	b->row[b->nrows++] = (struct brow){ (__u32)(addr - b->base), *r };
}

static int is_lit(const Dwarf_Op *op, unsigned int v)
{
	return op->atom == DW_OP_lit0 + v;
}

/* A byte offset as a count of 8-byte words in @bits signed bits. */
static int words(Dwarf_Sword off, int bits, int *out)
{
	Dwarf_Sword w = off / 8, lim = (Dwarf_Sword)1 << (bits - 1);

	if (off % 8 || w < -lim || w >= lim)
		return 0;
	*out = (int)w;
	return 1;
}

/*
 * Where the register @reg of the caller is: its CFA-relative save slot
 * in words (1), unchanged (2), or anything else (0).
 */
static int saved_at(Dwarf_Frame *fr, int reg, int bits, int *slot)
{
	Dwarf_Op mem[3], *ops;
	size_t n;

	if (dwarf_frame_register(fr, reg, mem, &ops, &n))
		return 0;
	if (n == 0)
		return ops ? 0 : 2;	/* undefined : same value */
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return 0;
	if (n == 1) {
		*slot = 0;
		return 1;
	}
	if (n == 2 && ops[1].atom == DW_OP_plus_uconst)
		return words((Dwarf_Sword)ops[1].number, bits, slot);
	return 0;
}

/*
 * An sp-relative address expression (DW_OP_breg7 N) in words.  libdw
 * gives a DW_CFA_expression rule with the CFA pushed first, as DWARF
 * evaluates it: DW_OP_call_frame_cfa, then the expression.
 */
static int sp_slot(const Dwarf_Op *ops, size_t n, int *slot)
{
	return n == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
	       ops[1].atom == DW_OP_breg7 &&
	       words((Dwarf_Sword)ops[1].number, 8, slot);
}

/*
 * A signal frame (the FDE's 'S' augmentation): glibc's __restore_rt says
 * CFA = *(sp + S), and the caller's rsp, rip and rbp are at sp + S,
 * sp + S + 8 and sp + B, the kernel's ucontext.  Anything else is left
 * without information.
 */
static int signal_rules(Dwarf_Frame *fr, Dwarf_Op *cfa, size_t ncfa,
			struct spu_rule *r)
{
	Dwarf_Op mem[3], *ops;
	int s, rsp, rip, rbp;
	size_t n;

	if (ncfa != 2 || cfa[0].atom != DW_OP_breg7 ||
	    cfa[1].atom != DW_OP_deref ||
	    !words((Dwarf_Sword)cfa[0].number, 16, &s))
		return 0;
	if (dwarf_frame_register(fr, DW_REG_RSP, mem, &ops, &n) ||
	    !sp_slot(ops, n, &rsp) || rsp != s)
		return 0;
	if (dwarf_frame_register(fr, DW_REG_RIP, mem, &ops, &n) ||
	    !sp_slot(ops, n, &rip) || rip != s + 1)
		return 0;
	if (dwarf_frame_register(fr, DW_REG_RBP, mem, &ops, &n) ||
	    !sp_slot(ops, n, &rbp))
		return 0;
	r->cfa = (__s16)s;
	r->fp = (__s8)rbp;
	r->how = SPU_CFA_SIGNAL;
	return 1;
}

/*
 * The linker's CFI for a lazy .plt: CFA = sp + N + 8 * ((pc & 15) >= K),
 * the push of each 16-byte entry being at offset K - 6.  Returns K, or 0
 * when @ops is not that expression.
 */
static int plt_split(const Dwarf_Op *ops, size_t n, int *slot)
{
	int k;

	if (n != 9 || ops[0].atom != DW_OP_breg7 ||
	    ops[1].atom != DW_OP_breg16 || ops[1].number != 0 ||
	    !is_lit(&ops[2], 15) || ops[3].atom != DW_OP_and ||
	    ops[4].atom < DW_OP_lit1 || ops[4].atom > DW_OP_lit15 ||
	    ops[5].atom != DW_OP_ge || !is_lit(&ops[6], 3) ||
	    ops[7].atom != DW_OP_shl || ops[8].atom != DW_OP_plus ||
	    !words((Dwarf_Sword)ops[0].number, 15, slot))
		return 0;
	k = ops[4].atom - DW_OP_lit0;
	return k;
}

/*
 * The rules of one frame state; *@plt_k set for the .plt expression,
 * whose CFA depends on the pc (then r->cfa is its smaller offset).
 */
static void state_rules(struct builder *b, Dwarf_Frame *fr, bool signalp,
			struct spu_rule *r, int *plt_k)
{
	Dwarf_Op *ops;
	size_t n;
	int cfa, fp, ra, how;

	*plt_k = 0;
	*r = (struct spu_rule){ 0, 0, SPU_CFA_NONE };
	if (dwarf_frame_cfa(fr, &ops, &n))
		goto none;
	if (signalp) {
		if (signal_rules(fr, ops, n, r)) {
			b->st->signal_rows++;
			return;
		}
		goto none;
	}
	/* The return address: CFA - 8 (a call's push), or undefined. */
	how = saved_at(fr, DW_REG_RIP, 8, &ra);
	if (how == 0) {
		Dwarf_Op mem[3], *rops;
		size_t rn;

		if (!dwarf_frame_register(fr, DW_REG_RIP, mem, &rops, &rn) &&
		    rn == 0 && rops) {
			r->how = SPU_CFA_END;
			return;
		}
		goto none;
	}
	if (how != 1 || ra != -1)
		goto none;
	if (n == 1 && ops[0].atom == DW_OP_bregx &&
	    (ops[0].number == DW_REG_RSP || ops[0].number == DW_REG_RBP) &&
	    words((Dwarf_Sword)ops[0].number2, 16, &cfa)) {
		r->how = ops[0].number == DW_REG_RSP ? SPU_CFA_SP : SPU_CFA_FP;
	} else {
		*plt_k = plt_split(ops, n, &cfa);
		if (!*plt_k)
			goto none;
		r->how = SPU_CFA_SP;
	}
	r->cfa = (__s16)cfa;
	how = saved_at(fr, DW_REG_RBP, 8, &fp);
	if (how == 1) {
		r->how |= SPU_FP_AT;
		r->fp = (__s8)fp;
	} else if (how == 0) {
		r->how |= SPU_FP_LOST;
	}
	return;
none:
	b->st->unexpressed++;
}

/* The rows of [@start, @end), the range of one state. */
static void emit_state(struct builder *b, Dwarf_Frame *fr, bool signalp,
		       __u64 start, __u64 end)
{
	struct spu_rule r;
	int k;

	state_rules(b, fr, signalp, &r, &k);
	if (!k) {
		emit(b, start, &r);
		if ((r.how & SPU_CFA_MASK) == SPU_CFA_NONE)
			b->st->none_bytes += end - start;
		return;
	}
	/* Two rows per 16-byte entry: before the push and from it on. */
	while (start < end) {
		__u64 entry = start & ~15ull, split = entry + k;
		struct spu_rule hi = r;

		hi.cfa++;
		emit(b, start, start < split ? &r : &hi);
		if (start < split && split < end)
			emit(b, split, &hi);
		start = entry + 16;
		b->st->plt_entries++;
	}
}

static const struct spu_rule no_info = { 0, 0, SPU_CFA_NONE };

/* The rows of one executable section [@lo, @hi). */
static void build_range(struct builder *b, Dwarf_CFI *eh, Dwarf_CFI *dbg,
			__u64 lo, __u64 hi)
{
	__u64 addr = lo;

	while (addr < hi && !b->failed) {
		Dwarf_Frame *fr = NULL;
		Dwarf_Addr start, end;
		bool signalp;

		if ((!eh || dwarf_cfi_addrframe(eh, addr, &fr)) &&
		    (!dbg || dwarf_cfi_addrframe(dbg, addr, &fr)))
			fr = NULL;
		if (!fr ||
		    dwarf_frame_info(fr, &start, &end, &signalp) < 0 ||
		    end <= addr) {
			/* No FDE here: a gap, stepped over byte by byte. */
			free(fr);
			emit(b, addr, &no_info);
			b->st->none_bytes++;
			b->st->gap_bytes++;
			addr++;
			continue;
		}
		if (end > hi)
			end = hi;
		emit_state(b, fr, signalp, addr, end);
		free(fr);
		addr = end;
	}
}

static int elf_is_x86_64(Elf *elf)
{
	GElf_Ehdr eh;

	return gelf_getehdr(elf, &eh) && eh.e_machine == EM_X86_64 &&
	       eh.e_ident[EI_CLASS] == ELFCLASS64;
}

/* The span of the executable sections, from the section headers. */
static int text_span(Elf *elf, __u64 *lo, __u64 *hi)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	*lo = ~0ull;
	*hi = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) ||
		    !(sh.sh_flags & SHF_ALLOC) || !sh.sh_size)
			continue;
		if (sh.sh_addr < *lo)
			*lo = sh.sh_addr;
		if (sh.sh_addr + sh.sh_size > *hi)
			*hi = sh.sh_addr + sh.sh_size;
	}
	return *lo < *hi;
}

#define RULE_HASH	(2 * SPU_MAX_RULES)

static __u32 rule_key(const struct spu_rule *r)
{
	return (__u32)(__u16)r->cfa | (__u32)(__u8)r->fp << 16 |
	       (__u32)r->how << 24;
}

/*
 * The table of the rows collected: the distinct rules, each row's index
 * into them, the page index.  NULL with errno and a message when the
 * rows do not make a table (sections out of order or overlapping, too
 * many rows or rules, no memory).
 */
static struct spu_header *lay_out(struct builder *b, __u32 span,
				  size_t *bytes, char *err, size_t errlen)
{
	struct spu_header *h = NULL;
	struct spu_rule *rule;
	struct spu_row *row;
	__u32 *slot, *page, nrules = 0, np, p;
	__u16 *idx;
	size_t i;

	for (i = 1; i < b->nrows; i++) {
		if (b->row[i].start <= b->row[i - 1].start) {
			say(err, errlen, "executable sections overlap");
			errno = EINVAL;
			return NULL;
		}
	}
	if (b->nrows > SPU_MAX_ROWS) {
		say(err, errlen, "%zu rows: more than a table holds", b->nrows);
		errno = EFBIG;
		return NULL;
	}
	slot = calloc(RULE_HASH, sizeof(*slot));
	idx = malloc((b->nrows + 1) * sizeof(*idx));
	rule = malloc(SPU_MAX_RULES * sizeof(*rule));
	if (!slot || !idx || !rule)
		goto nomem;
	for (i = 0; i < b->nrows; i++) {
		__u32 key = rule_key(&b->row[i].r);
		__u32 k = (key * 0x9e3779b1u) >> 15;	/* 17 bits */

		while (slot[k] && rule_key(&rule[slot[k] - 1]) != key)
			k = (k + 1) % RULE_HASH;
		if (!slot[k]) {
			if (nrules == SPU_MAX_RULES) {
				say(err, errlen, "more than %u distinct rules",
				    SPU_MAX_RULES);
				errno = EFBIG;
				goto out;
			}
			rule[nrules] = b->row[i].r;
			slot[k] = ++nrules;
		}
		idx[i] = (__u16)(slot[k] - 1);
	}
	*bytes = spu_table_bytes(nrules, span, (__u32)b->nrows);
	h = calloc(1, *bytes);
	if (!h)
		goto nomem;
	h->magic = SPU_MAGIC;
	h->version = SPU_VERSION;
	h->machine = SPU_MACHINE_X86_64;
	h->nrows = (__u32)b->nrows;
	h->nrules = nrules;
	h->span = span;
	memcpy(h + 1, rule, nrules * sizeof(*rule));
	np = spu_npages(span);
	page = (__u32 *)((struct spu_rule *)(h + 1) + nrules);
	row = (struct spu_row *)(page + np + 1);
	for (i = 0, p = 0; p <= np; p++) {
		while (i < b->nrows && b->row[i].start >> SPU_PAGE_SHIFT < p)
			i++;
		page[p] = (__u32)i;
	}
	page[np] = (__u32)b->nrows;
	for (i = 0; i < b->nrows; i++) {
		row[i].low = (__u16)b->row[i].start;
		row[i].rule = idx[i];
	}
	goto out;
nomem:
	say(err, errlen, "out of memory for %zu rows", b->nrows);
	errno = ENOMEM;
out:
	free(slot);
	free(idx);
	free(rule);
	return h;
}

struct spu_header *spu_build(Elf *elf, Elf *debug, size_t *bytes,
			     struct spu_build_stats *st, char *err,
			     size_t errlen)
{
	struct builder b = { .st = st };
	Dwarf_CFI *eh, *dbg = NULL;
	Dwarf *dw = NULL;
	struct spu_header *h = NULL;
	const void *id;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	__u64 lo, hi;
	ssize_t idlen;

	memset(st, 0, sizeof(*st));
	if (!elf_is_x86_64(elf) || !text_span(elf, &lo, &hi) ||
	    hi - lo >= 0xffffffffull) {
		say(err, errlen, "not an x86-64 ELF module with code");
		errno = EINVAL;
		return NULL;
	}
	eh = dwarf_getcfi_elf(elf);
	if (debug) {
		dw = dwarf_begin_elf(debug, DWARF_C_READ, NULL);
		dbg = dw ? dwarf_getcfi(dw) : NULL;
		st->debug_frame = dbg != NULL;
	}
	b.base = lo;
	while ((scn = elf_nextscn(elf, scn)) && !b.failed) {
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) ||
		    !(sh.sh_flags & SHF_ALLOC) || !sh.sh_size)
			continue;
		/* A section after a gap starts on its own rows. */
		emit(&b, sh.sh_addr, &no_info);
		build_range(&b, eh, dbg, sh.sh_addr, sh.sh_addr + sh.sh_size);
		/* Nor does what lies between it and the next. */
		emit(&b, sh.sh_addr + sh.sh_size, &no_info);
		st->text_bytes += sh.sh_size;
	}
	/* .eh_frame's CFI is the caller's to end; .debug_frame's is dw's. */
	if (eh)
		dwarf_cfi_end(eh);
	if (dw)
		dwarf_end(dw);
	/* The no-information row at the end of the last section. */
	if (b.nrows && b.row[b.nrows - 1].start >= hi - lo)
		b.nrows--;
	h = b.failed ? NULL : lay_out(&b, (__u32)(hi - lo), bytes, err, errlen);
	free(b.row);
	if (!h)
		return NULL;
	h->base = lo;
	idlen = dwelf_elf_gnu_build_id(elf, &id);
	if (idlen > 0 && idlen <= SPU_BUILD_ID_MAX) {
		h->build_id_len = (__u32)idlen;
		memcpy(h->build_id, id, (size_t)idlen);
	}
	st->rows = h->nrows;
	st->rules = h->nrules;
	return h;
}

/* The separate debug file of @elf by its build-id, or -1. */
static int open_debug_file(Elf *elf)
{
	static const char hex[] = "0123456789abcdef";
	char path[64 + 2 * SPU_BUILD_ID_MAX + 8], *p;
	const unsigned char *id;
	const void *v;
	ssize_t n, i;

	n = dwelf_elf_gnu_build_id(elf, &v);
	if (n < 2 || n > SPU_BUILD_ID_MAX)
		return -1;
	id = v;
	p = path + sprintf(path, "/usr/lib/debug/.build-id/%c%c/",
			   hex[id[0] >> 4], hex[id[0] & 15]);
	for (i = 1; i < n; i++) {
		*p++ = hex[id[i] >> 4];
		*p++ = hex[id[i] & 15];
	}
	strcpy(p, ".debug");
	return open(path, O_RDONLY | O_CLOEXEC);
}

struct spu_header *spu_build_file(const char *path, size_t *bytes,
				  struct spu_build_stats *st, char *err,
				  size_t errlen)
{
	struct spu_header *h = NULL;
	Elf *elf, *debug = NULL;
	int fd, dfd, saved;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		saved = errno;
		say(err, errlen, "%s: %s", path, strerror(saved));
		errno = saved;
		return NULL;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		say(err, errlen, "%s: not an ELF file", path);
		saved = EINVAL;
		goto out;
	}
	dfd = open_debug_file(elf);
	if (dfd >= 0)
		debug = elf_begin(dfd, ELF_C_READ_MMAP, NULL);
	h = spu_build(elf, debug, bytes, st, err, errlen);
	saved = errno;
	if (!h && err && errlen) {
		char msg[256];

		snprintf(msg, sizeof(msg), "%s", err);
		say(err, errlen, "%s: %s", path, msg);
	}
	if (debug)
		elf_end(debug);
	if (dfd >= 0)
		close(dfd);
out:
	if (elf)
		elf_end(elf);
	close(fd);
	errno = saved;
	return h;
}
