#ifndef PROF_SYMBOLIZE_H
#define PROF_SYMBOLIZE_H
/*
 * The symbolizer: (process image, address) -> frames. Nobody else in
 * proftools opens ELF or DWARF (ARCHITECTURE.md).
 *
 * Two objects:
 *  - struct prof_symbolizer: the shared caches. Every ELF file is opened
 *    once per build-id (or per path+inode+size when it has none), its
 *    function symbols (.symtab and .dynsym of the file and of its separate
 *    debug file) merged into one sorted array searched by bisection, its
 *    DWARF (for inlined frames and file:line) opened lazily. Results are
 *    cached per (file, address), so each distinct address is resolved once.
 *    The kernel is resolved from /proc/kallsyms (loaded on first use; the
 *    parsed table is cached per boot and module set, mode 0600, in
 *    $XDG_CACHE_HOME/proftools or ~/.cache/proftools).
 *  - struct prof_addrspace: one process image: its mappings (from a
 *    /proc/PID/maps-format file or from PERF_RECORD_MMAP2 records) and its
 *    pid (for /tmp/perf-PID.map, JIT code). It belongs to one symbolizer.
 *
 * Separate debug files are looked for, in this order, by build-id
 * (/usr/lib/debug/.build-id/xx/rest.debug) and by .gnu_debuglink (next to
 * the file, in its .debug/ directory, under /usr/lib/debug/DIR/). The
 * network is never used unless opts.debuginfod is set (then, and only
 * then, libdebuginfod.so.1 is loaded with dlopen and asked by build-id,
 * honouring DEBUGINFOD_URLS). A stripped file with no debug file but a
 * .gnu_debugdata section (MiniDebugInfo: an xz-compressed ELF holding
 * the function symbols, as Fedora and RHEL ship) gets those symbols,
 * when liblzma was built in.
 *
 * A Go program without .symtab (go build -ldflags="-s -w", the way Go
 * programs ship) and without a debug file is named by Go's own function
 * table, its .gopclntab section (.data.rel.ro.gopclntab when
 * position-independent; in a file without section headers, the first
 * place of its data segments that parses as a table of its code), which
 * the Go runtime needs and stripping keeps
 * (flag PROF_FRAME_GOPCLNTAB): every table Go wrote since 1.2 (the
 * magic numbers 0xfffffffb, 0xfffffffa, 0xfffffff0, 0xfffffff1). Names
 * are spelt as .symtab spells them ("main.main",
 * "sort.(*IntSlice).Less"; of an assembly function and its ABI wrapper,
 * one is "NAME.abi0"), except an assembly function without a wrapper,
 * which .symtab calls "NAME.abi0" and the table, Go's tracebacks and
 * pprof "NAME". With opts.lines, file:line come from its pcfile and pcln
 * tables: the innermost position, in an inlined call's own file, as go
 * tool addr2line gives it; Go's inlined calls (its inline tree) are not
 * unfolded into frames.
 *
 * Rust (legacy and v0) and C++ (Itanium ABI) names are demangled by
 * base/demangle.h (libiberty, as perf prints them; Rust without the hash
 * segment), unless opts.demangle is 0.
 *
 * PLT stubs, which no symbol table names, are named "TARGET@plt" after
 * the relocation of the GOT slot they jump through (plt.c, x86-64), as
 * objdump and perf name them; a symbol without a size (_init) covers the
 * room up to the next one only inside its own section.
 *
 * Assembly labels of code (symbols without a type, such as ld.so's
 * _start) name the code no function with a size covers. The entry point
 * of a program (an executable, a PIE, the dynamic linker) that no symbol
 * names there is "_start", up to the next FDE's function.
 *
 * The vDSO ([vdso], no file) is named by this process's own vDSO image,
 * which every process of one kernel maps (vdso.c): "__vdso_clock_gettime".
 *
 * Functions of stripped code (flag PROF_FRAME_FDE): an address of an ELF
 * file that no symbol covers (no .symtab, .dynsym, MiniDebugInfo or debug
 * file names it) but that an .eh_frame FDE covers is named
 * "NAME!fn_START": NAME = the file's basename, START = the function's
 * start as the file's virtual address (lowercase hex, no 0x, the address
 * nm and objdump print), so all the samples of one function share one
 * frame. Such frames are not written to the persistent cache.
 *
 * Unresolved addresses (flag PROF_FRAME_UNKNOWN): inside a file mapping
 * but with no symbol or FDE covering them: "NAME+0xOFFSET" (NAME = the file's
 * basename, OFFSET = file offset, hex); inside a pseudo-mapping such as
 * [vsyscall] (or a [vdso] not this process's, a 32-bit one):
 * "[vsyscall]+0xOFFSET" (offset from its start); elsewhere (anonymous
 * memory not named by the JIT map, or no mapping): "[unknown]".
 * Anonymous mappings ("", "//anon", memfd) are looked up in
 * /tmp/perf-PID.map, re-read when it changes (at most every 50 ms).
 *
 * Containers: the paths of a live process (prof_addrspace_live()) in
 * another mount namespace or root are opened as it sees them, through
 * /proc/PID/root (procroot.c), as perf does; a missing file is reported
 * as not found by prof_symbolizer_naming_report().
 *
 * Persistent cache: the frames of every resolved address of a file with a
 * build-id are kept on disk, per build-id and options, in
 * $XDG_CACHE_HOME/proftools/sym/ (else ~/.cache/proftools/sym/, mode
 * 0600), written by prof_symbolizer_free() and read when the file is
 * first met, so a later run opens no ELF symbol table or DWARF for
 * addresses it has seen (the first run of a program linked with a big
 * library pays for reading its debug information once). Addresses left
 * unresolved are not kept: installing a debug file later takes effect.
 *
 * The folder, one file per concern (their shared, private declarations
 * are in symbolize/internal.h, which says what each file holds):
 * symbolize.c (this entry point), addrspace.c (mappings), elf.c (ELF
 * objects, symbol tables, debug files), dwarf.c (inlines, file:line),
 * kernel.c (kallsyms), jitmap.c (perf maps), procroot.c (containers:
 * files opened through /proc/PID/root), disk_cache.c (the
 * persistent caches), addr_cache.c (resolved frames in memory,
 * demangled names), plt.c (PLT stubs), vdso.c (the vDSO), symtab.c (sorted tables, the bisection);
 * dwarf_unwind.h, apart, unwinds copied user stacks.
 *
 * Ownership: every string returned (frame names, file names, map paths)
 * belongs to the symbolizer and stays valid until prof_symbolizer_free().
 * Not thread-safe: one symbolizer per thread.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct prof_symbolizer;
struct prof_addrspace;

struct prof_sym_options {
	int inlines;		/* report inlined frames (DWARF); default 1 */
	int lines;		/* fill prof_frame.file/line; default 0 */
	int demangle;		/* demangle Rust and C++ names; default 1 */
	int debuginfod;		/* allow debuginfod lookups; default 0 */
	int cache;		/* persistent per-build-id cache (below); default 1 */
};

