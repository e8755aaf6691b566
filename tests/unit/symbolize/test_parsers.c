/*
 * Unit tests of the symbolizer's building blocks (symbolize/internal.h):
 * the one bisection, the line parsers of /proc/PID/maps, /proc/kallsyms
 * and /tmp/perf-PID.map, the symbol table (sort, find), build-id hex.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "symbolize/internal.h"
#include "../unit.h"

struct keyed {
	uint64_t key;
	int payload;
};

int main(void)
{
	TEST("bisect: count of keys <= key") {
		static const struct keyed t[] = { { 10, 0 }, { 20, 1 }, { 20, 2 }, { 30, 3 } };

		CHECK(prof_sym_bisect(t, 4, sizeof(t[0]), 0) == 0);
		CHECK(prof_sym_bisect(t, 4, sizeof(t[0]), 9) == 0);
		CHECK(prof_sym_bisect(t, 4, sizeof(t[0]), 10) == 1);
		CHECK(prof_sym_bisect(t, 4, sizeof(t[0]), 19) == 1);
		CHECK(prof_sym_bisect(t, 4, sizeof(t[0]), 20) == 3);
		CHECK(prof_sym_bisect(t, 4, sizeof(t[0]), 29) == 3);
		CHECK(prof_sym_bisect(t, 4, sizeof(t[0]), 30) == 4);
		CHECK(prof_sym_bisect(t, 4, sizeof(t[0]), UINT64_MAX) == 4);
		CHECK(prof_sym_bisect(t, 0, sizeof(t[0]), 30) == 0);
		CHECK(prof_sym_bisect(t, 1, sizeof(t[0]), 30) == 1);
	}
	TEST("bisect: unaligned keys, large table") {
		/* 18-byte header then 16-byte entries, as the kallsyms cache file */
		unsigned char *buf = malloc(18 + 16 * 1000);
		size_t bad = 0;

		for (uint64_t i = 0; i < 1000; i++) {
			uint64_t k = 100 + 4 * i;

			memcpy(buf + 18 + 16 * i, &k, 8);
		}
		for (uint64_t key = 0; key < 4200; key++) {
			size_t want = key < 100 ? 0 : (key - 100) / 4 + 1;

			if (want > 1000)
				want = 1000;
			if (prof_sym_bisect(buf + 18, 1000, 16, key) != want)
				bad++;
		}
		CHECK(bad == 0);
		free(buf);
	}
	TEST("maps line: file mapping") {
		struct prof_map m;
		const char *line = "7f12a0000000-7f12a0021000 r-xp 00002000 fd:01 1234567    /usr/lib/libc.so.6";

		CHECK(prof_sym_parse_maps_line(line, &m) == 0);
		CHECK(m.start == 0x7f12a0000000ULL && m.end == 0x7f12a0021000ULL && m.pgoff == 0x2000);
		CHECK(m.prot == (PROT_READ | PROT_EXEC));
		CHECK_STR(m.path, "/usr/lib/libc.so.6");
		CHECK(m.build_id_len == 0);
	}
	TEST("maps line: anonymous, pseudo, names with blanks") {
		struct prof_map m;

		CHECK(prof_sym_parse_maps_line("00500000-00501000 rw-p 00000000 00:00 0", &m) == 0);
		CHECK(m.path[0] == 0 && m.prot == (PROT_READ | PROT_WRITE));
		CHECK(prof_sym_parse_maps_line("7ffd1000-7ffd3000 r-xp 00000000 00:00 0                  [vdso]", &m) == 0);
		CHECK_STR(m.path, "[vdso]");
		CHECK(prof_sym_parse_maps_line("1000-2000 ---p 00000000 08:01 7 /tmp/a b (deleted)", &m) == 0);
		CHECK_STR(m.path, "/tmp/a b (deleted)");
		CHECK(m.prot == 0);
	}
	TEST("maps line: malformed") {
		struct prof_map m;

		CHECK(prof_sym_parse_maps_line("garbage", &m) == -1);
		CHECK(prof_sym_parse_maps_line("", &m) == -1);
		CHECK(prof_sym_parse_maps_line("1000-2000 r-x 00000000 08:01 7 /bin/x", &m) == -1);
		CHECK(prof_sym_parse_maps_line("1000-2000 r-xp 00000000 08:01", &m) == -1);
	}
	TEST("kallsyms line: text symbols, module cut") {
		char l1[] = "ffffffff81000000 T _stext";
		char l2[] = "ffffffffc0a01000 t nf_ct_helper\t[nf_conntrack]";
		char l3[] = "0000000000000000 W weak_fn";
		uint64_t a;
		char type;
		char *name;

		CHECK(prof_sym_parse_kallsyms_line(l1, &a, &type, &name) == 1);
		CHECK(a == 0xffffffff81000000ULL && type == 'T');
		CHECK_STR(name, "_stext");
		CHECK(prof_sym_parse_kallsyms_line(l2, &a, &type, &name) == 1);
		CHECK(a == 0xffffffffc0a01000ULL && type == 't');
		CHECK_STR(name, "nf_ct_helper");
		CHECK(prof_sym_parse_kallsyms_line(l3, &a, &type, &name) == 1);
		CHECK(a == 0 && type == 'W');
	}
	TEST("kallsyms line: other types and junk refused") {
		char l1[] = "ffffffff82000000 D some_data";
		char l2[] = "ffffffff82000000 b bss_thing";
		char l3[] = "[module]";
		char l4[] = "ffffffff81000000 TT x";
		char l5[] = "";
		uint64_t a;
		char type;
		char *name;

		CHECK(prof_sym_parse_kallsyms_line(l1, &a, &type, &name) == 0);
		CHECK(prof_sym_parse_kallsyms_line(l2, &a, &type, &name) == 0);
		CHECK(prof_sym_parse_kallsyms_line(l3, &a, &type, &name) == 0);
		CHECK(prof_sym_parse_kallsyms_line(l4, &a, &type, &name) == 0);
		CHECK(prof_sym_parse_kallsyms_line(l5, &a, &type, &name) == 0);
	}
	TEST("perf map line") {
		uint64_t start, size;
		size_t off;
		const char *l = "7f3a00001000 1a0 LazyCompile:~main app.js:1\n";

		CHECK(prof_sym_parse_perfmap_line(l, &start, &size, &off) == 0);
		CHECK(start == 0x7f3a00001000ULL && size == 0x1a0);
		CHECK_STR(l + off, "LazyCompile:~main app.js:1\n");
		CHECK(prof_sym_parse_perfmap_line("1000 10 x", &start, &size, &off) == 0);
		CHECK(start == 0x1000 && size == 0x10 && off == 8);
		CHECK(prof_sym_parse_perfmap_line("zzz 10 x", &start, &size, &off) == -1);
		CHECK(prof_sym_parse_perfmap_line("1000 x", &start, &size, &off) == -1);
		CHECK(prof_sym_parse_perfmap_line("1000\t10 x", &start, &size, &off) == -1);
		CHECK(prof_sym_parse_perfmap_line("", &start, &size, &off) == -1);
	}
	TEST("symbol table: best name per address, sizes, lookup") {
		struct sym t[] = {
			{ 0x300, 0, 0, "last", 0, 0, 0, 0 },
			{ 0x100, 0x10, 0, "__weak_alias", 1, 0, 0, 0 },
			{ 0x100, 0x10, 0, "_alias", 0, 0, 0, 0 },
			{ 0x100, 0x10, 0, "public", 0, 0, 0, 0 },
			{ 0x200, 0, 0, "local", 2, 0, 0, 0 },
		};
		size_t n = 5;

		prof_sym_sort(t, &n, 0);
		CHECK(n == 3);
		CHECK_STR(t[0].name, "public");	/* best rank, then fewest underscores */
		CHECK(t[0].size == 0x10);
		CHECK(t[1].addr == 0x200 && t[1].size == 0x100);	/* up to the next */
		CHECK(t[2].addr == 0x300 && t[2].size == 4096);		/* the last: a page */
		CHECK(prof_sym_find(t, n, 0xff) == NULL);
		CHECK(prof_sym_find(t, n, 0x100) == &t[0]);
		CHECK(prof_sym_find(t, n, 0x10f) == &t[0]);
		CHECK(prof_sym_find(t, n, 0x110) == NULL);	/* a gap after a sized symbol */
		CHECK(prof_sym_find(t, n, 0x2ff) == &t[1]);
		CHECK(prof_sym_find(t, n, 0x300 + 4095) == &t[2]);
		CHECK(prof_sym_find(t, n, 0x300 + 4096) == NULL);
		CHECK(prof_sym_find(t, 0, 0x100) == NULL);
	}
	TEST("symbol table: a size-0 symbol stops at the end of its section") {
		/* _init (.init, no size) is followed by .plt's stubs: not its code */
		struct sym t[] = {
			{ 0x1000, 0, 0x101b, "_init", 0, 0, 0, 0 },
			{ 0x1030, 0x10, 0, "printf@plt", 3, 0, 0, 0 },
		};
		size_t n = 2;

		prof_sym_sort(t, &n, 0);
		CHECK(n == 2 && t[0].size == 0x1b);
		CHECK(prof_sym_find(t, n, 0x101a) == &t[0]);
		CHECK(prof_sym_find(t, n, 0x1020) == NULL);
	}
	TEST("symbol table: presorted keeps the first of an address") {
		struct sym t[] = {
			{ 0x100, 0, 0, "first", 1, 0, 0, 0 },
			{ 0x100, 0, 0, "second", 0, 0, 0, 0 },
			{ 0x180, 0, 0, "next", 0, 0, 0, 0 },
		};
		size_t n = 3;

		prof_sym_sort(t, &n, 1);
		CHECK(n == 2);
		CHECK_STR(t[0].name, "first");
		CHECK(t[0].size == 0x80);
	}
	TEST("build-id hex, file paths") {
		static const unsigned char bid[] = { 0x00, 0x1f, 0xa0, 0xff };
		char hex[9];

		prof_sym_hex(hex, bid, 4);
		CHECK_STR(hex, "001fa0ff");
		prof_sym_hex(hex, bid, 0);
		CHECK_STR(hex, "");
		CHECK(prof_sym_is_file("/usr/lib/libc.so.6"));
		CHECK(!prof_sym_is_file(""));
		CHECK(!prof_sym_is_file("[vdso]"));
		CHECK(!prof_sym_is_file("//anon"));
		CHECK(!prof_sym_is_file("/memfd:jit (deleted)"));
		CHECK(!prof_sym_is_file("/dev/zero (deleted)"));
		CHECK(!prof_sym_is_file("/SYSV00000000 (deleted)"));
	}
	return UNIT_RESULT();
}
