/*
 * lib/base/escape.c: XML and JSON escaping give well-formed output for every
 * input. Every code point U+0000..U+10FFFF (and the surrogates, encoded the
 * way UTF-8 would if it allowed them) is put in a frame name and escaped:
 * the XML must consist of XML 1.0 Chars only (the Char production) with
 * no markup but the entity references, the JSON must be a valid string
 * body; code points that are Chars and not replaced come back unchanged.
 * Then random byte strings (a fixed seed) go through the same checks.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "base/escape.h"
#include "../unit.h"

/* XML 1.0 (fifth edition) production [2] Char. */
static int xml_char(uint32_t c)
{
	return c == 0x9 || c == 0xa || c == 0xd || (c >= 0x20 && c <= 0xd7ff) ||
	       (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);
}

/* Encode c as UTF-8 would (surrogates too); returns the length. */
static size_t encode(uint32_t c, unsigned char *s)
{
	if (c < 0x80) {
		s[0] = (unsigned char)c;
		return 1;
	}
	if (c < 0x800) {
		s[0] = (unsigned char)(0xc0 | c >> 6);
		s[1] = (unsigned char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		s[0] = (unsigned char)(0xe0 | c >> 12);
		s[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
		s[2] = (unsigned char)(0x80 | (c & 0x3f));
		return 3;
	}
	s[0] = (unsigned char)(0xf0 | c >> 18);
	s[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3f));
	s[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
	s[3] = (unsigned char)(0x80 | (c & 0x3f));
	return 4;
}

/*
 * Decode strictly (no overlongs, surrogates or values past U+10FFFF);
 * returns the length, 0 if s[0..len) does not start a valid sequence.
 */
static size_t decode(const unsigned char *s, size_t len, uint32_t *cp)
{
	size_t n, i;
	uint32_t c = s[0];

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, c &= 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, c &= 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, c &= 0x07;
	else
		return 0;
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/*
 * s is well-formed XML character data and attribute value content: valid
 * UTF-8 of Chars only, no '<', no quote, every '&' starts one of the
 * references the escaper writes. Returns 1 if so.
 */
static int xml_ok(const char *data, size_t len)
{
	static const char *const refs[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&#39;", "&#9;" };
	const unsigned char *s = (const unsigned char *)data;
	size_t i = 0, n, k;
	uint32_t c;

	while (i < len) {
		if (!(n = decode(s + i, len - i, &c)) || !xml_char(c) || c == '<' || c == '"' ||
		    c == '\'')
			return 0;
		if (c == '&') {
			for (k = 0; k < sizeof(refs) / sizeof(refs[0]); k++) {
				size_t rl = strlen(refs[k]);

				if (len - i >= rl && memcmp(s + i, refs[k], rl) == 0)
					break;
			}
			if (k == sizeof(refs) / sizeof(refs[0]))
				return 0;
		}
		i += n;
	}
	return 1;
}

/* s is the inside of a valid JSON string (RFC 8259) with no raw '<'. */
static int json_ok(const char *data, size_t len)
{
	const unsigned char *s = (const unsigned char *)data;
	size_t i = 0, n, k;
	uint32_t c;

	while (i < len) {
		if (!(n = decode(s + i, len - i, &c)) || c < 0x20 || c == '"' || c == '<')
			return 0;
		if (c == '\\') {
			if (i + 1 >= len)
				return 0;
			if (s[i + 1] == 'u') {
				if (len - i < 6)
					return 0;
				for (k = 2; k < 6; k++) {
					if (!strchr("0123456789abcdefABCDEF", s[i + k]) || !s[i + k])
						return 0;
				}
				n = 6;
			} else if (strchr("\"\\/bfnrt", s[i + 1]) && s[i + 1]) {
				n = 2;
			} else {
				return 0;
			}
		}
		i += n;
	}
	return 1;
}

/* Whether the XML escaper keeps code point c as it is (else U+FFFD). */
static int kept(uint32_t c)
{
	if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0))
		return 0;	/* controls (tab becomes &#9;) */
	if ((c >= 0xfdd0 && c <= 0xfdef) || (c & 0xfffe) == 0xfffe)
		return 0;	/* noncharacters */
	return 1;
}

int main(void)
{
	TEST("every code point in a name: XML 1.0 Chars, well-formed, JSON valid") {
		struct prof_buf x = PROF_BUF_INIT, j = PROF_BUF_INIT;
		unsigned char name[16];
		unsigned long xml_bad = 0, json_bad = 0, changed = 0, first = 0;
		uint32_t c;

		for (c = 0; c <= 0x10ffff; c++) {
			size_t n = encode(c, name + 4);

			memcpy(name, "fn_[", 4);
			memcpy(name + 4 + n, "]()", 3);
			prof_buf_reset(&x);
			prof_buf_reset(&j);
			prof_xml_escape(&x, (const char *)name, n + 7);
			prof_json_escape(&j, (const char *)name, n + 7);
			if (!xml_ok(x.data, x.len) && !xml_bad++)
				first = c;
			if (!json_ok(j.data, j.len))
				json_bad++;
			if (c < 0x80 && strchr("&<>\"'\t", (int)c) && c)
				continue;	/* an entity reference: xml_ok() checked it */
			prof_buf_reset(&j);
			if (c >= 0xd800 && c <= 0xdfff) {
				/* three bytes of invalid UTF-8: three replacements */
				prof_buf_addstr(&j, "fn_[\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd]()");
			} else if (kept(c)) {
				prof_buf_add(&j, name, n + 7);
			} else {
				prof_buf_addstr(&j, "fn_[\xef\xbf\xbd]()");
			}
			if (x.len != j.len || memcmp(x.data, j.data, x.len))
				changed++;
		}
		CHECK(xml_bad == 0);
		if (xml_bad)
			fprintf(stderr, "first code point giving bad XML: U+%04lX\n", first);
		CHECK(json_bad == 0);
		CHECK(changed == 0);
		prof_buf_release(&x);
		prof_buf_release(&j);
	}

	TEST("U+FFFE, U+FFFF, U+FDD0, U+10FFFF and C0 controls are replaced") {
		struct prof_buf b = PROF_BUF_INIT;

		prof_xml_escape(&b, "a\xef\xbf\xbe" "b\xef\xbf\xbf" "c\xef\xb7\x90" "d\xf4\x8f\xbf\xbf"
			       "e\x01" "f\x1f", 21);
		CHECK_STR(b.data, "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c\xef\xbf\xbd" "d\xef\xbf\xbd"
			  "e\xef\xbf\xbd" "f\xef\xbf\xbd");
		prof_buf_reset(&b);
		prof_json_escape(&b, "\xef\xbf\xbf\x02", 4);
		CHECK_STR(b.data, "\xef\xbf\xbd\xef\xbf\xbd");
		prof_buf_reset(&b);
		/* the largest Char and U+FFFD itself stay */
		prof_xml_escape(&b, "\xf4\x8f\xbf\xbd\xef\xbf\xbd", 7);
		CHECK_STR(b.data, "\xf4\x8f\xbf\xbd\xef\xbf\xbd");
		prof_buf_release(&b);
	}

	TEST("random byte strings: XML and JSON well-formed") {
		struct prof_buf x = PROF_BUF_INIT, j = PROF_BUF_INIT;
		unsigned char s[64];
		uint64_t state = 0x5eed;
		unsigned long bad = 0;
		int round;
		size_t i;

		for (round = 0; round < 200000; round++) {
			size_t len;

			state = state * 6364136223846793005ULL + 1442695040888963407ULL;
			len = (size_t)(state >> 58);	/* 0..63 */
			for (i = 0; i < len; i++) {
				unsigned r;

				state = state * 6364136223846793005ULL + 1442695040888963407ULL;
				r = (unsigned)(state >> 33);
				/* favour bytes that make (almost) valid multibyte sequences */
				switch (r % 5) {
				case 0: s[i] = (unsigned char)(r >> 8); break;
				case 1: s[i] = (unsigned char)(0x80 | ((r >> 8) & 0x3f)); break;
				case 2: s[i] = (unsigned char)(0xc0 | ((r >> 8) & 0x3f)); break;
				case 3: s[i] = "\xef\xbf\xbe\xed\xf4\x8f\xf0\x90\xb7"[(r >> 8) % 9]; break;
				default: s[i] = (unsigned char)((r >> 8) & 0x7f); break;
				}
			}
			prof_buf_reset(&x);
			prof_buf_reset(&j);
			prof_xml_escape(&x, (const char *)s, len);
			prof_json_escape(&j, (const char *)s, len);
			if (!xml_ok(x.data ? x.data : "", x.len) || !json_ok(j.data ? j.data : "", j.len))
				bad++;
		}
		CHECK(bad == 0);
		prof_buf_release(&x);
		prof_buf_release(&j);
	}
	return UNIT_RESULT();
}
