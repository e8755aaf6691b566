/*
 * The symbolizer (symbolize.h): ELF symbol tables, separate debug files,
 * DWARF inlines and lines, kallsyms, perf JIT maps, with caches.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <elfutils/libdw.h>
#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/error.h"
#include "core/intern.h"
#include "symbolize/demangle.h"
#include "symbolize/symbolize.h"
#include "base/units.h"
#include "base/xalloc.h"

#define KERNEL_OBJ 0xfffffffeu
#define NO_OBJ 0xffffffffu
#define OBJ_UNTRIED 0xfffffffdu

struct sym {
	uint64_t addr, size;
	const char *name;	/* raw (mangled), in the ELF's string data or kallsyms copy */
	unsigned char rank;	/* lower is better at equal addresses */
};

struct load {
	uint64_t off, filesz, vaddr;
};

struct cu_range {
	uint64_t lo, hi;
	Dwarf_Die cu;
};

struct elfobj {
	char *path;
	const char *base;	/* basename of path */
	int fd, dfd;
	Elf *elf, *delf;	/* main file (may be NULL), debug file (may be NULL) */
	unsigned char bid[20];
	unsigned bid_len;
	struct load *loads;
	size_t nloads;
	struct sym *syms;
	size_t nsyms;
	int loaded;		/* symbols and debug file looked for */
	int dirty;		/* resolved something not in the persistent cache */
	int dw_tried;
	Dwarf *dw;
	struct cu_range *cus;
	size_t ncus;
};

struct cache_ent {
	uint64_t addr;
	uint32_t obj;		/* 0 = empty slot; else obj index + 1 (or KERNEL_OBJ) */
	uint32_t first, n;
};

struct prof_symbolizer {
	struct prof_sym_options opt;
	struct prof_intern strs;	/* names, files, paths */
	struct prof_intern keys;	/* object keys -> object index */
	struct elfobj **objs;
	size_t nobjs, capobjs;
	struct cache_ent *cache;
	size_t ncache, cache_used;
	struct prof_frame *pool;
	size_t pool_len, pool_cap;
	/* kallsyms */
	int k_loaded, k_ok;
	struct sym *ksyms;
	size_t nksyms;
	char *kstrings;
	const unsigned char *kmap;	/* the mapped per-boot cache, if used */
	size_t kmap_len, kmap_n;
	/* demangler */
	int dem_tried;
	char *(*cxa_demangle)(const char *, char *, size_t *, int *);
	/* debuginfod (opt-in) */
	int dbgd_tried;
	void *dbgd_client;
	void *(*dbgd_begin)(void);
	int (*dbgd_find)(void *, const unsigned char *, int, char **);
};

struct jitsym {
	uint64_t start, end;
	const char *name;
};

struct prof_addrspace {
	struct prof_symbolizer *s;
	pid_t pid;
	struct prof_map *maps;
	uint32_t *objs;		/* per map: object index, NO_OBJ or OBJ_UNTRIED */
	size_t n, cap;
	unsigned long gen;
	/* /tmp/perf-PID.map */
	struct jitsym *jit;
	size_t njit;
	off_t jit_size;
	struct timespec jit_mtime;
	int jit_absent;
	uint64_t jit_checked;	/* prof_now_ns() of the last look at the map */
};

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
	return s;
}

static void symcache_store(struct prof_symbolizer *s, struct elfobj *o, uint32_t id);

static void obj_free(struct elfobj *o)
{
	if (o->dw)
		dwarf_end(o->dw);
	if (o->delf)
		elf_end(o->delf);
	if (o->elf)
		elf_end(o->elf);
	if (o->dfd >= 0)
		close(o->dfd);
	if (o->fd >= 0)
		close(o->fd);
	free(o->cus);
	free(o->syms);
	free(o->loads);
	free(o->path);
	free(o);
}

void prof_symbolizer_free(struct prof_symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nobjs; i++) {
		if (s->objs[i]->dirty)
			symcache_store(s, s->objs[i], (uint32_t)i);
		obj_free(s->objs[i]);
	}
	free(s->objs);
	free(s->cache);
	free(s->pool);
	free(s->ksyms);
	free(s->kstrings);
	if (s->kmap)
		munmap((void *)s->kmap, s->kmap_len);
	prof_intern_release(&s->strs);
	prof_intern_release(&s->keys);
	free(s);
}

static const char *str(struct prof_symbolizer *s, const char *p, size_t n)
{
	return prof_intern_str(&s->strs, prof_intern(&s->strs, p, n), NULL);
}

static const char *cstr(struct prof_symbolizer *s, const char *p)
{
	return str(s, p, strlen(p));
}

/* ---- demangling ---- */