/*
 * Defaults: inlines=1, lines=0, demangle=1, debuginfod=0, cache=1 unless
 * the environment variable PROFTOOLS_NO_CACHE is set.
 */
void prof_sym_options_init(struct prof_sym_options *o);

/* A new symbolizer (opts NULL: defaults). Never fails (allocation dies). */
struct prof_symbolizer *prof_symbolizer_new(const struct prof_sym_options *opts);

/* Free the symbolizer, its caches and strings. Address spaces must be freed first. */
void prof_symbolizer_free(struct prof_symbolizer *s);

/*
 * Close the files of objects that resolved no new address for idle_ns
 * and free what was read from them, so that a long system-wide recording
 * (new programs built and run all day) keeps its memory and descriptors
 * to what is in use. An object needed again is reopened, if its file
 * still holds the same build-id. Cached frames stay, unless the cache
 * has grown past 262,144 addresses: then it starts again empty (frames
 * returned before are copies, and their strings stay).
 */
void prof_symbolizer_shed_idle(struct prof_symbolizer *s, uint64_t idle_ns);

/* One resolved frame. */
struct prof_frame {
	const char *name;	/* function (demangled), or see "Unresolved" above; never NULL */
	const char *file;	/* source file (with opts.lines), else NULL */
	unsigned line;		/* source line (with opts.lines), else 0 */
	unsigned flags;		/* PROF_FRAME_* */
};

