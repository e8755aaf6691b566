/*
 * Unit tests of gopclntab.c on Go function tables built here, one per
 * header version Go has written (1.2, 1.16, 1.18, 1.20), laid out as
 * Go's linker lays them (src/debug/gosym/pclntab.go reads them so):
 * names, bounds and file:line of three functions; then the same tables
 * cut short at every length and corrupted, which must be refused or
 * read within their bytes (the sanitizer build sees any overread).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbolize/internal.h"
#include "../unit.h"

#define TEXT 0x401000u

struct tb {
	unsigned char d[4096];
	size_t n;
	int big;
};

static void put(struct tb *b, size_t at, uint64_t v, unsigned size)
{
	for (unsigned i = 0; i < size; i++)
		b->d[at + i] = (unsigned char)(v >> (8 * (b->big ? size - 1 - i : i)));
	if (at + size > b->n)
		b->n = at + size;
}

static size_t add(struct tb *b, uint64_t v, unsigned size)
{
	size_t at = b->n;

	put(b, at, v, size);
	return at;
}

static size_t add_str(struct tb *b, const char *s)
{
	size_t at = b->n;

	memcpy(b->d + at, s, strlen(s) + 1);
	b->n += strlen(s) + 1;
	return at;
}

static void add_varint(struct tb *b, uint32_t v)
{
	while (v >= 0x80) {
		b->d[b->n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	b->d[b->n++] = (unsigned char)v;
}

/* A pc-value table: (value, bytes) runs from the entry, as Go's linker encodes them. */
static size_t add_pcvalue(struct tb *b, size_t base, const int32_t *val, const uint32_t *len,
			  int runs, unsigned quantum)
{
	size_t at = b->n - base;
	int32_t prev = -1;

	for (int i = 0; i < runs; i++) {
		int32_t d = val[i] - prev;

		add_varint(b, d < 0 ? ((uint32_t)~d << 1) | 1 : (uint32_t)d << 1);
		add_varint(b, len[i] / quantum);
		prev = val[i];
	}
	add_varint(b, 0);
	return at;
}

/* The three functions of every table: entry offsets from TEXT, ends, names. */
static const uint32_t fn_off[] = { 0x0, 0x20, 0x60, 0x70 };
static const char *const fn_name[] = { "main.main", "sort.(*IntSlice).Less",
				       "crypto/sha256.block" };

/*
 * Build the table of version (12, 116, 118, 120) into b: functions 0
 * and 1 in "/src/main.go" (function 0 on lines 10 then 12 from +0x10,
 * function 1 on line 20), function 2 in "/src/sha256block_amd64.s"
 * line 7. text_in_header: the 1.18+ header's text start (0: left to
 * the caller). Returns the offset of function 1's _func.
 */
