#ifndef PROF_BLOCK_LINE_H
#define PROF_BLOCK_LINE_H
/*
 * Walking the lines of a block from io/chunk.h in place, for the readers
 * of line formats (folded, profrec TSV): memchr to the newline, no copy.
 */
#include <stddef.h>
#include <string.h>

/*
 * The line at *pos in a block ending at end, or NULL when *pos reached
 * end. The "\n" (and a "\r" before it) is replaced by a NUL; the length
 * without them goes to *len and *pos moves past the line. A last line
 * without a newline is returned too: the block must have one writable
 * byte after end (chunk.h's blocks do).
 */
static inline char *prof_block_next_line(char **pos, char *end, size_t *len)
{
	char *p = *pos, *nl;
	size_t n;

	if (p >= end)
		return NULL;
	nl = memchr(p, '\n', (size_t)(end - p));
	n = (size_t)((nl ? nl : end) - p);
	*pos = nl ? nl + 1 : end;
	if (n && p[n - 1] == '\r')
		n--;
	p[n] = '\0';
	*len = n;
	return p;
}

#endif
