#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "base/error.h"
#include "io/input.h"
#include "formats/tsv.h"
#include "base/xalloc.h"

#define MAX_REPORTED 20

size_t prof_tsv_split(char *line, size_t len, char **fields, size_t max)
{
	size_t n = 0;
	char *p = line, *end = line + len;

	for (;;) {
		char *tab = memchr(p, '\t', (size_t)(end - p));

		if (n < max)
			fields[n] = p;
		n++;
		if (!tab)
			break;
		*tab = '\0';
		p = tab + 1;
	}
	return n;
}

const struct prof_tsv_schema *prof_tsv_schema_find(const char *name)
{
	size_t i;

	for (i = 0; prof_tsv_schemas[i]; i++)
		if (strcmp(prof_tsv_schemas[i]->name, name) == 0)
			return prof_tsv_schemas[i];
	return NULL;
}

const char *prof_tsv_header(const struct prof_tsv_schema *s)
{
	/* One cached header per schema; schemas are few and static. */
	static struct { const struct prof_tsv_schema *s; char *text; } cache[32];
	struct prof_buf b = PROF_BUF_INIT;
	size_t i;

	for (i = 0; i < 32 && cache[i].s; i++)
		if (cache[i].s == s)
			return cache[i].text;
	for (i = 0; i < s->ncolumns; i++) {
		if (i)
			prof_buf_addch(&b, '\t');
		prof_buf_addstr(&b, s->columns[i].name);
	}
	prof_buf_addch(&b, '\n');
	for (i = 0; i < 32; i++) {
		if (!cache[i].s) {
			cache[i].s = s;
			cache[i].text = prof_buf_detach(&b, NULL);
			return cache[i].text;
		}
	}
	return prof_buf_detach(&b, NULL);	/* more than 32 schemas: leak one */
}

static int valid_int(const char *s)
{
	if (*s == '-')
		s++;
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

static int valid_num(const char *s)
{
	int digits = 0;

	if (*s == '-' || *s == '+')
		s++;
	while (isdigit((unsigned char)*s))
		s++, digits++;
	if (*s == '.') {
		s++;
		while (isdigit((unsigned char)*s))
			s++, digits++;
	}
	if (!digits)
		return 0;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '-' || *s == '+')
			s++;
		if (!isdigit((unsigned char)*s))
			return 0;
		while (isdigit((unsigned char)*s))
			s++;
	}
	return *s == '\0';
}

int prof_tsv_valid_value(enum prof_tsv_type t, const char *s)
{
	switch (t) {
	case PROF_TSV_TEXT:
		return strpbrk(s, "\t\n\r") == NULL;
	case PROF_TSV_INT:
		return valid_int(s);
	case PROF_TSV_NUM:
		return valid_num(s);
	case PROF_TSV_OPTNUM:
		return !*s || valid_num(s);
	case PROF_TSV_OPTINT:
		return !*s || valid_int(s);
	}
	return 0;
}

static const char *type_name(enum prof_tsv_type t)
{
	switch (t) {
	case PROF_TSV_TEXT: return "text";
	case PROF_TSV_INT: return "an integer";
	case PROF_TSV_NUM: return "a number";
	case PROF_TSV_OPTNUM: return "a number or empty";
	case PROF_TSV_OPTINT: return "an integer or empty";
	}
	return "?";
}

unsigned long prof_tsv_validate(struct prof_lines *lr, const struct prof_tsv_schema *s)
{
	unsigned long problems = 0;
	const char *name = prof_lines_name(lr);
	char **fields = xmalloc((s->ncolumns + 1) * sizeof(*fields));
	size_t ncols = s->ncolumns, k;
	int have_header = 0;
	size_t len, n, i;
	char *line;

#define PROBLEM(...) do { \
		if (++problems <= MAX_REPORTED) \
			prof_input_warn(name, prof_lines_lineno(lr), __VA_ARGS__); \
	} while (0)

	while ((line = prof_lines_next(lr, &len)) != NULL) {
		if (memchr(line, '\0', len)) {
			PROBLEM("NUL byte in line");
			continue;
		}
		if (!have_header) {
			if (line[0] == '#')
				continue;
			n = prof_tsv_split(line, len, fields, s->ncolumns + 1);
			for (k = 0; k < 3 && s->older[k] && s->older[k] != n; k++)
				;
			if (n != s->ncolumns && (k == 3 || !s->older[k])) {
				PROBLEM("header has %zu columns, %s has %zu", n, s->name, s->ncolumns);
			} else {
				for (i = 0; i < n; i++)
					if (strcmp(fields[i], s->columns[i].name) != 0)
						break;
				if (i < n)
					PROBLEM("header column %zu is '%s', expected '%s'", i + 1,
						fields[i], s->columns[i].name);
				ncols = n;
			}
			have_header = 1;
			continue;
		}
		if (line[0] == '#') {
			PROBLEM("metadata line after the header");
			continue;
		}
		n = prof_tsv_split(line, len, fields, s->ncolumns + 1);
		if (n != ncols) {
			PROBLEM("%zu field%s, expected %zu", n, n == 1 ? "" : "s", ncols);
			continue;
		}
		for (i = 0; i < n; i++) {
			if (!prof_tsv_valid_value(s->columns[i].type, fields[i])) {
				PROBLEM("column %s: '%.40s' is not %s", s->columns[i].name, fields[i],
					type_name(s->columns[i].type));
				break;
			}
		}
	}
#undef PROBLEM
	if (!have_header && !prof_lines_failed(lr)) {
		problems++;
		prof_input_warn(name, 0, "no header line (expected %s)", s->name);
	}
	if (prof_lines_failed(lr))
		problems++;
	problems += prof_lines_too_long(lr);
	if (problems > MAX_REPORTED)
		prof_input_warn(name, 0, "%lu problems in all", problems);
	free(fields);
	return problems;
}
