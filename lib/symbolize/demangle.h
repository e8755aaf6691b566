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
 */
#include <stddef.h>

/*
 * Demangle name into out (cap bytes, NUL-terminated). Returns 1 when name
 * is a Rust symbol that was demangled, 0 otherwise (out is then
 * unspecified): not Rust, malformed, nested too deeply, or longer than cap.
 */
int prof_demangle_rust(const char *name, char *out, size_t cap);

#endif
