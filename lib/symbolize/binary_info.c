#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "io/input.h"
#include "symbolize/binary_info.h"

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NATIVE_DATA ELFDATA2LSB
#else
#define NATIVE_DATA ELFDATA2MSB
#endif

/* Read exactly n bytes at off; -1 with errno (ENOEXEC when cut short). */
static int read_at(int fd, void *buf, size_t n, uint64_t off)
{
	ssize_t got = pread(fd, buf, n, (off_t)off);

	if (got == (ssize_t)n)
		return 0;
	if (got >= 0)
		errno = ENOEXEC;
	return -1;
}

/* The fields both classes share, taken from either header layout. */
struct headers {
	uint64_t phoff;
	unsigned phnum, phentsize, phsize;
};

static int read_elf_header(int fd, struct prof_binary_info *info, struct headers *h)
{
	union {
		unsigned char ident[EI_NIDENT];
		Elf32_Ehdr e32;
		Elf64_Ehdr e64;
	} eh;

	if (read_at(fd, &eh, sizeof(eh.ident), 0) < 0)
		return -1;
	if (memcmp(eh.ident, ELFMAG, SELFMAG) != 0 || eh.ident[EI_DATA] != NATIVE_DATA ||
	    (eh.ident[EI_CLASS] != ELFCLASS32 && eh.ident[EI_CLASS] != ELFCLASS64)) {
		errno = ENOEXEC;
		return -1;
	}
	if (eh.ident[EI_CLASS] == ELFCLASS64) {
		if (read_at(fd, &eh.e64, sizeof(eh.e64), 0) < 0)
			return -1;
		info->elf_class = 64;
		info->type = eh.e64.e_type;
		info->machine = eh.e64.e_machine;
		h->phoff = eh.e64.e_phoff;
		h->phnum = eh.e64.e_phnum;
		h->phentsize = eh.e64.e_phentsize;
		h->phsize = sizeof(Elf64_Phdr);
	} else {
		if (read_at(fd, &eh.e32, sizeof(eh.e32), 0) < 0)
			return -1;
		info->elf_class = 32;
		info->type = eh.e32.e_type;
		info->machine = eh.e32.e_machine;
		h->phoff = eh.e32.e_phoff;
		h->phnum = eh.e32.e_phnum;
		h->phentsize = eh.e32.e_phentsize;
		h->phsize = sizeof(Elf32_Phdr);
	}
	if (h->phnum && h->phentsize != h->phsize) {
		errno = ENOEXEC;
		return -1;
	}
	return 0;
}

static int read_program_headers(int fd, struct prof_binary_info *info, const struct headers *h)
{
	unsigned i;

	for (i = 0; i < h->phnum; i++) {
		union {
			Elf32_Phdr p32;
			Elf64_Phdr p64;
		} ph;
		uint32_t type;

		if (read_at(fd, &ph, h->phsize, h->phoff + (uint64_t)i * h->phsize) < 0)
			return -1;
		type = info->elf_class == 64 ? ph.p64.p_type : ph.p32.p_type;
		if (type == PT_INTERP)
			info->has_interp = 1;
		else if (type == PT_DYNAMIC)
			info->has_dynamic = 1;
	}
	return 0;
}

int prof_binary_info_read(const char *path, struct prof_binary_info *info)
{
	struct headers h;
	char err[128];
	int fd = prof_open_regular(path, err, sizeof(err)), rc = -1, saved;

	memset(info, 0, sizeof(*info));
	if (fd < 0) {
		if (errno == EINVAL)
			errno = ENOEXEC;	/* not a regular file: no program either */
		return -1;
	}
	if (read_elf_header(fd, info, &h) == 0 && read_program_headers(fd, info, &h) == 0)
		rc = 0;
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

int prof_binary_is_static_executable(const char *path)
{
	struct prof_binary_info info;

	if (prof_binary_info_read(path, &info) < 0)
		return 0;
	/*
	 * static-pie is ET_DYN (with PT_DYNAMIC) and no PT_INTERP: no
	 * interpreter, no preload. A shared library without PT_INTERP is
	 * counted too: it cannot run with a preload either.
	 */
	return (info.type == ET_EXEC || info.type == ET_DYN) && !info.has_interp;
}