static const char *demangle(struct prof_symbolizer *s, const char *name)
{
	char rust[4096];

	if (!s->opt.demangle || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return cstr(s, name);
	/* Rust first: __cxa_demangle leaves legacy Rust names half done. */
	if (prof_demangle_rust(name, rust, sizeof(rust)))
		return cstr(s, rust);
	if (name[1] != 'Z')
		return cstr(s, name);
	if (!s->dem_tried) {
		void *h;

		s->dem_tried = 1;
		h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
		if (h)
			*(void **)&s->cxa_demangle = dlsym(h, "__cxa_demangle");
	}
	if (s->cxa_demangle) {
		int status = 0;
		char *d = s->cxa_demangle(name, NULL, NULL, &status);

		if (d && status == 0) {
			const char *r = cstr(s, d);

			free(d);
			return r;
		}
		free(d);
	}
	return cstr(s, name);
}

/* ---- ELF objects ---- */

static int elf_build_id(Elf *e, unsigned char *bid, unsigned *len)
{
	Elf_Scn *scn = NULL;

	*len = 0;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t off = 0, noff, doff;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp((char *)d->d_buf + noff, "GNU", 4) == 0 &&
			    nh.n_descsz > 0 && nh.n_descsz <= 20) {
				memcpy(bid, (char *)d->d_buf + doff, nh.n_descsz);
				*len = nh.n_descsz;
				return 0;
			}
		}
	}
	return -1;
}

static Elf *open_elf(const char *path, int *fdp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e;

	*fdp = -1;
	if (fd < 0)
		return NULL;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		close(fd);
		return NULL;
	}
	*fdp = fd;
	return e;
}

static Elf_Scn *find_section(Elf *e, const char *name, GElf_Shdr *shp)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, shp))
			continue;
		n = elf_strptr(e, shstrndx, shp->sh_name);
		if (n && strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

static int has_section_type(Elf *e, unsigned type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return 1;
	return 0;
}

static int has_debug_info(Elf *e)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(e, ".debug_info", &sh);

	return scn && sh.sh_type != SHT_NOBITS;
}

/* Try a candidate debug file; keep it if its build-id matches (when known). */
static int try_debug(struct elfobj *o, const char *path)
{
	int fd;
	Elf *e;
	unsigned char bid[20];
	unsigned len;

	if (o->path && strcmp(path, o->path) == 0)
		return 0;
	e = open_elf(path, &fd);
	if (!e)
		return 0;
	if (o->bid_len) {
		if (elf_build_id(e, bid, &len) != 0 || len != o->bid_len ||
		    memcmp(bid, o->bid, len) != 0) {
			elf_end(e);
			close(fd);
			return 0;
		}
	}
	o->delf = e;
	o->dfd = fd;
	return 1;
}

static void debuginfod_lookup(struct prof_symbolizer *s, struct elfobj *o)
{
	char *path = NULL;
	int fd;

	if (!s->dbgd_tried) {
		void *h;

		s->dbgd_tried = 1;
		h = dlopen("libdebuginfod.so.1", RTLD_LAZY | RTLD_LOCAL);
		if (h) {
			*(void **)&s->dbgd_begin = dlsym(h, "debuginfod_begin");
			*(void **)&s->dbgd_find = dlsym(h, "debuginfod_find_debuginfo");
			if (s->dbgd_begin && s->dbgd_find)
				s->dbgd_client = s->dbgd_begin();
		}
		if (!s->dbgd_client)
			prof_warn("debuginfod: client library libdebuginfod.so.1 not available");
	}
	if (!s->dbgd_client || !o->bid_len)
		return;
	fd = s->dbgd_find(s->dbgd_client, o->bid, (int)o->bid_len, &path);
	if (fd >= 0) {
		close(fd);
		if (path)
			try_debug(o, path);
	}
	free(path);
}

static void find_debug_file(struct prof_symbolizer *s, struct elfobj *o)
{
	char buf[4096];
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (o->bid_len) {
		int n = snprintf(buf, sizeof(buf), "/usr/lib/debug/.build-id/%02x/", o->bid[0]);

		for (unsigned i = 1; i < o->bid_len; i++)
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%02x", o->bid[i]);
		snprintf(buf + n, sizeof(buf) - (size_t)n, ".debug");
		if (try_debug(o, buf))
			return;
	}
	if (o->elf && o->path && (scn = find_section(o->elf, ".gnu_debuglink", &sh))) {
		Elf_Data *d = elf_getdata(scn, NULL);

		if (d && d->d_size > 1 && memchr(d->d_buf, 0, d->d_size)) {
			const char *link = d->d_buf;
			const char *slash = strrchr(o->path, '/');
			int dirlen = slash ? (int)(slash - o->path) : 0;
			const char *dir = slash ? o->path : ".";

			if (!slash)
				dirlen = 1;
			snprintf(buf, sizeof(buf), "%.*s/%s", dirlen, dir, link);
			if (try_debug(o, buf))
				return;
			snprintf(buf, sizeof(buf), "%.*s/.debug/%s", dirlen, dir, link);
			if (try_debug(o, buf))
				return;
			snprintf(buf, sizeof(buf), "/usr/lib/debug%.*s/%s", dirlen, dir, link);
			if (try_debug(o, buf))
				return;
		}
	}
	if (s->opt.debuginfod)
		debuginfod_lookup(s, o);
}

static void add_syms_from(struct elfobj *o, Elf *e, size_t *cap)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *d;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		if (sh.sh_entsize == 0)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < n; i++) {
			GElf_Sym sym;
			const char *name;
			int type, bind;

			if (!gelf_getsym(d, (int)i, &sym))
				continue;
			type = GELF_ST_TYPE(sym.st_info);
			bind = GELF_ST_BIND(sym.st_info);
			if (type != STT_FUNC && type != STT_GNU_IFUNC)
				continue;
			if (sym.st_shndx == SHN_UNDEF || sym.st_value == 0)
				continue;
			name = elf_strptr(e, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			PROF_GROW(o->syms, o->nsyms + 1, *cap);
			o->syms[o->nsyms].addr = sym.st_value;
			o->syms[o->nsyms].size = sym.st_size;
			o->syms[o->nsyms].name = name;
			o->syms[o->nsyms].rank = (unsigned char)((bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2) +
				(sym.st_size ? 0 : 4) + (sh.sh_type == SHT_DYNSYM ? 0 : 0));
			o->nsyms++;
		}
	}
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
	return strcmp(x->name, y->name);
}

