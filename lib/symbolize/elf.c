/*
 * ELF objects (internal.h): each file is opened once per build-id (or per
 * path, device, inode and size when it has none), its PT_LOAD segments
 * read at once, its function symbols (.symtab and .dynsym of the file and
 * of its separate debug file) merged into one sorted table on the first
 * address that is not in the on-disk cache.
 */
#include <dlfcn.h>
#include <errno.h>
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

/*
 * The ELF file at path as the processes of root see it (procroot.c),
 * never /dev/zero or a FIFO; NULL with errno set when it cannot be
 * opened (EINVAL when it is no ELF file).
 */
static Elf *open_elf(const struct prof_symbolizer *s, int root, const char *path, int *fdp)
{
	char err[128];
	int fd = prof_sym_root_open(s, root, path, err, sizeof(err));
	Elf *e;

	*fdp = -1;
	if (fd < 0)
		return NULL;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		close(fd);
		errno = EINVAL;
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

/*
 * Try a candidate debug file, path as the processes of root see it;
 * keep it if its build-id matches (when known).
 */
static int try_debug(const struct prof_symbolizer *s, struct elfobj *o, int root,
		     const char *path)
{
	char shown[4200];
	int fd;
	Elf *e;
	unsigned char bid[20];
	unsigned len;

	if (o->path && root == o->root && strcmp(path, o->path) == 0)
		return 0;
	e = open_elf(s, root, path, &fd);
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
	if (!o->dpath)
		o->dpath = xstrdup(prof_sym_root_display(s, root, path, shown, sizeof(shown)));
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
			try_debug(s, o, PROF_SYM_ROOT_OURS, path);
	}
	free(path);
}

/*
 * The .gnu_debuglink file: next to o, in its .debug/ directory, under
 * /usr/lib/debug/DIR/, where o's process sees them (its root).
 */
static int try_debuglink(const struct prof_symbolizer *s, struct elfobj *o)
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
	if (try_debug(s, o, o->root, buf))
		return 1;
	snprintf(buf, sizeof(buf), "%.*s/.debug/%s", dirlen, dir, link);
	if (try_debug(s, o, o->root, buf))
		return 1;
	snprintf(buf, sizeof(buf), "/usr/lib/debug%.*s/%s", dirlen, dir, link);
	return try_debug(s, o, o->root, buf);
}

static void find_debug_file(struct prof_symbolizer *s, struct elfobj *o)
{
	if (o->bid_len) {
		char buf[128], hex[41];

		prof_sym_hex(hex, o->bid, o->bid_len);
		snprintf(buf, sizeof(buf), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
		/* here first, then where its process sees it (a container's debug package) */
		if (try_debug(s, o, PROF_SYM_ROOT_OURS, buf) ||
		    (prof_sym_root_held(s, o->root) && try_debug(s, o, o->root, buf)))
			return;
	}
	if (try_debuglink(s, o))
		return;
	if (s->opt.debuginfod)
		debuginfod_lookup(s, o);
}

/* ---- symbol tables ---- */

/* The end address of section ndx of e, 0 when unknown; *code: whether it holds code. */
static uint64_t section_end(Elf *e, size_t ndx, int *code)
{
	Elf_Scn *scn;
	GElf_Shdr sh;

	*code = 0;
	if (ndx == SHN_UNDEF || ndx >= SHN_LORESERVE || !(scn = elf_getscn(e, ndx)) ||
	    !gelf_getshdr(scn, &sh))
		return 0;
	*code = (sh.sh_flags & SHF_EXECINSTR) != 0;
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
			int type, bind, code;
			uint64_t end;

			if (!gelf_getsym(d, (int)i, &sym))
				continue;
			type = GELF_ST_TYPE(sym.st_info);
			bind = GELF_ST_BIND(sym.st_info);
			if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE)
				continue;
			if (sym.st_shndx == SHN_UNDEF || sym.st_value == 0)
				continue;
			name = elf_strptr(e, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			end = section_end(e, sym.st_shndx, &code);
			/*
			 * An assembly label of code (no type, no size: ld.so's _start and
			 * _dl_start_user), not a mapping symbol ($x, $d) or a local .L label.
			 */
			if (type == STT_NOTYPE && (!code || sym.st_size || name[0] == '$' || name[0] == '.'))
				continue;
			PROF_GROW(o->syms, o->nsyms + 1, *cap);
			o->syms[o->nsyms].addr = sym.st_value;
			o->syms[o->nsyms].size = sym.st_size;
			o->syms[o->nsyms].end = sym.st_size ? 0 : end;
			o->syms[o->nsyms].name = name;
			o->syms[o->nsyms].mini = e == o->melf;
			o->syms[o->nsyms].debug = e == o->delf;
			o->syms[o->nsyms].go = 0;
			o->syms[o->nsyms].rank = (unsigned char)((bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2) +
				(sym.st_size ? 0 : 4) + (type == STT_NOTYPE ? PROF_SYM_RANK_LABEL : 0));
			o->nsyms++;
		}
	}
}

