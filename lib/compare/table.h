#ifndef PROF_COMPARE_TABLE_H
#define PROF_COMPARE_TABLE_H
/*
 * Comparing two benchmark tables (profcmp(1)): any two TSV files with
 * the same columns, such as profcompress results, profheap summaries or
 * plain "name<TAB>value" lists, matched row by row on key columns.
 *
 * Each (key, metric) pair gets the base and new values; rows repeated
 * for a key (several runs of a benchmark) are summarized by their
 * minimum and median. With two or more runs on both sides a change
 * counts when the Mann-Whitney test says p < 0.05 and the bootstrap
 * interval of the ratio of the medians excludes 1 (compare/stats.h);
 * with a single run on a side, when the medians differ by more than the
 * other side's spread (max - min). Whether higher or lower is better is decided per metric by its
 * name (prof_metric_higher_better()) unless the caller says otherwise.
 */
#include <stddef.h>
#include "core/meta.h"

struct prof_output;

/* A TSV file in memory: metadata, header, rows of cells. */
struct prof_table {
	char *name;			/* display name of the input */
	struct prof_meta meta;		/* its "# key=value" lines */
	size_t ncols;
	char **cols;			/* column names (cols[i] points into text) */
	size_t nrows;
	char **cells;			/* row r, column c: cells[r * ncols + c] */
	unsigned long *lines;		/* input line of each row */
	unsigned *row_file;		/* the file of each row: an index in files */
	char **files;			/* display names of the files read */
	size_t nfiles;
	/* private */
	char *text;
};

/*
 * Read path ("-" for stdin, compressed or not) as a table: "#" metadata
 * lines first, then a header line naming the columns, then rows with as
 * many tab-separated fields. When the first line holds a number in a
 * field where a header would have a name, the file has no header and
 * its columns are named "1", "2", ... (a plain "name<TAB>value" list).
 * Lines without a tab are split at runs of blanks, so "name value"
 * lists work too. A row with the wrong number of fields is reported
 * ("prog: file:line: N fields, expected M") and skipped. Lines are read
 * through io/input.h's line reader: one longer than prof_max_line()
 * (PROFTOOLS_MAX_LINE) is reported there, ends the reading and is
 * counted as a bad row, so memory holds only the rows kept. Returns 0 (a header without
 * rows is a table of no rows), or -1 after reporting when the file
 * cannot be opened or read (the rows before a read error are kept) or
 * is empty; *bad gets the number of skipped rows. Release with
 * prof_table_release() in every case.
 */
int prof_table_read(const char *path, struct prof_table *t, unsigned long *bad);

/*
 * prof_table_read() of n files (n >= 1) into one table: several runs of
 * one benchmark, their rows taken as repeated runs of each key. Every
 * file must have the first one's columns (else "prog: file:line: not the
 * columns of FIRST", -1); the first one's metadata is kept. Returns 0 or
 * -1 (as prof_table_read, the rows read kept); release in every case.
 */
int prof_table_read_runs(const char *const *paths, size_t n, struct prof_table *t,
			 unsigned long *bad);

/*
 * 1 if path holds a table rather than a profile: a TSV whose first line
 * after the metadata has a tab and that is not a profrec sample file
 * (formats/profile.h's detection). 0 otherwise, also when path cannot
 * be read (the profile reader then says why).
 */
int prof_table_looks_like(const char *path);

/* Free what prof_table_read() allocated. */
void prof_table_release(struct prof_table *t);

/* Index of the column named name, or -1. */
int prof_table_column(const struct prof_table *t, const char *name);

/*
 * 1 if a larger value of the metric named name is better: names with
 * "per_s", "ratio", "speed", "throughput", "ops", "score", "hits",
 * "util", "bandwidth" or "iops"; otherwise 0: times, sizes, bytes,
 * counts, misses and anything unknown are costs (lower is better).
 */
int prof_metric_higher_better(const char *name);

/* What happened to one (key, metric). */
enum prof_change_verdict {
	PROF_CHANGE_WORSE,	/* beyond the spread, the wrong way */
	PROF_CHANGE_BETTER,	/* beyond the spread, the right way */
	PROF_CHANGE_NOISE,	/* changed, but within its noise */
	PROF_CHANGE_SAME,	/* identical values (every run of both sides) */
	PROF_CHANGE_ADDED,	/* only in the new table */
	PROF_CHANGE_REMOVED,	/* only in the base table */
};

