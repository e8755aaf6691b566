/*
 * Sorted tables (internal.h): the one bisection that every sorted table
 * of the symbolizer (symbols, mappings, DWARF units, JIT symbols, the
 * kallsyms cache) is searched with, and the symbol tables of ELF files
 * and of the kernel: sorted, one symbol per address, sizes filled.
 */
#include <stdlib.h>
#include <string.h>

#include "symbolize/internal.h"

_Static_assert(offsetof(struct sym, addr) == 0, "prof_sym_bisect() keys on the first field");

size_t prof_sym_bisect(const void *base, size_t n, size_t stride, uint64_t key)
{
	const unsigned char *p = base;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;

		memcpy(&k, p + mid * stride, sizeof(k));
		if (k <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	/* Prefer the public spelling: fewer leading underscores. */
	size_t ux = strspn(x->name, "_"), uy = strspn(y->name, "_");
	if (ux != uy)
		return ux < uy ? -1 : 1;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	/* The same name in the file and its debug file: the file's own (the naming account). */
	return (x->debug > y->debug) - (x->debug < y->debug);
}

void prof_sym_sort(struct sym *syms, size_t *np, int presorted)
{
	size_t n = *np, w = 0;

	if (n > 1 && !presorted)
		qsort(syms, n, sizeof(*syms), sym_cmp);
	uint64_t covered = 0;	/* the end of the last symbol with a size */

	for (size_t i = 0; i < n; i++) {
		if (w && syms[w - 1].addr == syms[i].addr)
			continue;
		/* a label inside a function (a loop's, an alternative entry) does not split it */
		if (syms[i].rank >= PROF_SYM_RANK_LABEL && syms[i].addr < covered)
			continue;
		if (syms[i].size && syms[i].addr + syms[i].size > covered)
			covered = syms[i].addr + syms[i].size;
		syms[w++] = syms[i];
	}
	for (size_t i = 0; i < w; i++)
		if (syms[i].size == 0) {
			syms[i].size = i + 1 < w ? syms[i + 1].addr - syms[i].addr : 4096;
			if (syms[i].end > syms[i].addr && syms[i].end - syms[i].addr < syms[i].size)
				syms[i].size = syms[i].end - syms[i].addr;
		}
	*np = w;
}

const struct sym *prof_sym_find(const struct sym *syms, size_t n, uint64_t addr)
{
	size_t i = prof_sym_bisect(syms, n, sizeof(*syms), addr);

	if (i && addr - syms[i - 1].addr < syms[i - 1].size)
		return &syms[i - 1];
	return NULL;
}
