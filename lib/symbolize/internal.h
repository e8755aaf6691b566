#ifndef PROF_SYMBOLIZE_INTERNAL_H
#define PROF_SYMBOLIZE_INTERNAL_H
/*
 * PRIVATE to lib/symbolize/: the shared structures and the functions the
 * symbolizer's files call in each other. Tools include symbolize.h only;
 * the unit tests of tests/unit/symbolize/ include this header too, for the
 * line parsers and the bisection.
 *
 * Who does what (one file per concern, symbolize.h for the whole), each
 * file calling only those below it, so that no two call each other:
 *   symbolize.c   the symbolizer object and prof_symbolize(): address ->
 *                 mapping -> object -> frames, through the files below
 *   vdso.c        the vDSO: this process's own image names every
 *                 process's [vdso] mapping
 *   addrspace.c   address spaces: mappings, /proc/PID/maps files
 *   dwarf.c       DWARF (libdw): compile unit ranges, the functions of a
 *                 unit, inline chains, file:line
 *   kernel.c      /proc/kallsyms (kernel and module text symbols)
 *   jitmap.c      /tmp/perf-PID.map, the symbols of JIT code
 *   procroot.c    the file trees of processes in another mount namespace
 *                 or root (containers): their roots held open, files
 *                 opened through them
 *   disk_cache.c  the on-disk caches: resolved frames per build-id,
 *                 parsed kallsyms per boot
 *   minidebug.c   MiniDebugInfo: the xz-compressed ELF of .gnu_debugdata
 *   naming.c      the account of how sampled addresses were named (calls
 *                 prof_symbolize(): it sits above symbolize.c)
 *   elf.c         ELF objects: one per build-id, PT_LOAD segments (file
 *                 offset -> vaddr), symbol tables, build-ids, separate
 *                 debug files (build-id, .gnu_debuglink, debuginfod),
 *                 the entry point's _start
 *   fde.c         .eh_frame FDEs: the start of the function of an
 *                 address no symbol covers (stripped code)
 *   gopclntab.c   Go's function table (.gopclntab): the names, bounds
 *                 and file:line of a Go program's functions, stripped
 *                 or not
 *   plt.c         PLT stubs named "target@plt" from the relocations
 *   addr_cache.c  the frames of resolved addresses: the pool, the cache
 *                 (object, address) -> frames, interned strings,
 *                 demangled names (base/demangle.h)
 *   symtab.c      the one bisection, sorted symbol tables
 */
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <sys/types.h>
#include <libelf.h>
#include <elfutils/libdw.h>

#include "base/hashmap.h"
#include "base/procns.h"
#include "core/intern.h"
#include "symbolize/symbolize.h"

/* Object indexes of the address cache and of mappings (struct prof_addrspace.objs). */
#define PROF_SYM_KERNEL_OBJ 0xfffffffeu	/* cache key of kernel addresses */
#define PROF_SYM_NO_OBJ 0xffffffffu		/* the mapping has no usable ELF object */
#define PROF_SYM_OBJ_UNTRIED 0xfffffffdu	/* not looked up yet */

/*
 * Where an address space's files are opened (struct prof_addrspace.root):
 * an index into prof_symbolizer.roots (another mount namespace or root,
 * held open), or one of these.
 */
#define PROF_SYM_ROOT_OURS (-1)	/* this process's file tree: paths open as they are */
#define PROF_SYM_ROOT_GONE (-2)	/* another tree, gone before it could be held: only files a build-id confirms */

/* Why an object's file was not opened (struct elfobj.why); shown by the naming report. */
enum prof_sym_why {
	PROF_SYM_OPENED,	/* opened (or never tried: an image, a debug file only) */
	PROF_SYM_MISSING,	/* no file at its path */
	PROF_SYM_OTHER_FILE,	/* a file of another build-id at its path */
	PROF_SYM_GONE_NS,	/* its process, in another mount namespace, was gone before its root was held */
};

