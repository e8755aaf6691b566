/*
 * The on-disk caches of the symbolizer (internal.h), in
 * $XDG_CACHE_HOME/proftools (else ~/.cache/proftools), files of mode
 * 0600 owned by the user, replaced whole through a rename:
 *
 *  - sym/BUILDID-OPTS: the frames of every resolved address of an object,
 *    per build-id and options (inlines, lines, demangle), so a later run
 *    opens no symbol table or DWARF for addresses it has seen. Text:
 *      PROFSYM4                   (4: PLT stubs named, Rust inlines found; older files are ignored)
 *      VADDR<TAB>NFRAMES          (hex address, then NFRAMES lines)
 *      FLAGS<TAB>LINE<TAB>FILE<TAB>NAME
 *    Only resolved addresses are kept: installing a debug file later
 *    takes effect. Disabled by opts.cache (PROFTOOLS_NO_CACHE).
 *
 *  - kallsyms-BOOTID-MODHASH: the parsed kernel text symbols, per boot
 *    and set of loaded modules (a hash of /proc/modules): reading
 *    /proc/kallsyms costs tens of milliseconds, this file one. Binary,
 *    host byte order: "PROFKSYM1\n", u64 count, count x {u64 addr,
 *    u64 name offset}, then the NUL-terminated names. Mapped and searched
 *    in place.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/sysfile.h"
#include "base/xalloc.h"
#include "symbolize/internal.h"

#define SYMCACHE_MAGIC "PROFSYM4\n"
#define SYMCACHE_MAGIC_LEN 9
#define SYMCACHE_MAX_FRAMES 64
#define KCACHE_MAGIC "PROFKSYM1\n"
#define KCACHE_MAGIC_LEN 10
#define KCACHE_HEADER (KCACHE_MAGIC_LEN + 8)
#define KCACHE_ENTRY 16
#define MODULES_MAX (1 << 20)

/*
 * The cache directory into buf: its length, or -1 without a home for it
 * or when less than 80 bytes would be left for a file name. With mkdirs,
 * it and its parent are created (mode 0700) when missing.
 */
static int cache_dir(char *buf, size_t n, int mkdirs)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int k;

	if (xdg && xdg[0] == '/')
		k = snprintf(buf, n, "%s/proftools", xdg);
	else if (home && home[0] == '/')
		k = snprintf(buf, n, "%s/.cache/proftools", home);
	else
		return -1;
	if (k <= 0 || (size_t)k + 80 >= n)
		return -1;
	if (mkdirs) {
		char *slash = strrchr(buf, '/');

		*slash = 0;
		mkdir(buf, 0700);
		*slash = '/';
		mkdir(buf, 0700);
	}
	return k;
}

/*
 * Replace path by the contents of b, mode 0600, through a temporary file
 * and rename so that readers never see half a cache file. Failures are
 * silent: a cache that cannot be written is only a slower next run.
 */
static void write_private_file(const char *path, const struct prof_buf *b)
{
	char tmp[4200];
	int fd, ok;

	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	ok = write(fd, b->data, b->len) == (ssize_t)b->len;
	if (close(fd) != 0 || !ok || rename(tmp, path) != 0)
		unlink(tmp);
}

/* ---- frames per build-id ---- */

static int symcache_path(const struct prof_symbolizer *s, const struct elfobj *o, char *buf,
			 size_t n, int mkdirs)
{
	char hex[41];
	int k;

	if (!s->opt.cache || !o->bid_len || (k = cache_dir(buf, n, mkdirs)) < 0)
		return -1;
	k += snprintf(buf + k, n - (size_t)k, "/sym");
	if (mkdirs)
		mkdir(buf, 0700);
	prof_sym_hex(hex, o->bid, o->bid_len);
	snprintf(buf + k, n - (size_t)k, "/%s-%d%d%d", hex, s->opt.inlines != 0,
		 s->opt.lines != 0, s->opt.demangle != 0);
	return 0;
}