/* "worse", "better", "noise", "same", "added", "removed". */
const char *prof_change_verdict_name(enum prof_change_verdict v);

struct prof_table_change {
	char *key;			/* the key cells joined by ',' (malloc'ed) */
	const char *metric;		/* column name (owned by the base table) */
	int higher_better;
	size_t base_runs, new_runs;	/* rows summarized on each side (0: absent) */
	double base_min, base_median, base_max;
	double new_min, new_median, new_max;
	double change_pct;		/* (new - base) / |base| * 100 of the medians; +-INFINITY
					   from a base of 0; NAN when a side is absent */
	double spread_pct;		/* the spread as a share of |base median|; 0 for single runs */
	double p_value;			/* Mann-Whitney, with 2 or more runs a side; else NAN */
	double ratio_lo, ratio_hi;	/* bootstrap interval of new/base medians; else NAN */
	enum prof_change_verdict verdict;
};

struct prof_table_compare_opts {
	const char *keys;		/* comma-separated key columns; NULL: default (below) */
	const char *metrics;		/* comma-separated metric columns; NULL: every numeric non-key column */
	const char *higher_better;	/* comma-separated metrics where higher is better */
	const char *lower_better;	/* comma-separated metrics where lower is better */
	double min_delta_pct;		/* drop changes smaller than this (in % of base) */
};

/*
 * Compare base and new. Default keys: every column that is not numeric
 * in both tables, plus the numeric columns that name a configuration
 * rather than a measurement (level, block_bytes, threads, jobs, gpu,
 * cpu); columns status, flags, flag, verdict, rank, run, pid and tid are
 * neither keys nor metrics. Both tables must have the key and metric
 * columns. A column of numbers may hold absent values ("-" or empty);
 * any other cell there ("nan", "inf", "n/a", 1e400) is reported as
 * "prog: file:line: column 'c': 'nan' is not a finite number" and the
 * comparison refused. Results (malloc'ed array in *out, count in *n)
 * are ordered by the size of the change, largest first; release them
 * with prof_table_changes_free(). Returns 0, or -1 after reporting a
 * usage problem (an unknown column, no metric left) or a bad cell.
 */
int prof_table_compare(const struct prof_table *base, const struct prof_table *new,
		       const struct prof_table_compare_opts *opts,
		       struct prof_table_change **out, size_t *n);

void prof_table_changes_free(struct prof_table_change *c, size_t n);

/*
 * The gate: every change judged worse by more than limit percent (from a
 * base of 0, any amount) named on stderr with its values, "prog:
 * regression: KEY METRIC 4000 -> 3000, -25.0% (limit 10%, higher is
 * better)". Returns how many.
 */
unsigned long prof_table_gate(const struct prof_table_change *c, size_t n, double limit);

/* How a human table is drawn (base/term.h decides both). */
struct prof_compare_style {
	unsigned width;		/* the terminal's columns: names are cut to fit; 0: no limit */
	int color;		/* verdicts in colour: worse/added red, better/removed green */
};

/*
 * s into buf (n bytes) cut to width bytes at a UTF-8 boundary, its last
 * kept character replaced by "~" when cut.
 */
void prof_compare_cut(char *buf, size_t n, const char *s, size_t width);

/* The verdict's name, coloured when st->color (st may be NULL). */
void prof_compare_verdict(struct prof_output *o, const struct prof_compare_style *st,
			  enum prof_change_verdict v);

/*
 * Write the changes as TSV (schema "profcmp-table", prof-formats.5) or,
 * with human set, as an aligned table for a terminal (regressions
 * first), drawn as st says (may be NULL: no limit, no colour). meta (may
 * be NULL) goes into the TSV's metadata line. Returns 0 or -1 (write
 * error, reported by the output).
 */
int prof_table_changes_write(const struct prof_table_change *c, size_t n, int human,
			     const struct prof_compare_style *st, const struct prof_meta *meta,
			     struct prof_output *o);

#endif