static size_t build(struct tb *b, unsigned version, unsigned ptrsize, unsigned quantum, int big,
		    uint64_t text_in_header)
{
	uint32_t magic = version == 12 ? PROF_GOPCLN_MAGIC_12 : version == 116 ? PROF_GOPCLN_MAGIC_116 :
			 version == 118 ? PROF_GOPCLN_MAGIC_118 : PROF_GOPCLN_MAGIC_120;
	unsigned fsz = version >= 118 ? 4 : ptrsize, e0 = version >= 118 ? 4 : ptrsize;
	size_t words, names, cutab, filetab, pctab, functab, fn[3], nameoff[3], file0, file1;
	size_t pcfile[3], pcln[3], fileoff_slot = 0, nfield = version >= 116 ? 8 : 7;
	uint64_t base = version >= 118 ? 0 : TEXT;	/* what functab's pcs are relative to */

	memset(b, 0, sizeof(*b));
	b->big = big;
	add(b, magic, 4);
	add(b, 0, 1);
	add(b, 0, 1);
	add(b, quantum, 1);
	add(b, ptrsize, 1);
	words = b->n;
	if (version == 12) {
		/* nfunc, functab, end pc, file table offset: all from the table's start */
		add(b, 3, ptrsize);
		functab = b->n;
		for (int i = 0; i < 3; i++) {
			add(b, base + fn_off[i], fsz);
			add(b, 0, fsz);	/* funcoff, filled below */
		}
		add(b, base + fn_off[3], fsz);
		fileoff_slot = add(b, 0, 4);
		for (int i = 0; i < 3; i++) {
			fn[i] = b->n;
			put(b, functab + (2 * (size_t)i + 1) * fsz, fn[i], fsz);
			add(b, base + fn_off[i], e0);
			for (size_t k = 0; k < nfield + 1; k++)
				add(b, 0, 4);
		}
		for (int i = 0; i < 3; i++)
			nameoff[i] = add_str(b, fn_name[i]);
		file0 = add_str(b, "/src/main.go");
		file1 = add_str(b, "/src/sha256block_amd64.s");
		while (b->n % 4)
			b->n++;
		put(b, fileoff_slot, b->n, 4);
		add(b, 3, 4);	/* nfiles (with number 0, no file: this count), their offsets */
		add(b, file0, 4);
		add(b, file1, 4);
		pctab = 0;
		names = 0;
		cutab = 0;
	} else {
		unsigned nw = version >= 118 ? 8 : 7;

		for (unsigned k = 0; k < nw; k++)
			add(b, 0, ptrsize);
		put(b, words, 3, ptrsize);
		put(b, words + ptrsize, 2, ptrsize);
		if (version >= 118)
			put(b, words + 2 * ptrsize, text_in_header, ptrsize);
		words += (version >= 118 ? 3 : 2) * (size_t)ptrsize;
		names = b->n;
		for (int i = 0; i < 3; i++)
			nameoff[i] = add_str(b, fn_name[i]) - names;
		cutab = b->n;	/* one compile unit: the offsets of its files 0 and 1 */
		add(b, 0, 4);
		add(b, 0, 4);
		filetab = b->n;
		file0 = add_str(b, "/src/main.go") - filetab;
		file1 = add_str(b, "/src/sha256block_amd64.s") - filetab;
		put(b, cutab, file0, 4);
		put(b, cutab + 4, file1, 4);
		pctab = b->n;
		add(b, 0, 1);	/* offset 0 is "no table" */
		put(b, words, names, ptrsize);
		put(b, words + ptrsize, cutab, ptrsize);
		put(b, words + 2 * (size_t)ptrsize, filetab, ptrsize);
		put(b, words + 3 * (size_t)ptrsize, pctab, ptrsize);
	}
	{
		static const int32_t l0[] = { 10, 12 }, l1[] = { 20 }, l2[] = { 7 };
		static const uint32_t r0[] = { 0x10, 0x10 }, r1[] = { 0x40 }, r2[] = { 0x10 };
		int32_t f01 = version == 12 ? 1 : 0, f2 = version == 12 ? 2 : 1;
		uint32_t whole[] = { 0x20 };

		pcfile[0] = add_pcvalue(b, pctab, &f01, whole, 1, quantum);
		pcln[0] = add_pcvalue(b, pctab, l0, r0, 2, quantum);
		whole[0] = 0x40;
		pcfile[1] = add_pcvalue(b, pctab, &f01, whole, 1, quantum);
		pcln[1] = add_pcvalue(b, pctab, l1, r1, 1, quantum);
		whole[0] = 0x10;
		pcfile[2] = add_pcvalue(b, pctab, &f2, whole, 1, quantum);
		pcln[2] = add_pcvalue(b, pctab, l2, r2, 1, quantum);
	}
	if (version != 12) {
		while (b->n % 8)
			b->n++;
		functab = b->n;
		put(b, words + 4 * (size_t)ptrsize, functab, ptrsize);
		for (int i = 0; i < 3; i++) {
			add(b, base + fn_off[i], fsz);
			add(b, 0, fsz);
		}
		add(b, base + fn_off[3], fsz);
		for (int i = 0; i < 3; i++) {
			fn[i] = b->n;
			put(b, functab + (2 * (size_t)i + 1) * fsz, fn[i] - functab, fsz);
			add(b, base + fn_off[i], e0);
			for (size_t k = 0; k < nfield + 2; k++)
				add(b, 0, 4);
		}
	}
	for (int i = 0; i < 3; i++) {
		put(b, fn[i] + e0, nameoff[i], 4);
		put(b, fn[i] + e0 + 4 * 4, pcfile[i], 4);
		put(b, fn[i] + e0 + 5 * 4, pcln[i], 4);
		if (version != 12)
			put(b, fn[i] + e0 + 7 * 4, 0, 4);	/* cuOffset */
	}
	return fn[1];
}

