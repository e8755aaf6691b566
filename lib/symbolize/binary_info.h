#ifndef PROF_BINARY_INFO_H
#define PROF_BINARY_INFO_H
/*
 * What kind of program a file is, read from its ELF headers before it is
 * run: whether it is ELF, its class and type, and whether it is linked
 * dynamically (it names an interpreter, the dynamic loader, in a
 * PT_INTERP program header). profheap asks this first because a program
 * without an interpreter cannot have its shim preloaded.
 *
 * Only the ELF header and the program headers are read (pread, no
 * mapping, no libelf): this is a probe, not symbolization. Files in the
 * other byte order than the machine's are not probed.
 */
#include <stdint.h>

struct prof_binary_info {
	unsigned elf_class;	/* 32 or 64 */
	unsigned type;		/* e_type: ET_EXEC, ET_DYN (PIE or library), ET_REL... */
	unsigned machine;	/* e_machine: EM_X86_64, EM_AARCH64... */
	int has_interp;		/* a PT_INTERP header: run through the dynamic loader */
	int has_dynamic;	/* a PT_DYNAMIC header (static-pie has one, no PT_INTERP) */
};

/*
 * Read the ELF and program headers of path into *info. Returns 0, or -1
 * with errno set: the open(2) or read error, ENOEXEC when the file is not
 * an ELF file of the machine's byte order or its headers are cut short
 * or malformed. Reports nothing.
 */
int prof_binary_info_read(const char *path, struct prof_binary_info *info);

/*
 * 1 if path is an ELF executable (ET_EXEC, or ET_DYN as static-pie is)
 * that runs without a dynamic loader, so nothing can be preloaded into
 * it; 0 otherwise, including when it cannot be read (exec then says
 * why).
 */
int prof_binary_is_static_executable(const char *path);

#endif
