/* lib/heap/suppressions.c: LeakSanitizer templates, suppression files, runtime objects. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../unit.h"
#include "base/error.h"
#include "heap/suppressions.h"

static int m(const char *pattern, const char *str)
{
	return prof_heap_supp_template_match(pattern, str);
}

int main(void)
{
	char path[] = "/tmp/test_supp.XXXXXX";
	int fd = mkstemp(path);
	FILE *f;

	prof_set_progname("test_suppressions");
	if (fd < 0)
		return 2;
	close(fd);
	TEST("template: substring, ^ prefix, $ suffix, both, '*' globs") {
		CHECK(m("leak_one", "leak_one") && m("ak_o", "leak_one") && !m("leak_two", "leak_one"));
		CHECK(m("^leak", "leak_one") && !m("^eak", "leak_one"));
		CHECK(m("one$", "leak_one") && !m("lea$", "leak_one"));
		CHECK(m("^leak_one$", "leak_one") && !m("^leak_on$", "leak_one"));
		CHECK(m("^l*one$", "leak_one") && m("a*_", "leak_one") && !m("^a*_", "leak_one"));
		CHECK(m("*", "") && m("^", "x") && m("$", "x") && m("^$", "") && !m("^$", "x"));
		CHECK(m("std::*::alloc", "std::vector<int>::alloc()"));
		CHECK(m("/ld-linux", "/lib64/ld-linux-x86-64.so.2"));
		CHECK(!m("abc", "ab") && !m("^abc$", "abcd"));
	}
	TEST("template: patterns longer than 4 KiB still match") {
		char *big = malloc(6001);

		memset(big, 'x', 6000);
		big[6000] = 0;
		CHECK(m(big, big) && m("^x*x$", big));
		free(big);
	}
	TEST("template: many '*' against a long name end quickly (found by fuzzing)") {
		char *pat = malloc(202), *name = malloc(20001);

		for (int i = 0; i < 200; i++)
			pat[i] = i % 2 ? '*' : 'a';
		pat[200] = 'b';
		pat[201] = 0;
		memset(name, 'a', 20000);
		name[20000] = 0;
		CHECK(!m(pat, name) && !m("****************************************\377a***", name));
		name[19999] = 'b';
		CHECK(m(pat, name) && m("a*a*a*b$", name) && !m("^b*", name));
		free(pat);
		free(name);
	}
	TEST("builtin patterns: glibc internals, not the program") {
		struct prof_heap_supp s = PROF_HEAP_SUPP_INIT;

		prof_heap_supp_add_builtin(&s);
		CHECK(s.n > 10);
		CHECK(prof_heap_supp_match(&s, "_IO_file_doallocate"));
		CHECK(prof_heap_supp_match(&s, "__tzfile_read") && prof_heap_supp_match(&s, "_dl_allocate_tls"));
		CHECK(!prof_heap_supp_match(&s, "my_dl_helper") && !prof_heap_supp_match(&s, "main"));
		prof_heap_supp_release(&s);
		CHECK(s.n == 0 && s.pats == NULL);
	}
	TEST("file: leak: lines kept, blanks and comments skipped, bad lines counted") {
		struct prof_heap_supp s = PROF_HEAP_SUPP_INIT;

		f = fopen(path, "w");
		fputs("# comment\n\n  leak:^leaky  \nleak:libfoo.so\ncalled_from_lib:x\nnonsense\nleak:\n", f);
		fclose(f);
		CHECK(prof_heap_supp_load(&s, path) == 1);	/* "nonsense"; other types are warned about */
		CHECK(s.n == 2);
		CHECK_STR(s.pats[0], "^leaky");
		CHECK_STR(s.pats[1], "libfoo.so");
		CHECK(prof_heap_supp_match(&s, "leaky") && !prof_heap_supp_match(&s, "not_leaky"));
		CHECK(prof_heap_supp_match(&s, "/usr/lib/libfoo.so.1"));
		CHECK(prof_heap_supp_load(&s, "/nonexistent/supp") == 1);
		prof_heap_supp_release(&s);
	}
	TEST("runtime objects by basename") {
		CHECK(prof_heap_runtime_object("/usr/lib/x86_64-linux-gnu/libc.so.6"));
		CHECK(prof_heap_runtime_object("/lib64/ld-linux-x86-64.so.2"));
		CHECK(prof_heap_runtime_object("/usr/lib/libstdc++.so.6.0.33"));
		CHECK(!prof_heap_runtime_object("/home/u/libc.so.dir/app"));
		CHECK(!prof_heap_runtime_object("/usr/lib/libcrypto.so.3") && !prof_heap_runtime_object(""));
	}
	unlink(path);
	return UNIT_RESULT();
}