/* A function symbol (ELF or kallsyms); sorted by addr for bisection. */
struct sym {
	uint64_t addr, size;
	uint64_t end;		/* the end of its section: a size-0 symbol stops there (0: unknown) */
	const char *name;	/* raw (mangled), in the ELF's string data or kallsyms copy */
	unsigned char rank;	/* lower is better at equal addresses; see PROF_SYM_RANK_LABEL */
	unsigned char mini;	/* from MiniDebugInfo */
	unsigned char debug;	/* from the separate debug file */
	unsigned char go;	/* from Go's function table (.gopclntab) */
};

/*
 * Ranks of ELF symbols: 0 global, 1 weak, 2 local, + 4 without a size,
 * + PROF_SYM_RANK_LABEL for an assembly label of code (no type): it
 * names code only where no function with a size covers it.
 */
#define PROF_SYM_RANK_LABEL 8

/* A PT_LOAD segment: file bytes [off, off + filesz) are mapped at vaddr. */
struct load {
	uint64_t off, filesz, vaddr;
};

/* One address range of a DWARF compile unit; sorted by lo for bisection. */
struct cu_range {
	uint64_t lo, hi;
	size_t unit;		/* index in elfobj.units */
};

/* One address range of a function (a DW_TAG_subprogram with code); sorted by lo. */
struct fn_range {
	uint64_t lo, hi;
	Dwarf_Die die;		/* the subprogram */
};

/* A DWARF compile (or partial) unit and its functions, listed on first use (dwarf.c). */
struct dw_unit {
	Dwarf_Die cu;
	int listed;
	struct fn_range *fns;
	size_t nfns;
};

/* One ELF file (and its separate debug file), shared by every address space. */
struct elfobj {
	char *path;
	const char *base;	/* basename of path */
	int fd, dfd;
	Elf *elf, *delf;	/* main file (may be NULL), debug file (may be NULL) */
	Elf *melf;		/* MiniDebugInfo (.gnu_debugdata), may be NULL */
	char *dpath;		/* the debug file's path (kept when shed), or NULL */
	void *image;		/* an object read from memory (the vDSO): its bytes, never shed */
	void *mbuf;		/* its decompressed bytes */
	unsigned char bid[20];
	unsigned bid_len;
	struct load *loads;
	size_t nloads;
	struct sym *syms;
	size_t nsyms;
	int loaded;		/* symbols and debug file looked for */
	int dirty;		/* resolved something not in the persistent cache */
	int dw_tried;
	int dw_debug;		/* dw is the debug file's */
	Dwarf *dw;
	struct cu_range *cus;
	size_t ncus;
	struct dw_unit *units;
	size_t nunits;
	uint64_t named[PROF_NAMED_N];	/* weight accounted, by how it was named (naming.c) */
	int cfi_tried;
	Dwarf_CFI *cfi;		/* the main file's .eh_frame (fde.c), NULL if none */
	uint64_t *fde_starts;	/* its functions' starts, from .eh_frame_hdr, sorted */
	int cfa_init;
	struct prof_hashmap cfa;	/* vaddr -> int32_t CFA = SP + value, -1: another rule */
	size_t nfde;
	struct prof_gopcln *go;	/* Go's function table, when it named the functions (gopclntab.c) */
	uint64_t used_ns;	/* when an address missing from the cache was last resolved here */
	int root;		/* where its file was opened: PROF_SYM_ROOT_OURS or a root index */
	enum prof_sym_why why;	/* why its main file is not open, when it is not */
	int shed;		/* its files closed while idle (prof_sym_obj_shed) */
};

/*
 * The addresses the cache may hold after prof_symbolizer_shed_idle():
 * beyond, it starts again empty (about 12 MB of cache and frames; a
 * program's hot addresses are far fewer, and come back in one lookup).
 */
#define PROF_SYM_CACHE_KEEP (1u << 18)

/* A slot of the address cache: frames pool[first .. first + n). */
struct cache_ent {
	uint64_t addr;
	uint32_t obj;		/* 0 = empty slot; else obj index + 1 (or PROF_SYM_KERNEL_OBJ) */
	uint32_t first, n;
};

