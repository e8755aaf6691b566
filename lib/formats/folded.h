#ifndef PROF_FOLDED_H
#define PROF_FOLDED_H
/*
 * Folded stacks, the FlameGraph convention (prof-formats.5):
 *
 *     root;frame;...;leaf COUNT            one weight
 *     root;frame;...;leaf COUNT1 COUNT2    differential form
 *
 * The last space-separated field(s) are counts, integer (exact up to
 * 2^64-1) or decimal; the stack is everything before them (frames may
 * contain spaces). Optional
 * leading "# key=value" lines carry metadata (meta.h).
 */
#include <stddef.h>
#include "core/meta.h"
#include "core/stack.h"

struct prof_chunks;
struct prof_lines;
struct prof_output;

/* One parsed folded line; stack points into the caller's line. */
struct prof_folded_line {
	char *stack;
	size_t stack_len;
	prof_weight counts[2];
	int ncounts;		/* 1, or 2 in the differential form */
};

/*
 * Parse a folded line (without newline). Accepts one or two trailing
 * counts. Returns 0, or -1 with *why set to a static description of the
 * problem ("missing count", "empty stack", "count above 2^64-1").
 */
int prof_folded_parse(char *line, size_t len, struct prof_folded_line *out,
		      const char **why);

/*
 * Split the stack text into frames at ';' and add it with its counts to t
 * (count i goes to weight column i; a single count goes to column 0).
 * Empty frames are kept as empty names. Returns the stack id.
 */
uint32_t prof_folded_add(struct prof_stacks *t, const char *stack, size_t len,
			 const prof_weight *counts, int ncounts);

/* What a folded reader saw; accumulated over inputs that share it. */
struct prof_folded_stats {
	unsigned long lines;		/* stack lines added */
	unsigned long malformed;	/* lines rejected (each reported) */
	int ncounts;			/* 1 or 2, set by the first stack line */
};

/*
 * The one folded-stack reading loop, fed a line at a time so that any
 * line source (prof_lines, a block reader) uses the same rules:
 *  - "#" lines before the first stack line are metadata (into meta, may
 *    be NULL); later ones are comments; empty lines are skipped, and so
 *    are lines of blanks and zero counts (" 0 0": difffolded.pl's
 *    rendering of a "#" line);
 *  - the first stack line of all inputs sharing stats decides the form:
 *    one count, or two (the differential form); later lines are read in
 *    that form, so in one-count input "Thread 12 5" is the frame
 *    "Thread 12" with count 5, and a one-count line in two-count input
 *    is malformed;
 *  - a line without a valid count, with a negative count or an empty
 *    stack is reported as "prog: name:line: why" (the first ten per
 *    input, then a total from prof_folded_reader_finish()) and skipped.
 * Stacks go into t (count i into weight column i); on_stack, when set,
 * is called for every stack line in input order with its stack id.
 */
struct prof_folded_reader {
	struct prof_stacks *t;
	struct prof_meta *meta;
	struct prof_folded_stats *stats;
	const char *name;
	void (*on_stack)(void *ctx, uint32_t id, const prof_weight *counts, int ncounts);
	void *ctx;
	/* private */
	unsigned long bad;
	int seen_data;
};

/* Start reading one input called name (stats must not be NULL). */
void prof_folded_reader_init(struct prof_folded_reader *fr, struct prof_stacks *t,
			     struct prof_meta *meta, struct prof_folded_stats *stats,
			     const char *name);

/*
 * Feed one line (without its newline; it may be modified) and its line
 * number. Returns 0, or -1 if it was malformed (already reported).
 */
int prof_folded_reader_line(struct prof_folded_reader *fr, char *line, size_t len,
			    unsigned long lineno);

/* End of the input: report the total of malformed lines; -1 if any. */
int prof_folded_reader_finish(struct prof_folded_reader *fr);

/*
 * Feed every line of lr to fr, then finish. Returns 0, or -1 if any line
 * was malformed or the input failed (everything valid is kept).
 */
int prof_folded_reader_run(struct prof_folded_reader *fr, struct prof_lines *lr);

/*
 * The same over a block reader (io/chunk.h), for inputs read in large
 * blocks (formats/profile.h). Returns as prof_folded_reader_run().
 */
int prof_folded_reader_run_chunks(struct prof_folded_reader *fr, struct prof_chunks *r);

/*
 * Read a whole input from lr with the rules above (no callback).
 * Returns 0, or -1 if any line was malformed or the input failed
 * (everything valid is kept). stats may be NULL.
 */
int prof_folded_read(struct prof_lines *lr, struct prof_stacks *t,
		     struct prof_meta *meta, struct prof_folded_stats *stats);

/*
 * Format a weight the way folded files carry it: integers as all their
 * digits (never an exponent), other values in plain decimal with up to 15
 * significant digits and no trailing zeros. Values beyond PROF_WEIGHT_MAX
 * are written as PROF_WEIGHT_MAX. Returns the length written into buf (at
 * least 32 bytes).
 */
size_t prof_format_count(char *buf, prof_weight v);

/*
 * Write t as folded text to o: metadata line first (when meta is not NULL
 * and not empty), then one "stack W[ W2...]" line per stack in byte order
 * of the stack text, writing the first ncolumns weight columns.
 * Returns 0 or -1 (write error, reported).
 */
int prof_folded_write(const struct prof_stacks *t, const struct prof_meta *meta,
		      size_t ncolumns, struct prof_output *o);

/*
 * Whether path names a folded file: "*.folded", or that followed by a
 * compression suffix (.gz .zst .lz4); path may be NULL.
 */
int prof_folded_name(const char *path);

#endif
