/*
 * JIT symbols (internal.h): /tmp/perf-PID.map, the file JIT compilers
 * (V8, the JVM with perf-map-agent, LuaJIT, ...) write for perf, one
 * "START SIZE name" line per compiled function; and the jitdump file a
 * runtime maps for perf to find (jit-PID.dump: a header, then records,
 * of which code loads and moves name code). Only anonymous memory is
 * looked up there. Both grow while the program runs: the map is read
 * again when its size or time changed, the dump read on from where it
 * was, at most every 50 ms. A process in a container writes both in
 * its own file tree, under the pid it sees itself as: they are read
 * through its root (procroot.c).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/units.h"
#include "base/xalloc.h"
#include "io/input.h"
#include "symbolize/internal.h"

_Static_assert(offsetof(struct jitsym, start) == 0, "prof_sym_bisect() keys on the first field");

#define RECHECK_NS 50000000ULL
#define RECHECK_MISS_NS 1000000ULL

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

/*
 * The perf map of as's process, opened: in a container (another root),
 * /tmp/perf-NSPID.map under its root, written by its runtime under the
 * pid it sees itself as; else, or when there is none there (an agent
 * outside wrote it, as perf also looks), /tmp/perf-PID.map here.
 */
static int jit_open(const struct prof_addrspace *as)
{
	char path[64], err[128];
	int fd = -1;

	if (as->root >= 0) {
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)as->nspid);
		fd = prof_sym_root_open(as->s, as->root, path, err, sizeof(err));
	}
	if (fd < 0) {
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)as->pid);
		fd = prof_open_regular(path, err, sizeof(err));
	}
	return fd;
}