struct prof_symbolizer {
	struct prof_sym_options opt;
	struct prof_intern strs;	/* names, files, paths */
	struct prof_intern keys;	/* object keys -> object index */
	struct elfobj **objs;
	size_t nobjs, capobjs;
	struct cache_ent *cache;	/* open addressing, ncache a power of two */
	size_t ncache, cache_used;
	size_t cache_keep;	/* the most prof_symbolizer_shed_idle() leaves in it */
	struct prof_frame *pool;	/* the frames of every cached address */
	size_t pool_len, pool_cap;
	/* kallsyms (kernel.c), or its mapped per-boot cache (disk_cache.c) */
	int k_loaded, k_ok;
	struct sym *ksyms;
	size_t nksyms;
	char *kstrings;
	const unsigned char *kmap;
	size_t kmap_len, kmap_n;
	uint64_t named[PROF_NAMED_N];	/* all the weight accounted (naming.c) */
	/* the vDSO: this process's image (vdso.c) */
	int vdso_tried;
	uint32_t vdso_obj;
	uint64_t vdso_len;
	/* debuginfod (opt-in, elf.c) */
	int dbgd_tried;
	void *dbgd_client;
	void *(*dbgd_begin)(void);
	int (*dbgd_find)(void *, const unsigned char *, int, char **);
	/* the roots of processes in other mount namespaces (procroot.c) */
	struct prof_sym_root *roots;
	size_t nroots, caproots;
};

/*
 * The root directory of processes in another mount namespace or root (a
 * container), held open while an address space uses it: its files are
 * opened through it, also once those processes are gone (the namespace
 * descriptor keeps its mounts, a tmpfs over /mnt/ctr say, in place).
 */
struct prof_sym_root {
	struct prof_procns id;	/* the namespace and root it is */
	int dirfd;		/* O_PATH descriptor of the root directory; -1 once released */
	int nsfd;		/* its mount namespace; -1 once released */
	unsigned refs;		/* address spaces using it */
	pid_t pid;		/* the process it was taken from, for messages (/proc/PID/root) */
};

/* A symbol of /tmp/perf-PID.map or a jitdump; sorted by start for bisection. */
struct jitsym {
	uint64_t start, end;
	const char *name;
};

struct prof_addrspace {
	struct prof_symbolizer *s;
	pid_t pid;
	pid_t nspid;		/* the pid it sees itself as (NSpid: its perf map's name) */
	int live;		/* a running process: its files are opened as it sees them */
	int root;		/* where its files are opened: PROF_SYM_ROOT_* or a root index */
	struct prof_map *maps;	/* sorted by start, disjoint */
	uint32_t *objs;		/* per map: object index, PROF_SYM_NO_OBJ or _OBJ_UNTRIED */
	size_t n, cap;
	unsigned long gen;
	/* /tmp/perf-PID.map (jitmap.c) */
	struct jitsym *jit;
	size_t njit;
	off_t jit_size;
	struct timespec jit_mtime;
	uint64_t jit_checked;	/* prof_now_ns() of the last look at the map */
	/* a jitdump file the process maps (jitmap.c), read as it grows */
	struct jitsym *jd;
	size_t njd, jd_cap;
	const char *jd_path;	/* interned; NULL: none seen */
	off_t jd_off;		/* bytes of it parsed */
};

/* ---- symtab.c ---- */

/*
 * The bisection every sorted table of the symbolizer is searched with.
 * base holds n elements of stride bytes, each starting with a uint64_t
 * key (read with memcpy: it need not be aligned), in ascending key order.
 * Returns the number of elements whose key is <= key: the element before
 * that index is the last one starting at or below key (none when 0).
 */
size_t prof_sym_bisect(const void *base, size_t n, size_t stride, uint64_t key);

/*
 * Order syms[0..*n) by address (already so when presorted), keep one
 * symbol per address (the best ranked; the first when presorted), drop
 * the labels (PROF_SYM_RANK_LABEL) inside a symbol with a size, and
 * give each symbol without a size the room up to the next one (4096
 * for the last), but not past the end of its section (sym.end, when
 * known: a size-0 _init is not stretched over the PLT that follows
 * .init). *n becomes the count kept.
 */
