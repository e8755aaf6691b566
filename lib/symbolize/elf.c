/*
 * ELF objects (internal.h): each file is opened once per build-id (or per
 * path, device, inode and size when it has none), its PT_LOAD segments
 * read at once, its function symbols (.symtab and .dynsym of the file and
 * of its separate debug file) merged into one sorted table on the first
 * address that is not in the on-disk cache.
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "io/input.h"

#include "base/error.h"
#include "base/xalloc.h"
#include "symbolize/internal.h"

int prof_sym_is_file(const char *path)
{
	return path[0] == '/' && path[1] != '/' && strncmp(path, "/memfd:", 7) != 0 &&
	       strncmp(path, "/dev/zero", 9) != 0 && strncmp(path, "/SYSV", 5) != 0;
}

void prof_sym_hex(char *out, const unsigned char *bid, unsigned len)
{
	static const char digits[] = "0123456789abcdef";

	for (unsigned i = 0; i < len; i++) {
		*out++ = digits[bid[i] >> 4];
		*out++ = digits[bid[i] & 15];
	}
	*out = 0;
}

/* ---- reading ELF files ---- */

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
	char err[128];
	int fd = prof_open_regular(path, err, sizeof(err));	/* never /dev/zero or a FIFO */
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

int prof_sym_has_debug_info(Elf *e)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(e, ".debug_info", &sh);

	return scn && sh.sh_type != SHT_NOBITS;
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

/*
 * The load bias: a mapping's address minus its start is a file offset,
 * the segment holding that offset gives the address the symbols use.
 */
int prof_sym_off_to_vaddr(const struct elfobj *o, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < o->nloads; i++)
		if (off >= o->loads[i].off && off < o->loads[i].off + o->loads[i].filesz) {
			*vaddr = off - o->loads[i].off + o->loads[i].vaddr;
			return 0;
		}
	return -1;
}

/* ---- separate debug files ---- */

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

/* The .gnu_debuglink file: next to o, in its .debug/ directory, under /usr/lib/debug/DIR/. */
static int try_debuglink(struct elfobj *o)
{
	char buf[4096];
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf_Data *d;
	const char *link, *slash, *dir;
	int dirlen;

	if (!o->elf || !o->path || !(scn = find_section(o->elf, ".gnu_debuglink", &sh)))
		return 0;
	d = elf_getdata(scn, NULL);
	if (!d || d->d_size <= 1 || !memchr(d->d_buf, 0, d->d_size))
		return 0;
	link = d->d_buf;
	slash = strrchr(o->path, '/');
	dirlen = slash ? (int)(slash - o->path) : 1;
	dir = slash ? o->path : ".";
	snprintf(buf, sizeof(buf), "%.*s/%s", dirlen, dir, link);
	if (try_debug(o, buf))
		return 1;
	snprintf(buf, sizeof(buf), "%.*s/.debug/%s", dirlen, dir, link);
	if (try_debug(o, buf))
		return 1;
	snprintf(buf, sizeof(buf), "/usr/lib/debug%.*s/%s", dirlen, dir, link);
	return try_debug(o, buf);
}

static void find_debug_file(struct prof_symbolizer *s, struct elfobj *o)
{
	if (o->bid_len) {
		char buf[128], hex[41];

		prof_sym_hex(hex, o->bid, o->bid_len);
		snprintf(buf, sizeof(buf), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
		if (try_debug(o, buf))
			return;
	}
	if (try_debuglink(o))
		return;
	if (s->opt.debuginfod)
		debuginfod_lookup(s, o);
}

/* ---- symbol tables ---- */

/* The end address of section ndx of e, 0 when unknown. */
static uint64_t section_end(Elf *e, size_t ndx)
{
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (ndx == SHN_UNDEF || ndx >= SHN_LORESERVE || !(scn = elf_getscn(e, ndx)) ||
	    !gelf_getshdr(scn, &sh))
		return 0;
	return sh.sh_addr + sh.sh_size;
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
			o->syms[o->nsyms].end = sym.st_size ? 0 : section_end(e, sym.st_shndx);
			o->syms[o->nsyms].name = name;
			o->syms[o->nsyms].mini = e == o->melf;
			o->syms[o->nsyms].rank = (unsigned char)((bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2) +
				(sym.st_size ? 0 : 4));
			o->nsyms++;
		}
	}
}

/* ---- the objects ---- */

/* o's MiniDebugInfo symbols, when its main file has .gnu_debugdata. */
static void add_minidebug_syms(struct elfobj *o, size_t *cap)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(o->elf, ".gnu_debugdata", &sh);
	Elf_Data *d;

	if (!scn || sh.sh_type == SHT_NOBITS || !(d = elf_rawdata(scn, NULL)) || !d->d_size)
		return;
	o->melf = prof_sym_minidebug_open(d->d_buf, d->d_size, &o->mbuf);
	if (o->melf)
		add_syms_from(o, o->melf, cap);
}

