/*
 * The symbolizer object and its entry point (symbolize.h): an address is
 * looked up in its address space's mappings, translated to its ELF
 * object's virtual address, and resolved once per (object, address)
 * into the address cache (addr_cache.c). The other files of this folder
 * do the lookups (internal.h); this one calls them, none calls it.
 */
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/units.h"
#include "base/xalloc.h"
#include "symbolize/internal.h"

void prof_sym_options_init(struct prof_sym_options *o)
{
	o->inlines = 1;
	o->lines = 0;
	o->demangle = 1;
	o->debuginfod = 0;
	o->cache = getenv("PROFTOOLS_NO_CACHE") == NULL;
}

struct prof_symbolizer *prof_symbolizer_new(const struct prof_sym_options *opts)
{
	struct prof_symbolizer *s = xcalloc(1, sizeof(*s));

	if (opts)
		s->opt = *opts;
	else
		prof_sym_options_init(&s->opt);
	prof_intern_init(&s->strs);
	prof_intern_init(&s->keys);
	elf_version(EV_CURRENT);
	s->ncache = 1024;
	s->cache = xcalloc(s->ncache, sizeof(*s->cache));
	s->cache_keep = PROF_SYM_CACHE_KEEP;
	return s;
}

void prof_symbolizer_free(struct prof_symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nobjs; i++) {
		if (s->objs[i]->dirty)
			prof_sym_symcache_store(s, s->objs[i], (uint32_t)i);
		prof_sym_dwarf_release(s->objs[i]);	/* before its Elf is closed */
		prof_sym_obj_free(s->objs[i]);
	}
	free(s->objs);
	free(s->cache);
	free(s->pool);
	prof_sym_kernel_release(s);
	prof_sym_root_release_all(s);
	prof_intern_release(&s->strs);
	prof_intern_release(&s->keys);
	free(s);
}


void prof_symbolizer_shed_idle(struct prof_symbolizer *s, uint64_t idle_ns)
{
	uint64_t now = prof_now_ns();

	for (size_t i = 0; i < s->nobjs; i++) {
		struct elfobj *o = s->objs[i];

		if (!o->shed && o->bid_len && !o->image && now - o->used_ns > idle_ns) {
			prof_sym_dwarf_release(o);	/* before its Elf is closed */
			prof_sym_obj_shed(o);
		}
	}
	if (s->cache_used > s->cache_keep) {
		memset(s->cache, 0, s->ncache * sizeof(*s->cache));
		s->cache_used = 0;
		s->pool_len = 0;
	}
}

static size_t copy_out(struct prof_symbolizer *s, uint32_t first, uint32_t n,
		       struct prof_frame *out, size_t max)
{
	size_t k = n < max ? n : max;

	memcpy(out, s->pool + first, k * sizeof(*out));
	return k;
}

static size_t one_frame(struct prof_frame *out, size_t max, const char *name, unsigned flags)
{
	if (!max)
		return 0;
	out->name = name;
	out->file = NULL;
	out->line = 0;
	out->flags = flags;
	return 1;
}

/* ---- resolving ---- */

static size_t resolve_kernel(struct prof_symbolizer *s, uint64_t addr,
			     struct prof_frame *out, size_t max)
{
	struct cache_ent *e;
	const char *name;
	uint32_t first = (uint32_t)s->pool_len;

	if (!prof_symbolizer_kernel_ok(s))
		return one_frame(out, max, prof_sym_cstr(s, "[unknown]"),
				 PROF_FRAME_KERNEL | PROF_FRAME_UNKNOWN);
	e = prof_sym_cache_slot(s, PROF_SYM_KERNEL_OBJ, addr);
	if (e->obj)
		return copy_out(s, e->first, e->n, out, max);
	name = prof_sym_kernel_name(s, addr);
	prof_sym_frame_push(s, prof_sym_cstr(s, name ? name : "[unknown]"), NULL, 0,
			    PROF_FRAME_KERNEL | (name ? 0 : PROF_FRAME_UNKNOWN));
	prof_sym_cache_put(s, PROF_SYM_KERNEL_OBJ, addr, first, 1);
	return copy_out(s, first, 1, out, max);
}

/*
 * Push the frames for pc (object vaddr) of o: the inline chain from DWARF
 * when wanted and available, then the real function. Returns the frames
 * pushed: 0 when nothing names the function.
 */
