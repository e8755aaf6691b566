#ifndef PROF_TSV_H
#define PROF_TSV_H
/*
 * Tab-separated values as proftools writes them (prof-formats.5):
 * optional leading "#" metadata lines, one header line naming the columns,
 * then rows with exactly as many tab-separated fields, no quoting. Units
 * are part of column names (time_ns, bytes, mb_per_s).
 *
 * The column sets of every tool are declared once here (struct
 * prof_tsv_schema), so writers and the shared validator agree.
 */
#include <stddef.h>

struct prof_lines;

/*
 * Split line[0..len) at tabs in place (tabs become NUL). Stores up to max
 * field pointers in fields and returns the total number of fields, which
 * may exceed max (fields beyond max are not stored).
 */
size_t prof_tsv_split(char *line, size_t len, char **fields, size_t max);

/* What a column must hold. */
enum prof_tsv_type {
	PROF_TSV_TEXT,		/* anything without tab/newline, may be empty */
	PROF_TSV_INT,		/* decimal integer, optional leading '-' */
	PROF_TSV_NUM,		/* decimal number (integer, fraction, exponent) */
	PROF_TSV_OPTNUM,	/* a number or empty (metric not available) */
	PROF_TSV_OPTINT,	/* an integer or empty */
};

struct prof_tsv_column {
	const char *name;
	enum prof_tsv_type type;
};

struct prof_tsv_schema {
	const char *name;			/* "profrec-samples", ... */
	const struct prof_tsv_column *columns;
	size_t ncolumns;
	/* Files written before the last columns were added have only the
	 * first older[i] columns, their header saying so (0 ends the list). */
	size_t older[3];
};

/* The schema with this name, or NULL. */
const struct prof_tsv_schema *prof_tsv_schema_find(const char *name);

/* All schemas, NULL-terminated (for listing). */
extern const struct prof_tsv_schema *const prof_tsv_schemas[];

/*
 * Write the header line of a schema ("col\tcol\t...\n") into buf; returns
 * a pointer to a static string per schema (never freed).
 */
const char *prof_tsv_header(const struct prof_tsv_schema *s);

/*
 * Check a whole TSV stream against a schema: metadata lines only before
 * the header, header equal to the schema's column names in order (or to
 * their first nrequired), every row with the header's number of
 * fields, each field of its column's type.
 * Reports each problem as "prog: file:line: what" (up to 20, then a
 * count). Returns the number of problems (0: valid). An empty input or a
 * missing header is a problem.
 */
unsigned long prof_tsv_validate(struct prof_lines *lr, const struct prof_tsv_schema *s);

/* Nonzero if s is a valid value of type t. */
int prof_tsv_valid_value(enum prof_tsv_type t, const char *s);

#endif
