// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkbadelf: writes a copy of a 64-bit little-endian ELF file (a corpus
 * program or library) with its .symtab section header corrupted, for
 * the bad-input tests of the analyzer (run-badinput).
 *
 *   mkbadelf wrap IN OUT EXE NMODULES
 *	.symtab claims one-byte entries, as many as make the analyzer's
 *	old symbol-array size, (NMODULES + symbols of EXE + entries of
 *	OUT) * sizeof(struct sym), wrap around 2^64 to 128 bytes when OUT
 *	is a library of EXE's NMODULES-module profile (issue 10).
 *   mkbadelf huge IN OUT
 *	.symtab of the right entry size, but 2^40 entries: far past the
 *	end of the file.
 *   mkbadelf entsize IN OUT
 *	.symtab entries of 7 bytes, its size unchanged.
 *   mkbadelf link IN OUT
 *	.symtab's string table is section 60000, which does not exist.
 *
 * Exits 1 with a message when IN is not such an ELF file.
 */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

static unsigned char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t cap = 0, n;

	if (!f) {
		perror(path);
		exit(1);
	}
	*len = 0;
	do {
		if (*len == cap) {
			cap = cap ? 2 * cap : 65536;
			buf = realloc(buf, cap);
			if (!buf) {
				perror("realloc");
				exit(1);
			}
		}
		n = fread(buf + *len, 1, cap - *len, f);
		*len += n;
	} while (n);
	fclose(f);
	return buf;
}

/* The .symtab section header of @buf, or exit(1). */
static Elf64_Shdr *symtab_header(unsigned char *buf, size_t len,
				 const char *path)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	unsigned int i;

	if (len < sizeof(*eh) || memcmp(buf, ELFMAG, SELFMAG) ||
	    buf[EI_CLASS] != ELFCLASS64 || buf[EI_DATA] != ELFDATA2LSB ||
	    eh->e_shoff > len || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    (len - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum) {
		fprintf(stderr, "mkbadelf: %s: not a 64-bit little-endian ELF file\n",
			path);
		exit(1);
	}
	for (i = 0; i < eh->e_shnum; i++) {
		Elf64_Shdr *sh = (Elf64_Shdr *)(buf + eh->e_shoff) + i;

		if (sh->sh_type == SHT_SYMTAB)
			return sh;
	}
	fprintf(stderr, "mkbadelf: %s: has no .symtab\n", path);
	exit(1);
}

/* The inverse of odd @a modulo 2^64 (Newton's iteration). */
static uint64_t inverse(uint64_t a)
{
	uint64_t x = a;
	int i;

	for (i = 0; i < 6; i++)
		x *= 2 - a * x;
	return x;
}

/*
 * The entry count that makes the old computation wrap: with S =
 * sizeof(struct sym) = 2^k * odd, the array count t with t * S == 128
 * (mod 2^64) is 2^(7-k) / odd; the library's share is t minus what the
 * others add.
 */
static uint64_t wrapping_count(uint64_t exe_syms, uint64_t nmodules)
{
	uint64_t s = sizeof(struct sym), odd = s;
	unsigned int k = 0;

	while (!(odd & 1)) {
		odd >>= 1;
		k++;
	}
	if (k > 7) {
		fprintf(stderr, "mkbadelf: sizeof(struct sym) = %llu has no multiple of 128 bytes below 2^64\n",
			(unsigned long long)s);
		exit(1);
	}
	return (UINT64_C(1) << (7 - k)) * inverse(odd) - exe_syms - nmodules;
}

int main(int argc, char **argv)
{
	unsigned char *buf;
	Elf64_Shdr *sh;
	size_t len;
	FILE *f;

	if (argc < 4) {
		fprintf(stderr, "usage: mkbadelf wrap|huge|entsize|link IN OUT [EXE NMODULES]\n");
		return 2;
	}
	buf = read_file(argv[2], &len);
	sh = symtab_header(buf, len, argv[2]);
	if (!strcmp(argv[1], "wrap") && argc == 6) {
		size_t elen;
		unsigned char *exe = read_file(argv[4], &elen);
		Elf64_Shdr *esh = symtab_header(exe, elen, argv[4]);

		sh->sh_entsize = 1;
		sh->sh_size = wrapping_count(esh->sh_size / esh->sh_entsize,
					     strtoull(argv[5], NULL, 0));
		free(exe);
	} else if (!strcmp(argv[1], "huge")) {
		sh->sh_size = (UINT64_C(1) << 40) * sizeof(Elf64_Sym);
	} else if (!strcmp(argv[1], "entsize")) {
		sh->sh_entsize = 7;
	} else if (!strcmp(argv[1], "link")) {
		sh->sh_link = 60000;
	} else {
		fprintf(stderr, "mkbadelf: unknown corruption %s\n", argv[1]);
		return 2;
	}
	f = fopen(argv[3], "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		perror(argv[3]);
		return 1;
	}
	free(buf);
	return 0;
}
