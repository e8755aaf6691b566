/*
 * DWARF through libdw (internal.h): the address ranges of the compile
 * units of an object, read once and searched by bisection; the functions
 * of a unit, listed on its first address and searched by bisection; then
 * the inlined calls holding an address inside its function (innermost
 * first), and file:line of each. Functions are found wherever their DIE
 * is (a namespace, a type: Rust, clang), which libdw's dwarf_getscopes()
 * does not do.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "symbolize/internal.h"

_Static_assert(offsetof(struct cu_range, lo) == 0, "prof_sym_bisect() keys on the first field");
_Static_assert(offsetof(struct fn_range, lo) == 0, "prof_sym_bisect() keys on the first field");

/* The deepest chain of scopes (a function, its inlined calls) followed. */
#define MAX_SCOPES 128

static int range_cmp(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int fn_cmp(const void *a, const void *b)
{
	const struct fn_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Open o's DWARF (of the debug file first) and list its units' ranges, once. */
static void obj_dwarf(struct elfobj *o)
{
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Die cudie;
	Elf *e = NULL;
	size_t cap = 0, ucap = 0;
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
	o->dw_debug = e == o->delf;
	while (dwarf_get_units(o->dw, cu, &next, &version, &unit_type, &cudie, NULL) == 0) {
		ptrdiff_t off = 0;
		Dwarf_Addr base, lo, hi;

		cu = next;
		if (unit_type != DW_UT_compile && unit_type != DW_UT_partial &&
		    unit_type != DW_UT_skeleton)
			continue;
		PROF_GROW(o->units, o->nunits + 1, ucap);
		memset(&o->units[o->nunits], 0, sizeof(*o->units));
		o->units[o->nunits].cu = cudie;
		while ((off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0) {
			if (hi <= lo)
				continue;
			PROF_GROW(o->cus, o->ncus + 1, cap);
			o->cus[o->ncus].lo = lo;
			o->cus[o->ncus].hi = hi;
			o->cus[o->ncus].unit = o->nunits;
			o->ncus++;
		}
		o->nunits++;
	}
	if (o->ncus > 1)
		qsort(o->cus, o->ncus, sizeof(*o->cus), range_cmp);
}

void prof_sym_dwarf_release(struct elfobj *o)
{
	for (size_t i = 0; i < o->nunits; i++)
		free(o->units[i].fns);
	free(o->units);
	o->units = NULL;
	o->nunits = 0;
	free(o->cus);
	o->cus = NULL;
	o->ncus = 0;
	if (o->dw)
		dwarf_end(o->dw);
	o->dw = NULL;
	o->dw_tried = 0;
}

static struct dw_unit *cu_find(struct elfobj *o, uint64_t pc)
{
	size_t i = prof_sym_bisect(o->cus, o->ncus, sizeof(*o->cus), pc);

	/* Ranges may nest or overlap a little: look back a few. */
	for (size_t k = 0; i > 0 && k < 8; i--, k++)
		if (pc >= o->cus[i - 1].lo && pc < o->cus[i - 1].hi)
			return &o->units[o->cus[i - 1].unit];
	return NULL;
}

/*
 * The functions with code under parent, wherever they are declared:
 * GCC puts a function's concrete DIE at the top of its unit (pointing
 * to a declaration in its namespace or class), but rustc and clang leave
 * it inside its namespace (Rust: every function) or type. libdw's
 * dwarf_getscopes() does not look inside namespaces for an address (it
 * prunes every DIE without one), which lost every inlined frame of Rust
 * code; so the functions are listed here, once per unit.
 */
static void list_functions(struct dw_unit *u, Dwarf_Die *parent, size_t *cap, int depth)
{
	Dwarf_Die c;

	if (depth > 64 || dwarf_child(parent, &c) != 0)
		return;
	do {
		ptrdiff_t off = 0;
		Dwarf_Addr base, lo, hi;

		switch (dwarf_tag(&c)) {
		case DW_TAG_subprogram:
			while ((off = dwarf_ranges(&c, off, &base, &lo, &hi)) > 0) {
				if (hi <= lo)
					continue;
				PROF_GROW(u->fns, u->nfns + 1, *cap);
				u->fns[u->nfns].lo = lo;
				u->fns[u->nfns].hi = hi;
				u->fns[u->nfns].die = c;
				u->nfns++;
			}
			break;
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_structure_type:
		case DW_TAG_class_type:
		case DW_TAG_union_type:
		case DW_TAG_interface_type:
			if (dwarf_haschildren(&c) > 0)
				list_functions(u, &c, cap, depth + 1);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* The function of unit u holding pc, its functions listed on first use; NULL if none. */
static Dwarf_Die *fn_find(struct dw_unit *u, uint64_t pc)
{
	size_t i;

	if (!u->listed) {
		size_t cap = 0;

		u->listed = 1;
		list_functions(u, &u->cu, &cap, 0);
		if (u->nfns > 1)
			qsort(u->fns, u->nfns, sizeof(*u->fns), fn_cmp);
	}
	i = prof_sym_bisect(u->fns, u->nfns, sizeof(*u->fns), pc);
	for (size_t k = 0; i > 0 && k < 8; i--, k++)
		if (pc >= u->fns[i - 1].lo && pc < u->fns[i - 1].hi)
			return &u->fns[i - 1].die;
	return NULL;
}

static int has_pc_attrs(Dwarf_Die *d)
{
	return dwarf_hasattr(d, DW_AT_low_pc) || dwarf_hasattr(d, DW_AT_ranges);
}

/*
 * Append to chain[n..max) the inlined calls under parent that hold pc,
 * outermost first, through the lexical blocks holding them (a block
 * without addresses is looked into as well). Returns the new count.
 */
static int inlines_under(Dwarf_Die *parent, uint64_t pc, Dwarf_Die *chain, int n, int depth)
{
	Dwarf_Die c;

	if (depth > MAX_SCOPES || dwarf_child(parent, &c) != 0)
		return n;
	do {
		int tag = dwarf_tag(&c), k;

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_lexical_block &&
		    tag != DW_TAG_try_block && tag != DW_TAG_catch_block)
			continue;
		if (dwarf_haspc(&c, pc) > 0) {
			if (tag == DW_TAG_inlined_subroutine && n < MAX_SCOPES)
				chain[n++] = c;
			return inlines_under(&c, pc, chain, n, depth + 1);
		}
		if (tag == DW_TAG_lexical_block && !has_pc_attrs(&c) && dwarf_haschildren(&c) > 0 &&
		    (k = inlines_under(&c, pc, chain, n, depth + 1)) > n)
			return k;
	} while (dwarf_siblingof(&c, &c) == 0);
	return n;
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
	struct dw_unit *u;
	Dwarf_Die *fn, chain[MAX_SCOPES];
	struct position pos = { NULL, 0, NULL, 0 };
	int m = 0;

	if (!o->dw_tried)
		obj_dwarf(o);
	if (!o->dw || !(u = cu_find(o, pc)))
		return;
	if (s->opt.lines)
		position_at(s, &u->cu, pc, &pos);
	fn = fn_find(u, pc);
	if (fn && s->opt.inlines)
		m = inlines_under(fn, pc, chain, 0, 0);
	/* innermost first: each inlined call, placed where its callee's code is */
	for (int i = m; i-- > 0;) {
		const char *nm = die_linkage(&chain[i]);

		prof_sym_frame_push(s, nm ? prof_sym_demangle(s, nm) : prof_sym_cstr(s, "[unknown]"),
				    pos.file, pos.line, PROF_FRAME_INLINED);
		position_of_call(s, &chain[i], &pos);
	}
	if (fn && !outer->name) {
		const char *nm = die_linkage(fn);

		if (nm)
			outer->name = prof_sym_demangle(s, nm);
	}
	outer->file = pos.file;
	outer->line = pos.line;
}

/* The DW_AT_decl_line of d (of its abstract origin or specification), or 0. */
static unsigned decl_line(Dwarf_Die *d)
{
	int ln;

	return dwarf_decl_line(d, &ln) == 0 && ln > 0 ? (unsigned)ln : 0;
}

size_t prof_sym_dwarf_decl_lines(struct prof_symbolizer *s, struct elfobj *o, uint64_t pc,
				 unsigned *lines, size_t max)
{
	struct dw_unit *u;
	Dwarf_Die *fn, chain[MAX_SCOPES];
	int m = 0;
	size_t n = 0;

	if (!o->dw_tried)
		obj_dwarf(o);
	if (!o->dw || !(u = cu_find(o, pc)) || !(fn = fn_find(u, pc)))
		return 0;
	if (s->opt.inlines)
		m = inlines_under(fn, pc, chain, 0, 0);
	for (int i = m; i-- > 0 && n < max;)
		lines[n++] = decl_line(&chain[i]);
	if (n < max)
		lines[n++] = decl_line(fn);
	return n;
}
