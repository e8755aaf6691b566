/* Calibrated batch timing; see bench.h. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/bench.h"
#include "base/error.h"
#include "base/xalloc.h"

int prof_bench_stat_parse(const char *s, enum prof_bench_stat *st)
{
	if (strcmp(s, "min") == 0)
		*st = PROF_BENCH_MIN;
	else if (strcmp(s, "median") == 0)
		*st = PROF_BENCH_MEDIAN;
	else if (strcmp(s, "mean") == 0)
		*st = PROF_BENCH_MEAN;
	else
		return -1;
	return 0;
}

const char *prof_bench_stat_name(enum prof_bench_stat st)
{
	return st == PROF_BENCH_MEDIAN ? "median" : st == PROF_BENCH_MEAN ? "mean" : "min";
}

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The worker threads of a multi-threaded run. */
struct pool {
	pthread_barrier_t start, end;
	prof_bench_fn fn;
	void *arg;
	uint64_t n;		/* iterations in the coming batch */
	int stop;		/* set before "start": exit instead */
	int failed;		/* some iteration returned -1 */
	pthread_mutex_t lock;
};

struct worker {
	struct pool *pool;
	unsigned index;
};

static void pool_iterations(struct pool *p, unsigned index)
{
	for (uint64_t i = 0; i < p->n; i++) {
		if (p->fn(p->arg, index) != 0) {
			pthread_mutex_lock(&p->lock);
			p->failed = 1;
			pthread_mutex_unlock(&p->lock);
			break;
		}
	}
}

static void *worker_main(void *v)
{
	struct worker *w = v;
	struct pool *p = w->pool;

	for (;;) {
		pthread_barrier_wait(&p->start);
		if (p->stop)
			return NULL;
		pool_iterations(p, w->index);
		pthread_barrier_wait(&p->end);
	}
}

/* Run one batch of n iterations in every thread; returns -1 on failure. */
static int run_batch(struct pool *p, unsigned threads, uint64_t n)
{
	int failed;

	p->n = n;
	if (threads <= 1) {
		for (uint64_t i = 0; i < n; i++)
			if (p->fn(p->arg, 0) != 0)
				return -1;
		return 0;
	}
	pthread_barrier_wait(&p->start);
	pool_iterations(p, 0);
	pthread_barrier_wait(&p->end);
	pthread_mutex_lock(&p->lock);
	failed = p->failed;
	pthread_mutex_unlock(&p->lock);
	return failed ? -1 : 0;
}

struct sample {
	double wall, cpu;	/* per iteration */
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int prof_bench_run(const struct prof_bench_opts *o, prof_bench_fn fn, void *arg,
		   struct prof_bench_result *r)
{
	unsigned threads = o->threads ? o->threads : 1;
	double batch_s = o->batch_seconds;
	struct pool pool;
	pthread_t *tids = NULL;
	struct worker *workers = NULL;
	struct sample *samples = NULL;
	size_t nsamples = 0, cap = 0;
	unsigned started = 0;
	double total_wall = 0, total_cpu = 0, per_iter;
	uint64_t n, total_iter = 0;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	if (batch_s <= 0) {
		batch_s = o->seconds / 100;
		if (batch_s < 0.001)
			batch_s = 0.001;
		if (batch_s > 0.002)
			batch_s = 0.002;
	}
	memset(&pool, 0, sizeof(pool));
	pool.fn = fn;
	pool.arg = arg;
	pthread_mutex_init(&pool.lock, NULL);
	if (threads > 1) {
		pthread_barrier_init(&pool.start, NULL, threads);
		pthread_barrier_init(&pool.end, NULL, threads);
		tids = xcalloc(threads, sizeof(*tids));
		workers = xcalloc(threads, sizeof(*workers));
		for (unsigned t = 1; t < threads; t++) {
			int e;

			workers[t].pool = &pool;
			workers[t].index = t;
			e = pthread_create(&tids[t], NULL, worker_main, &workers[t]);
			if (e) {
				errno = e;
				prof_die_errno("pthread_create");
			}
			started++;
		}
	}