void prof_sym_sort(struct sym *syms, size_t *n, int presorted);

/* The symbol of sorted syms[0..n) that covers addr, or NULL. */
const struct sym *prof_sym_find(const struct sym *syms, size_t n, uint64_t addr);

/* ---- addr_cache.c ---- */

/* The interned copy of p[0..n) (or of the C string p), valid until prof_symbolizer_free(). */
const char *prof_sym_str(struct prof_symbolizer *s, const char *p, size_t n);
const char *prof_sym_cstr(struct prof_symbolizer *s, const char *p);

/*
 * The demangled (Rust, C++: base/demangle.h) and interned name, or name
 * itself interned (opts.demangle off, not mangled, malformed).
 */
const char *prof_sym_demangle(struct prof_symbolizer *s, const char *name);

/* Append a frame to the pool (strings already interned). */
void prof_sym_frame_push(struct prof_symbolizer *s, const char *name, const char *file,
			 unsigned line, unsigned flags);

/* The cache slot of (obj, addr): e->obj is 0 when it holds nothing yet. */
struct cache_ent *prof_sym_cache_slot(struct prof_symbolizer *s, uint32_t obj, uint64_t addr);

/* Cache the frames pool[first .. first + n) for (obj, addr); obj as in struct cache_ent. */
void prof_sym_cache_put(struct prof_symbolizer *s, uint32_t obj, uint64_t addr,
			uint32_t first, uint32_t n);

/* ---- addrspace.c ---- */

/*
 * Parse one /proc/PID/maps line (no newline) into m: addresses, offset,
 * permissions; m->path points into line (after the blanks), the
 * build-id is left unknown. Returns 0, or -1 if the line is malformed.
 */
int prof_sym_parse_maps_line(const char *line, struct prof_map *m);

/* Index of the mapping of as holding addr, or (size_t)-1. */
size_t prof_sym_map_index(const struct prof_addrspace *as, uint64_t addr);

/* ---- elf.c ---- */

/* A path naming a file (not "//anon", "/memfd:...", "[vdso]", ""). */
int prof_sym_is_file(const char *path);

/* Nonzero when e has a .debug_info section with contents. */
int prof_sym_has_debug_info(Elf *e);

/* Write len bytes of build-id as lowercase hex into out (2 * len + 1 bytes). */
void prof_sym_hex(char *out, const unsigned char *bid, unsigned len);

/*
 * The index of the ELF object at path (with this build-id when bid_len is
 * not 0), opened on first use with its program headers (*is_new then
 * set); PROF_SYM_NO_OBJ when path is no file. path is as the process
 * sees it, opened through root (procroot.c): with PROF_SYM_ROOT_GONE,
 * only a file that bid confirms is used. An object whose file is not
 * open says why (elfobj.why).
 */
uint32_t prof_sym_obj_get(struct prof_symbolizer *s, const char *path,
			  const unsigned char *bid, unsigned bid_len, int root, int *is_new);

/*
 * The index of a new object named name read from the ELF image
 * img[0..len) (copied): the vDSO. PROF_SYM_NO_OBJ when it is no ELF image.
 */
uint32_t prof_sym_obj_from_image(struct prof_symbolizer *s, const char *name, const void *img,
				 size_t len);

/* Load o's symbols and find its debug file, once (the costly part, done on the first cache miss). */
void prof_sym_obj_load(struct prof_symbolizer *s, struct elfobj *o);

/* Close o's files and free it. */
void prof_sym_obj_free(struct elfobj *o);
/*
 * Close o's files and free what was read from them (symbols, FDEs; its
 * DWARF is released first, by prof_sym_dwarf_release()), keeping what
 * names and places it (path, build-id, segments,
 * counts): an object idle in a long system-wide recording. Only objects
 * with a build-id are shed, so prof_sym_obj_reopen() can tell the file.
 */
void prof_sym_obj_shed(struct elfobj *o);
/* Reopen a shed o: its file at o->path (through its root while held, else
 * here) if it still has o's build-id (else o resolves through its debug
 * file only, or not at all); the rest loads lazily. */
void prof_sym_obj_reopen(const struct prof_symbolizer *s, struct elfobj *o);