static void sort_syms(struct sym *syms, size_t *np)
{
	size_t n = *np, w = 0;

	if (n > 1)
		qsort(syms, n, sizeof(*syms), sym_cmp);
	for (size_t i = 0; i < n; i++) {
		if (w && syms[w - 1].addr == syms[i].addr)
			continue;
		syms[w++] = syms[i];
	}
	/* Symbols without a size reach to the next one. */
	for (size_t i = 0; i < w; i++)
		if (syms[i].size == 0)
			syms[i].size = i + 1 < w ? syms[i + 1].addr - syms[i].addr : 4096;
	*np = w;
}

static void read_loads(struct elfobj *o, Elf *e)
{
	size_t nph;

	if (elf_getphdrnum(e, &nph) != 0)
		return;
	o->loads = xcalloc(nph ? nph : 1, sizeof(*o->loads));
	o->nloads = 0;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		o->loads[o->nloads].off = ph.p_offset;
		o->loads[o->nloads].filesz = ph.p_filesz;
		o->loads[o->nloads].vaddr = ph.p_vaddr;
		o->nloads++;
	}
}

/* The costly part of opening an object, done on the first cache miss. */
static void obj_load(struct prof_symbolizer *s, struct elfobj *o)
{
	size_t cap = 0;

	o->loaded = 1;
	if (!o->elf || !has_section_type(o->elf, SHT_SYMTAB) || !has_debug_info(o->elf))
		find_debug_file(s, o);
	if (o->delf) {
		add_syms_from(o, o->delf, &cap);
		/* Main file unusable: the debug file keeps the program headers. */
		if (!o->loads)
			read_loads(o, o->delf);
	}
	if (o->elf)
		add_syms_from(o, o->elf, &cap);
	sort_syms(o->syms, &o->nsyms);
}

/* ---- the persistent cache of resolved addresses, per build-id ---- */

/*
 * $XDG_CACHE_HOME/proftools/sym/BUILDID-OPTS (else ~/.cache/...), mode
 * 0600, text:
 *   PROFSYM2                   (2: Rust names demangled; older files are ignored)
 *   VADDR<TAB>NFRAMES          (hex address, then NFRAMES lines)
 *   FLAGS<TAB>LINE<TAB>FILE<TAB>NAME
 * Only resolved addresses are kept. Disabled by PROFTOOLS_NO_CACHE.
 */
static int symcache_path(const struct prof_symbolizer *s, const struct elfobj *o, char *buf,
			 size_t n, int mkdirs)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int k;

	if (!s->opt.cache || !o->bid_len)
		return -1;
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
	k += snprintf(buf + k, n - (size_t)k, "/sym");
	if (mkdirs)
		mkdir(buf, 0700);
	buf[k++] = '/';
	for (unsigned i = 0; i < o->bid_len; i++)
		k += snprintf(buf + k, n - (size_t)k, "%02x", o->bid[i]);
	snprintf(buf + k, n - (size_t)k, "-%d%d%d", s->opt.inlines != 0, s->opt.lines != 0,
		 s->opt.demangle != 0);
	return 0;
}

static void cache_put(struct prof_symbolizer *s, uint32_t obj, uint64_t addr,
		      uint32_t first, uint32_t n);
static void frame_push(struct prof_symbolizer *s, const char *name, const char *file,
		       unsigned line, unsigned flags);

static void symcache_load(struct prof_symbolizer *s, struct elfobj *o, uint32_t id)
{
	char path[4096], *data, *p, *end;
	size_t len;
	struct stat st;
	int fd;
	ssize_t k;

	if (symcache_path(s, o, path, sizeof(path), 0) != 0)
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || st.st_size < 9 ||
	    st.st_size > (1 << 28)) {
		close(fd);
		return;
	}
	len = (size_t)st.st_size;
	data = xmalloc(len + 1);
	k = read(fd, data, len);
	close(fd);
	if (k != (ssize_t)len || memcmp(data, "PROFSYM2\n", 9) != 0) {
		free(data);
		return;
	}
	data[len] = 0;
	for (p = data + 9, end = data + len; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *q;
		unsigned long long addr = strtoull(p, &q, 16);
		unsigned long nf;
		uint32_t first = (uint32_t)s->pool_len;

		if (!nl || *q != '\t')
			break;
		nf = strtoul(q + 1, &q, 10);
		if (q != nl || nf == 0 || nf > 64)
			break;
		p = nl + 1;
		for (unsigned long i = 0; i < nf; i++) {
			char *f[4];
			unsigned long flags, line;

			nl = memchr(p, '\n', (size_t)(end - p));
			if (!nl)
				goto bad;
			*nl = 0;
			f[0] = p;
			for (int j = 1; j < 4; j++) {
				f[j] = strchr(f[j - 1], '\t');
				if (!f[j])
					goto bad;
				*f[j]++ = 0;
			}
			flags = strtoul(f[0], NULL, 10);
			line = strtoul(f[1], NULL, 10);
			frame_push(s, cstr(s, f[3]), f[2][0] ? cstr(s, f[2]) : NULL, (unsigned)line,
				   (unsigned)flags & (PROF_FRAME_INLINED | PROF_FRAME_KERNEL));
			p = nl + 1;
		}
		cache_put(s, id + 1, addr, first, (uint32_t)nf);
		continue;
bad:
		s->pool_len = first;
		break;
	}
	free(data);
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

