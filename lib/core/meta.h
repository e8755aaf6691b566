#ifndef PROF_META_H
#define PROF_META_H
/*
 * "# key=value ..." metadata lines, as they lead folded and TSV files
 * (prof-formats.5). Keys are [A-Za-z0-9_.-]+; values are any bytes with
 * '%', whitespace and control characters percent-encoded (%25, %20, %09,
 * %0A ...), so "# title=my%20app" carries "my app". A line "# text" that
 * holds no key=value pair is a comment and is ignored.
 *
 * struct prof_meta keeps pairs in insertion order; setting an existing
 * key replaces its value in place. It owns its strings.
 */
#include <stddef.h>

struct prof_meta {
	char **keys;
	char **values;	/* decoded */
	size_t count, cap;
};

#define PROF_META_INIT { 0 }

/* Nonzero if line (length len) is a metadata/comment line (starts with '#'). */
int prof_meta_is_line(const char *line, size_t len);

/*
 * Parse one "# k=v k2=v2" line into m (later keys replace earlier ones).
 * Returns the number of pairs found (0 for a plain comment).
 */
size_t prof_meta_parse_line(struct prof_meta *m, const char *line, size_t len);

/* Set key to value (copied). */
void prof_meta_set(struct prof_meta *m, const char *key, const char *value);

/* printf-style value. */
void prof_meta_setf(struct prof_meta *m, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The value of key, or NULL. */
const char *prof_meta_get(const struct prof_meta *m, const char *key);

/*
 * Comma-separated list values ("event=cpu-clock,offcpu-time unit=ns,ns"):
 * the index of item in list, or -1 if absent (list may be NULL).
 */
int prof_meta_list_index(const char *list, const char *item);

/* Item i of a comma-separated list (malloc'ed), or NULL if it has fewer. */
char *prof_meta_list_item(const char *list, size_t i);

/* Copy every pair of src into dst (src's values win). */
void prof_meta_merge(struct prof_meta *dst, const struct prof_meta *src);

/* Remove key (and its value) if present; the others keep their order. */
void prof_meta_remove(struct prof_meta *m, const char *key);

/*
 * Format all pairs as one "# k=v k=v\n" line (values encoded) appended to
 * out; nothing when m is empty.
 */
struct prof_buf;
void prof_meta_format(const struct prof_meta *m, struct prof_buf *out);

/* Free all pairs; m is empty and reusable. */
void prof_meta_release(struct prof_meta *m);

#endif