/*
 * Whether e's entry point is a program's _start: an executable (ET_EXEC,
 * or a PIE: DF_1_PIE), or an object the kernel starts that needs no
 * other (the dynamic linker, a static PIE). Not a library that can be
 * run (libc.so.6: its entry prints its version, and it needs ld.so).
 */
static int entry_is_start(Elf *e, const GElf_Ehdr *eh)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t nph;
	int interp = 0, needed = 0, pie = 0;

	if (eh->e_type == ET_EXEC)
		return 1;
	if (eh->e_type != ET_DYN || elf_getphdrnum(e, &nph) != 0)
		return 0;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_INTERP)
			interp = 1;
	}
	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;

			if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag == DT_NULL)
				break;
			needed |= dyn.d_tag == DT_NEEDED;
			pie |= dyn.d_tag == DT_FLAGS_1 && (dyn.d_un.d_val & DF_1_PIE);
		}
	}
	return pie || (!interp && !needed);
}

/*
 * "_start" at the entry point of a program that lost it with its .symtab:
 * the dynamic linker's _start (in every program's start-up stacks) has
 * no FDE to be named by either. It reaches the next FDE's function.
 */
static void add_entry_sym(struct elfobj *o, size_t *cap)
{
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf_Scn *scn = NULL;
	const struct sym *c;
	uint64_t next, end = 0;

	if (!o->elf || !gelf_getehdr(o->elf, &eh) || !eh.e_entry || !entry_is_start(o->elf, &eh))
		return;
	c = prof_sym_find(o->syms, o->nsyms, eh.e_entry);
	if (c && (c->addr == eh.e_entry || c->rank < 4))	/* rank < 4: a symbol with a size */
		return;
	while ((scn = elf_nextscn(o->elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) && eh.e_entry >= sh.sh_addr &&
		    eh.e_entry < sh.sh_addr + sh.sh_size)
			end = sh.sh_addr + sh.sh_size;
	PROF_GROW(o->syms, o->nsyms + 1, *cap);
	memset(&o->syms[o->nsyms], 0, sizeof(o->syms[o->nsyms]));
	o->syms[o->nsyms].addr = eh.e_entry;
	o->syms[o->nsyms].end = end;
	o->syms[o->nsyms].name = "_start";
	o->syms[o->nsyms].rank = 4;
	if (prof_sym_fde_next(o, eh.e_entry, &next) == 0 && (!end || next < end))
		o->syms[o->nsyms].size = next - eh.e_entry;
	o->nsyms++;
	prof_sym_sort(o->syms, &o->nsyms, 0);
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

/* Whether [lo, hi) lies in one executable segment of e. */
static int in_code(Elf *e, size_t nph, uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
		    lo >= ph.p_vaddr && hi >= lo && hi - ph.p_vaddr <= ph.p_memsz)
			return 1;
	}
	return 0;
}

/* Whether p starts like a Go function table: a magic number of either byte order, quantum, pointer size. */
static int go_magic(const unsigned char *p)
{
	static const unsigned char last[] = { 0xfb, 0xfa, 0xf0, 0xf1 };

	if (p[4] || p[5] || (p[6] != 1 && p[6] != 2 && p[6] != 4) || (p[7] != 4 && p[7] != 8))
		return 0;
	if (p[0] == 0xff && p[1] == 0xff && p[2] == 0xff && memchr(last, p[3], sizeof(last)))
		return 1;
	return p[1] == 0xff && p[2] == 0xff && p[3] == 0xff && memchr(last, p[0], sizeof(last));
}

/*
 * Go's function table in a file without section headers (removed by
 * sstrip or a packer): the first 4-aligned place of a non-executable
 * segment that parses as a table whose functions lie in an executable
 * segment (64 candidates at most, a 1.18+ table with its text start in
 * its header). Returns 0 with its bytes in *data, *len (to the segment's
 * end), or -1.
 */
static int scan_go_table(Elf *e, const void **data, size_t *len)
{
	size_t fsize, nph, tries = 0;
	const unsigned char *img = (const unsigned char *)elf_rawfile(e, &fsize);

	if (!img || elf_getphdrnum(e, &nph) != 0)
		return -1;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		uint64_t end;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || (ph.p_flags & PF_X) ||
		    ph.p_offset > fsize || ph.p_filesz > fsize - ph.p_offset)
			continue;
		end = ph.p_offset + ph.p_filesz;
		for (uint64_t off = (ph.p_offset + 3) & ~(uint64_t)3; off + 16 <= end; off += 4) {
			struct prof_gopcln t;
			uint64_t entry, fend, last, lend;
			const char *name;

			if (!go_magic(img + off))
				continue;
			if (++tries > 64)
				return -1;
			if (prof_gopcln_parse(&t, img + off, end - off, 0) == 0 &&
			    prof_gopcln_func(&t, 0, &entry, &fend, &name) == 0 &&
			    prof_gopcln_func(&t, t.nfunc - 1, &last, &lend, &name) == 0 &&
			    in_code(e, nph, entry, lend)) {
				*data = img + off;
				*len = end - off;
				return 0;
			}
		}
	}
	return -1;
}