/* File offset -> o's virtual address through its PT_LOAD segments: 0, or -1 outside them. */
int prof_sym_off_to_vaddr(const struct elfobj *o, uint64_t off, uint64_t *vaddr);

/* ---- plt.c ---- */

/*
 * Add to o's sorted symbols one "TARGET@plt" symbol per PLT stub of its
 * main file, named after the relocation of the GOT slot the stub jumps
 * through (x86-64), and sort them again (*cap: the array's capacity).
 */
void prof_sym_plt_syms(struct prof_symbolizer *s, struct elfobj *o, size_t *cap);

/* ---- vdso.c ---- */

/* A [vdso] mapping's path. */
int prof_sym_is_vdso(const char *path);

/*
 * The object of a process's [vdso] mapping of len bytes: this process's
 * own vDSO image (read on first use), when its mapping has that length;
 * else PROF_SYM_NO_OBJ.
 */
uint32_t prof_sym_vdso_obj(struct prof_symbolizer *s, uint64_t len);

/* ---- minidebug.c ---- */

/*
 * The ELF file of a .gnu_debugdata section's bytes xz[0..len)
 * (MiniDebugInfo), decompressed into *buf (the caller frees it after
 * elf_end()); NULL when it is no xz stream of an ELF file or liblzma was
 * not built in.
 */
Elf *prof_sym_minidebug_open(const void *xz, size_t len, void **buf);

/* ---- gopclntab.c ---- */

/* The magic numbers of Go's function table, by the Go releases that wrote it. */
#define PROF_GOPCLN_MAGIC_12 0xfffffffbu	/* Go 1.2 to 1.15 */
#define PROF_GOPCLN_MAGIC_116 0xfffffffau	/* Go 1.16, 1.17 */
#define PROF_GOPCLN_MAGIC_118 0xfffffff0u	/* Go 1.18, 1.19 */
#define PROF_GOPCLN_MAGIC_120 0xfffffff1u	/* Go 1.20 and later */

/*
 * A parsed Go function table (pclntab): where its tables lie in the
 * section's bytes p[0..len), which it points into (they must outlive it).
 */
struct prof_gopcln {
	const unsigned char *p;
	size_t len;
	unsigned version;	/* 12, 116, 118 or 120, after the magic numbers above */
	int big;		/* big-endian */
	unsigned quantum;	/* the unit of pc deltas: 1 (x86), 4 (arm64) */
	unsigned ptrsize, fsz;	/* pointer size; size of a functab field (4 from 1.18) */
	uint64_t nfunc;
	uint32_t nfiles;
	uint64_t text;		/* added to functab's pcs (1.18+: they are offsets from it) */
	uint64_t names, cutab, filetab, pctab, funcdata, functab;	/* offsets in p */
	size_t last_nul;	/* strings are read only before this NUL */
};

/*
 * Parse the table of a .gopclntab section's bytes data[0..len) into t;
 * text: the program's text start (runtime.text, the .text section's
 * address) where a 1.18+ header holds 0 (a position-independent program
 * before relocation). Returns 0, or -1 when it is no table of a known
 * version or its function table does not fit the bytes or its entries
 * do not ascend.
 */
int prof_gopcln_parse(struct prof_gopcln *t, const void *data, size_t len, uint64_t text);

/*
 * Function i (< t->nfunc) of t: its entry, its end (the next entry) and
 * its name (in the section's bytes, as Go spells it: "main.main",
 * "sort.(*IntSlice).Less"). Returns 0, or -1 when its record or name
 * lies outside the section.
 */
int prof_gopcln_func(const struct prof_gopcln *t, uint64_t i, uint64_t *entry, uint64_t *end,
		     const char **name);

/*
 * The source position of pc from t's pcfile and pcln tables: *file in
 * the section's bytes, *line >= 1. Returns 0, or -1 when no function
 * holds pc or its tables say nothing for it (or are broken).
 */
int prof_gopcln_file_line(const struct prof_gopcln *t, uint64_t pc, const char **file,
			  unsigned *line);

