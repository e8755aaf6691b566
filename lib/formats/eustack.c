#include <stdio.h>
#include <string.h>
#include "formats/block_line.h"
#include "formats/eustack.h"
#include "formats/import.h"

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f');
}

/* "WORD N" then end (or ':' / " - " after N): N's digits, else NULL. */
static const char *id_line(const char *line, size_t len, const char *word, size_t *n)
{
	size_t w = strlen(word), i;

	if (len <= w || memcmp(line, word, w) != 0 || !is_digit(line[w]))
		return NULL;
	for (i = w; i < len && is_digit(line[i]); i++)
		;
	*n = i - w;
	return line + w;
}

/* "#N" then blanks then "0x" HEX: where the text after the address starts, else NULL. */
static const char *frame_line(const char *line, size_t len)
{
	size_t i = 1;

	if (len < 4 || line[0] != '#' || !is_digit(line[1]))
		return NULL;
	while (i < len && is_digit(line[i]))
		i++;
	if (i == len || line[i] != ' ')
		return NULL;
	while (i < len && line[i] == ' ')
		i++;
	if (i + 2 >= len || line[i] != '0' || line[i + 1] != 'x' || !is_hex(line[i + 2]))
		return NULL;
	for (i += 2; i < len && is_hex(line[i]); i++)
		;
	return i == len || line[i] == ' ' ? line + i : NULL;
}

int prof_eustack_detect(const char *buf, size_t len, int complete)
{
	const char *p = buf, *end = buf + len;
	int after_tid = 0, lines = 0;
	size_t n, dn;

	while (p < end && lines++ < 4000) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		n = (size_t)((nl ? nl : end) - p);
		if (!nl && !complete)
			break;
		if (n && p[n - 1] == '\r')
			n--;
		if (after_tid && frame_line(p, n))
			return 1;
		after_tid = id_line(p, n, "TID ", &dn) && dn + 5 == n && p[n - 1] == ':';
		p = nl ? nl + 1 : end;
	}
	return 0;
}

/* One frame: the symbol, "[MODULE]" or "[unknown]" (eustack.h). */
static void add_frame(struct prof_import *imp, const char *s, const char *end)
{
	const char *mod = NULL, *q;

	/* -a: " - 1" marks a frame whose pc was adjusted back to the call */
	if (end - s >= 4 && memcmp(s, " - 1", 4) == 0 && (end - s == 4 || s[4] == ' '))
		s += 4;
	/* -m: " - MODULE" at the end; the last " - " (symbols have none) */
	for (q = end - 3; q >= s; q--) {
		if (memcmp(q, " - ", 3) == 0) {
			mod = q + 3;
			end = q;
			break;
		}
	}
	while (s < end && *s == ' ')
		s++;
	if (s < end)
		prof_import_frame(imp, s, (size_t)(end - s));
	else
		prof_import_dso_frame(imp, mod, mod ? strlen(mod) : 0);
}

/* Where a sample is going: its thread, and the process above it. */
struct eu_state {
	char pid[24], tid[24];
};

static void end_block(struct prof_import *imp, const struct eu_state *st)
{
	char root[40];

	if (!prof_import_depth(imp))
		return;
	if (imp->include_tid && st->tid[0]) {
		snprintf(root, sizeof(root), "TID=%s", st->tid);
		prof_import_frame(imp, root, strlen(root));
	}
	if ((imp->include_pid || imp->include_tid) && st->pid[0]) {
		snprintf(root, sizeof(root), "PID=%s", st->pid);
		prof_import_frame(imp, root, strlen(root));
	}
	prof_import_commit(imp, 1, 1);
}

static void copy_id(char *dst, size_t size, const char *digits, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, digits, n);
	dst[n] = '\0';
}

int prof_eustack_read(struct prof_import *imp, char *buf, size_t len)
{
	struct eu_state st;
	char *pos = buf, *line;
	unsigned long lineno = 0;
	const char *id, *rest;
	size_t n, dn;

	memset(&st, 0, sizeof(st));
	while ((line = prof_block_next_line(&pos, buf + len, &n)) != NULL) {
		lineno++;
		if ((rest = frame_line(line, n)) != NULL) {
			if (!st.tid[0])	/* a frame of no thread */
				prof_import_bad(imp, lineno, 0, "frame before any TID line: %.80s", line);
			else
				add_frame(imp, rest, line + n);
		} else if ((id = id_line(line, n, "TID ", &dn)) != NULL) {
			end_block(imp, &st);
			copy_id(st.tid, sizeof(st.tid), id, dn);
		} else if ((id = id_line(line, n, "PID ", &dn)) != NULL) {
			end_block(imp, &st);
			copy_id(st.pid, sizeof(st.pid), id, dn);
			st.tid[0] = '\0';
		} else if (n == 0) {
			end_block(imp, &st);
		} else if (line[0] != ' ' && line[0] != '\t' && strncmp(line, "eu-stack: ", 10) != 0) {
			prof_import_bad(imp, lineno, 0, "not an eu-stack line: %.80s", line);
		}
	}
	end_block(imp, &st);
	if (!imp->stacks && !imp->malformed)
		prof_import_bad(imp, 0, 0, "no eu-stack backtrace in the input (TID N: then #0 frame lines)");
	prof_meta_set(&imp->meta, "unit", "samples");
	prof_meta_set(&imp->meta, "source", "eu-stack");
	return imp->malformed ? -1 : 0;
}
