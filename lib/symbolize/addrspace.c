/*
 * Address spaces (symbolize.h): the mappings of one process image, sorted
 * and disjoint, as MMAP2 records or a /proc/PID/maps file give them; each
 * mapping remembers its ELF object once looked up (internal.h).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/error.h"
#include "base/xalloc.h"
#include "symbolize/internal.h"

_Static_assert(offsetof(struct prof_map, start) == 0, "prof_sym_bisect() keys on the first field");

struct prof_addrspace *prof_addrspace_new(struct prof_symbolizer *s, pid_t pid)
{
	struct prof_addrspace *as = xcalloc(1, sizeof(*as));

	as->s = s;
	as->pid = pid;
	as->nspid = pid;
	as->root = PROF_SYM_ROOT_OURS;
	return as;
}

void prof_addrspace_live(struct prof_addrspace *as)
{
	if (as->live || as->pid <= 0)
		return;
	as->live = 1;
	as->root = prof_sym_root_of(as->s, as->pid, PROF_SYM_ROOT_OURS, &as->nspid);
}

void prof_addrspace_saw(struct prof_addrspace *as, const struct prof_procns *tree, int dirfd,
			int nsfd)
{
	int root = prof_sym_root_adopt(as->s, tree, as->pid, dirfd, nsfd);

	prof_sym_root_unref(as->s, as->root);
	as->root = root;
}

int prof_addrspace_open(const struct prof_addrspace *as, const char *path, char *err,
			size_t errlen)
{
	if (as->root == PROF_SYM_ROOT_GONE) {
		snprintf(err, errlen, "its process, in another mount namespace, is gone");
		errno = ENOENT;
		return -1;
	}
	return prof_sym_root_open(as->s, as->root, path, err, errlen);
}

void prof_addrspace_free(struct prof_addrspace *as)
{
	if (!as)
		return;
	prof_sym_root_unref(as->s, as->root);
	free(as->maps);
	free(as->objs);
	prof_sym_jit_release(as);
	free(as);
}

struct prof_addrspace *prof_addrspace_view(const struct prof_addrspace *as)
{
	struct prof_addrspace *v = prof_addrspace_new(as->s, as->pid);

	v->live = as->live;
	v->nspid = as->nspid;
	v->root = as->root;
	prof_sym_root_ref(as->s, as->root);
	return v;
}

struct prof_addrspace *prof_addrspace_clone(const struct prof_addrspace *src, pid_t pid)
{
	struct prof_addrspace *as = prof_addrspace_new(src->s, pid);

	/*
	 * A child starts in its parent's namespace (unless cloned into a new
	 * one): that is its root when it is gone before it could be looked at.
	 */
	if (src->live) {
		as->live = 1;
		as->nspid = pid == src->pid ? src->nspid : pid;
		prof_sym_root_ref(src->s, src->root);
		as->root = prof_sym_root_of(src->s, pid, src->root, &as->nspid);
	}
	as->n = as->cap = src->n;
	if (src->n) {
		as->maps = xmalloc(src->n * sizeof(*src->maps));
		as->objs = xmalloc(src->n * sizeof(*src->objs));
		memcpy(as->maps, src->maps, src->n * sizeof(*src->maps));
		memcpy(as->objs, src->objs, src->n * sizeof(*src->objs));
	}
	return as;
}

void prof_addrspace_reset(struct prof_addrspace *as)
{
	as->n = 0;
	as->gen++;
	prof_sym_jit_release(as);
	/*
	 * The namespace may have changed before the exec (unshare -m, a
	 * container's start): look again; the one before if it is gone.
	 */
	if (as->live)
		as->root = prof_sym_root_of(as->s, as->pid, as->root, &as->nspid);
}

unsigned long prof_addrspace_generation(const struct prof_addrspace *as)
{
	return as->gen;
}

pid_t prof_addrspace_pid(const struct prof_addrspace *as)
{
	return as->pid;
}

