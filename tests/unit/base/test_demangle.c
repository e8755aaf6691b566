/*
 * lib/base/demangle.c: Rust (legacy and v0) and C++ names through
 * libiberty. The Rust names are real ones, from tests/tools/shapes.rs
 * built by rustc 1.95 (legacy for the program's crate, v0 for std), with
 * the names rustc-demangle's short form prints (no hash segment).
 */
#include <stdlib.h>
#include <string.h>
#include "../unit.h"
#include "base/demangle.h"

/* 1 if name demangles to want (NULL: is refused) */
static int demangles_to(const char *name, const char *want)
{
	char *d = prof_demangle(name, strlen(name));
	int ok = want ? d && strcmp(d, want) == 0 : d == NULL;

	if (!ok)
		fprintf(stderr, "  %s -> %s (want %s)\n", name, d ? d : "NULL", want ? want : "NULL");
	free(d);
	return ok;
}

int main(void)
{
	TEST("Rust legacy names: escapes decoded, hash dropped") {
		CHECK(demangles_to("_ZN40_$LT$main..Sq$u20$as$u20$main..Shape$GT$4area17h1e3ce47dfb2c72f6E",
				   "<main::Sq as main::Shape>::area"));
		CHECK(demangles_to("_ZN4main5total17hc7a514dd0455038cE", "main::total"));
		CHECK(demangles_to("_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17hdbee5a3fa7ab6636E",
				   "std::rt::lang_start::{{closure}}"));
		CHECK(demangles_to("_ZN4core3ptr52drop_in_place$LT$alloc..vec..Vec$LT$main..Sq$GT$$GT$17h537fe2e3bb978d85E",
				   "core::ptr::drop_in_place<alloc::vec::Vec<main::Sq>>"));
		/* LLVM's suffix goes with the hash */
		CHECK(demangles_to("_ZN4main4main17h8da7fa642d137fc6E.llvm.4242", "main::main"));
	}
	TEST("Rust v0 names (std)") {
		CHECK(demangles_to("_RNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal",
				   "std::rt::lang_start_internal"));
		CHECK(demangles_to("_RNCNCNCNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal00s_0B9_",
				   "std::rt::lang_start_internal::{closure#0}::{closure#0}::{closure#1}"));
		CHECK(demangles_to("_RNvMsa_NtCsgEmfK2I1SDS_4core3fmtNtB5_9Formatter12pad_integral",
				   "<core::fmt::Formatter>::pad_integral"));
		CHECK(demangles_to("_RINvNtNtCsgEmfK2I1SDS_4core3fmt5float29float_to_decimal_common_exactdEB6_",
				   "core::fmt::float::float_to_decimal_common_exact::<f64>"));
	}
	TEST("C++ names, with their parameters") {
		CHECK(demangles_to("_ZN4calc3AccImE3sumEm", "calc::Acc<unsigned long>::sum(unsigned long)"));
		CHECK(demangles_to("_ZL3sysi", "sys(int)"));
		CHECK(demangles_to("_ZN4demo6Engine4spinEm", "demo::Engine::spin(unsigned long)"));
	}
	TEST("not mangled, malformed, or cut: refused") {
		CHECK(demangles_to("main", NULL));
		CHECK(demangles_to("_Z", NULL));
		CHECK(demangles_to("_RNvC3foo", NULL));			/* truncated v0 */
		CHECK(demangles_to("_RNvC3foo3barX", NULL));		/* trailing junk */
		CHECK(demangles_to("_ZN3foo3ba", NULL));
		CHECK(demangles_to("_start", NULL));
		/* only len bytes are read: a name cut inside a longer string */
		CHECK(prof_demangle("_ZN4main5total17hc7a514dd0455038cE+0x1c", 4) == NULL);
	}
	TEST("the name shown and the names that match") {
		char *s = prof_demangle_shown("_ZN4demo6Engine4spinEm", 0);

		CHECK(s && strcmp(s, "demo::Engine::spin(unsigned long)") == 0);
		free(s);
		s = prof_demangle_shown("_ZN4demo6Engine4spinEm", 1);
		CHECK(s && strcmp(s, "_ZN4demo6Engine4spinEm") == 0);
		free(s);
		s = prof_demangle_shown("main", 0);
		CHECK(s && strcmp(s, "main") == 0);
		free(s);
		CHECK(prof_demangle_matches("_ZN4demo6Engine4spinEm", "_ZN4demo6Engine4spinEm"));
		CHECK(prof_demangle_matches("_ZN4demo6Engine4spinEm", "demo::Engine::spin(unsigned long)"));
		CHECK(!prof_demangle_matches("_ZN4demo6Engine4spinEm", "demo::Engine::spin"));
		CHECK(prof_demangle_matches("_ZN4main5total17hc7a514dd0455038cE", "main::total"));
		CHECK(prof_demangle_matches("main", "main"));
		CHECK(!prof_demangle_matches("main", "mai"));
	}
	TEST("a length, not a C string; long names") {
		const char *line = "_ZN4main5total17hc7a514dd0455038cE+0x1c (/tmp/x)";
		char *d = prof_demangle(line, strlen("_ZN4main5total17hc7a514dd0455038cE")), *big;
		size_t n = 0;

		CHECK(d && strcmp(d, "main::total") == 0);
		free(d);
		/* a legacy name longer than the on-stack copy: 40 path segments */
		big = malloc(4096);
		n += (size_t)sprintf(big + n, "_ZN");
		for (int i = 0; i < 40; i++)
			n += (size_t)sprintf(big + n, "14segment_%06d", i);
		sprintf(big + n, "17h0123456789abcdefE");
		d = prof_demangle(big, strlen(big));
		CHECK(d && strncmp(d, "segment_000000::segment_000001::", 32) == 0 &&
		      strstr(d, "::h0123") == NULL && strlen(d) == 40 * 14 + 39 * 2);
		free(d);
		free(big);
	}
	return UNIT_RESULT();
}
