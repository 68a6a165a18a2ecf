// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the analyzer's ELF and DWARF readers: each input
 * is an ELF file (the seeds are the corpus's -pg programs and library),
 * written to a memfd and loaded as the analyzer loads a program:
 *
 *   - as a library in a multi-module profile: an extension file naming
 *     the corpus program (FUZZ_EXE) as module 0 and the input as module
 *     1 goes through gmon_load_files(), the multi-module reader, before
 *     core_init() reads both; or as the executable of a GNU gmon.out;
 *   - then its function symbols (or with -l its line symbols), a profile
 *     with a histogram over its .text and arcs between its symbols,
 *     the histogram's assignment, the call graph (with -c, the scan of
 *     its code for calls), and the source file and line of every symbol
 *     from its DWARF.
 *
 * The input's last byte picks the way: bit 0 library (else executable),
 * bit 1 -l, bit 2 -c.  A file the analyzer refuses must come back as
 * the profile's error, which must name it; a crash, an exit (fatal()),
 * a sanitizer report, a leak or a hang is a finding.  Each input is read
 * into a fresh profile, which profile_free() frees after it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <sprofil/gmon_codec.h>

#include "pipeline/pipeline.h"

#ifndef FUZZ_EXE
#define FUZZ_EXE "build/tests/gprof/recur"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *exe;
static int elf_fd = -1, prof_fd = -1;
static char elf_path[64], prof_path[64];
/* Each input's options: -l and -c as its last byte picks them. */
static struct gprof_options opt;
/* Each input's profile, freed after it. */
static struct profile prof;

/* The file at fault must be named in the error: a module's, the input's. */
static void check_named(const struct profile *p)
{
	if (!strstr(p->error, "/proc/self/fd/") && !strstr(p->error, exe)) {
		fprintf(stderr, "an error without a file name: %s\n", p->error);
		abort();
	}
}

