/*
 * Go's function table (internal.h): a Go program keeps its functions'
 * names, bounds and file:line tables in .gopclntab, which the runtime
 * reads for its own tracebacks, so stripping (-ldflags=-s -w) leaves it.
 * The layouts read here are Go's, from src/debug/gosym/pclntab.go and
 * src/runtime/symtab.go: a header (magic, two zero bytes, the pc quantum,
 * the pointer size), then per version
 *
 *   1.2-1.15 (0xfffffffb)  nfunc; functab of {pc, funcoff} uintptrs and an
 *                          end pc; a u32 offset of the file table; every
 *                          offset relative to the table's start
 *   1.16-1.17 (0xfffffffa) nfunc, nfiles, then offsets of the name table,
 *                          the compile units' file indexes (cutab), the
 *                          file names, the pc-value tables and functab
 *   1.18+ (0xfffffff0, 0xfffffff1 from 1.20: its _func holds one more
 *                          field, after those read here) the same with the
 *                          text start after nfiles; functab is u32 pairs
 *                          relative to that start
 *
 * and a _func per function: its entry (uintptr; a u32 offset from 1.18),
 * then u32 fields: the name offset, args, deferreturn, pcsp, pcfile,
 * pcln, npcdata, cuOffset (1.16+).
 *
 * The file is untrusted: every read is checked against the section's
 * length; a table that does not fit, or whose functions are not in
 * ascending order, is refused whole, and a string is only taken where a
 * NUL follows it inside the section.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "symbolize/internal.h"

static int rd(const struct prof_gopcln *t, uint64_t off, unsigned size, uint64_t *v)
{
	const unsigned char *p;
	uint64_t x = 0;

	if (off > t->len || t->len - off < size)
		return -1;
	p = t->p + off;
	for (unsigned i = 0; i < size; i++)
		x |= (uint64_t)p[t->big ? i : size - 1 - i] << (8 * (size - 1 - i));
	*v = x;
	return 0;
}

static int rd32(const struct prof_gopcln *t, uint64_t off, uint32_t *v)
{
	uint64_t x;

	if (rd(t, off, 4, &x) != 0)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

/* Header word k (after the 8 bytes of magic, quantum and pointer size). */
static int word(const struct prof_gopcln *t, unsigned k, uint64_t *v)
{
	return rd(t, 8 + (uint64_t)k * t->ptrsize, t->ptrsize, v);
}

/* Header word k as an offset into the section: -1 past its end. */
static int table(const struct prof_gopcln *t, unsigned k, uint64_t *off)
{
	return word(t, k, off) == 0 && *off < t->len ? 0 : -1;
}

/* The version (12, 116, 118, 120) a header's magic number names; 0 for none. */
static unsigned version_of(uint32_t magic)
{
	switch (magic) {
	case PROF_GOPCLN_MAGIC_12: return 12;
	case PROF_GOPCLN_MAGIC_116: return 116;
	case PROF_GOPCLN_MAGIC_118: return 118;
	case PROF_GOPCLN_MAGIC_120: return 120;
	default: return 0;
	}
}

