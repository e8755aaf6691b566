#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "core/meta.h"
#include "base/xalloc.h"

int prof_meta_is_line(const char *line, size_t len)
{
	return len > 0 && line[0] == '#';
}

static int is_key_char(int c)
{
	return isalnum(c) || c == '_' || c == '.' || c == '-';
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static char *decode_value(const char *s, size_t len)
{
	char *out = xmalloc(len + 1), *o = out;
	size_t i;

	for (i = 0; i < len; i++) {
		int hi, lo;

		if (s[i] == '%' && i + 2 < len &&
		    (hi = hexval((unsigned char)s[i + 1])) >= 0 &&
		    (lo = hexval((unsigned char)s[i + 2])) >= 0) {
			*o++ = (char)(hi * 16 + lo);
			i += 2;
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	return out;
}

static void set_owned(struct prof_meta *m, const char *key, size_t keylen, char *value)
{
	size_t i;

	for (i = 0; i < m->count; i++) {
		if (strlen(m->keys[i]) == keylen && memcmp(m->keys[i], key, keylen) == 0) {
			free(m->values[i]);
			m->values[i] = value;
			return;
		}
	}
	if (m->count == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 8;
		m->keys = xreallocarray(m->keys, m->cap, sizeof(*m->keys));
		m->values = xreallocarray(m->values, m->cap, sizeof(*m->values));
	}
	m->keys[m->count] = xmemdup(key, keylen);
	m->values[m->count] = value;
	m->count++;
}

size_t prof_meta_parse_line(struct prof_meta *m, const char *line, size_t len)
{
	size_t i = 1, found = 0;

	if (!prof_meta_is_line(line, len))
		return 0;
	while (i < len) {
		size_t ks, ke, vs;

		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		ks = i;
		while (i < len && is_key_char((unsigned char)line[i]))
			i++;
		ke = i;
		if (ke == ks || i >= len || line[i] != '=') {
			/* Not a pair: skip this word. */
			while (i < len && line[i] != ' ' && line[i] != '\t')
				i++;
			continue;
		}
		vs = ++i;
		while (i < len && line[i] != ' ' && line[i] != '\t')
			i++;
		set_owned(m, line + ks, ke - ks, decode_value(line + vs, i - vs));
		found++;
	}
	return found;
}

void prof_meta_set(struct prof_meta *m, const char *key, const char *value)
{
	set_owned(m, key, strlen(key), xstrdup(value));
}

void prof_meta_setf(struct prof_meta *m, const char *key, const char *fmt, ...)
{
	struct prof_buf b = PROF_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	prof_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	set_owned(m, key, strlen(key), prof_buf_detach(&b, NULL));
}

const char *prof_meta_get(const struct prof_meta *m, const char *key)
{
	size_t i;

	for (i = 0; i < m->count; i++)
		if (strcmp(m->keys[i], key) == 0)
			return m->values[i];
	return NULL;
}

int prof_meta_list_index(const char *list, const char *item)
{
	size_t n = strlen(item);
	int i = 0;

	while (list) {
		const char *comma = strchr(list, ',');
		size_t l = comma ? (size_t)(comma - list) : strlen(list);

		if (l == n && memcmp(list, item, n) == 0)
			return i;
		list = comma ? comma + 1 : NULL;
		i++;
	}
	return -1;
}

char *prof_meta_list_item(const char *list, size_t i)
{
	while (list) {
		const char *comma = strchr(list, ',');

		if (i-- == 0)
			return comma ? xmemdup(list, (size_t)(comma - list)) : xstrdup(list);
		list = comma ? comma + 1 : NULL;
	}
	return NULL;
}

void prof_meta_merge(struct prof_meta *dst, const struct prof_meta *src)
{
	size_t i;

	for (i = 0; i < src->count; i++)
		prof_meta_set(dst, src->keys[i], src->values[i]);
}

void prof_meta_remove(struct prof_meta *m, const char *key)
{
	size_t i;

	for (i = 0; i < m->count; i++) {
		if (strcmp(m->keys[i], key) == 0) {
			free(m->keys[i]);
			free(m->values[i]);
			memmove(m->keys + i, m->keys + i + 1, (m->count - i - 1) * sizeof(*m->keys));
			memmove(m->values + i, m->values + i + 1,
				(m->count - i - 1) * sizeof(*m->values));
			m->count--;
			return;
		}
	}
}

void prof_meta_format(const struct prof_meta *m, struct prof_buf *out)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i;
	const unsigned char *v;

	if (!m || !m->count)
		return;
	prof_buf_addch(out, '#');
	for (i = 0; i < m->count; i++) {
		prof_buf_addch(out, ' ');
		prof_buf_addstr(out, m->keys[i]);
		prof_buf_addch(out, '=');
		for (v = (const unsigned char *)m->values[i]; *v; v++) {
			if (*v <= 0x20 || *v == '%' || *v == 0x7f) {
				prof_buf_addch(out, '%');
				prof_buf_addch(out, hex[*v >> 4]);
				prof_buf_addch(out, hex[*v & 15]);
			} else {
				prof_buf_addch(out, *v);
			}
		}
	}
	prof_buf_addch(out, '\n');
}

void prof_meta_release(struct prof_meta *m)
{
	size_t i;

	for (i = 0; i < m->count; i++) {
		free(m->keys[i]);
		free(m->values[i]);
	}
	free(m->keys);
	free(m->values);
	memset(m, 0, sizeof(*m));
}