/* The whole file, NUL-terminated, if it is ours and of a sane size; NULL otherwise. */
static char *read_private_file(const char *path, size_t min, size_t max, size_t *lenp)
{
	struct stat st;
	char *data;
	ssize_t k;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || st.st_size < (off_t)min ||
	    st.st_size > (off_t)max) {
		close(fd);
		return NULL;
	}
	*lenp = (size_t)st.st_size;
	data = xmalloc(*lenp + 1);
	k = read(fd, data, *lenp);
	close(fd);
	if (k != (ssize_t)*lenp) {
		free(data);
		return NULL;
	}
	data[*lenp] = 0;
	return data;
}

/* One "FLAGS<TAB>LINE<TAB>FILE<TAB>NAME" line at *pp into the pool. */
static int load_frame(struct prof_symbolizer *s, char **pp, char *end)
{
	char *p = *pp, *nl = memchr(p, '\n', (size_t)(end - p)), *f[4];
	unsigned long flags, line;

	if (!nl)
		return -1;
	*nl = 0;
	f[0] = p;
	for (int j = 1; j < 4; j++) {
		f[j] = strchr(f[j - 1], '\t');
		if (!f[j])
			return -1;
		*f[j]++ = 0;
	}
	flags = strtoul(f[0], NULL, 10);
	line = strtoul(f[1], NULL, 10);
	prof_sym_frame_push(s, prof_sym_cstr(s, f[3]), f[2][0] ? prof_sym_cstr(s, f[2]) : NULL,
			    (unsigned)line,
			    ((unsigned)flags & (PROF_FRAME_INLINED | PROF_FRAME_KERNEL |
						PROF_FRAME_MINIDEBUG | PROF_FRAME_DEBUGFILE |
						PROF_FRAME_GOPCLNTAB)) |
				    PROF_FRAME_CACHED);
	*pp = nl + 1;
	return 0;
}

/* One address and its frames at *pp into the address cache of object id. */
static int load_entry(struct prof_symbolizer *s, char **pp, char *end, uint32_t id)
{
	char *p = *pp, *nl = memchr(p, '\n', (size_t)(end - p)), *q;
	unsigned long long addr = strtoull(p, &q, 16);
	unsigned long nf;
	uint32_t first = (uint32_t)s->pool_len;

	if (!nl || *q != '\t')
		return -1;
	nf = strtoul(q + 1, &q, 10);
	if (q != nl || nf == 0 || nf > SYMCACHE_MAX_FRAMES)
		return -1;
	p = nl + 1;
	for (unsigned long i = 0; i < nf; i++) {
		if (load_frame(s, &p, end) != 0) {
			s->pool_len = first;
			return -1;
		}
	}
	prof_sym_cache_put(s, id + 1, addr, first, (uint32_t)nf);
	*pp = p;
	return 0;
}

void prof_sym_symcache_load(struct prof_symbolizer *s, struct elfobj *o, uint32_t id)
{
	char path[4096], *data, *p, *end;
	size_t len;

	if (symcache_path(s, o, path, sizeof(path), 0) != 0)
		return;
	data = read_private_file(path, SYMCACHE_MAGIC_LEN, 1 << 28, &len);
	if (!data)
		return;
	if (memcmp(data, SYMCACHE_MAGIC, SYMCACHE_MAGIC_LEN) == 0)
		for (p = data + SYMCACHE_MAGIC_LEN, end = data + len; p < end;)
			if (load_entry(s, &p, end, id) != 0)
				break;
	free(data);
}

static int all_known(const struct prof_frame *f, uint32_t n)
{
	for (uint32_t j = 0; j < n; j++)
		if (f[j].flags & (PROF_FRAME_UNKNOWN | PROF_FRAME_FDE))
			return 0;
	return 1;
}

void prof_sym_symcache_store(struct prof_symbolizer *s, const struct elfobj *o, uint32_t id)
{
	char path[4096];
	struct prof_buf b = PROF_BUF_INIT;

	if (symcache_path(s, o, path, sizeof(path), 1) != 0)
		return;
	prof_buf_addstr(&b, SYMCACHE_MAGIC);
	for (size_t i = 0; i < s->ncache; i++) {
		const struct cache_ent *e = &s->cache[i];
		const struct prof_frame *f = s->pool + e->first;

		if (e->obj != id + 1 || !all_known(f, e->n))
			continue;
		prof_buf_addf(&b, "%llx\t%u\n", (unsigned long long)e->addr, e->n);
		for (uint32_t j = 0; j < e->n; j++)
			prof_buf_addf(&b, "%u\t%u\t%s\t%s\n", f[j].flags & ~PROF_FRAME_CACHED, f[j].line,
				      f[j].file ? f[j].file : "", f[j].name);
	}
	write_private_file(path, &b);
	prof_buf_release(&b);
}

