#include <stdlib.h>
#include <string.h>
#include "base/xalloc.h"
#include "formats/json.h"

/* The parse of one text: where it is, where an error is. */
struct parser {
	struct prof_json *j;
	const char *text;
	size_t len, pos;
	size_t spos;		/* next free byte of j->strings */
};

static int fail(struct parser *p, size_t at, const char *what)
{
	p->j->error = what;
	p->j->error_offset = at;
	return -1;
}

static void skip_ws(struct parser *p)
{
	while (p->pos < p->len && (p->text[p->pos] == ' ' || p->text[p->pos] == '\t' ||
				   p->text[p->pos] == '\n' || p->text[p->pos] == '\r'))
		p->pos++;
}

static size_t new_value(struct parser *p, enum prof_json_type t)
{
	struct prof_json *j = p->j;
	struct prof_json_value *v;

	if (j->n == j->cap) {
		j->cap = j->cap ? j->cap * 2 : 256;
		j->v = xreallocarray(j->v, j->cap, sizeof(*j->v));
	}
	v = &j->v[j->n];
	memset(v, 0, sizeof(*v));
	v->type = (uint8_t)t;
	v->offset = (uint32_t)p->pos;	/* under 4 GiB: prof_json_parse() */
	return j->n++;
}

static int hex4(const char *s, unsigned *u)
{
	int i;

	*u = 0;
	for (i = 0; i < 4; i++) {
		char c = s[i];

		*u <<= 4;
		if (c >= '0' && c <= '9')
			*u |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*u |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*u |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

static size_t put_utf8(char *out, unsigned cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* "\uXXXX" at text[*pos] (past the backslash and u), a pair for a surrogate. */
static int unicode_escape(struct parser *p, size_t *pos, unsigned *cp)
{
	unsigned lo;

	if (p->len - *pos < 4 || hex4(p->text + *pos, cp))
		return fail(p, *pos - 2, "bad \\u escape (four hex digits expected)");
	*pos += 4;
	if (*cp >= 0xdc00 && *cp <= 0xdfff)
		return fail(p, *pos - 6, "lone low surrogate in \\u escape");
	if (*cp < 0xd800 || *cp > 0xdbff)
		return 0;
	if (p->len - *pos < 6 || p->text[*pos] != '\\' || p->text[*pos + 1] != 'u' ||
	    hex4(p->text + *pos + 2, &lo) || lo < 0xdc00 || lo > 0xdfff)
		return fail(p, *pos - 6, "high surrogate not followed by a low one in \\u escape");
	*pos += 6;
	*cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
	return 0;
}

/* A string at p->pos (its opening quote), decoded in place. */
static int parse_string(struct parser *p, size_t *idx)
{
	size_t i = new_value(p, PROF_JSON_STRING), r = p->pos + 1, w = p->spos;
	const char *t = p->text;
	char *o = p->j->strings;
	unsigned cp;

	for (;;) {
		unsigned char c;

		if (r >= p->len)
			return fail(p, p->j->v[i].offset, "unterminated string (input cut short?)");
		c = (unsigned char)t[r];
		if (c == '"')
			break;
		if (c < 0x20)
			return fail(p, r, "control character in a string (escape it)");
		if (c != '\\') {
			o[w++] = t[r++];
			continue;
		}
		if (++r >= p->len)
			return fail(p, r - 1, "unterminated string (input cut short?)");
		switch (t[r++]) {
		case '"': o[w++] = '"'; break;
		case '\\': o[w++] = '\\'; break;
		case '/': o[w++] = '/'; break;
		case 'b': o[w++] = '\b'; break;
		case 'f': o[w++] = '\f'; break;
		case 'n': o[w++] = '\n'; break;
		case 'r': o[w++] = '\r'; break;
		case 't': o[w++] = '\t'; break;
		case 'u':
			if (unicode_escape(p, &r, &cp))
				return -1;
			w += put_utf8(o + w, cp);	/* never longer than the escape */
			break;
		default:
			return fail(p, r - 2, "bad escape in a string");
		}
	}
	p->j->v[i].str = o + p->spos;
	p->j->v[i].len = (uint32_t)(w - p->spos);
	o[w++] = '\0';
	p->spos = w;
	p->pos = r + 1;
	*idx = i;
	return 0;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int parse_number(struct parser *p)
{
	size_t i = new_value(p, PROF_JSON_NUMBER), s = p->pos, k = s;
	const char *t = p->text;
	char tmp[128];

	if (k < p->len && t[k] == '-')
		k++;
	if (k >= p->len || !is_digit(t[k]))
		return fail(p, s, "bad number");
	if (t[k] == '0' && k + 1 < p->len && is_digit(t[k + 1]))
		return fail(p, s, "bad number (leading zero)");
	while (k < p->len && is_digit(t[k]))
		k++;
	if (k < p->len && t[k] == '.') {
		if (++k >= p->len || !is_digit(t[k]))
			return fail(p, s, "bad number (digits expected after '.')");
		while (k < p->len && is_digit(t[k]))
			k++;
	}
	if (k < p->len && (t[k] == 'e' || t[k] == 'E')) {
		if (++k < p->len && (t[k] == '+' || t[k] == '-'))
			k++;
		if (k >= p->len || !is_digit(t[k]))
			return fail(p, s, "bad number (digits expected in the exponent)");
		while (k < p->len && is_digit(t[k]))
			k++;
	}
	if (k - s >= sizeof(tmp))
		return fail(p, s, "number too long");
	memcpy(tmp, t + s, k - s);
	tmp[k - s] = '\0';
	p->j->v[i].num = strtold(tmp, NULL);	/* the C locale's '.' (tools never set LC_NUMERIC) */
	p->pos = k;
	return 0;
}

static int parse_value(struct parser *p, int depth);

/* An array or object at p->pos (its bracket). */
static int parse_container(struct parser *p, int depth)
{
	int obj = p->text[p->pos] == '{';
	size_t i = new_value(p, obj ? PROF_JSON_OBJECT : PROF_JSON_ARRAY), key;
	char close = obj ? '}' : ']';

	if (depth >= PROF_JSON_MAX_DEPTH)
		return fail(p, p->pos, "nested too deeply");
	p->pos++;
	skip_ws(p);
	if (p->pos < p->len && p->text[p->pos] == close) {
		p->pos++;
		return 0;
	}
	for (;;) {
		skip_ws(p);
		if (obj) {
			if (p->pos >= p->len)
				return fail(p, p->pos, "unexpected end of input in an object (cut short?)");
			if (p->text[p->pos] != '"')
				return fail(p, p->pos, "expected a string key in an object");
			if (parse_string(p, &key))
				return -1;
			p->j->v[key].next = (uint32_t)(key + 1);
			skip_ws(p);
			if (p->pos >= p->len || p->text[p->pos] != ':')
				return fail(p, p->pos, "expected ':' after an object key");
			p->pos++;
		}
		if (parse_value(p, depth + 1))
			return -1;
		p->j->v[i].count++;
		skip_ws(p);
		if (p->pos >= p->len)
			return fail(p, p->pos, obj ? "unexpected end of input in an object (cut short?)" :
				    "unexpected end of input in an array (cut short?)");
		if (p->text[p->pos] == close) {
			p->pos++;
			return 0;
		}
		if (p->text[p->pos] != ',')
			return fail(p, p->pos, obj ? "expected ',' or '}' after an object member" :
				    "expected ',' or ']' after an array element");
		p->pos++;
	}
}

static int literal(struct parser *p, const char *word, enum prof_json_type t)
{
	size_t n = strlen(word);

	if (p->len - p->pos < n || memcmp(p->text + p->pos, word, n) != 0)
		return fail(p, p->pos, "unexpected character (not a JSON value)");
	new_value(p, t);
	p->pos += n;
	return 0;
}

static int parse_value(struct parser *p, int depth)
{
	size_t start = p->j->n, idx;
	int rc;
	char c;

	skip_ws(p);
	if (p->pos >= p->len)
		return fail(p, p->pos, "unexpected end of input (a value expected; cut short?)");
	c = p->text[p->pos];
	if (c == '{' || c == '[')
		rc = parse_container(p, depth);
	else if (c == '"')
		rc = parse_string(p, &idx);
	else if (c == '-' || is_digit(c))
		rc = parse_number(p);
	else if (c == 't')
		rc = literal(p, "true", PROF_JSON_TRUE);
	else if (c == 'f')
		rc = literal(p, "false", PROF_JSON_FALSE);
	else if (c == 'n')
		rc = literal(p, "null", PROF_JSON_NULL);
	else
		rc = fail(p, p->pos, "unexpected character (not a JSON value)");
	if (rc == 0)
		p->j->v[start].next = (uint32_t)p->j->n;
	return rc;
}

int prof_json_parse(struct prof_json *j, const char *text, size_t len)
{
	struct parser p = { j, text, len, 0, 0 };

	memset(j, 0, sizeof(*j));
	if (len >= UINT32_MAX) {	/* offsets and indices are 32-bit */
		j->error = "document over 4 GiB";
		return -1;
	}
	/* decoded strings and their NULs never outgrow the text */
	j->strings = xmalloc(len + 1);
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		p.pos = 3;	/* a UTF-8 byte order mark */
	if (parse_value(&p, 0))
		return -1;
	skip_ws(&p);
	if (p.pos < len)
		return fail(&p, p.pos, "data after the JSON value");
	return 0;
}

void prof_json_release(struct prof_json *j)
{
	free(j->v);
	free(j->strings);
	memset(j, 0, sizeof(*j));
}

void prof_json_position(const char *text, size_t len, size_t offset, unsigned long *line,
			unsigned long *column)
{
	size_t i, bol = 0;

	if (offset > len)
		offset = len;
	*line = 1;
	for (i = 0; i < offset; i++) {
		if (text[i] == '\n') {
			(*line)++;
			bol = i + 1;
		}
	}
	*column = (unsigned long)(offset - bol + 1);
}

size_t prof_json_member(const struct prof_json *j, size_t i, const char *key)
{
	size_t k, m, found = 0, n = strlen(key);

	if (i >= j->n || j->v[i].type != PROF_JSON_OBJECT)
		return 0;
	for (k = i + 1, m = 0; m < j->v[i].count; m++) {
		const struct prof_json_value *kv = &j->v[k];

		if (kv->len == n && memcmp(kv->str, key, n) == 0)
			found = k + 1;
		k = j->v[k + 1].next;
	}
	return found;
}

const char *prof_json_type_name(enum prof_json_type t)
{
	static const char *const names[] = { "null", "false", "true", "a number", "a string",
					     "an array", "an object" };

	return (size_t)t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}
