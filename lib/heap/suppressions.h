#ifndef PROF_HEAP_SUPPRESSIONS_H
#define PROF_HEAP_SUPPRESSIONS_H
/*
 * Leak suppressions in LeakSanitizer's syntax, and the blocks the C and
 * C++ runtimes keep for themselves, which profheap never reports as the
 * program's leaks.
 *
 * A suppression file holds one "leak:PATTERN" per line; blanks around it
 * and lines that are empty or start with '#' are ignored. A PATTERN
 * matches a frame name or the path of the object holding the frame:
 * as a substring, unless it starts with '^' (then a prefix) or ends with
 * '$' (then a suffix), with '*' matching any run of characters
 * (LeakSanitizer's "template" match).
 */
#include <stddef.h>

struct prof_heap_supp {
	char **pats;		/* NUL-terminated patterns, owned */
	size_t n, cap;
};

#define PROF_HEAP_SUPP_INIT { NULL, 0, 0 }

/* Free the patterns; s is empty again. */
void prof_heap_supp_release(struct prof_heap_supp *s);

/* Add the pattern pat[0..len) (copied). */
void prof_heap_supp_add(struct prof_heap_supp *s, const char *pat, size_t len);

/*
 * Add the patterns of glibc's and the C++ runtime's never-freed internal
 * blocks: stdio buffers, atexit lists, locale and time zone data, NSS and
 * iconv caches, dynamic loader data, per-thread strerror/dlerror buffers,
 * libstdc++'s emergency exception pool.
 */
void prof_heap_supp_add_builtin(struct prof_heap_supp *s);

/*
 * Add the "leak:" patterns of the suppression file path. Other types
 * ("called_from_lib:"...) are warned about as "path:line: unsupported
 * suppression type" and skipped; a line without a type is warned about
 * as malformed. Returns the number of malformed lines (plus 1 when the
 * file cannot be read, reported): nonzero means profheap should fail.
 */
unsigned long prof_heap_supp_load(struct prof_heap_supp *s, const char *path);

/* 1 if pattern matches str as LeakSanitizer matches templates, else 0. */
int prof_heap_supp_template_match(const char *pattern, const char *str);

/* 1 if any pattern of s matches str, else 0. */
int prof_heap_supp_match(const struct prof_heap_supp *s, const char *str);

/*
 * 1 if path (of a mapping) is one of the C/C++ runtime's own objects
 * (libc, the dynamic loader, libstdc++, libgcc_s, libm...). Blocks still
 * live whose every frame lies in them were allocated by the runtime for
 * itself, not by the program: they are not its leaks.
 */
int prof_heap_runtime_object(const char *path);

#endif
