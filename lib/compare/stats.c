#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "base/xalloc.h"
#include "compare/stats.h"

#define RESAMPLES 2000
#define EXACT_SPLITS 1000	/* C(n + m, n) up to this: exact (6 + 6 runs: 924) */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double prof_median(double *v, size_t n)
{
	if (n <= 16) {
		/* runs are few: insertion sort (the bootstrap sorts millions of these) */
		for (size_t i = 1; i < n; i++) {
			double t = v[i];
			size_t j = i;

			for (; j > 0 && v[j - 1] > t; j--)
				v[j] = v[j - 1];
			v[j] = t;
		}
	} else {
		qsort(v, n, sizeof(*v), cmp_double);
	}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double prof_counts_sigmas(double a, double per_a, double b, double per_b)
{
	double var = per_a * a + per_b * b;

	if (a == b)
		return 0;
	return var > 0 ? fabs(a - b) / sqrt(var) : INFINITY;
}

double prof_sigmas_bar(size_t m)
{
	double p = erfc(PROF_SIGMAS / sqrt(2)) / (double)(m ? m : 1), lo = PROF_SIGMAS, hi = 40;

	/* erfc(z / sqrt 2) = p, by bisection: it falls monotonically */
	for (int i = 0; i < 100; i++) {
		double mid = (lo + hi) / 2;

		if (erfc(mid / sqrt(2)) > p)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The exact two-sided p of the rank sum of x[0..nx) among the pooled
 * values v[0..n) (x first), ties as midranks: the distribution of the
 * sum of nx ranks over every split, counted by dynamic programming on
 * doubled ranks (integers), cnt[k][s] = the ways k of the values seen so
 * far sum to s.
 */
static double exact_p(const double *v, size_t n, size_t nx)
{
	size_t smax = n * (n + 1), obs = 0, *rank2 = xcalloc(n, sizeof(*rank2));
	double *cnt = xcalloc((nx + 1) * (smax + 1), sizeof(*cnt)), all = 0, extreme = 0;
	double mean2 = (double)nx * (double)(n + 1), dist;

	for (size_t i = 0; i < n; i++) {
		size_t less = 0, eq = 0;

		for (size_t j = 0; j < n; j++) {
			less += v[j] < v[i];
			eq += v[j] == v[i];
		}
		rank2[i] = 2 * less + eq + 1;	/* twice the midrank */
		if (i < nx)
			obs += rank2[i];
	}
	dist = fabs((double)obs - mean2);
	cnt[0] = 1;
	for (size_t i = 0; i < n; i++)
		for (size_t k = i + 1 < nx ? i + 1 : nx; k > 0; k--)
			for (size_t sum = rank2[i]; sum <= smax; sum++)
				cnt[k * (smax + 1) + sum] += cnt[(k - 1) * (smax + 1) + sum - rank2[i]];
	for (size_t sum = 0; sum <= smax; sum++) {
		double c = cnt[nx * (smax + 1) + sum];

		all += c;
		if (fabs((double)sum - mean2) >= dist - 1e-9)
			extreme += c;
	}
	free(cnt);
	free(rank2);
	return all > 0 ? fmin(1, extreme / all) : 1;
}

/* C(n, k), or more than limit as soon as it is. */
static double choose(size_t n, size_t k, double limit)
{
	double c = 1;

	for (size_t i = 1; i <= k && c <= limit; i++)
		c = c * (double)(n - k + i) / (double)i;
	return c;
}

double prof_mann_whitney(const double *x, size_t nx, const double *y, size_t ny)
{
	double u = 0, mean, var, ties = 0, z, p;
	size_t n = nx + ny, i, j;
	double *all;

	if (!nx || !ny)
		return 1;
	if (choose(n, nx, EXACT_SPLITS) <= EXACT_SPLITS) {
		/* exact, ties and all: the rank sum over every split of the pooled values */
		double *v = xreallocarray(NULL, n, sizeof(*v)), exact;

		memcpy(v, x, nx * sizeof(*x));
		memcpy(v + nx, y, ny * sizeof(*y));
		exact = exact_p(v, n, nx);
		free(v);
		return exact;
	}
	mean = (double)nx * (double)ny / 2;
	/* U of x: the pairs where x is larger, a tie counting half */
	for (i = 0; i < nx; i++)
		for (j = 0; j < ny; j++) {
			u += x[i] > y[j] ? 1 : x[i] == y[j] ? 0.5 : 0;
		}
	all = xreallocarray(NULL, n, sizeof(*all));
	memcpy(all, x, nx * sizeof(*x));
	memcpy(all + nx, y, ny * sizeof(*y));
	qsort(all, n, sizeof(*all), cmp_double);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && all[j] == all[i]; j++)
			;
		if (j - i > 1) {
			double t = (double)(j - i);

			ties += t * t * t - t;
		}
	}
	free(all);
	var = (double)nx * (double)ny / 12 * ((double)n + 1 - ties / ((double)n * ((double)n - 1)));
	if (var <= 0)
		return 1;	/* every value equal */
	z = (fabs(u - mean) - 0.5) / sqrt(var);
	if (z < 0)
		z = 0;
	p = erfc(z / sqrt(2));
	return fmin(1, p);
}

int prof_rank_test_can_decide(size_t nx, size_t ny)
{
	return nx && ny && 2 / choose(nx + ny, nx, 1e9) < PROF_ALPHA;
}

/* xorshift64*: a fixed, portable sequence (rand() differs between libcs). */
static uint64_t next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static double resampled_median(const double *v, size_t n, double *tmp, uint64_t *s)
{
	for (size_t i = 0; i < n; i++)
		tmp[i] = v[next(s) % n];
	return prof_median(tmp, n);
}

void prof_bootstrap_ratio(const double *x, size_t nx, const double *y, size_t ny,
			  double *lo, double *hi)
{
	double *r, *tmp;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	size_t k = 0;

	*lo = *hi = NAN;
	if (!nx || !ny)
		return;
	r = xreallocarray(NULL, RESAMPLES, sizeof(*r));
	tmp = xreallocarray(NULL, nx > ny ? nx : ny, sizeof(*tmp));
	for (; k < RESAMPLES; k++) {
		double mx = resampled_median(x, nx, tmp, &seed);
		double my = resampled_median(y, ny, tmp, &seed);

		if (mx == 0)
			break;
		r[k] = my / mx;
	}
	if (k == RESAMPLES) {
		double tail = (1 - PROF_CONFIDENCE) / 2;

		qsort(r, RESAMPLES, sizeof(*r), cmp_double);
		*lo = r[(size_t)(tail * RESAMPLES)];
		*hi = r[(size_t)((1 - tail) * RESAMPLES) - 1];
	}
	free(r);
	free(tmp);
}