#define PROF_FRAME_INLINED 1u	/* an inlined call (not a real frame) */
#define PROF_FRAME_KERNEL 2u	/* a kernel address */
#define PROF_FRAME_UNKNOWN 4u	/* no symbol found */
#define PROF_FRAME_FDE 8u	/* no symbol: named after its .eh_frame FDE ("app!fn_12c0") */
#define PROF_FRAME_MINIDEBUG 16u	/* named by a MiniDebugInfo (.gnu_debugdata) symbol */
#define PROF_FRAME_DEBUGFILE 32u	/* named by a separate debug file (symbols or DWARF) */
#define PROF_FRAME_CACHED 64u	/* read from the persistent cache (named by an earlier run) */
#define PROF_FRAME_GOPCLNTAB 128u	/* named by Go's function table (.gopclntab) */

/* Flags of prof_symbolize(). */
#define PROF_SYM_RETURN 1u	/* addr is a return address: look up addr - 1 */
#define PROF_SYM_KERNEL 2u	/* addr is a kernel address (as may be NULL) */

/*
 * Resolve addr into frames, written to out[0..max): INNERMOST FIRST:
 * out[0] is the function whose code holds the address (the deepest inlined
 * one when inlined frames are on), each next entry its inlined caller, the
 * last one the real (out-of-line) function, which never has
 * PROF_FRAME_INLINED. Returns the number of frames written: at least 1
 * when max >= 1 (an unresolved address still yields one frame), never
 * more than max (outer frames are dropped). Kernel addresses (flag
 * PROF_SYM_KERNEL, or as == NULL) are looked up in /proc/kallsyms; when it
 * is unreadable or hides addresses the frame is "[unknown]" with
 * PROF_FRAME_KERNEL|PROF_FRAME_UNKNOWN.
 */
size_t prof_symbolize(struct prof_symbolizer *s, struct prof_addrspace *as,
		      uint64_t addr, unsigned flags, struct prof_frame *out, size_t max);

/*
 * The first source lines (DWARF's DW_AT_decl_line: where each function
 * is declared, its "func" line) of the frames prof_symbolize() gives for
 * addr (a user address of as, looked up as it is: a return address less
 * 1 already), innermost first, into lines[0..max): 0 where DWARF says
 * nothing. Returns how many, 0 without DWARF for addr; pprof's
 * Function.start_line.
 */
size_t prof_symbolize_decl_lines(struct prof_symbolizer *s, struct prof_addrspace *as,
				 uint64_t addr, unsigned *lines, size_t max);

/*
 * Where the return address of the function executing at addr (a user
 * address of as) is, when it has not set up its frame pointer (a
 * frameless leaf such as strcmp, a function's prologue): its .eh_frame
 * CFI says the CFA is the stack pointer + *sp_offset, the return address
 * at SP + *sp_offset - 8. A frame pointer walk misses this function's
 * caller (x86-64). Returns 0, or -1 when the CFA is another rule (a
 * frame pointer) or nothing says.
 */
int prof_symbolizer_cfa_sp_offset(struct prof_symbolizer *s, struct prof_addrspace *as,
				  uint64_t addr, uint64_t *sp_offset);

/* ---- the account of naming (naming.c) ---- */