int prof_gopcln_parse(struct prof_gopcln *t, const void *data, size_t len, uint64_t text)
{
	const unsigned char *p = data;
	const unsigned char *nul;
	uint32_t magic_le, magic_be, fileoff;
	uint64_t n, prev = 0, pc;

	memset(t, 0, sizeof(*t));
	if (len < 16 || p[4] || p[5] || (p[6] != 1 && p[6] != 2 && p[6] != 4) ||
	    (p[7] != 4 && p[7] != 8))
		return -1;
	t->p = p;
	t->len = len;
	magic_le = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	magic_be = (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;
	t->version = version_of(magic_le);
	if (!t->version) {
		t->version = version_of(magic_be);
		t->big = 1;
	}
	if (!t->version)
		return -1;
	t->quantum = p[6];
	t->ptrsize = p[7];
	t->fsz = t->version >= 118 ? 4 : t->ptrsize;
	if (word(t, 0, &t->nfunc) != 0)
		return -1;
	if (t->version == 12) {
		/* every table is in the one block: offsets from its start */
		t->functab = 8 + t->ptrsize;
		if (t->nfunc > (len - t->functab) / (2 * t->fsz))
			return -1;
		if (rd32(t, t->functab + (2 * t->nfunc + 1) * t->fsz, &fileoff) != 0 ||
		    rd32(t, fileoff, &t->nfiles) != 0)
			return -1;
		t->filetab = fileoff;
	} else {
		unsigned k = t->version >= 118 ? 3 : 2;	/* 1.18 put the text start at word 2 */
		uint64_t nfiles;

		if (word(t, 1, &nfiles) != 0 || table(t, k, &t->names) != 0 ||
		    table(t, k + 1, &t->cutab) != 0 || table(t, k + 2, &t->filetab) != 0 ||
		    table(t, k + 3, &t->pctab) != 0 || table(t, k + 4, &t->funcdata) != 0)
			return -1;
		t->nfiles = nfiles > UINT32_MAX ? UINT32_MAX : (uint32_t)nfiles;
		t->functab = t->funcdata;
		if (t->nfunc > (len - t->functab) / (2 * t->fsz) || (t->nfunc + 1) * 2 * t->fsz >
		    len - t->functab)
			return -1;
		if (t->version >= 118) {
			uint64_t hdr;

			/*
			 * The linker's text start (runtime.text); a position-independent
			 * program can hold 0 there, filled by a relocation: then the caller's.
			 */
			if (word(t, 2, &hdr) != 0)
				return -1;
			t->text = hdr ? hdr : text;
		}
	}
	if (!t->nfunc)
		return -1;
	/* The functions' entries ascend, the end pc after the last. */
	for (uint64_t i = 0; i <= t->nfunc; i++) {
		if (rd(t, t->functab + 2 * i * t->fsz, t->fsz, &n) != 0)
			return -1;
		pc = n + t->text;
		if (i && pc < prev)
			return -1;
		prev = pc;
	}
	/* Every string read is taken only before the section's last NUL. */
	nul = memrchr(p, 0, len);
	t->last_nul = nul ? (size_t)(nul - p) : 0;
	return 0;
}

/* The C string at off, or NULL where no NUL follows it in the section. */
static const char *str_at(const struct prof_gopcln *t, uint64_t off)
{
	return off < t->last_nul ? (const char *)t->p + off : NULL;
}

/* The offset of function i's _func: -1 when it lies outside the section. */
static int func_off(const struct prof_gopcln *t, uint64_t i, uint64_t *off)
{
	uint64_t fo;

	if (i >= t->nfunc || rd(t, t->functab + (2 * i + 1) * t->fsz, t->fsz, &fo) != 0 ||
	    fo > t->len - t->funcdata)
		return -1;
	*off = t->funcdata + fo;
	return 0;
}

/* Field n (1: nameoff, 5: pcfile, 6: pcln, 8: cuOffset) of the _func at off. */
static int field(const struct prof_gopcln *t, uint64_t off, unsigned n, uint32_t *v)
{
	return rd32(t, off + (t->version >= 118 ? 4 : t->ptrsize) + (uint64_t)(n - 1) * 4, v);
}

static uint64_t entry_pc(const struct prof_gopcln *t, uint64_t i)
{
	uint64_t n = 0;

	rd(t, t->functab + 2 * i * t->fsz, t->fsz, &n);	/* checked by prof_gopcln_parse() */
	return n + t->text;
}

int prof_gopcln_func(const struct prof_gopcln *t, uint64_t i, uint64_t *entry, uint64_t *end,
		     const char **name)
{
	uint64_t off;
	uint32_t nameoff;

	if (func_off(t, i, &off) != 0 || field(t, off, 1, &nameoff) != 0)
		return -1;
	*name = str_at(t, t->names + nameoff);
	if (!*name || !**name)
		return -1;
	*entry = entry_pc(t, i);
	*end = entry_pc(t, i + 1);
	return 0;
}

/* The index of the function holding pc: -1 when none. */
static int find(const struct prof_gopcln *t, uint64_t pc, uint64_t *idx)
{
	uint64_t lo = 0, hi = t->nfunc;

	if (pc < entry_pc(t, 0) || pc >= entry_pc(t, t->nfunc))
		return -1;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (entry_pc(t, mid) <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	*idx = lo - 1;
	return 0;
}

/* A varint of the pc-value table at *off: -1 past the section's end or over 32 bits. */
static int varint(const struct prof_gopcln *t, uint64_t *off, uint32_t *v)
{
	uint32_t x = 0;

	for (unsigned shift = 0; shift < 35; shift += 7) {
		unsigned char b;

		if (*off >= t->len)
			return -1;
		b = t->p[(*off)++];
		x |= (uint32_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

/*
 * The value of the pc-value table at tab (an offset in the pc tables)
 * for pc of the function starting at entry: pairs of a zig-zag value
 * delta and a pc delta in quanta, the value starting at -1, ended by a
 * zero value delta. 0, or -1 when the table ends first or is broken.
 */
static int pcvalue(const struct prof_gopcln *t, uint32_t tab, uint64_t entry, uint64_t pc,
		   int32_t *val)
{
	uint64_t off = t->pctab + tab, at = entry;
	uint32_t v = UINT32_MAX;	/* -1; unsigned: a broken table's deltas wrap as Go's int32 do */

	if (!tab)
		return -1;
	/* each step takes two bytes at least: the loop ends with the section */
	for (int first = 1;; first = 0) {
		uint32_t uv, pcd;

		if (varint(t, &off, &uv) != 0 || (uv == 0 && !first) || varint(t, &off, &pcd) != 0)
			return -1;
		v += (uv & 1) ? ~(uv >> 1) : uv >> 1;
		at += (uint64_t)pcd * t->quantum;
		if (pc < at) {
			*val = (int32_t)v;
			return 0;
		}
	}
}

int prof_gopcln_file_line(const struct prof_gopcln *t, uint64_t pc, const char **file,
			  unsigned *line)
{
	uint64_t i, off, entry;
	uint32_t pcfile, pcln, cu, foff;
	int32_t fno, ln;

	if (find(t, pc, &i) != 0 || func_off(t, i, &off) != 0 || field(t, off, 5, &pcfile) != 0 ||
	    field(t, off, 6, &pcln) != 0)
		return -1;
	entry = entry_pc(t, i);
	if (pcvalue(t, pcfile, entry, pc, &fno) != 0 || pcvalue(t, pcln, entry, pc, &ln) != 0 ||
	    ln <= 0)
		return -1;
	if (t->version == 12) {
		/* file numbers index a table of offsets; 0 is no file */
		if (fno <= 0 || (uint32_t)fno >= t->nfiles ||
		    rd32(t, t->filetab + 4 * (uint64_t)fno, &foff) != 0)
			return -1;
		*file = str_at(t, foff);
	} else {
		/* a function's file numbers index its compile unit's run of cutab */
		if (fno < 0 || field(t, off, 8, &cu) != 0 || cu == UINT32_MAX ||
		    rd32(t, t->cutab + 4 * ((uint64_t)cu + (uint32_t)fno), &foff) != 0 ||
		    foff == UINT32_MAX)
			return -1;
		*file = str_at(t, t->filetab + foff);
	}
	if (!*file || !**file)
		return -1;
	*line = (unsigned)ln;
	return 0;
}

/* ---- the functions of an ELF file ---- */

struct named {
	const char *name;
	size_t sym;	/* index in o->syms */
};

static int named_cmp(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->sym > y->sym) - (x->sym < y->sym);
}

/* Whether a file name from the table ends in ".s": an assembly function's. */
static int is_asm(const char *file)
{
	size_t n = strlen(file);

	return n > 2 && strcmp(file + n - 2, ".s") == 0;
}

/*
 * An assembly function called from Go (or a Go function called from
 * assembly) has two entries of one name in the table: the function and
 * the linker's ABI wrapper between Go's register convention
 * (ABIInternal) and the assembler's stack one (ABI0), whose file is
 * "<autogenerated>". Go's .symtab calls the ABI0 one "NAME.abi0": the
 * assembly function when the other is the wrapper, else the wrapper.
 * The same spelling here keeps a stripped program's profile comparable
 * with its unstripped build's, and the two functions apart.
 */
static void name_abi0(struct prof_symbolizer *s, struct elfobj *o, size_t first)
{
	size_t n = o->nsyms - first, k = 0;
	struct named *v;

	if (n < 2)
		return;
	v = xmalloc(n * sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		v[i].name = o->syms[first + i].name;
		v[i].sym = first + i;
	}
	qsort(v, n, sizeof(*v), named_cmp);
	for (size_t i = 0; i + 1 < n; i = k) {
		const char *f[2];
		unsigned line;
		int wrapper;
		struct sym *abi0;
		char buf[4096];

		for (k = i + 1; k < n && strcmp(v[k].name, v[i].name) == 0; k++)
			;
		if (k - i != 2)
			continue;
		for (int j = 0; j < 2; j++)
			if (prof_gopcln_file_line(o->go, o->syms[v[i + j].sym].addr, &f[j], &line) != 0)
				f[j] = "";
		wrapper = strcmp(f[0], "<autogenerated>") == 0 ? 0 :
			  strcmp(f[1], "<autogenerated>") == 0 ? 1 : -1;
		if (wrapper < 0 || strcmp(f[!wrapper], "<autogenerated>") == 0)
			continue;
		abi0 = &o->syms[v[i + (is_asm(f[!wrapper]) ? !wrapper : wrapper)].sym];
		snprintf(buf, sizeof(buf), "%s.abi0", abi0->name);
		abi0->name = prof_sym_cstr(s, buf);
	}
	free(v);
}

void prof_sym_go_syms(struct prof_symbolizer *s, struct elfobj *o, const void *data, size_t len,
		      uint64_t text, size_t *cap)
{
	struct prof_gopcln t;
	size_t first = o->nsyms;

	if (prof_gopcln_parse(&t, data, len, text) != 0)
		return;
	for (uint64_t i = 0; i < t.nfunc; i++) {
		uint64_t entry, end;
		const char *name;

		if (prof_gopcln_func(&t, i, &entry, &end, &name) != 0 || end == entry)
			continue;
		PROF_GROW(o->syms, o->nsyms + 1, *cap);
		memset(&o->syms[o->nsyms], 0, sizeof(o->syms[o->nsyms]));
		o->syms[o->nsyms].addr = entry;
		o->syms[o->nsyms].size = end - entry;
		o->syms[o->nsyms].name = name;
		o->syms[o->nsyms].go = 1;
		o->nsyms++;
	}
	o->go = xmalloc(sizeof(*o->go));
	*o->go = t;
	name_abi0(s, o, first);
}