static size_t resolve_obj(struct prof_symbolizer *s, struct elfobj *o, uint64_t pc)
{
	const struct sym *sym;
	struct prof_sym_outer outer = { NULL, NULL, 0 };
	unsigned flags = 0;
	size_t start = s->pool_len;

	if (!o->loaded)
		prof_sym_obj_load(s, o);
	o->dirty = 1;
	sym = prof_sym_find(o->syms, o->nsyms, pc);
	if (sym) {
		outer.name = prof_sym_demangle(s, sym->name);
		flags = sym->mini ? PROF_FRAME_MINIDEBUG : sym->debug ? PROF_FRAME_DEBUGFILE :
			sym->go ? PROF_FRAME_GOPCLNTAB : 0;
	}
	if (s->opt.inlines || s->opt.lines)
		prof_sym_dwarf_frames(s, o, pc, &outer);
	if (sym && sym->go && s->opt.lines && !outer.file && o->go) {
		const char *file;

		/* a stripped Go program has no DWARF: its own table places pc */
		if (prof_gopcln_file_line(o->go, pc, &file, &outer.line) == 0)
			outer.file = prof_sym_cstr(s, file);
	}
	if (!outer.name) {
		s->pool_len = start;
		return 0;
	}
	if (!sym && o->dw_debug)
		flags = PROF_FRAME_DEBUGFILE;	/* named by the debug file's DWARF alone */
	prof_sym_frame_push(s, outer.name, outer.file, outer.line, flags);
	return s->pool_len - start;
}

/* "NAME+0xOFFSET" (interned), the name of an address no symbol covers. */
static const char *offset_name(struct prof_symbolizer *s, const char *name, uint64_t off)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s+0x%llx", name, (unsigned long long)off);
	return prof_sym_cstr(s, buf);
}

/*
 * The name of an address of o that no symbol covers: "BASE!fn_START"
 * after the FDE holding it (*flags PROF_FRAME_FDE), else "BASE+0xOFF"
 * (*flags PROF_FRAME_UNKNOWN).
 */
static const char *unnamed_name(struct prof_symbolizer *s, struct elfobj *o, uint64_t pc,
				uint64_t off, unsigned *flags)
{
	char buf[512];
	uint64_t start;

	if (prof_sym_fde_start(o, pc, &start) != 0) {
		*flags = PROF_FRAME_UNKNOWN;
		return offset_name(s, o->base, off);
	}
	*flags = PROF_FRAME_FDE;
	snprintf(buf, sizeof(buf), "%s!fn_%llx", o->base, (unsigned long long)start);
	return prof_sym_cstr(s, buf);
}

/* An address outside file mappings: JIT code, a pseudo-mapping ([vdso]) or nothing. */
static size_t resolve_anon(struct prof_symbolizer *s, struct prof_addrspace *as,
			   size_t mi, uint64_t addr, struct prof_frame *out, size_t max)
{
	const char *jit = prof_sym_jit_find(as, addr);

	if (jit)
		return one_frame(out, max, jit, 0);
	if (mi != (size_t)-1 && as->maps[mi].path[0] == '[')
		return one_frame(out, max, offset_name(s, as->maps[mi].path, addr - as->maps[mi].start),
				 PROF_FRAME_UNKNOWN);
	return one_frame(out, max, prof_sym_cstr(s, "[unknown]"), PROF_FRAME_UNKNOWN);
}

/* The object of mapping mi, looked up on first use; a new one gets its on-disk cache entries. */
static uint32_t map_obj(struct prof_symbolizer *s, struct prof_addrspace *as, size_t mi)
{
	const struct prof_map *m = &as->maps[mi];
	int is_new;

	if (as->objs[mi] == PROF_SYM_OBJ_UNTRIED && prof_sym_is_vdso(m->path)) {
		as->objs[mi] = prof_sym_vdso_obj(s, m->end - m->start);
	} else if (as->objs[mi] == PROF_SYM_OBJ_UNTRIED) {
		as->objs[mi] = prof_sym_obj_get(s, m->path, m->build_id, m->build_id_len, as->root,
						&is_new);
		if (is_new)
			prof_sym_symcache_load(s, s->objs[as->objs[mi]], as->objs[mi]);
	}
	return as->objs[mi];
}

