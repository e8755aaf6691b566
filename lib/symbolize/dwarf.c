/*
 * DWARF through libdw (internal.h): the address ranges of the compile
 * units of an object, read once and searched by bisection, then the
 * scopes of an address: its inlined calls (innermost first) up to the
 * real function, and file:line of each.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "symbolize/internal.h"

_Static_assert(offsetof(struct cu_range, lo) == 0, "prof_sym_bisect() keys on the first field");

static int cu_cmp(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Open o's DWARF (of the debug file first) and list its units' ranges, once. */
static void obj_dwarf(struct elfobj *o)
{
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Die cudie;
	Elf *e = NULL;
	size_t cap = 0;
	uint8_t unit_type;
	Dwarf_Half version;

	o->dw_tried = 1;
	if (o->delf && prof_sym_has_debug_info(o->delf))
		e = o->delf;
	else if (o->elf && prof_sym_has_debug_info(o->elf))
		e = o->elf;
	if (!e)
		return;
	o->dw = dwarf_begin_elf(e, DWARF_C_READ, NULL);
	if (!o->dw)
		return;
	while (dwarf_get_units(o->dw, cu, &next, &version, &unit_type, &cudie, NULL) == 0) {
		ptrdiff_t off = 0;
		Dwarf_Addr base, lo, hi;

		cu = next;
		if (unit_type != DW_UT_compile && unit_type != DW_UT_partial &&
		    unit_type != DW_UT_skeleton)
			continue;
		while ((off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0) {
			if (hi <= lo)
				continue;
			PROF_GROW(o->cus, o->ncus + 1, cap);
			o->cus[o->ncus].lo = lo;
			o->cus[o->ncus].hi = hi;
			o->cus[o->ncus].cu = cudie;
			o->ncus++;
		}
	}
	if (o->ncus > 1)
		qsort(o->cus, o->ncus, sizeof(*o->cus), cu_cmp);
}

static Dwarf_Die *cu_find(struct elfobj *o, uint64_t pc)
{
	size_t i = prof_sym_bisect(o->cus, o->ncus, sizeof(*o->cus), pc);

	/* Ranges may nest or overlap a little: look back a few. */
	for (size_t k = 0; i > 0 && k < 8; i--, k++)
		if (pc >= o->cus[i - 1].lo && pc < o->cus[i - 1].hi)
			return &o->cus[i - 1].cu;
	return NULL;
}

static const char *die_linkage(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	const char *n = NULL;

	if (dwarf_attr_integrate(d, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &a))
		n = dwarf_formstring(&a);
	if (!n && dwarf_attr_integrate(d, DW_AT_name, &a))
		n = dwarf_formstring(&a);
	return n;
}

/* The source position being walked out of, and the unit's file table for call sites. */
struct position {
	const char *file;
	unsigned line;
	Dwarf_Files *files;
	size_t nfiles;
};

/* The position of pc itself, with opts.lines. */
static void position_at(struct prof_symbolizer *s, Dwarf_Die *cu, uint64_t pc, struct position *p)
{
	Dwarf_Line *l = dwarf_getsrc_die(cu, pc);
	int ln;

	if (l) {
		const char *f = dwarf_linesrc(l, NULL, NULL);

		p->file = f ? prof_sym_cstr(s, f) : NULL;
		if (dwarf_lineno(l, &ln) == 0)
			p->line = (unsigned)ln;
	}
	if (dwarf_getsrcfiles(cu, &p->files, &p->nfiles) != 0)
		p->files = NULL;
}

/* The caller's position is the call site of the inlined subroutine d. */
static void position_of_call(struct prof_symbolizer *s, Dwarf_Die *d, struct position *p)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	p->file = NULL;
	p->line = 0;
	if (!s->opt.lines)
		return;
	if (dwarf_attr(d, DW_AT_call_file, &a) && dwarf_formudata(&a, &w) == 0 && p->files &&
	    w < p->nfiles) {
		const char *f = dwarf_filesrc(p->files, w, NULL, NULL);

		p->file = f ? prof_sym_cstr(s, f) : NULL;
	}
	if (dwarf_attr(d, DW_AT_call_line, &a) && dwarf_formudata(&a, &w) == 0)
		p->line = (unsigned)w;
}

void prof_sym_dwarf_frames(struct prof_symbolizer *s, struct elfobj *o, uint64_t pc,
			   struct prof_sym_outer *outer)
{
	Dwarf_Die *cu, *scopes = NULL, *chain = NULL;
	struct position pos = { NULL, 0, NULL, 0 };
	int m = 0;

	if (!o->dw_tried)
		obj_dwarf(o);
	if (!o->dw || !(cu = cu_find(o, pc)))
		return;
	if (s->opt.lines)
		position_at(s, cu, pc, &pos);
	if (dwarf_getscopes(cu, pc, &scopes) > 0) {
		Dwarf_Die first = scopes[0];

		m = dwarf_getscopes_die(&first, &chain);
	}
	for (int i = 0; i < m; i++) {
		int tag = dwarf_tag(&chain[i]);

		if (tag == DW_TAG_inlined_subroutine && s->opt.inlines) {
			const char *nm = die_linkage(&chain[i]);

			prof_sym_frame_push(s, nm ? prof_sym_demangle(s, nm) : prof_sym_cstr(s, "[unknown]"),
					    pos.file, pos.line, PROF_FRAME_INLINED);
			position_of_call(s, &chain[i], &pos);
		} else if (tag == DW_TAG_subprogram) {
			if (!outer->name) {
				const char *nm = die_linkage(&chain[i]);

				if (nm)
					outer->name = prof_sym_demangle(s, nm);
			}
			break;
		}
	}
	outer->file = pos.file;
	outer->line = pos.line;
	free(scopes);
	free(chain);
}
