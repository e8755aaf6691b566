/* lib/symbolize/binary_info.c: the ELF probe run before a command is run. */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../unit.h"
#include "symbolize/binary_info.h"

static char path[] = "/tmp/test_binary_info.XXXXXX";

/* A 64-bit ELF file of type type with program headers of types phdr[0..n). */
static void write_elf64(unsigned type, const uint32_t *phdr, unsigned n, size_t cut)
{
	unsigned char file[sizeof(Elf64_Ehdr) + 8 * sizeof(Elf64_Phdr)];
	Elf64_Ehdr *eh = (Elf64_Ehdr *)file;
	Elf64_Phdr *ph = (Elf64_Phdr *)(file + sizeof(*eh));
	size_t len = sizeof(*eh) + n * sizeof(*ph);
	FILE *f = fopen(path, "wb");
	unsigned i;

	memset(file, 0, sizeof(file));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
	eh->e_type = (Elf64_Half)type;
	eh->e_machine = EM_X86_64;
	eh->e_phoff = sizeof(*eh);
	eh->e_phnum = (Elf64_Half)n;
	eh->e_phentsize = sizeof(*ph);
	for (i = 0; i < n; i++)
		ph[i].p_type = phdr[i];
	fwrite(file, 1, len - cut, f);
	fclose(f);
}

static void write_elf32(unsigned type, const uint32_t *phdr, unsigned n)
{
	unsigned char file[sizeof(Elf32_Ehdr) + 8 * sizeof(Elf32_Phdr)];
	Elf32_Ehdr *eh = (Elf32_Ehdr *)file;
	Elf32_Phdr *ph = (Elf32_Phdr *)(file + sizeof(*eh));
	FILE *f = fopen(path, "wb");
	unsigned i;

	memset(file, 0, sizeof(file));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS32;
	eh->e_ident[EI_DATA] = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
	eh->e_type = (Elf32_Half)type;
	eh->e_machine = EM_386;
	eh->e_phoff = sizeof(*eh);
	eh->e_phnum = (Elf32_Half)n;
	eh->e_phentsize = sizeof(*ph);
	for (i = 0; i < n; i++)
		ph[i].p_type = phdr[i];
	fwrite(file, 1, sizeof(*eh) + n * sizeof(*ph), f);
	fclose(f);
}

int main(void)
{
	static const uint32_t dynamic_exe[] = { PT_PHDR, PT_INTERP, PT_LOAD, PT_DYNAMIC };
	static const uint32_t static_exe[] = { PT_LOAD, PT_LOAD, PT_TLS };
	static const uint32_t static_pie[] = { PT_LOAD, PT_DYNAMIC };
	struct prof_binary_info bi;
	int fd = mkstemp(path);

	if (fd < 0)
		return 2;
	close(fd);
	TEST("this test program: 64-bit or 32-bit, dynamically linked") {
		CHECK(prof_binary_info_read("/proc/self/exe", &bi) == 0);
		CHECK(bi.elf_class == 8 * sizeof(void *));
		CHECK(bi.type == ET_EXEC || bi.type == ET_DYN);
		CHECK(bi.has_interp && bi.has_dynamic);
		CHECK(prof_binary_is_static_executable("/proc/self/exe") == 0);
	}
	TEST("64-bit: interpreter or not, executable or not") {
		write_elf64(ET_DYN, dynamic_exe, 4, 0);
		CHECK(prof_binary_info_read(path, &bi) == 0);
		CHECK(bi.elf_class == 64 && bi.type == ET_DYN && bi.machine == EM_X86_64);
		CHECK(bi.has_interp && bi.has_dynamic);
		CHECK(prof_binary_is_static_executable(path) == 0);
		write_elf64(ET_EXEC, static_exe, 3, 0);
		CHECK(prof_binary_info_read(path, &bi) == 0);
		CHECK(!bi.has_interp && !bi.has_dynamic);
		CHECK(prof_binary_is_static_executable(path) == 1);
		write_elf64(ET_DYN, static_pie, 2, 0);
		CHECK(prof_binary_is_static_executable(path) == 1);
		write_elf64(ET_REL, static_exe, 0, 0);
		CHECK(prof_binary_info_read(path, &bi) == 0 && bi.type == ET_REL);
		CHECK(prof_binary_is_static_executable(path) == 0);
	}
	TEST("32-bit headers are read too") {
		write_elf32(ET_EXEC, static_exe, 3);
		CHECK(prof_binary_info_read(path, &bi) == 0);
		CHECK(bi.elf_class == 32 && bi.type == ET_EXEC && bi.machine == EM_386);
		CHECK(prof_binary_is_static_executable(path) == 1);
		write_elf32(ET_EXEC, dynamic_exe, 4);
		CHECK(prof_binary_is_static_executable(path) == 0);
	}
	TEST("not ELF, cut short, missing: -1 with errno, never static") {
		FILE *f = fopen(path, "w");

		fputs("#!/bin/sh\necho hello\n", f);
		fclose(f);
		errno = 0;
		CHECK(prof_binary_info_read(path, &bi) == -1 && errno == ENOEXEC);
		CHECK(prof_binary_is_static_executable(path) == 0);
		write_elf64(ET_EXEC, static_exe, 3, 10);	/* last program header cut */
		errno = 0;
		CHECK(prof_binary_info_read(path, &bi) == -1 && errno == ENOEXEC);
		CHECK(prof_binary_is_static_executable(path) == 0);
		errno = 0;
		CHECK(prof_binary_info_read("/nonexistent/x", &bi) == -1 && errno == ENOENT);
	}
	unlink(path);
	return UNIT_RESULT();
}