	/* Warm-up, and a first estimate of one iteration's time. */
	{
		double t0 = clock_s(CLOCK_MONOTONIC);

		if (run_batch(&pool, threads, 1) != 0)
			goto out;
		per_iter = clock_s(CLOCK_MONOTONIC) - t0;
	}

	do {
		double w0, c0, w1, c1;

		if (per_iter <= 0)
			per_iter = 1e-9;
		n = (uint64_t)(batch_s / per_iter);
		if (n < 1)
			n = 1;
		/* never overshoot the remaining budget by much */
		if (total_wall > 0 && (double)n * per_iter > o->seconds - total_wall + batch_s)
			n = (uint64_t)((o->seconds - total_wall + batch_s) / per_iter) + 1;
		c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
		w0 = clock_s(CLOCK_MONOTONIC);
		if (run_batch(&pool, threads, n) != 0)
			goto out;
		w1 = clock_s(CLOCK_MONOTONIC);
		c1 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
		PROF_GROW(samples, nsamples + 1, cap);
		samples[nsamples].wall = (w1 - w0) / (double)n;
		samples[nsamples].cpu = (c1 - c0) / (double)n;
		nsamples++;
		total_wall += w1 - w0;
		total_cpu += c1 - c0;
		total_iter += n;
		per_iter = (w1 - w0) / (double)n;
	} while (total_wall < o->seconds);

	r->iterations = total_iter;
	r->batches = nsamples;
	switch (o->stat) {
	case PROF_BENCH_MIN: {
		size_t best = 0;

		for (size_t i = 1; i < nsamples; i++)
			if (samples[i].wall < samples[best].wall)
				best = i;
		r->wall_s = samples[best].wall;
		r->cpu_s = samples[best].cpu;
		break;
	}
	case PROF_BENCH_MEDIAN: {
		double *v = xmalloc(nsamples * sizeof(*v));

		for (size_t i = 0; i < nsamples; i++)
			v[i] = samples[i].wall;
		qsort(v, nsamples, sizeof(*v), cmp_double);
		r->wall_s = nsamples % 2 ? v[nsamples / 2]
					 : (v[nsamples / 2 - 1] + v[nsamples / 2]) / 2;
		for (size_t i = 0; i < nsamples; i++)
			v[i] = samples[i].cpu;
		qsort(v, nsamples, sizeof(*v), cmp_double);
		r->cpu_s = nsamples % 2 ? v[nsamples / 2]
					: (v[nsamples / 2 - 1] + v[nsamples / 2]) / 2;
		free(v);
		break;
	}
	case PROF_BENCH_MEAN:
		r->wall_s = total_wall / (double)total_iter;
		r->cpu_s = total_cpu / (double)total_iter;
		break;
	}
	{
		/* min judges the batch it picked; median and mean all batches */
		double share = r->wall_s > 0 ? r->cpu_s / (r->wall_s * threads) : 1;
		double overall = total_wall > 0 ? total_cpu / (total_wall * threads) : 1;

		if (o->stat != PROF_BENCH_MIN)
			share = overall;
		/* Timer granularity: only judge runs long enough to tell. */
		if (total_wall >= 0.005 && (share < 0.90 || share > 1.10))
			r->suspect = 1;
	}
	rc = 0;
out:
	if (threads > 1) {
		pool.stop = 1;
		pthread_barrier_wait(&pool.start);
		for (unsigned t = 1; t <= started; t++)
			pthread_join(tids[t], NULL);
		pthread_barrier_destroy(&pool.start);
		pthread_barrier_destroy(&pool.end);
	}
	pthread_mutex_destroy(&pool.lock);
	free(tids);
	free(workers);
	free(samples);
	if (rc)
		memset(r, 0, sizeof(*r));
	return rc;
}
