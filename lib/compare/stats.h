#ifndef PROF_COMPARE_STATS_H
#define PROF_COMPARE_STATS_H
/*
 * The statistics behind profcmp's verdicts: when is a difference larger
 * than its noise.
 *
 * Two sources of noise, two tests:
 * - A sampled profile of one run: a function seen n times is known to
 *   about sqrt(n) samples (the samples are a Poisson count). Two counts
 *   differ beyond their noise when the difference exceeds PROF_SIGMAS
 *   combined standard errors (prof_counts_sigmas()), a bar raised when
 *   many functions are compared at once (prof_sigmas_bar()).
 * - Repeated runs on each side (several profiles, several table rows for
 *   one key): the values of the two sides are ranked together
 *   (Mann-Whitney U test, prof_mann_whitney()), and the ratio of the
 *   medians gets a bootstrap confidence interval (prof_bootstrap_ratio()),
 *   as criterion and critcmp report. A change needs both: p < PROF_ALPHA
 *   and an interval that excludes 1.
 * Nothing here allocates more than a copy of its inputs; nothing fails.
 */
#include <stddef.h>

#define PROF_SIGMAS 3.0		/* standard errors a single-run difference must exceed */
#define PROF_ALPHA 0.05		/* the rank test's significance level */
#define PROF_CONFIDENCE 0.95	/* the bootstrap interval's coverage */

/* Median of v[0..n) (n > 0); v is sorted in place. */
double prof_median(double *v, size_t n);

/*
 * How many standard errors a and b (two amounts of a Poisson count, a
 * sample weighing per_a and per_b units on each side) are apart:
 * |a - b| / sqrt(per_a * a + per_b * b). b may be scaled first by the
 * caller (shares: b * whole_a / whole_b), and then per_b * scale. 0 when
 * both are 0; INFINITY when they differ with no noise (per_* == 0).
 */
double prof_counts_sigmas(double a, double per_a, double b, double per_b);

/*
 * The bar for m comparisons at once: PROF_SIGMAS for one, raised
 * (Bonferroni) so that the chance of any false verdict among m
 * independent counts stays that of one PROF_SIGMAS test (two-sided
 * 0.27%): about 3.9 for 10, 4.5 for 400, 4.9 for 3,000. Without it two
 * runs of one program, 400 functions each, show a "worse" function in
 * most comparisons.
 */
double prof_sigmas_bar(size_t m);

/*
 * Two-sided p-value of the Mann-Whitney U test that x[0..nx) and
 * y[0..ny) come from the same distribution: exact (U over every split
 * of the pooled values, ties included) when there are at most 1,000
 * splits (6 runs a side), else the normal approximation with the tie
 * correction and a continuity correction.
 * 1 when either side is empty or every value is equal. Note: with 3
 * runs a side the smallest possible p is 0.1, with 4 it is 0.029.
 */
double prof_mann_whitney(const double *x, size_t nx, const double *y, size_t ny);

/*
 * Whether the rank test can say anything with nx and ny runs: its
 * smallest p, 2 / C(nx + ny, nx), is under PROF_ALPHA (4 + 4 runs, 3 +
 * 5, 2 + 8, ...). With fewer runs a change counts when the medians
 * differ by more than the larger spread (max - min) of the two sides
 * and the interval excludes 1: the rule profcmp used before the test.
 */
int prof_rank_test_can_decide(size_t nx, size_t ny);

/*
 * The PROF_CONFIDENCE percentile bootstrap interval of median(y) /
 * median(x): 2,000 resamples of each side (with replacement) from a
 * fixed seed, so that a comparison prints the same interval every time.
 * *lo and *hi get NAN when a resampled median of x can be 0 (no ratio)
 * or a side is empty.
 */
void prof_bootstrap_ratio(const double *x, size_t nx, const double *y, size_t ny,
			  double *lo, double *hi);

#endif
