/*
 * Functions of stripped code (internal.h): when no symbol covers an
 * address, the .eh_frame FDE covering it gives the function's start, so
 * every address of one function gets one name. The starts come from
 * .eh_frame_hdr's sorted search table (segment PT_GNU_EH_FRAME), copied
 * once per object into a table searched by bisection; whether an FDE
 * covers the address at all (the table gives starts, not ends) is asked
 * of libdw's CFI reader, which keeps the FDEs it parsed. An object
 * without .eh_frame_hdr (rare: every linker writes it by default) keeps
 * the "+0x" names.
 */
#include <elf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "symbolize/internal.h"

/* The encodings of .eh_frame_hdr this reader knows (what GNU ld, gold, lld and mold write). */
#define EH_PE_udata4 0x03
#define EH_PE_sdata4 0x0b
#define EH_PE_datarel 0x30
#define EH_PE_omit 0xff

static int32_t rd32(const unsigned char *p)
{
	int32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* The PT_GNU_EH_FRAME segment of e: its bytes and address, or NULL. */
static const unsigned char *eh_frame_hdr(Elf *e, size_t *len, uint64_t *vaddr)
{
	size_t nph, fsize;
	const char *raw = elf_rawfile(e, &fsize);

	if (!raw || elf_getphdrnum(e, &nph) != 0)
		return NULL;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_GNU_EH_FRAME)
			continue;
		if (ph.p_offset > fsize || ph.p_filesz > fsize - ph.p_offset)
			return NULL;
		*len = ph.p_filesz;
		*vaddr = ph.p_vaddr;
		return (const unsigned char *)raw + ph.p_offset;
	}
	return NULL;
}

/* Copy the search table's function starts into o->fde_starts (sorted: the linker sorts it). */
static void read_fde_starts(struct elfobj *o)
{
	size_t len, n;
	uint64_t vaddr;
	const unsigned char *h = eh_frame_hdr(o->elf, &len, &vaddr);

	/* version 1, eh_frame_ptr 4 bytes, count udata4, table datarel|sdata4 */
	if (!h || len < 12 || h[0] != 1 || h[1] == EH_PE_omit || (h[1] & 0x0f) != EH_PE_sdata4 ||
	    h[2] != EH_PE_udata4 || h[3] != (EH_PE_datarel | EH_PE_sdata4))
		return;
	n = (uint32_t)rd32(h + 8);
	if (n == 0 || n > (len - 12) / 8)
		return;
	o->fde_starts = xmalloc(n * sizeof(*o->fde_starts));
	for (size_t i = 0; i < n; i++)
		o->fde_starts[i] = vaddr + (uint64_t)(int64_t)rd32(h + 12 + 8 * i);
	o->nfde = n;
}

/* o's FDE table and CFI, read once. */
static void cfi_init(struct elfobj *o)
{
	if (o->cfi_tried)
		return;
	o->cfi_tried = 1;
	if (o->elf) {
		read_fde_starts(o);
		if (o->nfde)
			o->cfi = dwarf_getcfi_elf(o->elf);
	}
}

int prof_sym_fde_start(struct elfobj *o, uint64_t pc, uint64_t *start)
{
	Dwarf_Frame *frame = NULL;
	size_t i;

	cfi_init(o);
	if (!o->cfi || !(i = prof_sym_bisect(o->fde_starts, o->nfde, sizeof(uint64_t), pc)))
		return -1;
	if (dwarf_cfi_addrframe(o->cfi, pc, &frame) != 0 || !frame)
		return -1;
	free(frame);
	*start = o->fde_starts[i - 1];
	return 0;
}

void prof_sym_fde_release(struct elfobj *o)
{
	if (o->cfi)
		dwarf_cfi_end(o->cfi);
	o->cfi = NULL;
	free(o->fde_starts);
	o->fde_starts = NULL;
	o->nfde = 0;
}

int prof_sym_fde_next(struct elfobj *o, uint64_t pc, uint64_t *next)
{
	size_t i;

	cfi_init(o);
	i = prof_sym_bisect(o->fde_starts, o->nfde, sizeof(uint64_t), pc);
	if (i >= o->nfde)
		return -1;
	*next = o->fde_starts[i];
	return 0;
}