/* o's functions from Go's function table, when its main file has one. */
static void add_go_syms(struct prof_symbolizer *s, struct elfobj *o, size_t *cap)
{
	GElf_Shdr sh, text;
	Elf_Scn *scn = find_section(o->elf, ".gopclntab", &sh);
	Elf_Data *d;
	const void *data;
	size_t len, nsh;

	/* a position-independent program keeps it among the data relocated at load */
	if (!scn)
		scn = find_section(o->elf, ".data.rel.ro.gopclntab", &sh);
	if (!scn) {
		if (elf_getshdrnum(o->elf, &nsh) == 0 && nsh == 0 && scan_go_table(o->elf, &data, &len) == 0)
			prof_sym_go_syms(s, o, data, len, 0, cap);
		return;
	}
	if (sh.sh_type == SHT_NOBITS || !(d = elf_rawdata(scn, NULL)) || !d->d_size)
		return;
	if (!find_section(o->elf, ".text", &text))
		text.sh_addr = 0;
	prof_sym_go_syms(s, o, d->d_buf, d->d_size, text.sh_addr, cap);
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
		/* A debug file's .symtab holds all that MiniDebugInfo or Go's table could. */
		if (!o->delf && !has_section_type(o->elf, SHT_SYMTAB)) {
			add_minidebug_syms(o, &cap);
			add_go_syms(s, o, &cap);
		}
		add_syms_from(o, o->elf, &cap);
	}
	prof_sym_sort(o->syms, &o->nsyms, 0);
	prof_sym_plt_syms(s, o, &cap);
	add_entry_sym(o, &cap);
}

void prof_sym_obj_shed(struct elfobj *o)
{
	prof_sym_fde_release(o);
	o->cfi_tried = 0;
	free(o->syms);		/* their names point into the files */
	free(o->go);		/* and so does Go's table */
	o->go = NULL;
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
	free(o->image);
	free(o->dpath);
	free(o->loads);
	free(o->path);
	free(o);
}

/*
 * The key of an object in s->keys: "B" + build-id; else "P" +
 * path:dev:ino:size of the file at path as root sees it; "M" + root:path
 * when there is none; "G" + path for a process gone from an unknown
 * namespace (nothing is opened). Returns its length, 0 if none.
 */
static size_t obj_key(const struct prof_symbolizer *s, char *key, size_t n, const char *path,
		      const unsigned char *bid, unsigned bid_len, int root)
{
	char err[128];
	struct stat st;
	int k, fd, found;

	if (bid_len) {
		key[0] = 'B';
		prof_sym_hex(key + 1, bid, bid_len);
		return 1 + 2 * (size_t)bid_len;
	}
	if (root == PROF_SYM_ROOT_GONE) {
		k = snprintf(key, n, "G%s", path);
	} else {
		if (root == PROF_SYM_ROOT_OURS) {
			found = stat(path, &st) == 0;
		} else {
			fd = prof_sym_root_open(s, root, path, err, sizeof(err));
			found = fd >= 0 && fstat(fd, &st) == 0;
			if (fd >= 0)
				close(fd);
		}
		if (found)
			k = snprintf(key, n, "P%s:%llx:%llx:%llx", path, (unsigned long long)st.st_dev,
				     (unsigned long long)st.st_ino, (unsigned long long)st.st_size);
		else
			k = snprintf(key, n, "M%d:%s", root, path);
	}
	return k > 0 && (size_t)k < n ? (size_t)k : 0;
}

/*
 * o's file at o->path, as the processes of o->root see it, into o->elf
 * and o->fd. With bid_len, a file whose build-id is not bid is not used
 * (a different file now lives there); without, o takes the file's
 * build-id. o->why says why there is none.
 */
static void open_file(const struct prof_symbolizer *s, struct elfobj *o,
		      const unsigned char *bid, unsigned bid_len)
{
	unsigned char fbid[20];
	unsigned flen;

	o->elf = open_elf(s, o->root, o->path, &o->fd);
	if (!o->elf) {
		if (errno == ENOENT || errno == ENOTDIR)
			o->why = PROF_SYM_MISSING;
		return;
	}
	o->why = PROF_SYM_OPENED;
	if (elf_build_id(o->elf, fbid, &flen) != 0) {
		if (bid_len)	/* a file without one is not the one of the record's */
			goto other;
		return;
	}
	if (bid_len && (flen != bid_len || memcmp(fbid, bid, flen) != 0))
		goto other;
	if (!bid_len) {
		memcpy(o->bid, fbid, flen);
		o->bid_len = flen;
	}
	return;
other:
	elf_end(o->elf);
	close(o->fd);
	o->elf = NULL;
	o->fd = -1;
	o->why = PROF_SYM_OTHER_FILE;
}

