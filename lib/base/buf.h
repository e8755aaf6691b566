#ifndef PROF_BUF_H
#define PROF_BUF_H
/*
 * A growable byte buffer.
 *
 * Invariants: after any prof_buf_* call that added data, data[len] == '\0'
 * (the buffer can always be used as a C string, though it may also hold
 * NUL bytes inside). A zeroed struct (PROF_BUF_INIT) is an empty buffer
 * that owns nothing. The buffer owns data; prof_buf_release() frees it.
 * Allocation failure is fatal (xalloc.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include "base/error.h"

struct prof_buf {
	char *data;
	size_t len;
	size_t cap;
};

#define PROF_BUF_INIT { 0, 0, 0 }

/* Make room for at least extra more bytes plus the terminating NUL. */
void prof_buf_grow(struct prof_buf *b, size_t extra);

/* Append n bytes. */
void prof_buf_add(struct prof_buf *b, const void *p, size_t n);

/* Append one byte. */
void prof_buf_addch(struct prof_buf *b, int c);

/* Append a C string. */
void prof_buf_addstr(struct prof_buf *b, const char *s);

/* Append printf-formatted text. */
void prof_buf_addf(struct prof_buf *b, const char *fmt, ...) PROF_PRINTF(2, 3);
void prof_buf_vaddf(struct prof_buf *b, const char *fmt, va_list ap);

/* Empty the buffer, keeping its memory. */
void prof_buf_reset(struct prof_buf *b);

/* Free the memory; the buffer is empty and reusable afterwards. */
void prof_buf_release(struct prof_buf *b);

/* The contents as a C string ("" for an empty, never-grown buffer). */
const char *prof_buf_cstr(const struct prof_buf *b);

/* Take ownership of the data (NUL-terminated, never NULL); b is emptied. */
char *prof_buf_detach(struct prof_buf *b, size_t *len);

#endif
