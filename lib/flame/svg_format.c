/*
 * Numbers and strings as the flame graph SVG writes them (internal.h):
 * coordinates in hundredths without trailing zeros, counts with thousands
 * separators, names escaped for the place they go.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "base/escape.h"
#include "flame/internal.h"

/* Append v rounded to hundredths, without trailing zeros ("12.5", "3"). */
void prof_flame_add_num(struct prof_buf *b, double v)
{
	long long h = llround(v * 100);
	char tmp[32], *p = tmp + sizeof(tmp);
	int neg = h < 0;
	unsigned long long u = neg ? (unsigned long long)-h : (unsigned long long)h;
	unsigned frac = (unsigned)(u % 100);

	u /= 100;
	if (frac) {
		if (frac % 10) {
			*--p = (char)('0' + frac % 10);
			*--p = (char)('0' + frac / 10);
		} else {
			*--p = (char)('0' + frac / 10);
		}
		*--p = '.';
	}
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (neg)
		*--p = '-';
	prof_buf_add(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

/* Append hundredths h as a number (exact: h is an integer count of 0.01). */
void prof_flame_add_hundredths(struct prof_buf *b, long long h)
{
	prof_flame_add_num(b, (double)h / 100);
}

/* "%.0f" of v with thousands separators (flamegraph.pl's samples_txt). */
void prof_flame_add_count(struct prof_buf *b, double v)
{
	char tmp[64];
	int n = snprintf(tmp, sizeof(tmp), "%.0f", v), i, lead;

	if (n <= 0 || n >= (int)sizeof(tmp) || !(tmp[0] >= '0' && tmp[0] <= '9')) {
		prof_buf_addstr(b, tmp);
		return;
	}
	lead = n % 3 ? n % 3 : 3;
	prof_buf_add(b, tmp, (size_t)lead);
	for (i = lead; i < n; i += 3) {
		prof_buf_addch(b, ',');
		prof_buf_add(b, tmp + i, 3);
	}
}

void prof_flame_add_hex(struct prof_buf *b, uint32_t c)
{
	static const char hex[] = "0123456789abcdef";
	char s[7];
	int i;

	s[0] = '#';
	for (i = 0; i < 6; i++)
		s[1 + i] = hex[(c >> (20 - 4 * i)) & 0xf];
	prof_buf_add(b, s, 7);
}

/* A JSON string literal safe inside <script> and CDATA (no <, >, &). */
void prof_flame_add_js_string(struct prof_buf *b, const char *s)
{
	prof_flame_add_js_string_len(b, s, strlen(s));
}

void prof_flame_add_js_string_len(struct prof_buf *b, const char *s, size_t len)
{
	struct prof_buf tmp = PROF_BUF_INIT;
	size_t i;

	prof_json_escape(&tmp, s, len);
	prof_buf_addch(b, '"');
	for (i = 0; i < tmp.len; i++) {
		char c = tmp.data[i];

		if (c == '<' || c == '>' || c == '&')
			prof_buf_addf(b, "\\u%04x", (unsigned)c);
		else
			prof_buf_addch(b, c);
	}
	prof_buf_addch(b, '"');
	prof_buf_release(&tmp);
}

/* Text for an XML comment: escaped, with no "--" and no trailing "-". */
void prof_flame_add_comment_text(struct prof_buf *b, const char *s)
{
	struct prof_buf tmp = PROF_BUF_INIT;
	size_t i;

	prof_xml_escape(&tmp, s, strlen(s));
	for (i = 0; i < tmp.len; i++) {
		prof_buf_addch(b, tmp.data[i]);
		if (tmp.data[i] == '-' && (i + 1 == tmp.len || tmp.data[i + 1] == '-'))
			prof_buf_addch(b, ' ');
	}
	prof_buf_release(&tmp);
}

void prof_flame_add_document_start(struct prof_buf *b, int html, const char *title, double width,
				   double height)
{
	if (html) {
		prof_buf_addstr(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			       "<title>");
		prof_xml_escape(b, title, strlen(title));
		prof_buf_addstr(b, "</title>\n<style>html,body{margin:0;padding:0}"
			       "svg{display:block}</style>\n</head>\n<body>\n");
	} else {
		prof_buf_addstr(b, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
	}
	prof_buf_addstr(b, "<svg version=\"1.1\" width=\"");
	prof_flame_add_num(b, width);
	prof_buf_addstr(b, "\" height=\"");
	prof_flame_add_num(b, height);
	prof_buf_addstr(b, "\" viewBox=\"0 0 ");
	prof_flame_add_num(b, width);
	prof_buf_addch(b, ' ');
	prof_flame_add_num(b, height);
	prof_buf_addch(b, '"');
}