static int memfd(const char *name, char *path, size_t len)
{
	int fd = memfd_create(name, MFD_CLOEXEC);

	if (fd < 0) {
		perror("memfd_create");
		exit(2);
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

static void fill(int fd, const void *buf, size_t len)
{
	if (ftruncate(fd, 0) || ftruncate(fd, len) ||
	    pwrite(fd, buf, len, 0) != (ssize_t)len) {
		perror("memfd");
		exit(2);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	exe = getenv("FUZZ_ELF_EXE");
	if (!exe)
		exe = FUZZ_EXE;
	elf_fd = memfd("fuzz-elf", elf_path, sizeof(elf_path));
	prof_fd = memfd("fuzz-profile", prof_path, sizeof(prof_path));
	profile_init(&prof);
	/* The reports are not printed; stderr keeps the warnings. */
	unsetenv("DEBUGINFOD_URLS");
	return 0;
}

/* ---- profiles written for the loaded symbols ---- */

struct buf {
	unsigned char b[8192];
	size_t n;
};

/* @v in @n bytes, big-endian when @big (GNU files), else host order. */
static void put(struct buf *o, uint64_t v, unsigned int n, bool big)
{
	unsigned int i;

	for (i = 0; i < n && o->n < sizeof(o->b); i++)
		o->b[o->n++] = v >> (8 * (big ? n - 1 - i : i));
}

static void put_bytes(struct buf *o, const void *p, size_t n)
{
	if (n > sizeof(o->b) - o->n)
		n = sizeof(o->b) - o->n;
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

static void ext_header(struct buf *o)
{
	unsigned char b[GMF_HEADER_SIZE];

	gmf_header_put(b, GMF_EXT_VERSION_1);
	put_bytes(o, b, sizeof(b));
}

static void ext_record(struct buf *o, uint32_t tag, uint64_t size)
{
	unsigned char b[GMF_EXT_RECORD_HEAD];

	gmf_record_head_put(b, tag, size);
	put_bytes(o, b, sizeof(b));
}

static void ext_module(struct buf *o, uint32_t index, bool is_main,
		       const char *path)
{
	const struct gmf_module m = {
		.index = index,
		.flags = is_main ? GMF_MODULE_MAIN : 0,
		.bias = is_main ? 0x555555554000 : 0x7f0000000000,
		.name_len = strlen(path),
	};
	unsigned char b[GMF_MODULE_FIXED];

	ext_record(o, GMF_TAG_MODULE, gmf_module_size(&m));
	gmf_module_put(b, &m);
	put_bytes(o, b, sizeof(b));
	put_bytes(o, path, m.name_len);
}

/* Some symbols' addresses, spread over the table (0 when none). */
static uint64_t pick(size_t k)
{
	return prof.symtab.len ?
	       prof.symtab.base[(k * 7 + 3) % prof.symtab.len].addr : 0;
}

/* Module 1's histogram over its .text and arcs into and inside it. */
static void ext_profile(struct buf *o)
{
	const struct module *mod = &prof.modules[1];
	uint64_t lo = ADDR_LINK(mod->text_low), hi = ADDR_LINK(mod->text_high);
	unsigned char b[GMF_HIST_FIXED];
	uint64_t bins = 32, i;

	ext_header(o);
	ext_module(o, 0, true, exe);
	ext_module(o, 1, false, elf_path);
	if (mod->loaded && hi > lo) {
		const struct gmf_hist_head h = {
			.module = 1,
			.bucket_size = 4,
			.scale = 0x10000,
			.period_ns = 10000000,
			.low_pc = lo,
			.high_pc = hi,
			.nbuckets = bins,
		};

		ext_record(o, GMF_TAG_HIST, GMF_HIST_FIXED + 4 * bins);
		gmf_hist_head_put(b, &h);
		put_bytes(o, b, GMF_HIST_FIXED);
		for (i = 0; i < bins; i++)
			put(o, i * 3 + 1, 4, false);
	}
	ext_record(o, GMF_TAG_ARCS, gmf_arcs_size(16));
	gmf_arcs_head_put(b, 16);
	put_bytes(o, b, GMF_ARCS_FIXED);
	for (i = 0; i < 16; i++) {
		uint64_t from = pick(i), self = pick(i * 5 + 1);
		const struct gmf_arc a = {
			.from_module = ADDR_MODULE(from) == 1,
			.self_module = ADDR_MODULE(self) == 1,
			.from = ADDR_LINK(from) + 1,
			.self = ADDR_LINK(self),
			.count = i + 1,
		};

		gmf_arc_put(b, &a);
		put_bytes(o, b, GMF_ARC_SIZE);
	}
}

/* A GNU gmon.out for the input as the executable. */
static void gnu_profile(struct buf *o)
{
	const struct module *mod = &prof.modules[0];
	unsigned int ps = prof.gmon_ptr_size, bins = 64, i;
	bool big = prof.gmon_big_endian;

	put_bytes(o, "gmon", 4);
	put(o, 1, 4, big);
	put(o, 0, 8, false);
	put(o, 0, 4, false);
	if (mod->text_high > mod->text_low) {
		put(o, 0, 1, false);
		put(o, mod->text_low, ps, big);
		put(o, mod->text_high, ps, big);
		put(o, bins, 4, big);
		put(o, 100, 4, big);
		put_bytes(o, "seconds\0\0\0\0\0\0\0\0s", 16);
		for (i = 0; i < bins; i++)
			put(o, i % 5, 2, big);
	}
	for (i = 0; i < 16; i++) {
		put(o, 1, 1, false);
		put(o, pick(i) + 1, ps, big);
		put(o, pick(i * 5 + 1), ps, big);
		put(o, i + 1, 4, big);
	}
}

/* What main() does with the symbols, without printing the reports. */
static void analyze(struct profile *p, const struct gprof_options *opt,
		    bool as_library)
{
	static struct buf o;
	char err[512];
	struct sym **cg;
	size_t i;

	o.n = 0;
	if (as_library)
		ext_profile(&o);
	else
		gnu_profile(&o);
	if (gmon_parse(p, opt, o.b, o.n, "fuzz.out", err, sizeof(err)))
		return;
	if (profile_tally(p, opt))
		return;
	if (!as_library && gmon_check_match(p, opt, elf_path)) {
		check_named(p);
		return;
	}
	if (p->gmon_input & INPUT_HISTOGRAM)
		hist_assign_samples(p);
	cg = cg_assemble(p, opt);
	free(cg);
	for (i = 0; i < p->symtab.len; i++)
		sym_source(p, opt, &p->symtab.base[i]);
}

/* What profile_read() does, with the input as a library or the program. */
static int load(struct profile *p, struct gprof_options *opt,
		bool as_library)
{
	static struct buf o;
	const char *name;

	if (as_library) {
		/* The module records, read before the symbols. */
		o.n = 0;
		ext_header(&o);
		ext_module(&o, 0, true, exe);
		ext_module(&o, 1, false, elf_path);
		fill(prof_fd, o.b, o.n);
		name = prof_path;
		if (gmon_load_files(p, &name, 1))
			return -1;
	}
	opt->a_out_name = as_library ? exe : elf_path;
	if (core_init(p, opt, opt->a_out_name))
		return -1;
	if (opt->ignore_direct_calls)
		core_get_text_space(p, opt);
	if (opt->line_granularity)
		core_create_line_syms(p, opt);
	else if (core_create_function_syms(p, opt))
		return -1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int how = size ? data[size - 1] : 0;
	bool as_library = how & 1;

	fill(elf_fd, data, size);
	gprof_options_init(&opt);
	opt.line_granularity = how & 2;
	opt.ignore_direct_calls = how & 4;
	if (load(&prof, &opt, as_library))
		check_named(&prof);
	else
		analyze(&prof, &opt, as_library);
	profile_free(&prof);
	return 0;
}
