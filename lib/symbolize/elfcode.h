#ifndef PROF_SYMBOLIZE_ELFCODE_H
#define PROF_SYMBOLIZE_ELFCODE_H
/*
 * The machine code of an ELF file's functions, for disassembly
 * (profannotate): its function symbols (.symtab, else .dynsym) sorted by
 * address, the bytes at an ELF address (from the PT_LOAD segments as
 * stored in the file), the file offset -> ELF address translation of the
 * loader, and its build-id. The file is mapped read-only (libelf).
 * symbolize/ is the only folder that opens ELF files (lib/README).
 */
#include <stddef.h>
#include <stdint.h>

struct prof_elfcode_func {
	const char *name;	/* as in the symbol table (mangled) */
	uint64_t addr, size;	/* ELF virtual address, bytes */
};

struct prof_elfcode;

/*
 * Open path. Returns the object, or NULL with a reason in err[0..errlen)
 * ("not an ELF file", "truncated or malformed ELF file", the open(2)
 * error): nothing is reported.
 */
struct prof_elfcode *prof_elfcode_open(const char *path, char *err, size_t errlen);

/* Close it (NULL ignored); the names and bytes it gave become invalid. */
void prof_elfcode_close(struct prof_elfcode *c);

/* e_machine (EM_X86_64, EM_AARCH64, ...). */
unsigned prof_elfcode_machine(const struct prof_elfcode *c);

/* Whether it has a .symtab (0: stripped; only .dynsym names, if any). */
int prof_elfcode_has_symtab(const struct prof_elfcode *c);

/* The build-id bytes (*len 0 when it has none); owned by c. */
const unsigned char *prof_elfcode_build_id(const struct prof_elfcode *c, unsigned *len);

/* The function symbols (size > 0), sorted by address, one per address. */
const struct prof_elfcode_func *prof_elfcode_funcs(const struct prof_elfcode *c, size_t *n);

/* The function named name (exact match), or NULL. */
const struct prof_elfcode_func *prof_elfcode_find(const struct prof_elfcode *c, const char *name);

/*
 * The first function after prev (NULL: the first of all, by address)
 * that name names by its symbol or its demangled name
 * (prof_demangle_matches()), or NULL: a demangled name may name several
 * (a constructor's complete and base objects).
 */
const struct prof_elfcode_func *prof_elfcode_find_named(const struct prof_elfcode *c,
							const char *name,
							const struct prof_elfcode_func *prev);

/*
 * The ELF address of the defined symbol name of any type (a variable such
 * as CPython's _PyRuntime too), from .dynsym, else .symtab, in *addr.
 * Returns 0, or -1 when no such symbol is defined.
 */
int prof_elfcode_symbol(const struct prof_elfcode *c, const char *name, uint64_t *addr);

/* The function whose [addr, addr + size) holds vaddr, or NULL. */
const struct prof_elfcode_func *prof_elfcode_at(const struct prof_elfcode *c, uint64_t vaddr);

/*
 * The file's bytes at ELF address vaddr, size bytes, all inside one
 * PT_LOAD segment's file contents; NULL when they are not there. Owned by c.
 */
const unsigned char *prof_elfcode_bytes(const struct prof_elfcode *c, uint64_t vaddr,
					uint64_t size);

/*
 * The ELF address of file offset off (inside a PT_LOAD segment): what
 * a mapping's START - PGOFF turns a run-time address into. Returns 0,
 * or -1 when no segment holds off.
 */
int prof_elfcode_off_to_vaddr(const struct prof_elfcode *c, uint64_t off, uint64_t *vaddr);

/* The inverse: the file offset of ELF address vaddr; 0, or -1 when none holds it. */
int prof_elfcode_vaddr_to_off(const struct prof_elfcode *c, uint64_t vaddr, uint64_t *off);

#endif
