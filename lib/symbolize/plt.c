/*
 * PLT stubs (internal.h): the stubs a program calls shared functions
 * through have no symbols, stripped or not, so each is named
 * "TARGET@plt" after the relocation of the GOT slot it jumps through,
 * as objdump and perf name them. Without this, a stub's samples went to
 * whatever symbol precedes .plt (a size-0 _init stretched over it) or,
 * in a stripped library, to the one FDE .eh_frame gives the whole
 * section ("libz.so.1!fn_3020").
 *
 * x86-64 only: every stub there, whatever the linker (GNU ld, gold, lld,
 * mold) and section (.plt, .plt.sec with IBT, .plt.got, .plt.bnd), holds
 * one "jmp *DISP(%rip)" (ff 25, maybe after a bnd prefix or endbr64)
 * whose slot DISP names; the slot's relocation (JUMP_SLOT in .rela.plt,
 * GLOB_DAT in .rela.dyn for .plt.got) names the target. An IRELATIVE
 * slot (an ifunc called inside its own library) has no symbol: it is
 * named after the function at its resolver's address, as objdump's
 * "*ABS*+0x...@plt" would be if it looked. The header stub of a lazy
 * .plt (PLT0, jumping through the slot the loader fills) is named ".plt".
 */
#include <elf.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "symbolize/internal.h"

#ifndef R_X86_64_IRELATIVE
#define R_X86_64_IRELATIVE 37
#endif

/* A GOT slot and what its relocation names; sorted by slot for bisection. */
struct slot {
	uint64_t got;
	const char *name;	/* the target's raw (mangled) name; NULL: by addend */
	uint64_t addend;
};

_Static_assert(offsetof(struct slot, got) == 0, "prof_sym_bisect() keys on the first field");

static int slot_cmp(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	return x->got < y->got ? -1 : x->got > y->got;
}

/* The JUMP_SLOT, GLOB_DAT and IRELATIVE relocations of e, sorted by slot. */
static struct slot *read_slots(Elf *e, size_t *n)
{
	struct slot *v = NULL;
	size_t cap = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh, lsh;

	*n = 0;
	while ((scn = elf_nextscn(e, scn))) {
		Elf_Scn *symscn;
		Elf_Data *d, *sd;
		size_t nr;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
			continue;
		symscn = elf_getscn(e, sh.sh_link);
		if (!symscn || !gelf_getshdr(symscn, &lsh) || !(sd = elf_getdata(symscn, NULL)) ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		nr = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < nr; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			unsigned type;
			const char *name = NULL;

			if (!gelf_getrela(d, (int)i, &r))
				continue;
			type = (unsigned)GELF_R_TYPE(r.r_info);
			if (type == R_X86_64_JUMP_SLOT || type == R_X86_64_GLOB_DAT) {
				if (!gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &sym) ||
				    !(name = elf_strptr(e, lsh.sh_link, sym.st_name)) || !*name)
					continue;
			} else if (type != R_X86_64_IRELATIVE) {
				continue;
			}
			PROF_GROW(v, *n + 1, cap);
			v[*n].got = r.r_offset;
			v[*n].name = name;
			v[*n].addend = (uint64_t)r.r_addend;
			(*n)++;
		}
	}
	if (*n > 1)
		qsort(v, *n, sizeof(*v), slot_cmp);
	return v;
}

static const struct slot *slot_find(const struct slot *v, size_t n, uint64_t got)
{
	size_t i = prof_sym_bisect(v, n, sizeof(*v), got);

	return i && v[i - 1].got == got ? &v[i - 1] : NULL;
}

static int is_plt_section(const char *name)
{
	return strcmp(name, ".plt") == 0 || strcmp(name, ".plt.sec") == 0 ||
	       strcmp(name, ".plt.got") == 0 || strcmp(name, ".plt.bnd") == 0;
}

static int32_t rd32(const unsigned char *p)
{
	int32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* The target's name for a stub's slot: "NAME@plt", interned; NULL when it has none. */
static const char *stub_name(struct prof_symbolizer *s, const struct elfobj *o, size_t nsorted,
			     const struct slot *sl)
{
	char buf[1024];
	const char *target = sl->name;

	if (!target) {
		const struct sym *f = prof_sym_find(o->syms, nsorted, sl->addend);

		if (!f || f->addr != sl->addend)
			return NULL;
		target = f->name;
	}
	/* Demangled before "@plt" is added: the suffix would make it unreadable to the demangler. */
	snprintf(buf, sizeof(buf), "%s@plt", prof_sym_demangle(s, target));
	return prof_sym_cstr(s, buf);
}

static void add_sym(struct elfobj *o, size_t *cap, uint64_t addr, uint64_t size, const char *name)
{
	PROF_GROW(o->syms, o->nsyms + 1, *cap);
	o->syms[o->nsyms].addr = addr;
	o->syms[o->nsyms].size = size;
	o->syms[o->nsyms].end = 0;
	o->syms[o->nsyms].name = name;
	o->syms[o->nsyms].rank = 3;	/* below any real symbol at the same address */
	o->syms[o->nsyms].mini = 0;
	o->syms[o->nsyms].debug = 0;
	o->syms[o->nsyms].go = 0;
	o->nsyms++;
}

/* The stubs of one PLT section: one symbol per entry that jumps through a relocated slot. */
static void section_stubs(struct prof_symbolizer *s, struct elfobj *o, size_t *cap,
			  size_t nsorted, const GElf_Shdr *sh, const unsigned char *b,
			  const struct slot *v, size_t nv, int lazy_plt)
{
	uint64_t ent = sh->sh_entsize >= 8 && sh->sh_entsize <= 32 ? sh->sh_entsize : 16;

	for (uint64_t at = 0; at + ent <= sh->sh_size; at += ent) {
		const char *name = NULL;
		int jumps = 0;

		for (uint64_t i = at; i + 6 <= at + ent && !name; i++) {
			const struct slot *sl;

			if (b[i] != 0xff || b[i + 1] != 0x25)
				continue;
			jumps = 1;
			sl = slot_find(v, nv, sh->sh_addr + i + 6 + (uint64_t)(int64_t)rd32(b + i + 2));
			if (sl)
				name = stub_name(s, o, nsorted, sl);
		}
		/* PLT0: pushes the link map, jumps through the loader's slot, which no relocation names. */
		if (!name && at == 0 && lazy_plt && jumps && b[0] == 0xff && b[1] == 0x35)
			name = prof_sym_cstr(s, ".plt");
		if (name)
			add_sym(o, cap, sh->sh_addr + at, ent, name);
	}
}

void prof_sym_plt_syms(struct prof_symbolizer *s, struct elfobj *o, size_t *cap)
{
	Elf *e = o->elf;
	GElf_Ehdr eh;
	size_t shstrndx, nv, n0 = o->nsyms;
	struct slot *v;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (!e || !gelf_getehdr(e, &eh) || eh.e_machine != EM_X86_64 ||
	    elf_getshdrstrndx(e, &shstrndx) != 0)
		return;
	v = read_slots(e, &nv);
	if (!nv) {
		free(v);
		return;
	}
	while ((scn = elf_nextscn(e, scn))) {
		const char *nm;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !(nm = elf_strptr(e, shstrndx, sh.sh_name)) ||
		    !is_plt_section(nm) || !(d = elf_rawdata(scn, NULL)) || d->d_size < sh.sh_size)
			continue;
		section_stubs(s, o, cap, n0, &sh, d->d_buf, v, nv, strcmp(nm, ".plt") == 0);
	}
	free(v);
	if (o->nsyms > n0)
		prof_sym_sort(o->syms, &o->nsyms, 0);
}
