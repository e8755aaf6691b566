/*
 * Functions' machine code of an ELF file (elfcode.h).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/demangle.h"
#include "base/xalloc.h"
#include "io/input.h"
#include "symbolize/elfcode.h"

struct segment {
	uint64_t vaddr, filesz, offset;
};

struct prof_elfcode {
	int fd;
	Elf *elf;
	const unsigned char *image;	/* the whole file (libelf's mapping) */
	size_t image_size;
	unsigned machine;
	int has_symtab;
	unsigned char build_id[20];
	unsigned build_id_len;
	struct segment *segs;
	size_t nsegs;
	struct prof_elfcode_func *funcs;
	size_t nfuncs;
};

static void read_build_id(struct prof_elfcode *c)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(c->elf, scn))) {
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp((char *)d->d_buf + noff, "GNU", 4) == 0 && nh.n_descsz <= 20) {
				memcpy(c->build_id, (char *)d->d_buf + doff, nh.n_descsz);
				c->build_id_len = nh.n_descsz;
				return;
			}
		}
	}
}

/* The PT_LOAD segments; -1 when a segment lies past the end of the file. */
static int read_segments(struct prof_elfcode *c)
{
	size_t nph;

	if (elf_getphdrnum(c->elf, &nph) != 0)
		return -1;
	c->segs = xcalloc(nph ? nph : 1, sizeof(*c->segs));
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(c->elf, (int)i, &ph))
			return -1;
		if (ph.p_type != PT_LOAD)
			continue;
		if (ph.p_offset > c->image_size || ph.p_filesz > c->image_size - ph.p_offset)
			return -1;
		c->segs[c->nsegs++] = (struct segment){ ph.p_vaddr, ph.p_filesz, ph.p_offset };
	}
	return 0;
}

static int by_addr(const void *a, const void *b)
{
	const struct prof_elfcode_func *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr ? 1 : strcmp(x->name, y->name);
}

/* The function symbols of the section of type type; returns how many. */
static size_t read_symbols(struct prof_elfcode *c, unsigned type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t cap = 0, before = c->nfuncs;

	while ((scn = elf_nextscn(c->elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    !sym.st_size || sym.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(c->elf, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			PROF_GROW(c->funcs, c->nfuncs + 1, cap);
			c->funcs[c->nfuncs++] = (struct prof_elfcode_func){ name, sym.st_value,
									   sym.st_size };
		}
	}
	return c->nfuncs - before;
}

int prof_elfcode_symbol(const struct prof_elfcode *c, const char *name, uint64_t *addr)
{
	static const unsigned types[] = { SHT_DYNSYM, SHT_SYMTAB };

	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		Elf_Scn *scn = NULL;
		GElf_Shdr sh;

		while ((scn = elf_nextscn(c->elf, scn))) {
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != types[t] || !sh.sh_entsize ||
			    !(d = elf_getdata(scn, NULL)))
				continue;
			for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym sym;
				const char *n;

				if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
					continue;
				n = elf_strptr(c->elf, sh.sh_link, sym.st_name);
				if (n && strcmp(n, name) == 0) {
					*addr = sym.st_value;
					return 0;
				}
			}
		}
	}
	return -1;
}

static void sort_funcs(struct prof_elfcode *c)
{
	size_t j = 0;

	if (!c->nfuncs)	/* no symbols: funcs is NULL, which qsort may not get */
		return;
	qsort(c->funcs, c->nfuncs, sizeof(*c->funcs), by_addr);
	for (size_t i = 0; i < c->nfuncs; i++)	/* aliases: the first name */
		if (!j || c->funcs[i].addr != c->funcs[j - 1].addr)
			c->funcs[j++] = c->funcs[i];
	c->nfuncs = j;
}

/* Whether the program and section header tables lie inside the file (not cut short). */
static int tables_inside(const GElf_Ehdr *eh, uint64_t size)
{
	uint64_t ph_end = eh->e_phoff + (uint64_t)eh->e_phnum * eh->e_phentsize;
	uint64_t sh_end = eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize;

	return ph_end <= size && sh_end <= size;
}

struct prof_elfcode *prof_elfcode_open(const char *path, char *err, size_t errlen)
{
	struct prof_elfcode *c = xcalloc(1, sizeof(*c));
	GElf_Ehdr eh;

