/* The --nameattr file (nameattr.h). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "base/buf.h"
#include "base/error.h"
#include "base/escape.h"
#include "base/xalloc.h"
#include "flame/nameattr.h"
#include "io/input.h"

static int is_xml_name(const char *s, size_t len)
{
	size_t i;

	if (len == 0)
		return 0;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';

		if (!alpha && (i == 0 || !((c >= '0' && c <= '9') || c == '-' || c == '.')))
			return 0;
	}
	return 1;
}

/* Whether the attributes ' key="value"...' in g already hold key[0..klen). */
static int has_key(const struct prof_buf *g, const char *key, size_t klen)
{
	const char *s = prof_buf_cstr(g);

	for (const char *q = s; (q = strchr(q, ' ')) != NULL; q++) {
		if (strncmp(q + 1, key, klen) == 0 && q[1 + klen] == '=')
			return 1;
		if ((q = strchr(q, '"')) == NULL || (q = strchr(q + 1, '"')) == NULL)
			break;	/* past the value (escaped: no '"' inside) */
	}
	return 0;
}

/*
 * Whether an attribute could run script when the SVG is opened: event
 * handlers (on...), and links or sources whose URL scheme is
 * javascript:, vbscript: or data: (browsers ignore blanks and control
 * characters before the scheme and its case).
 */