/* ---- kallsyms per boot ---- */

static int kcache_path(char *buf, size_t n, int mkdirs)
{
	char boot[64], *mods;
	ssize_t mlen;
	uint64_t h;
	int k = cache_dir(buf, n, 0);

	if (k < 0 || prof_read_file_line("/proc/sys/kernel/random/boot_id", boot, sizeof(boot)) <= 0)
		return -1;
	/* Module load addresses change the symbols: hash /proc/modules in. */
	mods = xmalloc(MODULES_MAX);
	mlen = prof_read_small_file("/proc/modules", mods, MODULES_MAX);
	h = prof_hash(mods, mlen > 0 ? (size_t)mlen : 0);
	free(mods);
	if (mkdirs)
		cache_dir(buf, n, 1);
	if ((size_t)snprintf(buf + k, n - (size_t)k, "/kallsyms-%s-%016llx", boot,
			     (unsigned long long)h) >= n - (size_t)k)
		return -1;
	return 0;
}

int prof_sym_kcache_load(struct prof_symbolizer *s)
{
	char path[4096];
	struct stat st;
	uint64_t count;
	void *m;
	int fd;

	if (!s->opt.cache || kcache_path(path, sizeof(path), 0) != 0)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || st.st_size < KCACHE_HEADER + 1) {
		close(fd);
		return -1;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	memcpy(&count, (const char *)m + KCACHE_MAGIC_LEN, 8);
	if (memcmp(m, KCACHE_MAGIC, KCACHE_MAGIC_LEN) != 0 || count == 0 ||
	    count > ((uint64_t)st.st_size - KCACHE_HEADER) / KCACHE_ENTRY ||
	    ((const char *)m)[st.st_size - 1] != 0) {
		munmap(m, (size_t)st.st_size);
		return -1;
	}
	s->kmap = m;
	s->kmap_len = (size_t)st.st_size;
	s->kmap_n = (size_t)count;
	return 0;
}

const char *prof_sym_kcache_find(const struct prof_symbolizer *s, uint64_t addr)
{
	const unsigned char *e = s->kmap + KCACHE_HEADER;
	size_t i = prof_sym_bisect(e, s->kmap_n, KCACHE_ENTRY, addr);
	uint64_t a, next, off;

	if (i == 0)
		return NULL;
	memcpy(&a, e + (i - 1) * KCACHE_ENTRY, 8);
	memcpy(&off, e + (i - 1) * KCACHE_ENTRY + 8, 8);
	if (i < s->kmap_n)
		memcpy(&next, e + i * KCACHE_ENTRY, 8);
	else
		next = a + 4096;
	if (addr >= next || off >= s->kmap_len)
		return NULL;
	return (const char *)s->kmap + off;
}

void prof_sym_kcache_store(const struct prof_symbolizer *s)
{
	char path[4096];
	struct prof_buf b = PROF_BUF_INIT;
	uint64_t count = s->nksyms, off;

	if (!s->opt.cache || kcache_path(path, sizeof(path), 1) != 0)
		return;
	prof_buf_add(&b, KCACHE_MAGIC, KCACHE_MAGIC_LEN);
	prof_buf_add(&b, &count, 8);
	off = KCACHE_HEADER + count * KCACHE_ENTRY;
	for (size_t i = 0; i < s->nksyms; i++) {
		uint64_t e[2] = { s->ksyms[i].addr, off };

		prof_buf_add(&b, e, KCACHE_ENTRY);
		off += strlen(s->ksyms[i].name) + 1;
	}
	for (size_t i = 0; i < s->nksyms; i++)
		prof_buf_add(&b, s->ksyms[i].name, strlen(s->ksyms[i].name) + 1);
	write_private_file(path, &b);
	prof_buf_release(&b);
}
