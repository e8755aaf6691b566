#include <stdio.h>
#include <string.h>
#include "base/buf.h"
#include "base/escape.h"

static const char replacement[] = "\xef\xbf\xbd";	/* U+FFFD */

size_t prof_utf8_seqlen(const unsigned char *s, size_t len)
{
	unsigned c = s[0];
	size_t n, i;
	unsigned cp;

	if (len == 0)
		return 0;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;	/* overlong or out of range */
	if (cp >= 0xd800 && cp <= 0xdfff)
		return 0;	/* surrogate */
	return n;
}

int prof_utf8_valid(const char *s, size_t len)
{
	size_t i = 0, n;

	while (i < len) {
		n = prof_utf8_seqlen((const unsigned char *)s + i, len - i);
		if (!n)
			return 0;
		i += n;
	}
	return 1;
}

size_t prof_utf8_prefix(const char *s, size_t len, size_t max)
{
	size_t i = 0, n;

	if (max >= len)
		return len;
	while (i < max) {
		n = prof_utf8_seqlen((const unsigned char *)s + i, len - i);
		if (!n)
			n = 1;
		if (i + n > max)
			break;
		i += n;
	}
	return i;
}

size_t prof_utf8_chars(const char *s, size_t len)
{
	size_t i = 0, n, chars = 0;

	while (i < len) {
		n = prof_utf8_seqlen((const unsigned char *)s + i, len - i);
		i += n ? n : 1;
		chars++;
	}
	return chars;
}

size_t prof_utf8_char_prefix(const char *s, size_t len, size_t nchars)
{
	size_t i = 0, n;

	while (i < len && nchars--) {
		n = prof_utf8_seqlen((const unsigned char *)s + i, len - i);
		i += n ? n : 1;
	}
	return i;
}

/*
 * Code points written as U+FFFD: controls (C0 but tab, DEL, C1) and the
 * noncharacters U+FDD0..U+FDEF and U+nFFFE/U+nFFFF, among which U+FFFE and
 * U+FFFF are outside XML 1.0's Char production (the others are only
 * discouraged there, and mean nothing in interchange either).
 */
static int is_replaced(unsigned cp)
{
	return (cp < 0x20 && cp != '\t') || cp == 0x7f || (cp >= 0x80 && cp < 0xa0) ||
	       (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) == 0xfffe;
}

/* Decode the code point of a valid sequence of length n. */
static unsigned decode(const unsigned char *s, size_t n)
{
	static const unsigned char mask[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	unsigned cp = s[0] & mask[n];
	size_t i;

	for (i = 1; i < n; i++)
		cp = (cp << 6) | (s[i] & 0x3f);
	return cp;
}

/*
 * Walk s, copying safe runs in one piece; each byte in special and each
 * tab goes to the per-format escaper; invalid sequences and the code
 * points is_replaced() names become U+FFFD.
 */
typedef void escape_fn(struct prof_buf *out, unsigned c);

static void escape_with(struct prof_buf *out, const char *s, size_t len,
			const char *special, escape_fn *esc)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0, n;

	prof_buf_grow(out, len);
	while (i < len) {
		unsigned c = p[i];

		if (c >= 0x20 && c < 0x7f && !strchr(special, (int)c)) {
			i++;
			continue;
		}
		if (i > run)
			prof_buf_add(out, s + run, i - run);
		n = prof_utf8_seqlen(p + i, len - i);
		if (!n) {
			prof_buf_add(out, replacement, 3);
			i++;
		} else if (c == '\t' || (n == 1 && c >= 0x20 && c < 0x7f)) {
			esc(out, c);
			i++;
		} else if (is_replaced(n == 1 ? c : decode(p + i, n))) {
			prof_buf_add(out, replacement, 3);
			i += n;
		} else {
			prof_buf_add(out, s + i, n);
			i += n;
		}
		run = i;
	}
	if (i > run)
		prof_buf_add(out, s + run, i - run);
}

static void xml_char(struct prof_buf *out, unsigned c)
{
	switch (c) {
	case '&': prof_buf_add(out, "&amp;", 5); break;
	case '<': prof_buf_add(out, "&lt;", 4); break;
	case '>': prof_buf_add(out, "&gt;", 4); break;
	case '"': prof_buf_add(out, "&quot;", 6); break;
	case '\'': prof_buf_add(out, "&#39;", 5); break;
	case '\t': prof_buf_add(out, "&#9;", 4); break;
	default: prof_buf_addch(out, (int)c); break;
	}
}

static void json_char(struct prof_buf *out, unsigned c)
{
	switch (c) {
	case '"': prof_buf_add(out, "\\\"", 2); break;
	case '\\': prof_buf_add(out, "\\\\", 2); break;
	case '\t': prof_buf_add(out, "\\t", 2); break;
	/* Keep "</script>" inert when the JSON is embedded in HTML. */
	case '<': prof_buf_add(out, "\\u003c", 6); break;
	default: prof_buf_addch(out, (int)c); break;
	}
}

void prof_xml_escape(struct prof_buf *out, const char *s, size_t len)
{
	escape_with(out, s, len, "&<>\"'", xml_char);
}

void prof_json_escape(struct prof_buf *out, const char *s, size_t len)
{
	escape_with(out, s, len, "\"\\<", json_char);
}

void prof_tsv_text(struct prof_buf *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		prof_buf_addch(out, c < ' ' || c == 0x7f ? ' ' : (char)c);
	}
}