	elf_version(EV_CURRENT);
	c->fd = prof_open_regular(path, err, errlen);	/* a FIFO or /dev/zero: refused */
	if (c->fd < 0) {
		free(c);
		return NULL;
	}
	c->elf = elf_begin(c->fd, ELF_C_READ_MMAP, NULL);
	if (!c->elf || elf_kind(c->elf) != ELF_K_ELF) {
		snprintf(err, errlen, "not an ELF file");
		prof_elfcode_close(c);
		return NULL;
	}
	c->image = (const unsigned char *)elf_rawfile(c->elf, &c->image_size);
	if (!c->image || !gelf_getehdr(c->elf, &eh) || !tables_inside(&eh, c->image_size) ||
	    read_segments(c) != 0) {
		snprintf(err, errlen, "truncated or malformed ELF file");
		prof_elfcode_close(c);
		return NULL;
	}
	c->machine = eh.e_machine;
	read_build_id(c);
	c->has_symtab = read_symbols(c, SHT_SYMTAB) > 0;
	if (!c->has_symtab)
		read_symbols(c, SHT_DYNSYM);
	sort_funcs(c);
	return c;
}

void prof_elfcode_close(struct prof_elfcode *c)
{
	if (!c)
		return;
	if (c->elf)
		elf_end(c->elf);
	if (c->fd >= 0)
		close(c->fd);
	free(c->segs);
	free(c->funcs);
	free(c);
}

unsigned prof_elfcode_machine(const struct prof_elfcode *c)
{
	return c->machine;
}

int prof_elfcode_has_symtab(const struct prof_elfcode *c)
{
	return c->has_symtab;
}

const unsigned char *prof_elfcode_build_id(const struct prof_elfcode *c, unsigned *len)
{
	*len = c->build_id_len;
	return c->build_id;
}

const struct prof_elfcode_func *prof_elfcode_funcs(const struct prof_elfcode *c, size_t *n)
{
	*n = c->nfuncs;
	return c->funcs;
}

const struct prof_elfcode_func *prof_elfcode_find(const struct prof_elfcode *c, const char *name)
{
	for (size_t i = 0; i < c->nfuncs; i++)
		if (strcmp(c->funcs[i].name, name) == 0)
			return &c->funcs[i];
	return NULL;
}

const struct prof_elfcode_func *prof_elfcode_find_named(const struct prof_elfcode *c,
							const char *name,
							const struct prof_elfcode_func *prev)
{
	for (size_t i = prev ? (size_t)(prev - c->funcs) + 1 : 0; i < c->nfuncs; i++)
		if (prof_demangle_matches(c->funcs[i].name, name))
			return &c->funcs[i];
	return NULL;
}

const struct prof_elfcode_func *prof_elfcode_at(const struct prof_elfcode *c, uint64_t vaddr)
{
	size_t lo = 0, hi = c->nfuncs;

	while (lo < hi) {	/* the last function starting at or before vaddr */
		size_t mid = lo + (hi - lo) / 2;

		if (c->funcs[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && vaddr - c->funcs[lo - 1].addr < c->funcs[lo - 1].size)
		return &c->funcs[lo - 1];
	return NULL;
}

const unsigned char *prof_elfcode_bytes(const struct prof_elfcode *c, uint64_t vaddr,
					uint64_t size)
{
	for (size_t i = 0; i < c->nsegs; i++) {
		const struct segment *s = &c->segs[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr <= s->filesz &&
		    size <= s->filesz - (vaddr - s->vaddr))
			return c->image + s->offset + (vaddr - s->vaddr);
	}
	return NULL;
}

int prof_elfcode_off_to_vaddr(const struct prof_elfcode *c, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < c->nsegs; i++) {
		const struct segment *s = &c->segs[i];

		if (off >= s->offset && off - s->offset < s->filesz) {
			*vaddr = s->vaddr + (off - s->offset);
			return 0;
		}
	}
	return -1;
}

int prof_elfcode_vaddr_to_off(const struct prof_elfcode *c, uint64_t vaddr, uint64_t *off)
{
	for (size_t i = 0; i < c->nsegs; i++) {
		const struct segment *s = &c->segs[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz) {
			*off = s->offset + (vaddr - s->vaddr);
			return 0;
		}
	}
	return -1;
}