/* Check t against the three functions: names, bounds, file:line. */
static void check_table(const struct prof_gopcln *t)
{
	uint64_t entry, end;
	const char *name, *file;
	unsigned line;

	CHECK(t->nfunc == 3);
	for (int i = 0; i < 3; i++) {
		CHECK(prof_gopcln_func(t, (uint64_t)i, &entry, &end, &name) == 0);
		CHECK(entry == TEXT + fn_off[i] && end == TEXT + fn_off[i + 1]);
		CHECK_STR(name, fn_name[i]);
	}
	CHECK(prof_gopcln_func(t, 3, &entry, &end, &name) == -1);
	CHECK(prof_gopcln_file_line(t, TEXT + 0x4, &file, &line) == 0);
	CHECK_STR(file, "/src/main.go");
	CHECK(line == 10);
	CHECK(prof_gopcln_file_line(t, TEXT + 0x1c, &file, &line) == 0 && line == 12);
	CHECK(prof_gopcln_file_line(t, TEXT + 0x5f, &file, &line) == 0 && line == 20);
	CHECK(prof_gopcln_file_line(t, TEXT + 0x60, &file, &line) == 0 && line == 7);
	CHECK_STR(file, "/src/sha256block_amd64.s");
	CHECK(prof_gopcln_file_line(t, TEXT + 0x70, &file, &line) == -1);	/* past the end */
	CHECK(prof_gopcln_file_line(t, TEXT - 1, &file, &line) == -1);
}

/* Read whatever a damaged table lets be read: never past its bytes. */
static void read_all(const void *data, size_t len)
{
	struct prof_gopcln t;
	uint64_t entry, end;
	const char *name, *file;
	unsigned line;

	if (prof_gopcln_parse(&t, data, len, TEXT) != 0)
		return;
	for (uint64_t i = 0; i < t.nfunc && i < 16; i++)
		if (prof_gopcln_func(&t, i, &entry, &end, &name) == 0) {
			CHECK(name >= (const char *)data && name < (const char *)data + len);
			CHECK(strlen(name) < len);
			prof_gopcln_file_line(&t, entry, &file, &line);
			prof_gopcln_file_line(&t, end - 1, &file, &line);
		}
}