/* Read the map of as->pid if it changed since the last read. */
static void jit_load(struct prof_addrspace *as)
{
	char *line = NULL;
	size_t lcap = 0, cap = 0;
	struct stat st;
	FILE *f;
	int fd;

	if (as->pid <= 0 || (fd = jit_open(as)) < 0)
		return;
	if (fstat(fd, &st) != 0 || (as->jit && st.st_size == as->jit_size &&
	    st.st_mtim.tv_sec == as->jit_mtime.tv_sec && st.st_mtim.tv_nsec == as->jit_mtime.tv_nsec)) {
		close(fd);
		return;
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return;
	}
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

/* jitdump (the format of perf's tools/perf/util/jitdump.h, version 1) */
#define JITDUMP_MAGIC 0x4A695444u	/* "JiTD" */
#define JIT_CODE_LOAD 0
#define JIT_CODE_MOVE 1
#define JIT_CODE_CLOSE 3
#define JITDUMP_MAX_RECORD (64u << 20)

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* The jitdump file as maps, if any: a mapped file named jit-PID.dump. */
static const char *jitdump_path(const struct prof_addrspace *as)
{
	for (size_t i = 0; i < as->n; i++) {
		const char *p = as->maps[i].path, *base = strrchr(p, '/');
		int pid, end = 0;

		if (base && sscanf(base + 1, "jit-%d.dump%n", &pid, &end) == 1 && !base[1 + end])
			return p;
	}
	return NULL;
}

/* A code load's or move's symbol added to (or moved in) as->jd. */
static void jd_add(struct prof_addrspace *as, uint64_t start, uint64_t size, const char *name)
{
	PROF_GROW(as->jd, as->njd + 1, as->jd_cap);
	as->jd[as->njd].start = start;
	as->jd[as->njd].end = start + size;
	as->jd[as->njd].name = name;
	as->njd++;
}

static void jd_move(struct prof_addrspace *as, uint64_t from, uint64_t to, uint64_t size)
{
	for (size_t i = 0; i < as->njd; i++)
		if (as->jd[i].start == from) {
			as->jd[i].start = to;
			as->jd[i].end = to + size;
			return;
		}
}

/*
 * Read the records of the jitdump after as->jd_off (the header first);
 * a record not yet written whole is read at the next look.
 */
static void jitdump_load(struct prof_addrspace *as)
{
	const char *path = jitdump_path(as);
	unsigned char hdr[40], *rec = NULL;
	size_t rec_cap = 0, before = as->njd;
	char err[256];
	int fd;

	if (!path)
		return;
	if (path != as->jd_path) {	/* a new dump (an exec): start over */
		as->njd = 0;
		as->jd_off = 0;
		as->jd_path = path;
	}
	/* mapped by the process: its path as it sees it */
	if ((fd = prof_sym_root_open(as->s, as->root, path, err, sizeof(err))) < 0)
		return;
	if (as->jd_off == 0) {
		if (pread(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) ||
		    rd32(hdr) != JITDUMP_MAGIC || rd32(hdr + 8) < sizeof(hdr)) {
			close(fd);
			return;
		}
		as->jd_off = rd32(hdr + 8);
	}
	for (;;) {
		unsigned char rh[16];
		uint32_t id, size;

		if (pread(fd, rh, sizeof(rh), as->jd_off) != (ssize_t)sizeof(rh))
			break;
		id = rd32(rh);
		size = rd32(rh + 4);
		if (size < sizeof(rh) || size > JITDUMP_MAX_RECORD || id == JIT_CODE_CLOSE)
			break;
		if (id == JIT_CODE_LOAD || id == JIT_CODE_MOVE) {
			/* the fixed part and the name: not the code bytes after it */
			size_t want = size < 16 + 40 + 4096 ? size : 16 + 40 + 4096;

			if (want > rec_cap)
				rec = xrealloc(rec, rec_cap = want);
			if (pread(fd, rec, want, as->jd_off) != (ssize_t)want)
				break;
			if (id == JIT_CODE_LOAD && want > 56) {
				/* pid, tid, vma, code_addr, code_size, code_index, name */
				const char *name = (const char *)rec + 56;
				size_t len = strnlen(name, want - 56);

				if (len < want - 56 && len)
					jd_add(as, rd64(rec + 32), rd64(rec + 40), prof_sym_str(as->s, name, len));
				else if (len == want - 56)
					break;	/* the name is not all there yet */
			} else if (id == JIT_CODE_MOVE && want >= 56) {
				/* pid, tid, vma, old_code_addr, new_code_addr, code_size */
				jd_move(as, rd64(rec + 32), rd64(rec + 40), rd64(rec + 48));
			}
		}
		as->jd_off += size;
	}
	free(rec);
	close(fd);
	if (as->njd != before && as->njd > 1)
		qsort(as->jd, as->njd, sizeof(*as->jd), jit_cmp);
}

static const struct jitsym *jit_lookup(const struct jitsym *t, size_t n, uint64_t addr)
{
	size_t i;

	if (!t)
		return NULL;
	i = prof_sym_bisect(t, n, sizeof(*t), addr);
	if (i && addr < t[i - 1].end)
		return &t[i - 1];
	return NULL;
}

/* Both sources read again: what changed of them. */
static void jit_reload(struct prof_addrspace *as, uint64_t now)
{
	as->jit_checked = now;
	jit_load(as);
	jitdump_load(as);
}

static const struct jitsym *jit_find_loaded(const struct prof_addrspace *as, uint64_t addr)
{
	const struct jitsym *j = jit_lookup(as->jit, as->njit, addr);

	return j ? j : jit_lookup(as->jd, as->njd, addr);
}

const char *prof_sym_jit_find(struct prof_addrspace *as, uint64_t addr)
{
	const struct jitsym *j = prof_sym_jit_symbol(as, addr);

	return j ? j->name : NULL;
}

const struct jitsym *prof_sym_jit_symbol(struct prof_addrspace *as, uint64_t addr)
{
	uint64_t now = prof_now_ns();
	const struct jitsym *name;

	if (!as->jit_checked || now - as->jit_checked > RECHECK_NS)
		jit_reload(as, now);
	name = jit_find_loaded(as, addr);
	/*
	 * Not there: the code may be newer than the last look (a recording
	 * drains its samples in bursts, all inside one 50 ms). Look again
	 * now, at most every millisecond: a stat and a read of what the dump
	 * gained.
	 */
	if (!name && now - as->jit_checked > RECHECK_MISS_NS) {
		jit_reload(as, now);
		name = jit_find_loaded(as, addr);
	}
	return name;
}

const char *prof_addrspace_jit_name(struct prof_addrspace *as, uint64_t addr)
{
	const struct jitsym *j;

	jit_reload(as, prof_now_ns());
	j = jit_find_loaded(as, addr);
	return j ? j->name : NULL;
}

void prof_sym_jit_release(struct prof_addrspace *as)
{
	free(as->jit);
	as->jit = NULL;
	as->njit = 0;
	free(as->jd);
	as->jd = NULL;
	as->njd = as->jd_cap = 0;
	as->jd_path = NULL;
	as->jd_off = 0;
}