/* How a sampled address was named: the kinds counted by prof_symbolizer_account(). */
enum prof_named {
	PROF_NAMED_SYMBOL,	/* a symbol (or DWARF) of the file itself (or JIT map, kernel) */
	PROF_NAMED_DEBUGFILE,	/* a symbol (or DWARF) of its separate debug file */
	PROF_NAMED_CACHE,	/* the persistent cache: a name an earlier run found */
	PROF_NAMED_MINIDEBUG,	/* a MiniDebugInfo symbol */
	PROF_NAMED_GOPCLNTAB,	/* Go's function table (.gopclntab) of a program without .symtab */
	PROF_NAMED_FDE,		/* only its function's start, from .eh_frame */
	PROF_NAMED_NONE,	/* nothing: "+0x", "[unknown]" */
	PROF_NAMED_N
};

/*
 * Count weight (1 per sample, or bytes) for the address addr (flags as
 * for prof_symbolize()), usually a sample's innermost user address,
 * under the file holding it and how that file named it. Resolves addr
 * (a cache hit when it was symbolized already).
 */
void prof_symbolizer_account(struct prof_symbolizer *s, struct prof_addrspace *as,
			     uint64_t addr, unsigned flags, uint64_t weight);

/*
 * Count weight accounted as unnamed (PROF_NAMED_NONE) as named by
 * symbols instead: addresses of JIT code named at the end of a
 * recording, from a perf map written after they were accounted.
 */
void prof_symbolizer_account_named_late(struct prof_symbolizer *s, uint64_t weight);

/*
 * Say once on stderr (prof_warn), after "PROG: ", where the names of
 * the accounted weight (unit: "samples", "bytes") came from when some
 * were not found by symbols: one line for the whole ("names: 62% of
 * samples by the files' own symbols, 31% by separate debug files, 0%
 * from the symbol cache (earlier runs), 0% by MiniDebugInfo, ..."),
 * then one per file holding at least 5% of it that had no symbols of
 * its own ("62% of samples in /usr/bin/gzip: no symbols, named by
 * function start; ..."; "... named by its debug file PATH" or "...
 * named from the symbol cache"). Says nothing when symbols (the file's,
 * its debug file's or cached ones) named everything. Returns the number
 * of lines written.
 */
int prof_symbolizer_naming_report(const struct prof_symbolizer *s, const char *unit);

/* One mapping of an address space; [start, end). */
struct prof_map {
	uint64_t start, end;
	uint64_t pgoff;			/* file offset of start */
	const char *path;		/* owned by the symbolizer; "" for anonymous */
	unsigned char build_id[20];
	unsigned build_id_len;		/* 0: unknown */
	unsigned prot;			/* PROT_READ|PROT_WRITE|PROT_EXEC */
};

/* A new, empty address space of process pid (0 if unknown: no JIT map). */
struct prof_addrspace *prof_addrspace_new(struct prof_symbolizer *s, pid_t pid);

/*
 * Say that as's pid is a process running now, whose mappings' paths are
 * the paths it sees: when its mount namespace (/proc/PID/ns/mnt) or root
 * differs from this process's (a container, unshare -m, a chroot), its
 * files are opened through its root (/proc/PID/root, held open with its
 * namespace while as uses it, so that they can be opened after it is
 * gone), its perf map is /tmp/perf-NSPID.map there (NSpid: the pid it
 * sees itself as), and reports keep the paths it sees. Looked at now,
 * again after each exec (prof_addrspace_reset(): the namespace may have
 * changed before it) and for each clone. A process gone before it was
 * looked at keeps its parent's (or its image's before the exec), else
 * its paths are opened here, as perf does (a build-id of the mapping
 * still rejects another file); one seen in another namespace that was
 * gone before its root could be opened has only files a build-id of the
 * mapping confirms (the file at that path here may be another one).
 * Without this call (an address space loaded from a saved maps file),
 * paths are opened as they are.
 */
void prof_addrspace_live(struct prof_addrspace *as);

