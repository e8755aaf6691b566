#ifndef PROF_COMPARE_FUNCTIONS_H
#define PROF_COMPARE_FUNCTIONS_H
/*
 * Comparing two profiles function by function (profcmp(1)): each
 * function's self and total weight in the base and the new profile, with
 * the definitions of proffold --top (core/top.h computes both sides, so
 * the two tools never disagree), as shares of each profile's whole or as
 * raw weights, and the change between them.
 *
 * A function that grew is "worse" (profiles measure costs: time, bytes,
 * events), one that shrank "better"; "added" and "removed" are functions
 * found on one side only.
 */
#include <stddef.h>
#include "compare/table.h"
#include "core/stack.h"

struct prof_output;

struct prof_functions_opts {
	int by_total;		/* rank and judge by total weight instead of self */
	int raw;		/* raw weights instead of percentage shares */
	double min_delta;	/* drop changes under this many points of the base whole */
};

struct prof_function_change {
	const char *function;		/* owned by the comparison (prof_functions_free) */
	prof_weight base_self, new_self, base_total, new_total;	/* raw weights */
	double base, new;		/* the ranked measure: share in % (or raw) */
	double delta;			/* new - base */
	double delta_pct;		/* delta / base * 100; NAN for added functions */
	double ratio;			/* new / base; NAN for added functions */
	double delta_points;		/* |change| in points of the base whole */
	enum prof_change_verdict verdict;
};

struct prof_functions {
	struct prof_function_change *rows;	/* largest |delta| first */
	size_t n;
	prof_weight base_whole, new_whole;	/* grand totals (weight column 0) */
	/* private */
	char *text;				/* the functions' names */
};

/*
 * Compare column 0 of base and new into out (release with
 * prof_functions_free()). Functions that only call others (no self
 * weight on either side, when ranking by self) are left out. Never fails.
 * Functions are matched by name; the names are shown as proffold --top
 * prints them (control bytes become spaces). base and new are released
 * (prof_stacks_release()) as soon as their sums and names are taken, so
 * the tables and the rows are never held at once; releasing them again
 * is harmless.
 */
void prof_functions_compare(struct prof_stacks *base, struct prof_stacks *new,
			    const struct prof_functions_opts *opts, struct prof_functions *out);

void prof_functions_free(struct prof_functions *f);

/*
 * Write the comparison as TSV (schema "profcmp-functions",
 * prof-formats.5) or, with human set, as an aligned table (regressions
 * first). n limits the rows (0: all). meta (may be NULL) is the TSV's
 * metadata line. Returns 0 or -1 (write error, reported by the output).
 */
int prof_functions_write(const struct prof_functions *f, const struct prof_functions_opts *opts,
			 size_t n, int human, const struct prof_meta *meta, struct prof_output *o);

/*
 * The differential folded form of base and new (difffolded.pl's): every
 * stack of either profile with its raw weight in each, "stack BASE NEW",
 * in byte order of the stack text, for profflame --diff. base must have
 * two weight columns: its second one is cleared, then new's column 0 is
 * added into it, which costs one pass over new's stacks instead of a
 * third table.
 * Returns 0 or -1 (write error, reported).
 */
int prof_functions_write_folded_diff(struct prof_stacks *base, const struct prof_stacks *new,
				     const struct prof_meta *meta, struct prof_output *o);

#endif
