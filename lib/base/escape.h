#ifndef PROF_ESCAPE_H
#define PROF_ESCAPE_H
/*
 * Making arbitrary bytes safe for XML/SVG/HTML and JSON, and cutting
 * UTF-8 text without splitting characters.
 *
 * Input is treated as UTF-8. Invalid sequences (stray continuation bytes,
 * overlongs, surrogates, truncated sequences), control characters
 * (C0 except tab, DEL, C1) and noncharacters (U+FDD0..U+FDEF, U+FFFE,
 * U+FFFF and their counterparts in every plane; XML 1.0 forbids U+FFFE and
 * U+FFFF) are replaced by U+FFFD, never passed through, so the output is
 * always valid UTF-8, only XML 1.0 Chars, and well-formed XML/JSON.
 */
#include <stddef.h>

struct prof_buf;

/* Append s[0..len) escaped for XML text and attribute values (&<>"'). */
void prof_xml_escape(struct prof_buf *out, const char *s, size_t len);

/* Append s[0..len) as the inside of a JSON string (no quotes added). */
void prof_json_escape(struct prof_buf *out, const char *s, size_t len);
/*
 * Append s[0..len) as one TSV field or terminal text: control characters
 * (tab, newline, carriage return, ESC, NUL, DEL) become spaces, so a
 * name can neither split a row nor drive a terminal. Other bytes pass.
 */
void prof_tsv_text(struct prof_buf *out, const char *s, size_t len);

/*
 * Length of the valid UTF-8 sequence starting at s (1..4), or 0 if the
 * bytes at s do not start a valid sequence within len bytes.
 */
size_t prof_utf8_seqlen(const unsigned char *s, size_t len);

/* Nonzero if s[0..len) is entirely valid UTF-8. */
int prof_utf8_valid(const char *s, size_t len);

/*
 * The largest prefix length <= max of s[0..len) that does not end inside
 * a UTF-8 sequence (for truncating labels).
 */
size_t prof_utf8_prefix(const char *s, size_t len, size_t max);

/* Number of characters (code points; invalid bytes count one each). */
size_t prof_utf8_chars(const char *s, size_t len);

/* Byte length of the first nchars characters of s[0..len). */
size_t prof_utf8_char_prefix(const char *s, size_t len, size_t nchars);

#endif
