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
 *
 * The CFI also says, for a frame-pointer walk, where a function that has
 * not set up its frame pointer (a leaf, a prologue) keeps its return
 * address: the CFA is then SP + offset (prof_sym_fde_cfa_sp()).
 */
#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
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

/* DWARF's number of the stack pointer (x86-64: rsp). */
#if defined(__x86_64__)
#define DWARF_REG_SP 7
#endif

#ifdef DWARF_REG_SP
#define DWARF_REG_IP 16

/*
 * Evaluate a CFA expression of the arithmetic the linkers write (the
 * lazy PLT's: rsp + 8, + 8 more past the stub's push, from rip & 15)
 * with rsp = sp and rip = pc: 0 and *v, or -1 for anything else (memory,
 * other registers, branches).
 */
static int eval_cfa(const Dwarf_Op *ops, size_t nops, uint64_t sp, uint64_t pc, uint64_t *v)
{
	uint64_t st[16];
	size_t n = 0;

	for (size_t i = 0; i < nops; i++) {
		uint8_t a = ops[i].atom;
		uint64_t x, y;

		if (n == 16)
			return -1;
		if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
			st[n++] = (uint64_t)(a - DW_OP_lit0);
		} else if ((a >= DW_OP_breg0 && a <= DW_OP_breg31) || a == DW_OP_bregx) {
			uint64_t reg = a == DW_OP_bregx ? ops[i].number : (uint64_t)(a - DW_OP_breg0);
			uint64_t add = a == DW_OP_bregx ? ops[i].number2 : ops[i].number;

			if (reg != DWARF_REG_SP && reg != DWARF_REG_IP)
				return -1;
			st[n++] = (reg == DWARF_REG_SP ? sp : pc) + add;
		} else if (a == DW_OP_const1u || a == DW_OP_const1s || a == DW_OP_const2u ||
			   a == DW_OP_const2s || a == DW_OP_const4u || a == DW_OP_const4s ||
			   a == DW_OP_const8u || a == DW_OP_const8s || a == DW_OP_constu ||
			   a == DW_OP_consts) {
			st[n++] = ops[i].number;
		} else if (a == DW_OP_plus_uconst) {
			if (!n)
				return -1;
			st[n - 1] += ops[i].number;
		} else {
			if (n < 2)
				return -1;
			y = st[--n];
			x = st[n - 1];
			switch (a) {
			case DW_OP_plus: x += y; break;
			case DW_OP_minus: x -= y; break;
			case DW_OP_mul: x *= y; break;
			case DW_OP_and: x &= y; break;
			case DW_OP_or: x |= y; break;
			case DW_OP_shl: x = y < 64 ? x << y : 0; break;
			case DW_OP_shr: x = y < 64 ? x >> y : 0; break;
			case DW_OP_ge: x = (int64_t)x >= (int64_t)y; break;
			case DW_OP_gt: x = (int64_t)x > (int64_t)y; break;
			case DW_OP_le: x = (int64_t)x <= (int64_t)y; break;
			case DW_OP_lt: x = (int64_t)x < (int64_t)y; break;
			case DW_OP_eq: x = x == y; break;
			case DW_OP_ne: x = x != y; break;
			default: return -1;
			}
			st[n - 1] = x;
		}
	}
	if (n != 1)
		return -1;
	*v = st[0];
	return 0;
}
#endif

/*
 * The CFA rule at pc when it is "SP + offset": the offset; -1 otherwise.
 * A register + offset rule (libdw gives it as one DW_OP_bregx) or an
 * expression that moves with SP alone (evaluated at two SPs).
 */
static int32_t cfa_sp_offset(struct elfobj *o, uint64_t pc)
{
#ifdef DWARF_REG_SP
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops;
	size_t nops;
	uint64_t v0, v1;
	int32_t r = -1;

	cfi_init(o);
	if (!o->cfi || dwarf_cfi_addrframe(o->cfi, pc, &frame) != 0 || !frame)
		return -1;
	if (dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops &&
	    eval_cfa(ops, nops, 0, pc, &v0) == 0 && eval_cfa(ops, nops, 1u << 20, pc, &v1) == 0 &&
	    v1 - v0 == 1u << 20 && (int64_t)v0 >= 8 && (int64_t)v0 <= 65536)
		r = (int32_t)v0;
	free(frame);
	return r;
#else
	(void)o;
	(void)pc;
	return -1;
#endif
}

int prof_sym_fde_cfa_sp(struct elfobj *o, uint64_t pc, uint64_t *off)
{
	int32_t *v;
	int added;

	if (!o->cfa_init) {
		prof_hashmap_init(&o->cfa, sizeof(int32_t));
		o->cfa_init = 1;
	}
	v = prof_hashmap_put(&o->cfa, pc, &added);
	if (added)
		*v = cfa_sp_offset(o, pc);
	if (*v < 0)
		return -1;
	*off = (uint64_t)*v;
	return 0;
}

void prof_sym_fde_release(struct elfobj *o)
{
	if (o->cfa_init)
		prof_hashmap_release(&o->cfa);
	o->cfa_init = 0;
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
