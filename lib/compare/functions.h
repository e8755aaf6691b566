#ifndef PROF_COMPARE_FUNCTIONS_H
#define PROF_COMPARE_FUNCTIONS_H
/*
 * Comparing profiles function by function (profcmp(1)): each function's
 * self and total weight in the base and the new profiles, with the
 * definitions of proffold --top (core/top.h computes them, so the two
 * tools never disagree), and the change between them.
 *
 * Amounts are compared (ns, bytes, samples), not shares: a function that
 * took 371 ms and takes 358 ms did less, whatever the rest did. Shares of
 * each run's whole are the second view, and the judged one only when
 * asked (normalize) or when both recordings were windows of a running
 * program (profrec -p/-t/-a: their lengths are the window's, not the
 * work's).
 *
 * Each side holds one or several runs (profiles of the same program). A
 * difference gets a verdict only when it is larger than its noise
 * (compare/stats.h):
 * - one run a side, a sampled profile: the counts are Poisson, a
 *   function seen n times is known to about sqrt(n) samples; a change is
 *   judged when the difference exceeds PROF_SIGMAS combined standard
 *   errors, a bar raised with the number of functions compared
 *   (prof_sigmas_bar()). Exact measures (off-CPU time, profheap's bytes)
 *   have no such error: every difference is judged.
 * - several runs a side: the runs' values are ranked (Mann-Whitney, p <
 *   PROF_ALPHA; with too few runs for it, the spread), the means must
 *   differ beyond the same counting bar, and the bootstrap interval of
 *   the ratio of the medians must exclude 1.
 * A cost that grew beyond its noise is "worse", one that shrank "better";
 * identical amounts are "same", a change within the noise "noise";
 * "added" and "removed" are functions present (beyond the noise) on one
 * side only.
 */
#include <stddef.h>
#include "compare/table.h"
#include "core/intern.h"
#include "core/stack.h"

struct prof_output;

struct prof_functions_opts {
	int by_total;		/* rank and judge by total weight instead of self */
	int normalize;		/* 1: judge shares of each run's whole; -1: amounts even
				   for windows; 0: amounts, shares for two windows */
	double min_delta;	/* drop changes under this many points of the base whole */
};

/* What the runs of one side measure, from their metadata. */
struct prof_functions_side {
	size_t runs;		/* profiles added */
	double whole;		/* median of the runs' grand totals */
	double per_sample;	/* weight of one sample; 0: an exact measure (not sampled) */
	double ns_per_unit;	/* a weight in ns (time to show), or 0 */
	char unit[32];		/* "ns", "bytes", "samples", ... ("samples" when unsaid) */
	char label[32];		/* "CPU", "off-CPU", profheap's report, the event */
	int window;		/* recorded by attaching (profrec -p, -t, -a) */
	int said;		/* the metadata named a unit (else the other side's is taken) */
};

struct prof_function_change {
	const char *function;		/* owned by the comparison (prof_functions_free) */
	double base_self, new_self, base_total, new_total;	/* amounts; medians of the runs */
	double base, new;		/* the judged measure: amount, or share in % */
	double base_share, new_share;	/* the judged amount in % of each side's whole */
	double delta;			/* new - base of the judged measure */
	double delta_pct;		/* delta / base * 100; NAN for added functions */
	double ratio;			/* new / base; NAN for added functions */
	double delta_points;		/* |change| in points of the base whole */
	double sigmas;			/* |difference| in standard errors of the counts (of
					   the means with several runs); INFINITY: exact */
	double p_value;			/* several runs: Mann-Whitney's p where sigmas is
					   beyond the bar (else not needed); else NAN */
	double ratio_lo, ratio_hi;	/* several runs: bootstrap interval of ratio; else NAN */
	enum prof_change_verdict verdict;
};

struct prof_functions {
	struct prof_function_change *rows;	/* largest |delta| first (after judging) */
	size_t n;
	struct prof_functions_side side[2];	/* base, new */
	int normalized;				/* shares were judged (asked, or windows) */
	struct prof_function_change whole;	/* the grand totals, judged like a function */
	size_t compared;			/* functions judged */
	double bar;				/* standard errors a change must exceed */
	/* private */
	struct prof_intern names;		/* function names as read; id = row */
	char *text;				/* the rows' names, escaped */
	double *w;				/* per row: self and total of every run */
	double *wholes;				/* per run: grand total */
	size_t cap, nruns, run_base;		/* rows allocated; runs in all; base's */
};