/*
 * Add to o's symbols (not sorted) one per function of Go's function
 * table, the bytes data[0..len) of its main file's .gopclntab (text: the
 * .text section's address, 0 if none), flagged go, and keep the table in
 * o->go for file:line; nothing when the table is broken. Of two
 * functions of one name (an assembly function and its ABI wrapper), the
 * ABI0 one is named "NAME.abi0", as Go's linker names it in .symtab.
 */
void prof_sym_go_syms(struct prof_symbolizer *s, struct elfobj *o, const void *data, size_t len,
		      uint64_t text, size_t *cap);

/* ---- fde.c ---- */

/*
 * The start address (object vaddr) of the function holding pc, from the
 * .eh_frame FDE of o's main file that covers pc: 0, or -1 when no FDE
 * covers it (or the file has no .eh_frame). The table is read on the
 * first call and kept until prof_sym_fde_release().
 */
int prof_sym_fde_start(struct elfobj *o, uint64_t pc, uint64_t *start);

/*
 * When the CFA at pc (a vaddr of o) is the stack pointer plus an offset
 * (x86-64 rsp + N: a function before or without its frame pointer), that
 * offset in *off: 0; -1 for another rule, no FDE, another architecture.
 * Remembered per address.
 */
int prof_sym_fde_cfa_sp(struct elfobj *o, uint64_t pc, uint64_t *off);

/* The first function start of o's FDE table after pc: 0, or -1 when none. */
int prof_sym_fde_next(struct elfobj *o, uint64_t pc, uint64_t *next);

/* Free o's FDE table (before its Elf is closed). */
void prof_sym_fde_release(struct elfobj *o);

/* ---- dwarf.c ---- */

/* The position and name of the real function, filled by prof_sym_dwarf_frames(). */
struct prof_sym_outer {
	const char *name;	/* in: from the symbol table, or NULL; out: maybe from DWARF */
	const char *file;
	unsigned line;
};

/*
 * Push the inlined frames covering pc (an object vaddr of o) from its
 * DWARF, innermost first, with their file:line when opts.lines; name
 * the real function in *outer (kept when already set) with the position
 * in it. Does nothing when o has no DWARF or no unit covers pc.
 */
void prof_sym_dwarf_frames(struct prof_symbolizer *s, struct elfobj *o, uint64_t pc,
			   struct prof_sym_outer *outer);

/*
 * The first lines (DW_AT_decl_line) of the functions at pc (an object
 * vaddr of o) into lines[0..max), innermost first as
 * prof_sym_dwarf_frames() pushes them, the real function last: 0 where
 * DWARF gives none. Returns how many; 0 when no DWARF function holds pc.
 */
size_t prof_sym_dwarf_decl_lines(struct prof_symbolizer *s, struct elfobj *o, uint64_t pc,
				 unsigned *lines, size_t max);

/* Close o's DWARF and free its unit and function tables. */
void prof_sym_dwarf_release(struct elfobj *o);

/* ---- kernel.c ---- */

/*
 * Parse one /proc/kallsyms line ("ADDR T name[\t[module]]", no newline)
 * in place: *name is cut before the module. Returns 1 for a text symbol
 * (type t, T, w or W; *type set), 0 for anything else.
 */
int prof_sym_parse_kallsyms_line(char *line, uint64_t *addr, char *type, char **name);

/* The kernel symbol holding addr (raw name), or NULL. Needs prof_symbolizer_kernel_ok(). */
const char *prof_sym_kernel_name(const struct prof_symbolizer *s, uint64_t addr);

/* Free the kernel symbols. */
void prof_sym_kernel_release(struct prof_symbolizer *s);

/* ---- procroot.c ---- */

/*
 * The root of process pid's files as it sees them now: PROF_SYM_ROOT_OURS
 * when its file tree is this process's, else the index of its root
 * (opened, or shared with a process of the same namespace and root;
 * one more reference), PROF_SYM_ROOT_GONE when it is in another but
 * exited before its root could be opened. When pid is gone or refused
 * before it could be looked at: prev (a state the caller held, passed
 * on: the process's before an exec, its parent's at a fork,
 * PROF_SYM_ROOT_OURS when nothing is known, as perf takes it). *nspid
 * gets the pid it sees itself as (unchanged when gone).
 */