static int runs_script(const char *key, size_t klen, const char *v, size_t vlen)
{
	static const char *const schemes[] = { "javascript:", "vbscript:", "data:" };
	const char *local = memchr(key, ':', klen);
	char scheme[16];
	size_t n = 0;

	if (local) {		/* xlink:href is href */
		klen -= (size_t)(local + 1 - key);
		key = local + 1;
	}
	if (klen >= 2 && strncasecmp(key, "on", 2) == 0)
		return 1;
	if (!((klen == 4 && strncasecmp(key, "href", 4) == 0) ||
	      (klen == 3 && strncasecmp(key, "src", 3) == 0) ||
	      (klen == 6 && strncasecmp(key, "action", 6) == 0) ||
	      (klen == 10 && strncasecmp(key, "formaction", 10) == 0)))
		return 0;
	for (size_t i = 0; i < vlen && n < sizeof(scheme) - 1; i++) {
		unsigned char c = (unsigned char)v[i];

		if (c <= ' ')
			continue;
		scheme[n++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
	}
	scheme[n] = '\0';
	for (size_t i = 0; i < sizeof(schemes) / sizeof(*schemes); i++)
		if (strncmp(scheme, schemes[i], strlen(schemes[i])) == 0)
			return 1;
	return 0;
}

static char *escaped_copy(const char *s, size_t len)
{
	struct prof_buf b = PROF_BUF_INIT;

	prof_xml_escape(&b, s, len);
	return prof_buf_detach(&b, NULL);
}

/* Replace *slot by value[0..len), escaped unless raw. */
static void set_attr(char **slot, const char *value, size_t len, int raw)
{
	free(*slot);
	*slot = raw ? xmemdup(value, len) : escaped_copy(value, len);
}

/*
 * Apply one "key=value" field [p, end) of line lineno to attrs; other
 * attributes are appended to g. Returns 0, or -1 if it is malformed
 * (reported).
 */
static int add_field(struct prof_flame_attrs *attrs, struct prof_buf *g, const char *p,
		     const char *end, const char *path, unsigned long lineno)
{
	const char *eq = memchr(p, '=', (size_t)(end - p)), *v;
	size_t klen, vlen;

	if (!eq || !is_xml_name(p, (size_t)(eq - p))) {
		prof_input_warn(path, lineno, "bad attribute \"%.*s\" (expected key=value)",
				(int)(end - p), p);
		return -1;
	}
	klen = (size_t)(eq - p);
	v = eq + 1;
	vlen = (size_t)(end - v);
	if (runs_script(p, klen, v, vlen)) {
		prof_input_warn(path, lineno, "attribute \"%.*s\" could run script: refused",
				(int)klen, p);
		return -1;
	}
	/*
	 * What would make the SVG ill-formed XML, which browsers refuse to
	 * draw at all: a prefix no xmlns declares ("a:b"), the reserved xml*
	 * names (xmlns declares a namespace), an attribute given twice.
	 */
	if (memchr(p, ':', klen) || (klen >= 3 && strncasecmp(p, "xml", 3) == 0)) {
		prof_input_warn(path, lineno, "attribute key \"%.*s\": %s (the SVG would not be drawn): "
				"refused", (int)klen, p, memchr(p, ':', klen) ?
				"a namespace prefix the SVG does not declare" :
				"names starting with xml are reserved");
		return -1;
	}
	if (has_key(g, p, klen)) {
		prof_input_warn(path, lineno, "attribute key \"%.*s\" given twice: refused", (int)klen, p);
		return -1;
	}
	if (klen == 5 && memcmp(p, "title", 5) == 0) {
		set_attr(&attrs->title, v, vlen, 1);
	} else if (klen == 4 && memcmp(p, "href", 4) == 0) {
		set_attr(&attrs->href, v, vlen, 0);
	} else if (klen == 6 && memcmp(p, "target", 6) == 0) {
		set_attr(&attrs->target, v, vlen, 0);
	} else {
		prof_buf_addch(g, ' ');
		prof_buf_add(g, p, klen);
		prof_buf_addstr(g, "=\"");
		prof_xml_escape(g, v, vlen);
		prof_buf_addch(g, '"');
	}
	return 0;
}

/* One line "NAME<TAB>key=value...". Returns 0, or -1 if malformed (reported). */
static int add_line(struct prof_flame_nameattr *a, char *line, size_t len, const char *path,
		    unsigned long lineno)
{
	char *tab = memchr(line, '\t', len), *p, *end = line + len;
	struct prof_buf g = PROF_BUF_INIT;
	struct prof_flame_attrs *attrs;
	uint32_t id;
	int rval = 0;

	if (!tab) {
		prof_input_warn(path, lineno, "expected NAME<TAB>key=value... in name attribute file");
		return -1;
	}
	id = prof_intern(&a->names, line, (size_t)(tab - line));
	if ((size_t)id >= a->cap) {
		size_t old = a->cap;

		PROF_GROW(a->attrs, (size_t)id + 1, a->cap);
		memset(a->attrs + old, 0, (a->cap - old) * sizeof(*a->attrs));
	}
	attrs = &a->attrs[id];
	for (p = tab + 1; p < end;) {
		char *next = memchr(p, '\t', (size_t)(end - p));

		if (add_field(attrs, &g, p, next ? next : end, path, lineno))
			rval = -1;
		p = next ? next + 1 : end;
	}
	if (g.len) {
		free(attrs->gattrs);
		attrs->gattrs = prof_buf_detach(&g, NULL);
	}
	prof_buf_release(&g);
	return rval;
}

int prof_flame_nameattr_load(struct prof_flame_nameattr *a, const char *path)
{
	struct prof_lines *lr = prof_lines_open(path);
	size_t len;
	char *line;
	int rval = 0;

	memset(a, 0, sizeof(*a));
	prof_intern_init(&a->names);
	if (!lr)
		return -1;
	while ((line = prof_lines_next(lr, &len)) != NULL) {
		if (len && add_line(a, line, len, path, prof_lines_lineno(lr)))
			rval = -1;
	}
	if (prof_lines_failed(lr) || prof_lines_too_long(lr))
		rval = -1;
	prof_lines_close(lr);
	return rval;
}

const struct prof_flame_attrs *prof_flame_nameattr_find(const struct prof_flame_nameattr *a,
							const char *name, size_t len)
{
	uint32_t id = prof_intern_find(&a->names, name, len);

	return id != UINT32_MAX && id < a->cap ? &a->attrs[id] : NULL;
}

void prof_flame_nameattr_release(struct prof_flame_nameattr *a)
{
	size_t i;

	for (i = 0; i < a->cap; i++) {
		free(a->attrs[i].title);
		free(a->attrs[i].href);
		free(a->attrs[i].target);
		free(a->attrs[i].gattrs);
	}
	free(a->attrs);
	prof_intern_release(&a->names);
	memset(a, 0, sizeof(*a));
}
