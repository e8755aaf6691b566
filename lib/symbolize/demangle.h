#ifndef PROF_DEMANGLE_H
#define PROF_DEMANGLE_H
/*
 * Rust symbol demangling, both manglings rustc emits: the legacy one
 * (_ZN...17h<16 hex>E, Itanium-shaped, with $LT$-style escapes and a hash
 * segment) and v0 (_R..., RFC 2603), which the standard library is built
 * with. C++ names are left to __cxa_demangle (prof_sym_demangle() in
 * demangle.c).
 *
 * Names are printed as rustc-demangle's short form does: no hash, no
 * crate disambiguators, generic arguments kept (<T as Trait>::f,
 * f::<u8>, {closure#0}); erased and bound lifetimes print as '_.
 *
 * Why our own and not libiberty (issue 17, evaluated 2026-11): Debian's
 * libiberty-dev 20230104, cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI |
 * DMGL_RUST), prints the same names for both manglings
 * (<main::Sq as main::Shape>::area, std::rt::lang_start_internal, no
 * hash) and its libiberty.a links into our PIE tools. It is not used yet
 * because it would be a new required build dependency (Makefile,
 * scripts/install-deps.sh; not installed by default) and the switch
 * (this file's 780 lines out, a probe with this code as the fallback or
 * none) was not finished in the time of that change.
 */
#include <stddef.h>

/*
 * Demangle name into out (cap bytes, NUL-terminated). Returns 1 when name
 * is a Rust symbol that was demangled, 0 otherwise (out is then
 * unspecified): not Rust, malformed, nested too deeply, or longer than cap.
 */
int prof_demangle_rust(const char *name, char *out, size_t cap);

#endif