static void symcache_store(struct prof_symbolizer *s, struct elfobj *o, uint32_t id)
{
	char path[4096];
	struct prof_buf b = PROF_BUF_INIT;

	if (symcache_path(s, o, path, sizeof(path), 1) != 0)
		return;
	prof_buf_addstr(&b, "PROFSYM2\n");
	for (size_t i = 0; i < s->ncache; i++) {
		const struct cache_ent *e = &s->cache[i];
		int known = 1;

		if (e->obj != id + 1)
			continue;
		for (uint32_t j = 0; j < e->n; j++)
			if (s->pool[e->first + j].flags & PROF_FRAME_UNKNOWN)
				known = 0;
		if (!known)
			continue;
		prof_buf_addf(&b, "%llx\t%u\n", (unsigned long long)e->addr, e->n);
		for (uint32_t j = 0; j < e->n; j++) {
			const struct prof_frame *f = &s->pool[e->first + j];

			prof_buf_addf(&b, "%u\t%u\t%s\t%s\n", f->flags, f->line, f->file ? f->file : "",
				      f->name);
		}
	}
	write_private_file(path, &b);
	prof_buf_release(&b);
}

/* A path naming a file (not "//anon", "/memfd:...", "[vdso]", ""). */
static int is_file(const char *path)
{
	return path[0] == '/' && path[1] != '/' && strncmp(path, "/memfd:", 7) != 0 &&
	       strncmp(path, "/dev/zero", 9) != 0 && strncmp(path, "/SYSV", 5) != 0;
}

