/*
 * The vDSO (internal.h): the shared object the kernel maps into every
 * process as "[vdso]" (clock_gettime, gettimeofday, getcpu, time), with
 * no file behind it. Every process of one kernel and ABI maps the same
 * image, so the symbolizer names a process's vDSO code after its own:
 * the ELF image at getauxval(AT_SYSINFO_EHDR), as long as its own
 * [vdso] mapping, copied once and read like a file (symbols, .eh_frame,
 * build-id), as perf reads it. A [vdso] mapping of another length (a
 * 32-bit process maps the 32-bit vDSO) is not that image: it keeps its
 * "[vdso]+0x" names.
 */
#include <elf.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

#include "symbolize/internal.h"

int prof_sym_is_vdso(const char *path)
{
	return strcmp(path, "[vdso]") == 0;
}

/* The length of this process's [vdso] mapping, 0 if none. */
static uint64_t own_vdso_len(uint64_t start)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4096];
	uint64_t len = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		struct prof_map m;

		line[strcspn(line, "\n")] = 0;
		if (prof_sym_parse_maps_line(line, &m) == 0 && m.start == start &&
		    prof_sym_is_vdso(m.path)) {
			len = m.end - m.start;
			break;
		}
	}
	fclose(f);
	return len;
}

uint32_t prof_sym_vdso_obj(struct prof_symbolizer *s, uint64_t len)
{
	if (!s->vdso_tried) {
		unsigned long base = getauxval(AT_SYSINFO_EHDR);
		uint64_t own = base ? own_vdso_len(base) : 0;

		s->vdso_tried = 1;
		s->vdso_obj = PROF_SYM_NO_OBJ;
		s->vdso_len = own;
		if (own && own >= SELFMAG && memcmp((const void *)base, ELFMAG, SELFMAG) == 0)
			s->vdso_obj = prof_sym_obj_from_image(s, "[vdso]", (const void *)base, own);
		if (s->vdso_obj != PROF_SYM_NO_OBJ)
			prof_sym_symcache_load(s, s->objs[s->vdso_obj], s->vdso_obj);
	}
	return len == s->vdso_len ? s->vdso_obj : PROF_SYM_NO_OBJ;
}
