/*
 * JIT symbols (internal.h): /tmp/perf-PID.map, the file JIT compilers
 * (V8, the JVM with perf-map-agent, LuaJIT, ...) write for perf, one
 * "START SIZE name" line per compiled function. Only anonymous memory is
 * looked up there. The map grows while the program runs: it is read
 * again when its size or time changed, at most every 50 ms.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/units.h"
#include "base/xalloc.h"
#include "symbolize/internal.h"

_Static_assert(offsetof(struct jitsym, start) == 0, "prof_sym_bisect() keys on the first field");

#define RECHECK_NS 50000000ULL

int prof_sym_parse_perfmap_line(const char *line, uint64_t *start, uint64_t *size,
				size_t *name_off)
{
	const char *p = line;
	char *end;

	*start = strtoull(p, &end, 16);
	if (end == p || *end != ' ')
		return -1;
	p = end + 1;
	*size = strtoull(p, &end, 16);
	if (end == p || *end != ' ')
		return -1;
	*name_off = (size_t)(end + 1 - line);
	return 0;
}

static int jit_cmp(const void *a, const void *b)
{
	const struct jitsym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Read the map of as->pid if it changed since the last read. */
static void jit_load(struct prof_addrspace *as)
{
	char path[64], *line = NULL;
	size_t lcap = 0, cap = 0;
	struct stat st;
	FILE *f;

	if (as->pid <= 0)
		return;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)as->pid);
	if (stat(path, &st) != 0)
		return;
	if (as->jit && st.st_size == as->jit_size &&
	    st.st_mtim.tv_sec == as->jit_mtime.tv_sec && st.st_mtim.tv_nsec == as->jit_mtime.tv_nsec)
		return;
	f = fopen(path, "re");
	if (!f)
		return;
	as->jit_size = st.st_size;
	as->jit_mtime = st.st_mtim;
	free(as->jit);
	as->jit = NULL;
	as->njit = 0;
	while (getline(&line, &lcap, f) > 0) {
		uint64_t start, size;
		size_t off;

		if (prof_sym_parse_perfmap_line(line, &start, &size, &off) != 0)
			continue;
		PROF_GROW(as->jit, as->njit + 1, cap);
		as->jit[as->njit].start = start;
		as->jit[as->njit].end = start + size;
		as->jit[as->njit].name = prof_sym_str(as->s, line + off, strcspn(line + off, "\n"));
		as->njit++;
	}
	free(line);
	fclose(f);
	if (as->njit > 1)
		qsort(as->jit, as->njit, sizeof(*as->jit), jit_cmp);
}

const char *prof_sym_jit_find(struct prof_addrspace *as, uint64_t addr)
{
	uint64_t now = prof_now_ns();
	size_t i;

	if (!as->jit_checked || now - as->jit_checked > RECHECK_NS) {
		as->jit_checked = now;
		jit_load(as);
	}
	if (!as->jit)
		return NULL;
	i = prof_sym_bisect(as->jit, as->njit, sizeof(*as->jit), addr);
	if (i && addr < as->jit[i - 1].end)
		return as->jit[i - 1].name;
	return NULL;
}

void prof_sym_jit_release(struct prof_addrspace *as)
{
	free(as->jit);
	as->jit = NULL;
	as->njit = 0;
}
