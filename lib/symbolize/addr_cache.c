/*
 * The frames of resolved addresses (internal.h): one pool of frames, an
 * open-addressing cache from (object, address) to a run of the pool, and
 * the interned strings the frames point to. Everything the symbolizer
 * resolves, from ELF, DWARF, kallsyms or the on-disk cache, ends here.
 */
#include <stdlib.h>
#include <string.h>

#include "base/demangle.h"
#include "base/xalloc.h"
#include "symbolize/internal.h"

const char *prof_sym_str(struct prof_symbolizer *s, const char *p, size_t n)
{
	return prof_intern_str(&s->strs, prof_intern(&s->strs, p, n), NULL);
}

const char *prof_sym_cstr(struct prof_symbolizer *s, const char *p)
{
	return prof_sym_str(s, p, strlen(p));
}

const char *prof_sym_demangle(struct prof_symbolizer *s, const char *name)
{
	char *d;
	const char *r;

	if (!s->opt.demangle || !(d = prof_demangle(name, strlen(name))))
		return prof_sym_cstr(s, name);
	r = prof_sym_cstr(s, d);
	free(d);
	return r;
}

void prof_sym_frame_push(struct prof_symbolizer *s, const char *name, const char *file,
			 unsigned line, unsigned flags)
{
	struct prof_frame *f;

	PROF_GROW(s->pool, s->pool_len + 1, s->pool_cap);
	f = &s->pool[s->pool_len++];
	f->name = name;
	f->file = file;
	f->line = line;
	f->flags = flags;
}

static uint64_t cache_hash(uint32_t obj, uint64_t addr)
{
	uint64_t h = addr * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)obj << 32 | obj);

	return h ^ (h >> 29);
}

struct cache_ent *prof_sym_cache_slot(struct prof_symbolizer *s, uint32_t obj, uint64_t addr)
{
	size_t mask = s->ncache - 1;
	size_t i = (size_t)cache_hash(obj, addr) & mask;

	while (s->cache[i].obj && !(s->cache[i].obj == obj && s->cache[i].addr == addr))
		i = (i + 1) & mask;
	return &s->cache[i];
}

void prof_sym_cache_put(struct prof_symbolizer *s, uint32_t obj, uint64_t addr,
			uint32_t first, uint32_t n)
{
	struct cache_ent *e;

	if ((s->cache_used + 1) * 4 > s->ncache * 3) {
		struct cache_ent *old = s->cache;
		size_t nold = s->ncache;

		s->ncache *= 2;
		s->cache = xcalloc(s->ncache, sizeof(*s->cache));
		for (size_t i = 0; i < nold; i++)
			if (old[i].obj)
				*prof_sym_cache_slot(s, old[i].obj, old[i].addr) = old[i];
		free(old);
	}
	e = prof_sym_cache_slot(s, obj, addr);
	if (!e->obj)
		s->cache_used++;
	e->obj = obj;
	e->addr = addr;
	e->first = first;
	e->n = n;
}