/*
 * Start a comparison of base_runs profiles against new_runs (both 1 or
 * more). Release with prof_functions_free().
 */
void prof_functions_init(struct prof_functions *f, size_t base_runs, size_t new_runs);

/*
 * Add the next run of side (0 base, 1 new): column 0 of t summed per
 * function, then t released (prof_stacks_release()), so that only one
 * profile is held at a time. meta (may be NULL) is the profile's
 * metadata: its unit, event, period or freq, and command say what the
 * weights are and whether they were sampled (the first run of a side
 * decides). Functions are matched by name; the names are shown as
 * proffold --top prints them (control bytes become spaces). Returns the
 * run's grand total: 0 means it holds nothing to compare (the caller
 * refuses it). Never fails.
 */
double prof_functions_add(struct prof_functions *f, int side, struct prof_stacks *t,
			  const struct prof_meta *meta);

/*
 * Read the profiles paths[side][0..n[side]) (base, new; "-" and other
 * names as formats/profile.h reads them, event picking the event of
 * profrec TSV) into f, initialized here, one profile at a time. out gets
 * the profiles' "unit". Returns 0; 1 when an input had bad lines or could
 * not be read to its end (named: the rest is compared); -1 when one holds
 * nothing to compare (empty, only metadata, only zero counts, unreadable:
 * "prog: FILE: no samples ...: nothing to compare") or two units differ:
 * a gate cannot judge that. Release f with prof_functions_free() in every
 * case.
 */
int prof_functions_read(struct prof_functions *f, const char *const *paths[2], const size_t n[2],
			const char *event, struct prof_meta *out);

/*
 * 1 if the "unit" metadata of m[0] and m[1] (of the inputs named path[0]
 * and path[1]) agree or one is unsaid; else 0, after "prog: A is in
 * bytes, B in samples: profiles of different units do not compare".
 */
int prof_functions_units_match(const char *const path[2], const struct prof_meta m[2]);

/*
 * Judge every function once all runs are added: f->rows (f->n), largest
 * change first. Functions that only call others (no self weight on
 * either side, when ranking by self) are left out, as are changes under
 * opts->min_delta. Never fails.
 */
void prof_functions_judge(struct prof_functions *f, const struct prof_functions_opts *opts);

/*
 * One run a side: init, add base (meta NULL), add new, judge. base and
 * new are released.
 */
void prof_functions_compare(struct prof_stacks *base, struct prof_stacks *new,
			    const struct prof_functions_opts *opts, struct prof_functions *out);

void prof_functions_free(struct prof_functions *f);

/*
 * The gate: every function judged worse whose self (by_total: total)
 * amount, or share when shares were judged, grew by more than limit
 * percent, and every function judged added (without bound), named on
 * stderr with its amounts and evidence ("prog: regression: f self 120 ms
 * -> 360 ms, +200.0% (9.1 standard errors; limit 5%)"). function (may
 * be NULL) restricts it to one function, which must be there (else one
 * more failure, said; min_delta > 0 is said as a possible cause).
 * Returns the failures.
 */
unsigned long prof_functions_gate(const struct prof_functions *f, int by_total, double limit,
				  const char *function, double min_delta);

/*
 * An amount of side's unit for a person: "486 ms", "1.5 MiB", "1,234"
 * (samples of a clock event at a known frequency are shown as time).
 * Returns buf.
 */
char *prof_functions_amount(char *buf, size_t n, const struct prof_functions_side *s, double v);

/*
 * Write the comparison as TSV (schema "profcmp-functions",
 * prof-formats.5) or, with human set, as an aligned table drawn as st
 * says (may be NULL): the totals line of each side first, regressions
 * first. n limits the rows (0: all). meta (may be NULL) is the TSV's
 * metadata line. Returns 0 or -1 (write error, reported by the output).
 */
int prof_functions_write(const struct prof_functions *f, const struct prof_functions_opts *opts,
			 size_t n, int human, const struct prof_compare_style *st,
			 const struct prof_meta *meta, struct prof_output *o);

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
