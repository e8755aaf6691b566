#ifndef PROF_JSON_H
#define PROF_JSON_H
/*
 * A small JSON parser (RFC 8259) for the importers of JSON profiles
 * (speedscope): the whole text is parsed into one flat array of values in
 * document order, each with the byte offset where it starts, so that a
 * reader can say where a value of the wrong shape is.
 *
 * Layout: an array is its value followed by its elements' subtrees; an
 * object is its value followed by, per member, the key (a string value)
 * and the member's subtree. Every value knows the index just past its
 * subtree (next), so skipping a value is one step.
 *
 * Strings are decoded (escapes, \u surrogate pairs to UTF-8) into one
 * buffer the parse owns, NUL-terminated; a string holding "\u0000" keeps
 * its length in len. The text is not modified (offsets stay true).
 * Numbers are kept as long double (integers up to 2^64 exact on x86-64)
 * and are validated against JSON's grammar (no "01", ".5", "+1", NaN).
 *
 * Nesting deeper than PROF_JSON_MAX_DEPTH is refused (no stack overflow
 * on hostile input).
 */
#include <stddef.h>
#include <stdint.h>

#define PROF_JSON_MAX_DEPTH 512

enum prof_json_type {
	PROF_JSON_NULL,
	PROF_JSON_FALSE,
	PROF_JSON_TRUE,
	PROF_JSON_NUMBER,
	PROF_JSON_STRING,
	PROF_JSON_ARRAY,
	PROF_JSON_OBJECT,
};

/*
 * 32 bytes a value (it was 64: a speedscope file of small frame indices
 * took 16 times its size): offsets and indices are 32-bit, the text being
 * under 4 GiB (prof_json_parse() refuses more; readers cap documents at
 * 1 GiB, io/chunk.h), and a value is a number or a string, never both.
 */
struct prof_json_value {
	uint32_t offset;	/* byte offset of its first character in the text */
	uint32_t next;		/* index just past its subtree */
	uint32_t count;		/* ARRAY: elements; OBJECT: members */
	uint8_t type;		/* enum prof_json_type */
	union {
		long double num;	/* NUMBER */
		struct {
			const char *str;	/* STRING: decoded, NUL-terminated */
			uint32_t len;		/* STRING: decoded length */
		};
	};
};

struct prof_json {
	struct prof_json_value *v;	/* v[0] is the document's value */
	size_t n, cap;
	char *strings;			/* the decoded strings */
	/* after a failed parse: what and where */
	const char *error;		/* static text */
	size_t error_offset;
};

/*
 * Parse text[0..len) (text[len] need not be NUL; len under 4 GiB, else
 * refused as "document over 4 GiB"). Returns 0, or -1 with
 * j->error and j->error_offset set. Either way prof_json_release() frees
 * what was made.
 */
int prof_json_parse(struct prof_json *j, const char *text, size_t len);

/* Free the values and strings (the text is the caller's). */
void prof_json_release(struct prof_json *j);

/*
 * The 1-based line and column (in bytes) of a byte offset of text
 * (offsets past len are placed at its end).
 */
void prof_json_position(const char *text, size_t len, size_t offset, unsigned long *line,
			unsigned long *column);

/*
 * The value of member key of object i, or 0 (never a member's index:
 * index 0 is the document) when i is not an object or has no such member.
 * A key present twice: the last wins, as in JavaScript.
 */
size_t prof_json_member(const struct prof_json *j, size_t i, const char *key);

/* The first element of array i (or first key of object i): i + 1. */
static inline size_t prof_json_first(size_t i)
{
	return i + 1;
}

/* The value after element i of an array: j->v[i].next. */
static inline size_t prof_json_after(const struct prof_json *j, size_t i)
{
	return j->v[i].next;
}

/* "null", "false", ..., "object": for messages. */
const char *prof_json_type_name(enum prof_json_type t);

#endif
