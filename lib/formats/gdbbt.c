#include <string.h>
#include "formats/block_line.h"
#include "formats/gdbbt.h"
#include "formats/import.h"

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * "#N" then blanks: the frame's text and its number in *num, else NULL.
 */
static const char *frame_line(const char *line, size_t len, unsigned long *num)
{
	size_t i = 1;

	if (len < 3 || line[0] != '#' || !is_digit(line[1]))
		return NULL;
	*num = 0;
	while (i < len && is_digit(line[i]))
		*num = *num * 10 + (unsigned long)(line[i++] - '0');
	if (i == len || line[i] != ' ')
		return NULL;
	while (i < len && line[i] == ' ')
		i++;
	return i < len ? line + i : NULL;
}

/* Past "0xHEX in " at s, or s itself. */
static const char *skip_address(const char *s, const char *end)
{
	const char *p = s;

	if (end - p < 3 || p[0] != '0' || p[1] != 'x')
		return s;
	for (p += 2; p < end && ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')); p++)
		;
	return end - p >= 4 && memcmp(p, " in ", 4) == 0 ? p + 4 : s;
}

/*
 * The end of the function name starting at s: the " (" of its arguments
 * outside <...> (C++ templates hold blanks and parentheses), else end.
 */
static const char *name_end(const char *s, const char *end)
{
	int depth = 0;
	const char *p;

	for (p = s; p < end; p++) {
		if (*p == '<')
			depth++;
		else if (*p == '>' && depth > 0)
			depth--;
		else if (*p == ' ' && depth == 0 && p + 1 < end && p[1] == '(')
			return p;
	}
	return end;
}

int prof_gdbbt_detect(const char *buf, size_t len, int complete)
{
	const char *p = buf, *end = buf + len;
	unsigned long num;
	int lines = 0;
	size_t n;

	while (p < end && lines++ < 4000) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *f, *e;

		n = (size_t)((nl ? nl : end) - p);
		if (!nl && !complete)
			break;
		if (n && p[n - 1] == '\r')
			n--;
		/* "#0  0x... in f (args)" or "#0  f (args) at file:line" */
		if ((f = frame_line(p, n, &num)) != NULL && num == 0) {
			f = skip_address(f, p + n);
			e = name_end(f, p + n);
			if (e > f && e < p + n && memchr(e, ')', (size_t)(p + n - e)))
				return 1;
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

/* One frame line's text (past "#N  "): its function (gdbbt.h). */
static void add_frame(struct prof_import *imp, const char *s, const char *end)
{
	const char *e, *from;

	if (*s == '<') {		/* "<signal handler called>" */
		prof_import_frame(imp, s, (size_t)(end - s));
		return;
	}
	s = skip_address(s, end);
	e = name_end(s, end);
	if (e - s == 2 && memcmp(s, "??", 2) == 0) {
		from = memmem(e, (size_t)(end - e), ") from ", 7);
		if (from)
			prof_import_dso_frame(imp, from + 7, (size_t)(end - from - 7));
		else
			prof_import_frame(imp, "[unknown]", 9);
		return;
	}
	prof_import_frame(imp, s, (size_t)(e - s));
}

/* The thread name of a "Thread N (... "NAME"):" line, or NULL. */
static const char *thread_name(const char *line, size_t len, size_t *n)
{
	const char *q, *end = line + len;

	if (len < 4 || memcmp(end - 3, "\"):", 3) != 0)
		return NULL;
	q = memchr(line, '"', len);
	if (!q || q >= end - 3)
		return NULL;
	*n = (size_t)(end - 3 - q - 1);
	return *n ? q + 1 : NULL;
}

static void end_stack(struct prof_import *imp, const char *name, size_t name_len)
{
	if (!prof_import_depth(imp))
		return;
	if (name)
		prof_import_frame(imp, name, name_len);
	prof_import_commit(imp, 1, 1);
}

int prof_gdbbt_read(struct prof_import *imp, char *buf, size_t len)
{
	char *pos = buf, *line;
	const char *f, *name = NULL;
	size_t n, name_len = 0;
	unsigned long num;

	while ((line = prof_block_next_line(&pos, buf + len, &n)) != NULL) {
		if ((f = frame_line(line, n, &num)) != NULL) {
			if (num == 0 && prof_import_depth(imp)) {
				/* a new backtrace with no "Thread" line: not that thread's */
				end_stack(imp, name, name_len);
				name = NULL;
			}
			add_frame(imp, f, line + n);
		} else if (n && (line[0] == ' ' || line[0] == '\t')) {
			continue;		/* "bt full" locals */
		} else {
			end_stack(imp, name, name_len);
			name = strncmp(line, "Thread ", 7) == 0 ? thread_name(line, n, &name_len) : NULL;
		}
	}
	end_stack(imp, name, name_len);
	if (!imp->stacks)	/* gdb's chatter is skipped: a file of nothing else is no backtrace */
		prof_import_bad(imp, 0, 0, "no gdb backtrace in the input (no \"#0 ...\" frame line)");
	prof_meta_set(&imp->meta, "unit", "samples");
	prof_meta_set(&imp->meta, "source", "gdb");
	return imp->malformed ? -1 : 0;
}
