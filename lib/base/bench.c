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

/* The timed batches of one run. */
struct batches {
	struct sample *v;
	size_t n, cap;
	double total_wall, total_cpu;
	uint64_t total_iter;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The target length of one batch: o's, or seconds/100 within 1..2 ms. */
static double batch_seconds(const struct prof_bench_opts *o)
{
	double batch_s = o->batch_seconds;

	if (batch_s <= 0) {
		batch_s = o->seconds / 100;
		if (batch_s < 0.001)
			batch_s = 0.001;
		if (batch_s > 0.002)
			batch_s = 0.002;
	}
	return batch_s;
}

/* Start threads - 1 workers (the calling thread is the first). */
static void pool_start(struct pool *pool, unsigned threads, pthread_t *tids,
		       struct worker *workers)
{
	pthread_barrier_init(&pool->start, NULL, threads);
	pthread_barrier_init(&pool->end, NULL, threads);
	for (unsigned t = 1; t < threads; t++) {
		int e;

		workers[t].pool = pool;
		workers[t].index = t;
		e = pthread_create(&tids[t], NULL, worker_main, &workers[t]);
		if (e) {
			errno = e;
			prof_die_errno("pthread_create");
		}
	}
}

/* Stop and join the workers pool_start() started. */
static void pool_stop(struct pool *pool, unsigned threads, pthread_t *tids)
{
	pool->stop = 1;
	pthread_barrier_wait(&pool->start);
	for (unsigned t = 1; t < threads; t++)
		pthread_join(tids[t], NULL);
	pthread_barrier_destroy(&pool->start);
	pthread_barrier_destroy(&pool->end);
}

/*
 * A warm-up iteration, then batches of about batch_s each until
 * o->seconds of timed work are done. Returns 0, or -1 if an iteration
 * failed.
 */
static int run_batches(const struct prof_bench_opts *o, struct pool *pool, unsigned threads,
		       double batch_s, struct batches *b)
{
	double t0 = clock_s(CLOCK_MONOTONIC), per_iter;

	if (run_batch(pool, threads, 1) != 0)
		return -1;
	per_iter = clock_s(CLOCK_MONOTONIC) - t0;
	do {
		double w0, c0, w1, c1;
		uint64_t n;

		if (per_iter <= 0)
			per_iter = 1e-9;
		n = (uint64_t)(batch_s / per_iter);
		if (n < 1)
			n = 1;
		/* never overshoot the remaining budget by much */
		if (b->total_wall > 0 && (double)n * per_iter > o->seconds - b->total_wall + batch_s)
			n = (uint64_t)((o->seconds - b->total_wall + batch_s) / per_iter) + 1;
		c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
		w0 = clock_s(CLOCK_MONOTONIC);
		if (run_batch(pool, threads, n) != 0)
			return -1;
		w1 = clock_s(CLOCK_MONOTONIC);
		c1 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
		PROF_GROW(b->v, b->n + 1, b->cap);
		b->v[b->n].wall = (w1 - w0) / (double)n;
		b->v[b->n].cpu = (c1 - c0) / (double)n;
		b->n++;
		b->total_wall += w1 - w0;
		b->total_cpu += c1 - c0;
		b->total_iter += n;
		per_iter = (w1 - w0) / (double)n;
	} while (b->total_wall < o->seconds);
	return 0;
}

/* The median of the wall (cpu 0) or CPU (cpu 1) times of the batches. */
static double median(const struct batches *b, int cpu)
{
	double *v = xmalloc(b->n * sizeof(*v)), m;

	for (size_t i = 0; i < b->n; i++)
		v[i] = cpu ? b->v[i].cpu : b->v[i].wall;
	qsort(v, b->n, sizeof(*v), cmp_double);
	m = b->n % 2 ? v[b->n / 2] : (v[b->n / 2 - 1] + v[b->n / 2]) / 2;
	free(v);
	return m;
}

/* The statistic o->stat of the batches, and whether it is suspect. */
static void summarize(const struct prof_bench_opts *o, unsigned threads,
		      const struct batches *b, struct prof_bench_result *r)
{
	double share, overall;

	r->iterations = b->total_iter;
	r->batches = b->n;
	switch (o->stat) {
	case PROF_BENCH_MIN: {
		size_t best = 0;

		for (size_t i = 1; i < b->n; i++)
			if (b->v[i].wall < b->v[best].wall)
				best = i;
		r->wall_s = b->v[best].wall;
		r->cpu_s = b->v[best].cpu;
		break;
	}
	case PROF_BENCH_MEDIAN:
		r->wall_s = median(b, 0);
		r->cpu_s = median(b, 1);
		break;
	case PROF_BENCH_MEAN:
		r->wall_s = b->total_wall / (double)b->total_iter;
		r->cpu_s = b->total_cpu / (double)b->total_iter;
		break;
	}
	/* min judges the batch it picked; median and mean all batches */
	share = r->wall_s > 0 ? r->cpu_s / (r->wall_s * threads) : 1;
	overall = b->total_wall > 0 ? b->total_cpu / (b->total_wall * threads) : 1;
	if (o->stat != PROF_BENCH_MIN)
		share = overall;
	/* Timer granularity: only judge runs long enough to tell. */
	if (b->total_wall >= 0.005 && (share < 0.90 || share > 1.10))
		r->suspect = 1;
}

int prof_bench_run(const struct prof_bench_opts *o, prof_bench_fn fn, void *arg,
		   struct prof_bench_result *r)
{
	unsigned threads = o->threads ? o->threads : 1;
	struct pool pool;
	pthread_t *tids = NULL;
	struct worker *workers = NULL;
	struct batches b = { 0 };
	int rc;

	memset(r, 0, sizeof(*r));
	memset(&pool, 0, sizeof(pool));
	pool.fn = fn;
	pool.arg = arg;
	pthread_mutex_init(&pool.lock, NULL);
	if (threads > 1) {
		tids = xcalloc(threads, sizeof(*tids));
		workers = xcalloc(threads, sizeof(*workers));
		pool_start(&pool, threads, tids, workers);
	}
	rc = run_batches(o, &pool, threads, batch_seconds(o), &b);
	if (rc == 0)
		summarize(o, threads, &b, r);
	if (threads > 1)
		pool_stop(&pool, threads, tids);
	pthread_mutex_destroy(&pool.lock);
	free(tids);
	free(workers);
	free(b.v);
	return rc;
}
