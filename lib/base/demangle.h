#ifndef PROF_DEMANGLE_H
#define PROF_DEMANGLE_H
/*
 * Symbol names made readable: Rust, both manglings rustc emits (legacy
 * _ZN...17h<16 hex>E with its $LT$-style escapes, and v0 _R..., which
 * the standard library is built with), and C++ (Itanium _Z...). The one
 * demangler of proftools: the symbolizer (profrec, profheap,
 * profannotate) and the perf script reader (proffold and every tool that
 * reads perf script text) both call it, so a name reads the same
 * everywhere.
 *
 * The work is done by libiberty (Debian libiberty-dev, a static library;
 * a required build dependency, probed by lib/base/base.mk), as its
 * cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_RUST) and
 * DMGL_GNU_V3 do it. Why libiberty:
 *  - it is maintained upstream with binutils and GCC and follows rustc's
 *    manglings and the C++ ABI as they change;
 *  - it is what perf (built with libbfd/libiberty), c++filt and gdb
 *    print: the same names as perf script's, for both languages;
 *  - Rust names come out as rustc-demangle's short form: no hash segment
 *    ("::h<16 hex>" dropped, ".llvm.N" suffixes too), no crate
 *    disambiguators, generic arguments kept (<main::Sq as
 *    main::Shape>::area, std::rt::lang_start_internal, f::<u8>,
 *    {closure#0}).
 * It replaced our own Rust demangler (780 lines kept beside libstdc++'s
 * __cxa_demangle, which had been dlopen()ed for C++): one maintained
 * library for both languages instead of two demanglers. There is no
 * fallback: a build without libiberty fails, naming the package. C++
 * names are the same as __cxa_demangle's (libstdc++ builds it from
 * libiberty's cp-demangle.c).
 *
 * Rust is tried first (a legacy Rust name is a valid Itanium name too; as
 * C++ it would keep its hash segment), then Itanium C++, as
 * cplus_demangle does; we call its two back ends, rust_demangle and
 * cplus_demangle_v3, directly: they need only malloc, while
 * cplus_demangle's own object pulls libiberty's xmalloc family, whose
 * names base/xalloc.h also defines. Both are reentrant: threads may call
 * prof_demangle at once.
 */
#include <stddef.h>

/* Nonzero if name[0..len) may be mangled (starts with "_Z" or "_R"): a cheap test. */
static inline int prof_demangle_candidate(const char *name, size_t len)
{
	return len > 2 && name[0] == '_' && (name[1] == 'Z' || name[1] == 'R');
}

/*
 * The demangled form of name[0..len) (need not be NUL-terminated),
 * malloc'ed: the caller frees it. NULL when the name is not a Rust or
 * C++ mangled name, or is malformed (callers then keep name as it is).
 */
char *prof_demangle(const char *name, size_t len);

/*
 * The name a tool shows for the symbol raw (NUL-terminated): demangled,
 * or raw itself when keep_raw is set (--no-demangle) or raw is not a
 * mangled name. malloc'ed (dies on OOM): the caller frees it.
 */
char *prof_demangle_shown(const char *raw, int keep_raw);

/*
 * Nonzero if want names the symbol raw: want is raw itself or its
 * demangled form, so that a function can be asked for by either name
 * whichever one the tool shows.
 */
int prof_demangle_matches(const char *raw, const char *want);

#endif