int main(void)
{
	static const unsigned versions[] = { 12, 116, 118, 120 };
	struct tb b;
	struct prof_gopcln t;

	for (int v = 0; v < 4; v++) {
		char name[96];

		snprintf(name, sizeof(name), "Go %u.%u table: names, bounds, file:line",
			 versions[v] / (versions[v] >= 100 ? 100 : 10),
			 versions[v] % (versions[v] >= 100 ? 100 : 10));
		TEST(name) {
			build(&b, versions[v], 8, 1, 0, TEXT);
			CHECK(prof_gopcln_parse(&t, b.d, b.n, 0) == 0);
			CHECK(t.version == versions[v]);
			check_table(&t);
		}
	}
	TEST("Go 1.2 table of a 32-bit big-endian program (quantum 4)") {
		build(&b, 12, 4, 4, 1, 0);
		CHECK(prof_gopcln_parse(&t, b.d, b.n, 0) == 0);
		CHECK(t.big && t.ptrsize == 4 && t.quantum == 4);
		check_table(&t);
	}
	TEST("Go 1.18+ table whose header holds no text start: the caller's") {
		build(&b, 120, 8, 1, 0, 0);
		CHECK(prof_gopcln_parse(&t, b.d, b.n, TEXT) == 0);
		check_table(&t);
	}
	TEST("no table: other magic, bad quantum or pointer size, too short") {
		build(&b, 118, 8, 1, 0, TEXT);
		b.d[0] ^= 0x10;
		CHECK(prof_gopcln_parse(&t, b.d, b.n, 0) == -1);
		build(&b, 118, 8, 1, 0, TEXT);
		b.d[6] = 3;
		CHECK(prof_gopcln_parse(&t, b.d, b.n, 0) == -1);
		b.d[6] = 1;
		b.d[7] = 2;
		CHECK(prof_gopcln_parse(&t, b.d, b.n, 0) == -1);
		CHECK(prof_gopcln_parse(&t, b.d, 15, 0) == -1);
	}
	TEST("corrupt tables are refused or read within their bytes") {
		size_t f1;

		for (int v = 0; v < 4; v++) {
			/* entries out of order: refused */
			build(&b, versions[v], 8, 1, 0, TEXT);
			{
				size_t ft = versions[v] == 12 ? 16 : 0;

				if (versions[v] != 12) {
					uint64_t off = 0;

					for (unsigned k = 0; k < 8; k++)
						off |= (uint64_t)b.d[8 + (versions[v] >= 118 ? 7 : 6) * 8 + k] << (8 * k);
					ft = (size_t)off;
				}
				memcpy(b.d + ft + 2 * (versions[v] >= 118 ? 4 : 8),
				       b.d + ft + 6 * (versions[v] >= 118 ? 4 : 8), versions[v] >= 118 ? 4 : 8);
			}
			CHECK(prof_gopcln_parse(&t, b.d, b.n, TEXT) == -1);
			/* a function count past the bytes: refused */
			build(&b, versions[v], 8, 1, 0, TEXT);
			memset(b.d + 8, 0x7f, 8);
			CHECK(prof_gopcln_parse(&t, b.d, b.n, TEXT) == -1);
			/* name, pc tables and compile unit offsets far out: no name, no line */
			f1 = build(&b, versions[v], 8, 1, 0, TEXT);
			memset(b.d + f1 + (versions[v] >= 118 ? 4 : 8), 0xee, 4);
			memset(b.d + f1 + (versions[v] >= 118 ? 4 : 8) + 20, 0xee, 4);
			if (versions[v] != 12)
				memset(b.d + f1 + (versions[v] >= 118 ? 4 : 8) + 28, 0x7e, 4);
			CHECK(prof_gopcln_parse(&t, b.d, b.n, TEXT) == 0);
			{
				uint64_t entry, end;
				const char *name, *file;
				unsigned line;

				CHECK(prof_gopcln_func(&t, 1, &entry, &end, &name) == -1);
				CHECK(prof_gopcln_func(&t, 0, &entry, &end, &name) == 0);
				CHECK(prof_gopcln_file_line(&t, TEXT + 0x30, &file, &line) == -1);
			}
			/* every byte flipped in turn, every length cut short */
			build(&b, versions[v], 8, 1, 0, TEXT);
			for (size_t i = 0; i < b.n; i++) {
				unsigned char *c = malloc(b.n);

				memcpy(c, b.d, b.n);
				c[i] ^= 0xff;
				read_all(c, b.n);
				free(c);
			}
			for (size_t n = 0; n < b.n; n++) {
				unsigned char *c = malloc(n ? n : 1);

				memcpy(c, b.d, n);	/* its own buffer: the sanitizer sees overreads */
				read_all(c, n);
				free(c);
			}
			/* a section with no NUL at all: no name is taken */
			build(&b, versions[v], 8, 1, 0, TEXT);
			for (size_t i = 0; i < b.n; i++)
				if (!b.d[i])
					b.d[i] = 'x';
			read_all(b.d, b.n);
		}
	}
	return UNIT_RESULT();
}