/*
 * Say that as's process, gone now, saw the file tree tree (its mount
 * namespace and root, base/procns.h), for an address space loaded from
 * the maps file it saved (profheap's shim): when that is not this
 * process's tree, its files are opened through dirfd, its root
 * directory, with nsfd, its mount namespace, that it handed over while
 * it ran (duplicated here; fstat must say they are tree's), and with
 * -1 (not handed over) only files a build-id of the mapping confirms
 * are used: never the file at that path here, which may be another.
 */
struct prof_procns;
void prof_addrspace_saw(struct prof_addrspace *as, const struct prof_procns *tree, int dirfd,
			int nsfd);

/*
 * Open path, a file of as's mappings, as its process sees it (through
 * its root: prof_addrspace_live()), read-only, a regular file only.
 * Returns the descriptor, or -1 with why in err[0..errlen) (also when
 * its process was in another namespace and gone before its root could
 * be opened: the file at that path here may be another one).
 */
int prof_addrspace_open(const struct prof_addrspace *as, const char *path, char *err,
			size_t errlen);

/* Free it (NULL ignored). */
void prof_addrspace_free(struct prof_addrspace *as);

/*
 * A new, empty address space of as's process that reads its JIT map
 * where as does (its root, held open while the copy lives, and the pid
 * it sees itself as): for naming its JIT code at the end of a
 * recording, when it may be gone (prof_addrspace_jit_name()).
 */
struct prof_addrspace *prof_addrspace_view(const struct prof_addrspace *as);

/*
 * A copy of src (the same mappings) for process pid: what fork() does.
 * A live src gives a live copy (prof_addrspace_live()).
 */
struct prof_addrspace *prof_addrspace_clone(const struct prof_addrspace *src, pid_t pid);

/* Forget every mapping (exec); the pid stays. */
void prof_addrspace_reset(struct prof_addrspace *as);

/*
 * A number that changes whenever the mappings change (add_map, reset),
 * for caches built from them (the DWARF unwinder's Dwfl).
 */
unsigned long prof_addrspace_generation(const struct prof_addrspace *as);

/* The pid given at creation. */
pid_t prof_addrspace_pid(const struct prof_addrspace *as);

/*
 * Add a mapping (an MMAP2 record). m->path is copied. A mapping that
 * overlaps existing ones replaces the overlapped parts, as mmap(MAP_FIXED)
 * does. When build_id_len is set, the file at path is only used if its
 * build-id matches (else the debug file of that build-id, if any).
 */
void prof_addrspace_add_map(struct prof_addrspace *as, const struct prof_map *m);

/*
 * Add every mapping of a /proc/PID/maps-format file (for instance a copy
 * of /proc/self/maps saved by a process). Returns 0, or -1 after
 * reporting "prog: path: problem" (unreadable file or a malformed line;
 * mappings of well-formed lines are kept).
 */
int prof_addrspace_load_maps(struct prof_addrspace *as, const char *path);

/* The mapping holding addr, or NULL. */
const struct prof_map *prof_addrspace_find(const struct prof_addrspace *as, uint64_t addr);

/* All mappings in address order; count in *n. Valid until the next change. */
const struct prof_map *prof_addrspace_maps(const struct prof_addrspace *as, size_t *n);

/*
 * The name the JIT map of as's process gives addr now: /tmp/perf-PID.map
 * (and the jitdump among as's mappings) read again when changed, however
 * recent the last look. NULL when nothing names addr. For addresses left
 * unnamed while recording and named at its end, from the map a runtime
 * writes late (the JVM's at its exit, or when asked: record/jvm.h).
 */
const char *prof_addrspace_jit_name(struct prof_addrspace *as, uint64_t addr);

/*
 * Nonzero if /proc/kallsyms gives real addresses to this process (so
 * kernel frames can be named). Loads it on first call.
 */
int prof_symbolizer_kernel_ok(struct prof_symbolizer *s);

#endif
