#ifndef PROF_PERFSCRIPT_LINES_H
#define PROF_PERFSCRIPT_LINES_H
/*
 * Private to the perf script reader (not for tools): the grammar of its
 * lines, shared by its three files --
 *   perfscript_lines.c  what a line is: event line, sample line with its
 *                       frame, -F +srcline line, sample time; detection;
 *   perfscript.c        the parser: frame lines into frames (memoised),
 *                       samples into the stack table;
 *   perfscript_read.c   reading a whole input, by one or several threads.
 * The Perl regexes of stackcollapse-perf.pl are matched by hand; each
 * function says which regex it implements and how its backtracking
 * resolves, so the results are the Perl script's for any input.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "formats/perfscript.h"

/* Perl's \s, \d and \w on byte strings (ASCII rules). */
static inline int is_ws(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static inline int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static inline int is_word(unsigned char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static inline int is_hex(unsigned char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static inline int starts_with(const char *s, size_t n, const char *lit)
{
	size_t l = strlen(lit);

	return n >= l && memcmp(s, lit, l) == 0;
}

static inline int mem_contains(const char *s, size_t n, const char *lit)
{
	return memmem(s, n, lit, strlen(lit)) != NULL;
}

/* A sample time "248.704562" in ns into *ns: 1, or 0 if s[0..n) is not one. */
int prof_perfscript_parse_time(const char *s, size_t n, uint64_t *ns);

/*
 * (ext) Nonzero for a line -F +srcline prints after a frame, one word:
 * "  file.c:12", "  ??:0" or "  [kernel.kallsyms][ffffffff8100]".
 */
int prof_perfscript_is_srcline(const char *s, size_t n);

#endif