/*
 * Open the object at path as the processes of root see it; with bid_len,
 * the file is only used if its build-id is bid. A process gone from
 * another namespace: a file only with a build-id to check it by.
 */
static struct elfobj *obj_open(const struct prof_symbolizer *s, const char *path,
			       const unsigned char *bid, unsigned bid_len, int root)
{
	struct elfobj *o = xcalloc(1, sizeof(*o));

	o->fd = o->dfd = -1;
	o->path = xstrdup(path);
	o->base = strrchr(o->path, '/') + 1;
	o->root = root == PROF_SYM_ROOT_GONE ? PROF_SYM_ROOT_OURS : root;
	if (root == PROF_SYM_ROOT_GONE && !bid_len) {
		o->why = PROF_SYM_GONE_NS;
	} else {
		open_file(s, o, bid, bid_len);
		/*
		 * Not under its root, but a build-id to check the file here by:
		 * mapped before the process entered its root (chroot(1) and
		 * unshare(1) themselves, looked at after they switched).
		 */
		if (!o->elf && o->root >= 0 && bid_len && o->why == PROF_SYM_MISSING) {
			o->root = PROF_SYM_ROOT_OURS;
			open_file(s, o, bid, bid_len);
			if (!o->elf) {
				o->root = root;
				o->why = PROF_SYM_MISSING;
			}
		}
	}
	if (bid_len) {
		memcpy(o->bid, bid, bid_len);
		o->bid_len = bid_len;
	}
	return o;
}

uint32_t prof_sym_obj_get(struct prof_symbolizer *s, const char *path,
			  const unsigned char *bid, unsigned bid_len, int root, int *is_new)
{
	char key[4200];
	size_t klen;
	uint32_t id;
	struct elfobj *o;

	*is_new = 0;
	if (!path || !prof_sym_is_file(path))
		return PROF_SYM_NO_OBJ;
	klen = obj_key(s, key, sizeof(key), path, bid, bid_len, root);
	if (!klen)
		return PROF_SYM_NO_OBJ;
	id = prof_intern_find(&s->keys, key, klen);
	*is_new = id == UINT32_MAX;
	if (!*is_new)
		return id;
	id = prof_intern(&s->keys, key, klen);
	o = obj_open(s, path, bid, bid_len, root);
	PROF_GROW(s->objs, s->nobjs + 1, s->capobjs);
	s->objs[s->nobjs++] = o;
	if (o->elf)
		read_loads(o, o->elf);
	else
		prof_sym_obj_load(s, o);	/* the debug file may hold the program headers */
	return id;
}

uint32_t prof_sym_obj_from_image(struct prof_symbolizer *s, const char *name, const void *img,
				 size_t len)
{
	char key[256];
	int klen = snprintf(key, sizeof(key), "I%s", name);
	struct elfobj *o;
	uint32_t id;

	if (klen <= 0 || (size_t)klen >= sizeof(key) ||
	    prof_intern_find(&s->keys, key, (size_t)klen) != UINT32_MAX)
		return PROF_SYM_NO_OBJ;
	o = xcalloc(1, sizeof(*o));
	o->fd = o->dfd = -1;
	o->root = PROF_SYM_ROOT_OURS;
	o->path = xstrdup(name);
	o->base = o->path;
	o->image = xmalloc(len);
	memcpy(o->image, img, len);
	o->elf = elf_memory(o->image, len);
	if (!o->elf || elf_kind(o->elf) != ELF_K_ELF) {
		prof_sym_obj_free(o);
		return PROF_SYM_NO_OBJ;
	}
	elf_build_id(o->elf, o->bid, &o->bid_len);
	read_loads(o, o->elf);
	/* keys and objects share their indexes */
	id = prof_intern(&s->keys, key, (size_t)klen);
	PROF_GROW(s->objs, s->nobjs + 1, s->capobjs);
	s->objs[s->nobjs++] = o;
	return id;
}

void prof_sym_obj_reopen(const struct prof_symbolizer *s, struct elfobj *o)
{
	o->shed = 0;
	/* its root let go (its processes are gone): the path here, if the build-id is the same */
	if (o->root >= 0 && !prof_sym_root_held(s, o->root))
		o->root = PROF_SYM_ROOT_OURS;
	open_file(s, o, o->bid, o->bid_len);
}