void prof_sym_obj_load(struct prof_symbolizer *s, struct elfobj *o)
{
	size_t cap = 0;

	o->loaded = 1;
	if (!o->elf || !has_section_type(o->elf, SHT_SYMTAB) || !prof_sym_has_debug_info(o->elf))
		find_debug_file(s, o);
	if (o->delf) {
		add_syms_from(o, o->delf, &cap);
		/* Main file unusable: the debug file keeps the program headers. */
		if (!o->loads)
			read_loads(o, o->delf);
	}
	if (o->elf) {
		/* A debug file's .symtab holds all that MiniDebugInfo could. */
		if (!o->delf && !has_section_type(o->elf, SHT_SYMTAB))
			add_minidebug_syms(o, &cap);
		add_syms_from(o, o->elf, &cap);
	}
	prof_sym_sort(o->syms, &o->nsyms, 0);
	prof_sym_plt_syms(s, o, &cap);
}

void prof_sym_obj_shed(struct elfobj *o)
{
	prof_sym_fde_release(o);
	o->cfi_tried = 0;
	if (o->dw)
		dwarf_end(o->dw);
	o->dw = NULL;
	o->dw_tried = 0;
	free(o->cus);
	o->cus = NULL;
	o->ncus = 0;
	free(o->syms);		/* their names point into the files */
	o->syms = NULL;
	o->nsyms = 0;
	o->loaded = 0;
	if (o->delf)
		elf_end(o->delf);
	if (o->melf)
		elf_end(o->melf);
	free(o->mbuf);
	if (o->elf)
		elf_end(o->elf);
	o->delf = o->melf = o->elf = NULL;
	o->mbuf = NULL;
	if (o->dfd >= 0)
		close(o->dfd);
	if (o->fd >= 0)
		close(o->fd);
	o->dfd = o->fd = -1;
	o->shed = 1;
}

void prof_sym_obj_free(struct elfobj *o)
{
	prof_sym_obj_shed(o);
	free(o->loads);
	free(o->path);
	free(o);
}

/* The key of an object in s->keys: "B" + build-id, else "P" + path:dev:ino:size. Returns its length, 0 if none. */
static size_t obj_key(char *key, size_t n, const char *path, const unsigned char *bid,
		      unsigned bid_len)
{
	struct stat st;
	int k;

	if (bid_len) {
		key[0] = 'B';
		prof_sym_hex(key + 1, bid, bid_len);
		return 1 + 2 * (size_t)bid_len;
	}
	if (stat(path, &st) != 0)
		return 0;
	k = snprintf(key, n, "P%s:%llx:%llx:%llx", path, (unsigned long long)st.st_dev,
		     (unsigned long long)st.st_ino, (unsigned long long)st.st_size);
	return k > 0 && (size_t)k < n ? (size_t)k : 0;
}

/*
 * o's file at o->path into o->elf and o->fd. With bid_len, a file whose
 * build-id is not bid is not used (a different file now lives there);
 * without, o takes the file's build-id.
 */
static void open_file(struct elfobj *o, const unsigned char *bid, unsigned bid_len)
{
	unsigned char fbid[20];
	unsigned flen;

	o->elf = open_elf(o->path, &o->fd);
	if (!o->elf || elf_build_id(o->elf, fbid, &flen) != 0)
		return;
	if (bid_len && (flen != bid_len || memcmp(fbid, bid, flen) != 0)) {
		elf_end(o->elf);
		close(o->fd);
		o->elf = NULL;
		o->fd = -1;
	} else if (!bid_len) {
		memcpy(o->bid, fbid, flen);
		o->bid_len = flen;
	}
}

/* Open the object at path; with bid_len, the file is only used if its build-id is bid. */
static struct elfobj *obj_open(const char *path, const unsigned char *bid, unsigned bid_len)
{
	struct elfobj *o = xcalloc(1, sizeof(*o));

	o->fd = o->dfd = -1;
	o->path = xstrdup(path);
	o->base = strrchr(o->path, '/') + 1;
	open_file(o, bid, bid_len);
	if (bid_len) {
		memcpy(o->bid, bid, bid_len);
		o->bid_len = bid_len;
	}
	return o;
}

uint32_t prof_sym_obj_get(struct prof_symbolizer *s, const char *path,
			  const unsigned char *bid, unsigned bid_len, int *is_new)
{
	char key[4200];
	size_t klen;
	uint32_t id;
	struct elfobj *o;

	*is_new = 0;
	if (!path || !prof_sym_is_file(path))
		return PROF_SYM_NO_OBJ;
	klen = obj_key(key, sizeof(key), path, bid, bid_len);
	if (!klen)
		return PROF_SYM_NO_OBJ;
	id = prof_intern_find(&s->keys, key, klen);
	*is_new = id == UINT32_MAX;
	if (!*is_new)
		return id;
	id = prof_intern(&s->keys, key, klen);
	o = obj_open(path, bid, bid_len);
	PROF_GROW(s->objs, s->nobjs + 1, s->capobjs);
	s->objs[s->nobjs++] = o;
	if (o->elf)
		read_loads(o, o->elf);
	else
		prof_sym_obj_load(s, o);	/* the debug file may hold the program headers */
	return id;
}

void prof_sym_obj_reopen(struct elfobj *o)
{
	o->shed = 0;
	open_file(o, o->bid, o->bid_len);
}