static uint32_t obj_get(struct prof_symbolizer *s, const char *path,
			const unsigned char *bid, unsigned bid_len)
{
	char key[4200];
	size_t klen;
	uint32_t id;
	struct elfobj *o;
	struct stat st;

	if (!path || !is_file(path))
		return NO_OBJ;
	if (bid_len) {
		klen = 0;
		key[klen++] = 'B';
		for (unsigned i = 0; i < bid_len; i++)
			klen += (size_t)snprintf(key + klen, sizeof(key) - klen, "%02x", bid[i]);
	} else {
		if (stat(path, &st) != 0)
			return NO_OBJ;
		klen = (size_t)snprintf(key, sizeof(key), "P%s:%llx:%llx:%llx", path,
					(unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
					(unsigned long long)st.st_size);
		if (klen >= sizeof(key))
			return NO_OBJ;
	}
	id = prof_intern_find(&s->keys, key, klen);
	if (id != UINT32_MAX)
		return id;
	id = prof_intern(&s->keys, key, klen);
	o = xcalloc(1, sizeof(*o));
	o->fd = o->dfd = -1;
	o->path = xstrdup(path);
	o->base = strrchr(o->path, '/') + 1;
	o->elf = open_elf(path, &o->fd);
	if (o->elf) {
		unsigned char fbid[20];
		unsigned flen;

		if (elf_build_id(o->elf, fbid, &flen) == 0) {
			if (bid_len && (flen != bid_len || memcmp(fbid, bid, flen) != 0)) {
				/* A different file now lives at this path. */
				elf_end(o->elf);
				close(o->fd);
				o->elf = NULL;
				o->fd = -1;
			} else if (!bid_len) {
				memcpy(o->bid, fbid, flen);
				o->bid_len = flen;
			}
		}
	}
	if (bid_len) {
		memcpy(o->bid, bid, bid_len);
		o->bid_len = bid_len;
	}
	PROF_GROW(s->objs, s->nobjs + 1, s->capobjs);
	s->objs[s->nobjs++] = o;
	if (o->elf)
		read_loads(o, o->elf);
	else
		obj_load(s, o);	/* the debug file may hold the program headers */
	symcache_load(s, o, id);
	return id;
}

static const struct sym *sym_find(const struct sym *syms, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	if (addr - syms[lo - 1].addr < syms[lo - 1].size)
		return &syms[lo - 1];
	return NULL;
}

/* ---- DWARF ---- */

static int cu_cmp(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void obj_dwarf(struct elfobj *o)
{
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Die cudie;
	Elf *e = NULL;
	size_t cap = 0;
	uint8_t unit_type;
	Dwarf_Half version;

	o->dw_tried = 1;
	if (o->delf && has_debug_info(o->delf))
		e = o->delf;
	else if (o->elf && has_debug_info(o->elf))
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
	size_t lo = 0, hi = o->ncus;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->cus[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Ranges may nest or overlap a little: look back a few. */
	for (size_t i = lo, k = 0; i > 0 && k < 8; i--, k++)
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

static void frame_push(struct prof_symbolizer *s, const char *name, const char *file,
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

static const char *file_of(struct prof_symbolizer *s, Dwarf_Files *files, size_t nfiles, Dwarf_Word idx)
{
	const char *f;

	if (!files || idx >= nfiles)
		return NULL;
	f = dwarf_filesrc(files, idx, NULL, NULL);
	return f ? cstr(s, f) : NULL;
}

/*
 * Push the frames for pc (object vaddr) of o: inline chain from DWARF when
 * wanted and available, then the real function. Returns frames pushed.
 */
static size_t resolve_obj(struct prof_symbolizer *s, struct elfobj *o, uint64_t pc)
{
	const struct sym *sym;
	const char *outer_name;
	const char *outer_file = NULL;
	unsigned outer_line = 0;
	size_t start = s->pool_len;

	if (!o->loaded)
		obj_load(s, o);
	o->dirty = 1;
	sym = sym_find(o->syms, o->nsyms, pc);
	outer_name = sym ? demangle(s, sym->name) : NULL;

	if (s->opt.inlines || s->opt.lines) {
		Dwarf_Die *cu;

		if (!o->dw_tried)
			obj_dwarf(o);
		if (o->dw && (cu = cu_find(o, pc))) {
			Dwarf_Die *scopes = NULL, *chain = NULL;
			Dwarf_Files *files = NULL;
			size_t nfiles = 0;
			int n, m = 0;
			const char *file = NULL;
			unsigned line = 0;

			if (s->opt.lines) {
				Dwarf_Line *l = dwarf_getsrc_die(cu, pc);
				int ln;

				if (l) {
					const char *f = dwarf_linesrc(l, NULL, NULL);

					file = f ? cstr(s, f) : NULL;
					if (dwarf_lineno(l, &ln) == 0)
						line = (unsigned)ln;
				}
				if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
					files = NULL;
			}
			n = dwarf_getscopes(cu, pc, &scopes);
			if (n > 0) {
				Dwarf_Die first = scopes[0];

				m = dwarf_getscopes_die(&first, &chain);
			}
			for (int i = 0; i < m; i++) {
				int tag = dwarf_tag(&chain[i]);
				Dwarf_Attribute a;
				Dwarf_Word w;

				if (tag == DW_TAG_inlined_subroutine && s->opt.inlines) {
					const char *nm = die_linkage(&chain[i]);

					frame_push(s, nm ? demangle(s, nm) : cstr(s, "[unknown]"),
						   file, line, PROF_FRAME_INLINED);
					/* The caller's position is this call site. */
					file = NULL;
					line = 0;
					if (s->opt.lines) {
						if (dwarf_attr(&chain[i], DW_AT_call_file, &a) &&
						    dwarf_formudata(&a, &w) == 0)
							file = file_of(s, files, nfiles, w);
						if (dwarf_attr(&chain[i], DW_AT_call_line, &a) &&
						    dwarf_formudata(&a, &w) == 0)
							line = (unsigned)w;
					}
				} else if (tag == DW_TAG_subprogram) {
					if (!outer_name) {
						const char *nm = die_linkage(&chain[i]);

						if (nm)
							outer_name = demangle(s, nm);
					}
					break;
				}
			}
			outer_file = file;
			outer_line = line;
			free(scopes);
			free(chain);
		}
	}
	if (!outer_name) {
		s->pool_len = start;
		return 0;
	}
	frame_push(s, outer_name, outer_file, outer_line, 0);
	return s->pool_len - start;
}

/* ---- kernel ---- */

/*
 * The parsed kernel text symbols are cached per boot (and set of loaded
 * modules) in $XDG_CACHE_HOME/proftools (else ~/.cache/proftools), mode
 * 0600: reading /proc/kallsyms costs tens of milliseconds, the cache one.
 * File: "PROFKSYM1\n", u64 count, count x {u64 addr, u64 name offset},
 * then the NUL-terminated names.
 */
#define KCACHE_MAGIC "PROFKSYM1\n"

static int kcache_path(char *buf, size_t n, int mkdirs)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char boot[64] = "", dir[3800];
	int fd;
	ssize_t k;
	uint64_t h;
	char *mods;
	size_t mlen = 0, mcap = 1 << 16;

	if (xdg && xdg[0] == '/')
		snprintf(dir, sizeof(dir), "%s/proftools", xdg);
	else if (home && home[0] == '/')
		snprintf(dir, sizeof(dir), "%s/.cache/proftools", home);
	else
		return -1;
	fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	k = read(fd, boot, sizeof(boot) - 1);
	close(fd);
	if (k <= 0)
		return -1;
	boot[strcspn(boot, "\n")] = 0;
	/* Module load addresses change the symbols: hash /proc/modules in. */
	mods = xmalloc(mcap);
	fd = open("/proc/modules", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		while ((k = read(fd, mods + mlen, mcap - mlen)) > 0) {
			mlen += (size_t)k;
			if (mlen == mcap)
				mods = xrealloc(mods, mcap *= 2);
		}
		close(fd);
	}
	h = prof_hash(mods, mlen);
	free(mods);
	if (mkdirs) {
		char parent[3800];

		snprintf(parent, sizeof(parent), "%s", dir);
		*strrchr(parent, '/') = 0;
		mkdir(parent, 0700);
		mkdir(dir, 0700);
	}
	return snprintf(buf, n, "%s/kallsyms-%s-%016llx", dir, boot, (unsigned long long)h) < (int)n ? 0 : -1;
}

static int kcache_load(struct prof_symbolizer *s)
{
	char path[4096];
	struct stat st;
	uint64_t count;
	void *m;
	int fd;

	if (kcache_path(path, sizeof(path), 0) != 0)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || st.st_size < 19) {
		close(fd);
		return -1;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	memcpy(&count, (const char *)m + 10, 8);
	if (memcmp(m, KCACHE_MAGIC, 10) != 0 || count == 0 ||
	    count > ((uint64_t)st.st_size - 18) / 16 ||
	    ((const char *)m)[st.st_size - 1] != 0) {
		munmap(m, (size_t)st.st_size);
		return -1;
	}
	/* Searched in place (kmap_find): nothing to convert. */
	s->kmap = m;
	s->kmap_len = (size_t)st.st_size;
	s->kmap_n = (size_t)count;
	return 0;
}

/* Bisect the mapped cache: the name of the symbol holding addr, or NULL. */
static const char *kmap_find(const struct prof_symbolizer *s, uint64_t addr)
{
	const unsigned char *e = s->kmap + 18;
	size_t lo = 0, hi = s->kmap_n;
	uint64_t a, next, off;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		memcpy(&a, e + mid * 16, 8);
		if (a <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	memcpy(&a, e + (lo - 1) * 16, 8);
	memcpy(&off, e + (lo - 1) * 16 + 8, 8);
	if (lo < s->kmap_n)
		memcpy(&next, e + lo * 16, 8);
	else
		next = a + 4096;
	if (addr >= next || off >= s->kmap_len)
		return NULL;
	return (const char *)s->kmap + off;
}

static void kcache_store(struct prof_symbolizer *s)
{
	char path[4096];
	struct prof_buf b = PROF_BUF_INIT;
	uint64_t count = s->nksyms, off;

	if (kcache_path(path, sizeof(path), 1) != 0)
		return;
	prof_buf_add(&b, KCACHE_MAGIC, 10);
	prof_buf_add(&b, &count, 8);
	off = 18 + count * 16;
	for (size_t i = 0; i < s->nksyms; i++) {
		uint64_t e[2] = { s->ksyms[i].addr, off };

		prof_buf_add(&b, e, 16);
		off += strlen(s->ksyms[i].name) + 1;
	}
	for (size_t i = 0; i < s->nksyms; i++)
		prof_buf_add(&b, s->ksyms[i].name, strlen(s->ksyms[i].name) + 1);
	write_private_file(path, &b);
	prof_buf_release(&b);
}

static void kallsyms_load(struct prof_symbolizer *s)
{
	size_t len = 0, cap = 0, scap = 0;
	int fd, nonzero = 0, sorted = 1;
	ssize_t n;
	char *p, *end;

	s->k_loaded = 1;
	if (kcache_load(s) == 0) {
		s->k_ok = 1;
		return;
	}
	fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	/* Read it whole, in big chunks (each read(2) walks the symbol table). */
	for (;;) {
		if (cap - len < (1 << 16)) {
			cap = cap ? cap * 2 : (8 << 20);
			s->kstrings = xrealloc(s->kstrings, cap + 1);
		}
		n = read(fd, s->kstrings + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (!s->kstrings)
		return;
	s->kstrings[len] = 0;
	/* Parse in place: "ADDR T name[\t[module]]\n"; names stay in the buffer. */
	for (p = s->kstrings, end = p + len; p < end; p = strchr(p, 0) + 1) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *q, *name;
		unsigned long long a;
		char type;

		if (!nl)
			nl = end;
		*nl = 0;
		a = strtoull(p, &q, 16);
		if (q == p || q[0] != ' ' || !q[1] || q[2] != ' ')
			continue;
		type = q[1];
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		name = q + 3;
		q = strchr(name, '\t');
		if (q)
			*q = 0;
		if (a)
			nonzero = 1;
		PROF_GROW(s->ksyms, s->nksyms + 1, scap);
		if (s->nksyms && s->ksyms[s->nksyms - 1].addr > a)
			sorted = 0;
		s->ksyms[s->nksyms].addr = a;
		s->ksyms[s->nksyms].size = 0;
		s->ksyms[s->nksyms].rank = type == 'T' ? 0 : 1;
		s->ksyms[s->nksyms].name = name;
		s->nksyms++;
	}
	if (!nonzero) {
		free(s->ksyms);
		s->ksyms = NULL;
		s->nksyms = 0;
		return;
	}
	if (sorted) {
		/* The usual case: only fill the sizes, keep the first of equal addresses. */
		size_t w = 0;

		for (size_t i = 0; i < s->nksyms; i++) {
			if (w && s->ksyms[w - 1].addr == s->ksyms[i].addr)
				continue;
			s->ksyms[w++] = s->ksyms[i];
		}
		for (size_t i = 0; i < w; i++)
			s->ksyms[i].size = i + 1 < w ? s->ksyms[i + 1].addr - s->ksyms[i].addr : 4096;
		s->nksyms = w;
	} else {
		sort_syms(s->ksyms, &s->nksyms);
	}
	s->k_ok = 1;
	kcache_store(s);
}

int prof_symbolizer_kernel_ok(struct prof_symbolizer *s)
{
	if (!s->k_loaded)
		kallsyms_load(s);
	return s->k_ok;
}

/* ---- the address cache ---- */

static uint64_t cache_hash(uint32_t obj, uint64_t addr)
{
	uint64_t h = addr * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)obj << 32 | obj);

	return h ^ (h >> 29);
}

static struct cache_ent *cache_slot(struct prof_symbolizer *s, uint32_t obj, uint64_t addr)
{
	size_t mask = s->ncache - 1;
	size_t i = (size_t)cache_hash(obj, addr) & mask;

	while (s->cache[i].obj && !(s->cache[i].obj == obj && s->cache[i].addr == addr))
		i = (i + 1) & mask;
	return &s->cache[i];
}

static void cache_put(struct prof_symbolizer *s, uint32_t obj, uint64_t addr,
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
				*cache_slot(s, old[i].obj, old[i].addr) = old[i];
		free(old);
	}
	e = cache_slot(s, obj, addr);
	if (!e->obj)
		s->cache_used++;
	e->obj = obj;
	e->addr = addr;
	e->first = first;
	e->n = n;
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

static size_t resolve_kernel(struct prof_symbolizer *s, uint64_t addr,
			     struct prof_frame *out, size_t max)
{
	struct cache_ent *e;
	const struct sym *sym;
	const char *name;
	uint32_t first = (uint32_t)s->pool_len;

	if (!prof_symbolizer_kernel_ok(s))
		return one_frame(out, max, cstr(s, "[unknown]"), PROF_FRAME_KERNEL | PROF_FRAME_UNKNOWN);
	e = cache_slot(s, KERNEL_OBJ, addr);
	if (e->obj)
		return copy_out(s, e->first, e->n, out, max);
	if (s->kmap) {
		name = kmap_find(s, addr);
	} else {
		sym = sym_find(s->ksyms, s->nksyms, addr);
		name = sym ? sym->name : NULL;
	}
	frame_push(s, name ? cstr(s, name) : cstr(s, "[unknown]"), NULL, 0,
		   PROF_FRAME_KERNEL | (name ? 0 : PROF_FRAME_UNKNOWN));
	cache_put(s, KERNEL_OBJ, addr, first, 1);
	return copy_out(s, first, 1, out, max);
}

/* ---- JIT maps ---- */

static int jit_cmp(const void *a, const void *b)
{
	const struct jitsym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void jit_load(struct prof_addrspace *as)
{
	char path[64], *line = NULL;
	size_t lcap = 0, cap = 0;
	struct stat st;
	FILE *f;

	if (as->pid <= 0)
		return;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)as->pid);
	if (stat(path, &st) != 0) {
		as->jit_absent = 1;
		return;
	}
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
		char *p = line, *end;
		unsigned long long start, size;
		size_t len;

		start = strtoull(p, &end, 16);
		if (end == p || *end != ' ')
			continue;
		p = end + 1;
		size = strtoull(p, &end, 16);
		if (end == p || *end != ' ')
			continue;
		p = end + 1;
		len = strcspn(p, "\n");
		PROF_GROW(as->jit, as->njit + 1, cap);
		as->jit[as->njit].start = start;
		as->jit[as->njit].end = start + size;
		as->jit[as->njit].name = str(as->s, p, len);
		as->njit++;
	}
	free(line);
	fclose(f);
	if (as->njit > 1)
		qsort(as->jit, as->njit, sizeof(*as->jit), jit_cmp);
}

static const char *jit_find(struct prof_addrspace *as, uint64_t addr)
{
	for (int pass = 0; pass < 2; pass++) {
		size_t lo = 0, hi = as->njit;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (as->jit[mid].start <= addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && addr < as->jit[lo - 1].end)
			return as->jit[lo - 1].name;
		break;
	}
	return NULL;
}

/* ---- the address spaces ---- */

struct prof_addrspace *prof_addrspace_new(struct prof_symbolizer *s, pid_t pid)
{
	struct prof_addrspace *as = xcalloc(1, sizeof(*as));

	as->s = s;
	as->pid = pid;
	return as;
}

void prof_addrspace_free(struct prof_addrspace *as)
{
	if (!as)
		return;
	free(as->maps);
	free(as->objs);
	free(as->jit);
	free(as);
}

struct prof_addrspace *prof_addrspace_clone(const struct prof_addrspace *src, pid_t pid)
{
	struct prof_addrspace *as = prof_addrspace_new(src->s, pid);

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
	free(as->jit);
	as->jit = NULL;
	as->njit = 0;
	as->jit_absent = 0;
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

void prof_addrspace_add_map(struct prof_addrspace *as, const struct prof_map *m)
{
	struct prof_map nm = *m;
	size_t i = 0;

	if (m->end <= m->start)
		return;
	as->gen++;
	nm.path = cstr(as->s, m->path ? m->path : "");
	if (nm.build_id_len > sizeof(nm.build_id))
		nm.build_id_len = 0;
	/* Cut the overlapped parts of existing mappings. */
	while (i < as->n) {
		struct prof_map *o = &as->maps[i];

		if (o->end <= nm.start || o->start >= nm.end) {
			i++;
			continue;
		}
		if (o->start < nm.start && o->end > nm.end) {
			struct prof_map right = *o;

			right.pgoff += nm.end - o->start;
			right.start = nm.end;
			o->end = nm.start;
			map_insert(as, i + 1, &right, as->objs[i]);
			i += 2;
		} else if (o->start < nm.start) {
			o->end = nm.start;
			i++;
		} else if (o->end > nm.end) {
			o->pgoff += nm.end - o->start;
			o->start = nm.end;
			i++;
		} else {
			memmove(as->maps + i, as->maps + i + 1, (as->n - i - 1) * sizeof(*as->maps));
			memmove(as->objs + i, as->objs + i + 1, (as->n - i - 1) * sizeof(*as->objs));
			as->n--;
		}
	}
	for (i = as->n; i > 0 && as->maps[i - 1].start > nm.start; i--)
		;
	map_insert(as, i, &nm, OBJ_UNTRIED);
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
		unsigned long long start, end, off, ino;
		char perms[8];
		int pos = 0;
		struct prof_map m;

		lineno++;
		if (line[len - 1] == '\n')
			line[--len] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*x:%*x %llu%n", &start, &end, perms, &off,
			   &ino, &pos) != 5 || strlen(perms) != 4) {
			prof_input_warn(path, lineno, "malformed mapping line");
			rc = -1;
			continue;
		}
		memset(&m, 0, sizeof(m));
		m.start = start;
		m.end = end;
		m.pgoff = off;
		while (line[pos] == ' ')
			pos++;
		m.path = line + pos;
		m.prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
			 (perms[2] == 'x' ? PROT_EXEC : 0);
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

static size_t map_index(const struct prof_addrspace *as, uint64_t addr)
{
	size_t lo = 0, hi = as->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (as->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr < as->maps[lo - 1].end)
		return lo - 1;
	return (size_t)-1;
}

const struct prof_map *prof_addrspace_find(const struct prof_addrspace *as, uint64_t addr)
{
	size_t i = map_index(as, addr);

	return i == (size_t)-1 ? NULL : &as->maps[i];
}

const struct prof_map *prof_addrspace_maps(const struct prof_addrspace *as, size_t *n)
{
	*n = as->n;
	return as->maps;
}

/* File offset -> object virtual address through the PT_LOAD segments. */
static int off_to_vaddr(const struct elfobj *o, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < o->nloads; i++)
		if (off >= o->loads[i].off && off < o->loads[i].off + o->loads[i].filesz) {
			*vaddr = off - o->loads[i].off + o->loads[i].vaddr;
			return 0;
		}
	return -1;
}

size_t prof_symbolize(struct prof_symbolizer *s, struct prof_addrspace *as,
		      uint64_t addr, unsigned flags, struct prof_frame *out, size_t max)
{
	size_t mi;
	uint64_t off, vaddr;
	uint32_t obj, first;
	struct cache_ent *e;
	size_t n;
	char buf[512];
	const char *jit;

	if (!max)
		return 0;
	if (flags & PROF_SYM_RETURN)
		addr--;
	if ((flags & PROF_SYM_KERNEL) || !as)
		return resolve_kernel(s, addr, out, max);
	mi = map_index(as, addr);
	if (mi == (size_t)-1 || !is_file(as->maps[mi].path)) {
		/* JIT code: the map may appear or grow while the program runs;
		 * look at it again at most every 50 ms. */
		uint64_t now = prof_now_ns();

		if (!as->jit_checked || now - as->jit_checked > 50000000ULL) {
			as->jit_checked = now;
			jit_load(as);
		}
		if (as->jit && (jit = jit_find(as, addr)))
			return one_frame(out, max, jit, 0);
		if (mi != (size_t)-1 && as->maps[mi].path[0] == '[') {
			snprintf(buf, sizeof(buf), "%s+0x%llx", as->maps[mi].path,
				 (unsigned long long)(addr - as->maps[mi].start));
			return one_frame(out, max, cstr(s, buf), PROF_FRAME_UNKNOWN);
		}
		return one_frame(out, max, cstr(s, "[unknown]"), PROF_FRAME_UNKNOWN);
	}
	if (as->objs[mi] == OBJ_UNTRIED)
		as->objs[mi] = obj_get(s, as->maps[mi].path, as->maps[mi].build_id,
				       as->maps[mi].build_id_len);
	obj = as->objs[mi];
	off = addr - as->maps[mi].start + as->maps[mi].pgoff;
	if (obj != NO_OBJ && off_to_vaddr(s->objs[obj], off, &vaddr) == 0) {
		e = cache_slot(s, obj + 1, vaddr);
		if (e->obj)
			return copy_out(s, e->first, e->n, out, max);
		first = (uint32_t)s->pool_len;
		n = resolve_obj(s, s->objs[obj], vaddr);
		if (!n) {
			snprintf(buf, sizeof(buf), "%s+0x%llx", s->objs[obj]->base,
				 (unsigned long long)off);
			frame_push(s, cstr(s, buf), NULL, 0, PROF_FRAME_UNKNOWN);
			n = 1;
		}
		cache_put(s, obj + 1, vaddr, first, (uint32_t)n);
		return copy_out(s, first, (uint32_t)n, out, max);
	}
	{
		const char *slash = strrchr(as->maps[mi].path, '/');

		snprintf(buf, sizeof(buf), "%s+0x%llx", slash ? slash + 1 : as->maps[mi].path,
			 (unsigned long long)off);
	}
	return one_frame(out, max, cstr(s, buf), PROF_FRAME_UNKNOWN);
}
