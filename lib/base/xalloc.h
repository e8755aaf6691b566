#ifndef PROF_XALLOC_H
#define PROF_XALLOC_H
/*
 * Allocation that succeeds or dies: on failure these print
 * "prog: out of memory" and exit(PROF_EXIT_FAIL), so callers never check.
 * Memory is released with free().
 */
#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/* realloc of nmemb * size with overflow check. */
void *xreallocarray(void *p, size_t nmemb, size_t size);
char *xstrdup(const char *s);
/* Copy of the first n bytes of s (or fewer at a NUL), NUL-terminated. */
char *xstrndup(const char *s, size_t n);
/* Copy of exactly n bytes plus a terminating NUL. */
void *xmemdup(const void *p, size_t n);
/*
 * printf into a new string of exactly the length needed (the bounded
 * replacement for sprintf into a buffer sized by hand). Dies on OOM or
 * on a format error.
 */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow *p (of *cap elements of size elsize) to hold at least need elements. */
#define PROF_GROW(p, need, cap)                                                \
	do {                                                                   \
		if ((size_t)(need) > (cap)) {                                  \
			size_t prof_grow_n_ = (cap) ? (cap) * 2 : 16;          \
			while (prof_grow_n_ < (size_t)(need))                  \
				prof_grow_n_ *= 2;                             \
			(p) = xreallocarray((p), prof_grow_n_, sizeof(*(p)));  \
			(cap) = prof_grow_n_;                                  \
		}                                                              \
	} while (0)

#endif