size_t prof_symbolize(struct prof_symbolizer *s, struct prof_addrspace *as,
		      uint64_t addr, unsigned flags, struct prof_frame *out, size_t max)
{
	const struct prof_map *m;
	size_t mi, n;
	uint64_t off, vaddr;
	uint32_t obj, first;
	unsigned fflags;
	struct cache_ent *e;
	const char *slash;

	if (!max)
		return 0;
	if (flags & PROF_SYM_RETURN)
		addr--;
	if ((flags & PROF_SYM_KERNEL) || !as)
		return resolve_kernel(s, addr, out, max);
	mi = prof_sym_map_index(as, addr);
	if (mi == (size_t)-1 ||
	    (!prof_sym_is_file(as->maps[mi].path) && !prof_sym_is_vdso(as->maps[mi].path)))
		return resolve_anon(s, as, mi, addr, out, max);
	m = &as->maps[mi];
	obj = map_obj(s, as, mi);
	off = addr - m->start + m->pgoff;
	if (obj == PROF_SYM_NO_OBJ || prof_sym_off_to_vaddr(s->objs[obj], off, &vaddr) != 0) {
		if (!prof_sym_is_file(m->path))
			return resolve_anon(s, as, mi, addr, out, max);
		slash = strrchr(m->path, '/');
		return one_frame(out, max, offset_name(s, slash ? slash + 1 : m->path, off),
				 PROF_FRAME_UNKNOWN);
	}
	e = prof_sym_cache_slot(s, obj + 1, vaddr);
	if (e->obj)
		return copy_out(s, e->first, e->n, out, max);
	if (s->objs[obj]->shed)
		prof_sym_obj_reopen(s, s->objs[obj]);
	s->objs[obj]->used_ns = prof_now_ns();
	first = (uint32_t)s->pool_len;
	n = resolve_obj(s, s->objs[obj], vaddr);
	if (!n) {
		const char *name = unnamed_name(s, s->objs[obj], vaddr, off, &fflags);

		prof_sym_frame_push(s, name, NULL, 0, fflags);
		n = 1;
	}
	prof_sym_cache_put(s, obj + 1, vaddr, first, (uint32_t)n);
	return copy_out(s, first, (uint32_t)n, out, max);
}

size_t prof_symbolize_decl_lines(struct prof_symbolizer *s, struct prof_addrspace *as,
				 uint64_t addr, unsigned *lines, size_t max)
{
	size_t mi = as ? prof_sym_map_index(as, addr) : (size_t)-1;
	const struct prof_map *m;
	uint64_t vaddr;
	uint32_t obj;

	if (mi == (size_t)-1 || !prof_sym_is_file(as->maps[mi].path))
		return 0;
	m = &as->maps[mi];
	obj = map_obj(s, as, mi);
	if (obj == PROF_SYM_NO_OBJ ||
	    prof_sym_off_to_vaddr(s->objs[obj], addr - m->start + m->pgoff, &vaddr) != 0)
		return 0;
	if (s->objs[obj]->shed)
		prof_sym_obj_reopen(s, s->objs[obj]);
	s->objs[obj]->used_ns = prof_now_ns();
	return prof_sym_dwarf_decl_lines(s, s->objs[obj], vaddr, lines, max);
}

int prof_symbolizer_cfa_sp_offset(struct prof_symbolizer *s, struct prof_addrspace *as,
				  uint64_t addr, uint64_t *sp_offset)
{
	size_t mi = as ? prof_sym_map_index(as, addr) : (size_t)-1;
	const struct prof_map *m;
	uint64_t vaddr;
	uint32_t obj;

	if (mi == (size_t)-1 ||
	    (!prof_sym_is_file(as->maps[mi].path) && !prof_sym_is_vdso(as->maps[mi].path)))
		return -1;
	m = &as->maps[mi];
	obj = map_obj(s, as, mi);
	if (obj == PROF_SYM_NO_OBJ ||
	    prof_sym_off_to_vaddr(s->objs[obj], addr - m->start + m->pgoff, &vaddr) != 0)
		return -1;
	if (s->objs[obj]->shed)
		prof_sym_obj_reopen(s, s->objs[obj]);
	s->objs[obj]->used_ns = prof_now_ns();
	return prof_sym_fde_cfa_sp(s->objs[obj], vaddr, sp_offset);
}
