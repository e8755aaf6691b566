#ifndef PROF_TOP_H
#define PROF_TOP_H
/*
 * The bottleneck report of a stack table (proffold --top): functions
 * ranked by self weight (the stacks they end) or total weight (the
 * stacks they appear in, counted once per stack even when recursive),
 * each as a share of the whole; functions whose self share reaches a
 * threshold flagged "hot"; and the hottest root-to-leaf path, found by
 * descending from the heaviest root into the heaviest child at every
 * level, stopping where the samples ending at a frame outweigh its
 * heaviest child (the path ends at the hot leaf, not in noise below it).
 *
 * TSV output follows schema "proffold-top" (prof-formats.5), after one
 * "# key=value" line (unit, total, threshold_pct, sort, hot_path,
 * hot_path_pct, and hot_path_threads=merged when merge_roots is set). The
 * human form is aligned text for a terminal.
 *
 * Threads: profrec's and perf script's stacks are rooted at the thread's
 * name, so a function that several threads run is split into one tower
 * per thread and the path from the heaviest root holds one thread's share
 * of it. With merge_roots the path is found on the stacks without their
 * root frame (core/transform's strip_comm): the threads merged. Its share
 * is still of the whole table.
 *
 * The self/total definitions live in prof_top_sums() only, so every tool
 * that ranks functions (proffold --top, profcmp's per-function table)
 * agrees. To compare two profiles, put them in the columns of one table
 * (prof_stacks_merge_column()): frame ids are then shared, and the sums
 * of column 0 and column 1 line up by frame id. Nothing here keeps
 * global state: calls on different tables may run in parallel.
 */
#include <stddef.h>
#include "core/meta.h"
#include "core/stack.h"

struct prof_output;

struct prof_top_opts {
	size_t n;		/* rows (0: all) */
	double threshold_pct;	/* flag "hot" at this self share */
	int by_total;		/* rank by total instead of self */
	int human;		/* aligned text instead of TSV */
	const char *unit;	/* "ns" formats durations; NULL: plain numbers */
	int merge_roots;	/* the hottest path below the roots (threads merged) */
	unsigned width;		/* human: the terminal's columns, names cut to fit; 0: no limit */
};

/* One function of the report. */
struct prof_top_row {
	uint32_t frame;
	prof_weight self, total;	/* exact integers up to 2^64-1, then saturated */
};

/*
 * Per-function sums of one weight column, indexed by frame id (the
 * frame ids of the table; names via prof_stacks_frame_name()).
 */
struct prof_top_sums {
	prof_weight *self;	/* weight of the stacks the frame ends */
	prof_weight *total;	/* weight of the stacks it appears in, once per stack */
	size_t nframes;		/* entries in self and total */
	prof_weight grand;	/* weight of all stacks */
};

/*
 * Fill s with the sums of t's weight column column (all zero when t has
 * no such column). Sums above 2^64-1 saturate, said once
 * (prof_weight_saturated()). Release with prof_top_sums_release().
 */
void prof_top_sums(struct prof_top_sums *s, const struct prof_stacks *t, size_t column);

/* Free the arrays of s; s is zeroed. */
void prof_top_sums_release(struct prof_top_sums *s);

/*
 * Compute the rows of t (weight column 0), ranked as opts says; all
 * functions with a nonzero total. Returns a malloc'ed array of *n rows
 * (caller frees) and the grand total in *grand. Sums above 2^64-1
 * saturate, said once (prof_weight_saturated()).
 */
struct prof_top_row *prof_top_compute(const struct prof_stacks *t, int by_total, size_t *n,
				      prof_weight *grand);

/*
 * The hottest path: frame ids root first (malloc'ed, caller frees), its
 * length in *depth and its weight in *weight. NULL if t is empty.
 */
uint32_t *prof_top_hot_path(const struct prof_stacks *t, size_t *depth, prof_weight *weight);

/*
 * Format a weight as the report does into buf (n bytes, 32 at least):
 * with human set and unit "ns" a duration (prof_fmt_duration(): "3.2 ms"),
 * else the exact count (prof_format_count()).
 */
void prof_top_format_value(char *buf, size_t n, prof_weight v, const char *unit, int human);

/*
 * Write the report of t to o. meta (may be NULL) is copied into the TSV
 * metadata line. Returns 0 or -1 (write error, reported).
 */
int prof_top_write(const struct prof_stacks *t, const struct prof_top_opts *opts,
		   const struct prof_meta *meta, struct prof_output *o);

#endif
