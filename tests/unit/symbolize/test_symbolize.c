/*
 * Unit tests of the symbolizer (symbolize.h) on this very program: its
 * own functions through /proc/self/maps, return addresses, overlapping
 * mappings, unknown addresses, malformed maps files.
 */
#include <dirent.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "symbolize/symbolize.h"
#include "symbolize/internal.h"
#include "../unit.h"

__attribute__((noinline)) int unit_sym_target(int x);
enum { UNIT_SYM_TARGET_LINE = __LINE__ + 1 };	/* its DW_AT_decl_line */
__attribute__((noinline)) int unit_sym_target(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 3 + 1;
}

__attribute__((noinline)) static uintptr_t unit_sym_caller(void)
{
	uintptr_t ret = (uintptr_t)__builtin_return_address(0);

	__asm__ volatile("" ::: "memory");
	return ret;
}

/* Descriptors open in this process. */
static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

int main(void)
{
	struct prof_sym_options o;
	struct prof_symbolizer *s;
	struct prof_addrspace *as, *cl;
	struct prof_frame f[8];
	size_t n;
	char path[] = "/tmp/test_symbolize.XXXXXX";
	int fd;

	setenv("PROFTOOLS_NO_CACHE", "1", 1);
	prof_sym_options_init(&o);
	CHECK(o.inlines == 1 && o.lines == 0 && o.demangle == 1 && o.debuginfod == 0 && o.cache == 0);
	s = prof_symbolizer_new(&o);
	as = prof_addrspace_new(s, getpid());

	TEST("load /proc/self/maps") {
		CHECK(prof_addrspace_load_maps(as, "/proc/self/maps") == 0);
		CHECK(prof_addrspace_find(as, (uintptr_t)unit_sym_target) != NULL);
	}
	TEST("own function by address") {
		n = prof_symbolize(s, as, (uintptr_t)unit_sym_target + 1, 0, f, 8);
		CHECK(n >= 1);
		CHECK_STR(f[n - 1].name, "unit_sym_target");
		CHECK(!(f[n - 1].flags & (PROF_FRAME_INLINED | PROF_FRAME_UNKNOWN)));
	}
	TEST("return address is looked up at addr - 1") {
		/* The return address into main: main's code, whatever follows. */
		uintptr_t ret = unit_sym_caller();

		n = prof_symbolize(s, as, ret, PROF_SYM_RETURN, f, 8);
		CHECK(n >= 1);
		CHECK_STR(f[n - 1].name, "main");
		/* The start of a function with RETURN belongs to what precedes it. */
		n = prof_symbolize(s, as, (uintptr_t)unit_sym_target, PROF_SYM_RETURN, f, 8);
		CHECK(n >= 1 && strcmp(f[n - 1].name, "unit_sym_target") != 0);
	}
	TEST("first lines: the function's DW_AT_decl_line, none without DWARF") {
		unsigned lines[8] = { 0 };

		n = prof_symbolize_decl_lines(s, as, (uintptr_t)unit_sym_target + 1, lines, 8);
		CHECK(n >= 1 && lines[n - 1] == UNIT_SYM_TARGET_LINE);
		CHECK(prof_symbolize_decl_lines(s, as, 0x10, lines, 8) == 0);
		CHECK(prof_symbolize_decl_lines(s, as, (uintptr_t)unit_sym_target + 1, lines, 0) == 0);
	}
	TEST("a libc function") {
		n = prof_symbolize(s, as, (uintptr_t)getpid, 0, f, 8);
		CHECK(n >= 1 && !(f[n - 1].flags & PROF_FRAME_UNKNOWN));
		CHECK(strstr(f[n - 1].name, "getpid") != NULL);
	}
	TEST("unknown addresses") {
		n = prof_symbolize(s, as, 0x10, 0, f, 8);
		CHECK(n == 1 && strcmp(f[0].name, "[unknown]") == 0 && (f[0].flags & PROF_FRAME_UNKNOWN));
		CHECK(prof_symbolize(s, as, 0x10, 0, f, 0) == 0);
	}
	TEST("max limits the frames") {
		n = prof_symbolize(s, as, (uintptr_t)unit_sym_target, 0, f, 1);
		CHECK(n == 1);
	}
	TEST("idle objects are shed, reopened when needed, cached frames kept") {
		int before = open_fds();

		prof_symbolizer_shed_idle(s, 1000000000000ULL);	/* none idle that long */
		CHECK(open_fds() == before);
		prof_symbolizer_shed_idle(s, 0);
		CHECK(open_fds() < before);
		/* cached: no file needed */
		n = prof_symbolize(s, as, (uintptr_t)unit_sym_target + 1, 0, f, 8);
		CHECK(n >= 1 && strcmp(f[n - 1].name, "unit_sym_target") == 0);
		CHECK(open_fds() < before);
		/* new addresses: the files reopened, symbols read again */
		n = prof_symbolize(s, as, (uintptr_t)unit_sym_caller + 1, 0, f, 8);
		CHECK(n >= 1 && strcmp(f[n - 1].name, "unit_sym_caller") == 0);
		n = prof_symbolize(s, as, (uintptr_t)getppid, 0, f, 8);
		CHECK(n >= 1 && strstr(f[n - 1].name, "getppid") != NULL);
	}
	TEST("a cache past its bound starts again empty when shedding") {
		const struct prof_map *m = prof_addrspace_find(as, (uintptr_t)unit_sym_target);
		size_t i;

		CHECK(s->cache_keep == PROF_SYM_CACHE_KEEP);
		s->cache_keep = 1000;	/* the default's 262,144 lookups take too long here */
		CHECK(m != NULL && m->end - m->start > 1100);
		for (i = 0; m && i < 1100; i++)
			prof_symbolize(s, as, m->start + i, 0, f, 8);
		CHECK(s->cache_used > 1000);
		prof_symbolizer_shed_idle(s, 1000000000000ULL);
		CHECK(s->cache_used == 0 && s->pool_len == 0);
		n = prof_symbolize(s, as, (uintptr_t)unit_sym_target + 1, 0, f, 8);
		CHECK(n >= 1 && strcmp(f[n - 1].name, "unit_sym_target") == 0);
		CHECK(s->cache_used == 1);
		s->cache_keep = PROF_SYM_CACHE_KEEP;
	}
	TEST("vDSO code named by the vDSO's own symbols") {
		/* The reference: __vdso_clock_gettime in the image's .dynsym, read here. */
		uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
		const struct prof_map *m = base ? prof_addrspace_find(as, base) : NULL;
		uint64_t value = 0, load = UINT64_MAX;

		CHECK(m && strcmp(m->path, "[vdso]") == 0);
		if (m) {
			size_t len = m->end - m->start;
			char *img = malloc(len);
			Elf *e;
			Elf_Scn *scn = NULL;
			GElf_Shdr sh;
			size_t nph;

			memcpy(img, (const void *)base, len);
			e = elf_memory(img, len);
			CHECK(e && elf_getphdrnum(e, &nph) == 0);
			for (size_t i = 0; e && i < nph; i++) {
				GElf_Phdr ph;

				if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_vaddr < load)
					load = ph.p_vaddr;
			}
			while (e && (scn = elf_nextscn(e, scn)))
				if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM) {
					Elf_Data *d = elf_getdata(scn, NULL);

					for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
						GElf_Sym sym;
						const char *nm;

						if (gelf_getsym(d, (int)i, &sym) &&
						    (nm = elf_strptr(e, sh.sh_link, sym.st_name)) &&
						    strcmp(nm, "__vdso_clock_gettime") == 0)
							value = sym.st_value;
					}
				}
			CHECK(value != 0 && load != UINT64_MAX);
			if (value && load != UINT64_MAX) {
				n = prof_symbolize(s, as, base + value - load + 2, 0, f, 8);
				CHECK(n >= 1);
				CHECK_STR(f[n - 1].name, "__vdso_clock_gettime");
				CHECK(!(f[n - 1].flags & PROF_FRAME_UNKNOWN));
			}
			if (e)
				elf_end(e);
			free(img);
		}
	}
	TEST("overlapping mapping replaces, clone keeps") {
		const struct prof_map *m = prof_addrspace_find(as, (uintptr_t)unit_sym_target);
		struct prof_map anon = { 0 };
		unsigned long g = prof_addrspace_generation(as);
		uint64_t start = m->start;

		cl = prof_addrspace_clone(as, 1);
		anon.start = start;
		anon.end = start + 4096;
		anon.path = "";
		prof_addrspace_add_map(as, &anon);
		CHECK(prof_addrspace_generation(as) != g);
		m = prof_addrspace_find(as, start);
		CHECK(m && m->path[0] == 0);
		n = prof_symbolize(s, cl, (uintptr_t)unit_sym_target, 0, f, 8);
		CHECK(n >= 1 && strcmp(f[n - 1].name, "unit_sym_target") == 0);
		prof_addrspace_reset(cl);
		CHECK(prof_addrspace_find(cl, (uintptr_t)unit_sym_target) == NULL);
		prof_addrspace_free(cl);
	}
	TEST("malformed maps line reported, the rest kept") {
		struct prof_addrspace *a2 = prof_addrspace_new(s, 0);
		static const char text[] =
			"00400000-00401000 r-xp 00000000 08:01 123 /bin/true\n"
			"garbage\n"
			"00500000-00501000 rw-p 00000000 00:00 0\n";
		size_t k;
		const struct prof_map *maps;

		fd = mkstemp(path);
		CHECK(fd >= 0);
		CHECK(write(fd, text, sizeof(text) - 1) == (ssize_t)sizeof(text) - 1);
		close(fd);
		CHECK(prof_addrspace_load_maps(a2, path) == -1);
		maps = prof_addrspace_maps(a2, &k);
		CHECK(k == 2);
		CHECK(k == 2 && maps[0].start == 0x400000 && strcmp(maps[0].path, "/bin/true") == 0 &&
		      (maps[0].prot & PROT_EXEC));
		CHECK(k == 2 && maps[1].start == 0x500000 && maps[1].path[0] == 0);
		unlink(path);
		CHECK(prof_addrspace_load_maps(a2, "/nonexistent/maps") == -1);
		prof_addrspace_free(a2);
	}
	prof_addrspace_free(as);
	prof_symbolizer_free(s);
	return UNIT_RESULT();
}
