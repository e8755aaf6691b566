#ifndef PROF_BENCH_H
#define PROF_BENCH_H
/*
 * Calibrated timing of a repeatable piece of work, for benchmarks whose
 * single run may last from nanoseconds to seconds.
 *
 * The work is a function that performs one "iteration" (for profcompress:
 * compress or decompress every block of the input once). prof_bench_run()
 * calls it once untimed (warm-up: caches, page faults, lazy library
 * initialisation), then in batches: a batch repeats the iteration n times
 * between two clock readings, n calibrated (and re-calibrated after each
 * batch) so that a batch lasts about batch_seconds and the clock's own
 * cost (two pairs of clock readings, well under a microsecond) is
 * negligible even when one iteration takes nanoseconds. The default
 * batch is short (1-2 ms) so that, on a busy machine, many batches fit
 * between two preemptions and the fastest of them is undisturbed. Batches
 * repeat until `seconds` of timed work have been done (at least one
 * batch). Every batch records wall time (CLOCK_MONOTONIC) and the
 * process's CPU time (CLOCK_PROCESS_CPUTIME_ID, all threads) per
 * iteration; the result is the fastest batch, the median or the mean.
 *
 * With threads > 1 the function runs in that many threads at once (thread
 * index 0..threads-1, each doing its own share of the work); a batch
 * starts and ends on barriers, so its wall time covers the slowest thread.
 * Threads are created before and joined after the timed region.
 *
 * A result is "suspect" when CPU time and wall time disagree by more than
 * 10% (CPU time below 90% or above 110% of threads x wall time: another
 * process took the CPU, the process was descheduled, or a thread spun
 * outside the work): for PROF_BENCH_MIN in the batch it picked, for the
 * median and the mean over all batches.
 */
#include <stdint.h>

enum prof_bench_stat {
	PROF_BENCH_MIN,		/* the fastest batch (default) */
	PROF_BENCH_MEDIAN,	/* the median batch */
	PROF_BENCH_MEAN,	/* total time / total iterations */
};

/* Parse "min", "median" or "mean"; returns 0, or -1 if unknown. */
int prof_bench_stat_parse(const char *s, enum prof_bench_stat *st);

/* The name of a statistic ("min" ...). */
const char *prof_bench_stat_name(enum prof_bench_stat st);

/*
 * One iteration of the work, in thread `thread` (0..threads-1). Returns 0,
 * or -1 on an error, which ends the run (the function reports or records
 * the error itself).
 */
typedef int (*prof_bench_fn)(void *arg, unsigned thread);

struct prof_bench_opts {
	double seconds;		/* timed work to do (>= one batch) */
	double batch_seconds;	/* target batch length; 0: seconds/100 within 1..2 ms */
	enum prof_bench_stat stat;
	unsigned threads;	/* 0 or 1: the calling thread only */
};

struct prof_bench_result {
	double wall_s;		/* wall seconds per iteration (the statistic) */
	double cpu_s;		/* CPU seconds per iteration, all threads */
	uint64_t iterations;	/* timed iterations */
	uint64_t batches;
	int suspect;		/* see above */
};

/*
 * Time fn(arg, thread) as described above and fill *r. Returns 0, or -1
 * when an iteration returned -1 (r is then zeroed). Dies if a thread
 * cannot be created.
 */
int prof_bench_run(const struct prof_bench_opts *o, prof_bench_fn fn, void *arg,
		   struct prof_bench_result *r);

#endif