static void map_insert(struct prof_addrspace *as, size_t at, const struct prof_map *m, uint32_t obj)
{
	PROF_GROW(as->maps, as->n + 1, as->cap);
	as->objs = xreallocarray(as->objs, as->cap, sizeof(*as->objs));
	memmove(as->maps + at + 1, as->maps + at, (as->n - at) * sizeof(*as->maps));
	memmove(as->objs + at + 1, as->objs + at, (as->n - at) * sizeof(*as->objs));
	as->maps[at] = *m;
	as->objs[at] = obj;
	as->n++;
}

static void map_remove(struct prof_addrspace *as, size_t at)
{
	memmove(as->maps + at, as->maps + at + 1, (as->n - at - 1) * sizeof(*as->maps));
	memmove(as->objs + at, as->objs + at + 1, (as->n - at - 1) * sizeof(*as->objs));
	as->n--;
}

/* Cut [start, end) out of the existing mappings, as mmap(MAP_FIXED) does. */
static void unmap_range(struct prof_addrspace *as, uint64_t start, uint64_t end)
{
	size_t i = 0;

	while (i < as->n) {
		struct prof_map *o = &as->maps[i];

		if (o->end <= start || o->start >= end) {
			i++;
		} else if (o->start < start && o->end > end) {
			struct prof_map right = *o;

			right.pgoff += end - o->start;
			right.start = end;
			o->end = start;
			map_insert(as, i + 1, &right, as->objs[i]);
			i += 2;
		} else if (o->start < start) {
			o->end = start;
			i++;
		} else if (o->end > end) {
			o->pgoff += end - o->start;
			o->start = end;
			i++;
		} else {
			map_remove(as, i);
		}
	}
}

void prof_addrspace_add_map(struct prof_addrspace *as, const struct prof_map *m)
{
	struct prof_map nm = *m;
	size_t i;

	if (m->end <= m->start)
		return;
	as->gen++;
	nm.path = prof_sym_cstr(as->s, m->path ? m->path : "");
	if (nm.build_id_len > sizeof(nm.build_id))
		nm.build_id_len = 0;
	unmap_range(as, nm.start, nm.end);
	for (i = as->n; i > 0 && as->maps[i - 1].start > nm.start; i--)
		;
	map_insert(as, i, &nm, PROF_SYM_OBJ_UNTRIED);
}

int prof_sym_parse_maps_line(const char *line, struct prof_map *m)
{
	unsigned long long start, end, off, ino;
	char perms[8];
	int pos = 0;

	if (sscanf(line, "%llx-%llx %7s %llx %*x:%*x %llu%n", &start, &end, perms, &off,
		   &ino, &pos) != 5 || strlen(perms) != 4)
		return -1;
	memset(m, 0, sizeof(*m));
	m->start = start;
	m->end = end;
	m->pgoff = off;
	while (line[pos] == ' ')
		pos++;
	m->path = line + pos;
	m->prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
		  (perms[2] == 'x' ? PROT_EXEC : 0);
	return 0;
}

int prof_addrspace_load_maps(struct prof_addrspace *as, const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	unsigned long lineno = 0;
	int rc = 0;
	ssize_t len;

	if (!f) {
		prof_warn_errno("%s", path);
		return -1;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		struct prof_map m;

		lineno++;
		if (line[len - 1] == '\n')
			line[--len] = 0;
		if (prof_sym_parse_maps_line(line, &m) != 0) {
			prof_input_warn(path, lineno, "malformed mapping line");
			rc = -1;
			continue;
		}
		prof_addrspace_add_map(as, &m);
	}
	if (ferror(f)) {
		prof_warn_errno("%s", path);
		rc = -1;
	}
	free(line);
	fclose(f);
	return rc;
}

size_t prof_sym_map_index(const struct prof_addrspace *as, uint64_t addr)
{
	size_t i = prof_sym_bisect(as->maps, as->n, sizeof(*as->maps), addr);

	if (i && addr < as->maps[i - 1].end)
		return i - 1;
	return (size_t)-1;
}

const struct prof_map *prof_addrspace_find(const struct prof_addrspace *as, uint64_t addr)
{
	size_t i = prof_sym_map_index(as, addr);

	return i == (size_t)-1 ? NULL : &as->maps[i];
}

const struct prof_map *prof_addrspace_maps(const struct prof_addrspace *as, size_t *n)
{
	*n = as->n;
	return as->maps;
}