int prof_sym_root_of(struct prof_symbolizer *s, pid_t pid, int prev, pid_t *nspid);

/*
 * The root of a process that saw the file tree id, from descriptors of
 * its root directory and mount namespace that it handed over itself
 * (profheap's shim; -1 when it could not): PROF_SYM_ROOT_OURS when id
 * is this process's tree, a root index (held already, or dirfd and nsfd
 * duplicated after fstat says they are id's; one more reference), else
 * PROF_SYM_ROOT_GONE. pid is for messages only.
 */
int prof_sym_root_adopt(struct prof_symbolizer *s, const struct prof_procns *id, pid_t pid,
			int dirfd, int nsfd);

/* One more reference to root (an index; other states ignored). */
void prof_sym_root_ref(struct prof_symbolizer *s, int root);

/* One reference less; the last one closes the root's descriptors. */
void prof_sym_root_unref(struct prof_symbolizer *s, int root);

/* Whether root is an index whose descriptors are still open. */
int prof_sym_root_held(const struct prof_symbolizer *s, int root);

/*
 * Open path (absolute, as the processes of root see it) as a regular
 * file for reading: through root's directory when root is an index
 * (absolute symbolic links and ".." stay inside it), as it is
 * otherwise. Returns the descriptor, or -1 with why in err[0..errlen)
 * (and errno set).
 */
int prof_sym_root_open(const struct prof_symbolizer *s, int root, const char *path, char *err,
		       size_t errlen);

/*
 * path as a message names it: "/proc/PID/root" + path for a root index
 * (PID: the process it was taken from), path otherwise; into buf.
 */
const char *prof_sym_root_display(const struct prof_symbolizer *s, int root, const char *path,
				  char *buf, size_t n);

/* Close every root (prof_symbolizer_free()). */
void prof_sym_root_release_all(struct prof_symbolizer *s);

/* ---- jitmap.c ---- */

/*
 * Parse one /tmp/perf-PID.map line ("START SIZE name", hex, no newline):
 * the name is line[*name_off ..] (the rest of the line). Returns 0, or
 * -1 if malformed.
 */
int prof_sym_parse_perfmap_line(const char *line, uint64_t *start, uint64_t *size,
				size_t *name_off);

/*
 * The JIT symbol of as holding addr, or NULL: from /tmp/perf-PID.map, or
 * from the jitdump file (jit-PID.dump, perf inject --jit's input) the
 * process maps, its code-load and code-move records (Node --perf-prof,
 * CPython 3.13's -X perf_jit, the JVM's perf agent). The map is (re)read
 * when it changed, the dump read on from where it was: both looked at no
 * more than every 50 ms.
 */
const char *prof_sym_jit_find(struct prof_addrspace *as, uint64_t addr);

/* The same lookup, giving the symbol's bounds too (NULL: none). */
const struct jitsym *prof_sym_jit_symbol(struct prof_addrspace *as, uint64_t addr);

/* Forget the JIT symbols (exec, free). */
void prof_sym_jit_release(struct prof_addrspace *as);

/* ---- disk_cache.c ---- */

/* Read the cached frames of object o (index id) into the address cache, if any. */
void prof_sym_symcache_load(struct prof_symbolizer *s, struct elfobj *o, uint32_t id);

/* Write the resolved frames of object o (index id) to its cache file. */
void prof_sym_symcache_store(struct prof_symbolizer *s, const struct elfobj *o, uint32_t id);

/* Map this boot's kallsyms cache (s->kmap): 0, or -1 when there is none or opt.cache is off. */
int prof_sym_kcache_load(struct prof_symbolizer *s);

/* Write s->ksyms to this boot's kallsyms cache (not when opt.cache is off). */
void prof_sym_kcache_store(const struct prof_symbolizer *s);

/* The name of the symbol of the mapped kallsyms cache holding addr, or NULL. */
const char *prof_sym_kcache_find(const struct prof_symbolizer *s, uint64_t addr);

#endif
