#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "base/xalloc.h"

void prof_buf_grow(struct prof_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;

	if (need < b->len)
		prof_die("out of memory");
	if (need <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap * 2 > cap ? cap * 2 : need;
	b->data = xrealloc(b->data, cap);
	b->cap = cap;
}

void prof_buf_add(struct prof_buf *b, const void *p, size_t n)
{
	prof_buf_grow(b, n);
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void prof_buf_addch(struct prof_buf *b, int c)
{
	prof_buf_grow(b, 1);
	b->data[b->len++] = (char)c;
	b->data[b->len] = '\0';
}

void prof_buf_addstr(struct prof_buf *b, const char *s)
{
	prof_buf_add(b, s, strlen(s));
}

void prof_buf_vaddf(struct prof_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	prof_buf_grow(b, 64);
	va_copy(cp, ap);
	n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		prof_die("vsnprintf failed");
	if ((size_t)n >= b->cap - b->len) {
		prof_buf_grow(b, (size_t)n);
		n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
	}
	b->len += (size_t)n;
}

void prof_buf_addf(struct prof_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	prof_buf_vaddf(b, fmt, ap);
	va_end(ap);
}

void prof_buf_reset(struct prof_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

void prof_buf_release(struct prof_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

const char *prof_buf_cstr(const struct prof_buf *b)
{
	return b->data ? b->data : "";
}

char *prof_buf_detach(struct prof_buf *b, size_t *len)
{
	char *d;

	if (!b->data)
		prof_buf_grow(b, 0), b->data[0] = '\0';
	d = b->data;
	if (len)
		*len = b->len;
	b->data = NULL;
	b->len = b->cap = 0;
	return d;
}
