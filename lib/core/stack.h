#ifndef PROF_STACK_H
#define PROF_STACK_H
/*
 * The stack table: the one aggregation structure of proftools.
 *
 * Frames are interned (intern.h) into frame ids; a stack is an array of
 * frame ids, root first. Each distinct stack gets a dense stack id and a
 * row of nweights weights (one column per measure: samples, ns, bytes,
 * count...). Adding the same stack again adds to its weights. Folding,
 * merging inputs, diffing and "top" all run on this table.
 *
 * Weights are prof_weight, a long double: counts are integers up to
 * 2^64-1 (sample counts, nanoseconds, bytes) that must survive a round
 * trip byte for byte, and folded counts may also be decimal ("1.5").
 * long double has a 64-bit significand on x86-64 (x87 extended) and 113
 * bits on aarch64 (binary128), so every integer up to 2^64-1 and every
 * sum up to it is exact, while decimals keep working without a second
 * representation; a double (exact to 2^53 only) printed 2^64-1 as
 * 1.84467440737096e+19. The price is 16 bytes per weight in the table
 * (per distinct stack, not per sample) and x87 adds, not measurable next
 * to parsing (see the commit that made the change). A sum above 2^64-1
 * saturates at PROF_WEIGHT_MAX with one warning per process
 * (prof-formats.5). Not thread-safe; parallel readers use one table each
 * and prof_stacks_merge() them.
 */
#include <stddef.h>
#include <stdint.h>
#include "core/intern.h"

/*
 * Not a limit: a table has as many weight columns as its user asks for.
 * This is the size of the small fixed rows that readers build on the
 * stack for tables of at most this many columns (folded, perf script and
 * profrec TSV tables have one or two); a caller that fills only some
 * columns of a wider table uses prof_stacks_add_columns() instead.
 */
#define PROF_STACKS_MAX_WEIGHTS 4

/*
 * The deepest stack a reader builds by expanding its input rather than
 * copying it: a pprof sample that names one location many times, each
 * with many inline lines (a 195-byte .pb.gz made a stack of 400 million
 * frames), speedscope events nested thousands deep (every interval adds
 * the whole open stack). Such a stack keeps its innermost frames, as perf
 * --max-stack does, and the reader says how many stacks it cut, so memory
 * stays within this many frames per stack the input holds. 4096 is far
 * above real stacks of these formats (Go records 128 frames at most,
 * async-profiler 2048 by default, perf 127); text formats (folded, perf
 * script, gdb) are not cut: their stacks cost their own bytes in the input.
 */
#define PROF_STACKS_MAX_EXPANDED_DEPTH 4096

typedef long double prof_weight;

/* The largest weight: 2^64-1, exact in a prof_weight. */
#define PROF_WEIGHT_MAX 18446744073709551615.0L

/*
 * *a += b, kept at PROF_WEIGHT_MAX when the sum is larger (a sum of
 * integers above 2^64-1 rounds to at least 2^64, so the test is exact).
 * Returns 1 when it saturated; the caller says so once
 * (prof_weight_saturated()).
 */
static inline int prof_weight_add(prof_weight *a, prof_weight b)
{
	*a += b;
	if (*a > PROF_WEIGHT_MAX) {
		*a = PROF_WEIGHT_MAX;
		return 1;
	}
	return 0;
}

/*
 * Report a saturated sum: "prog: counts add up to more than
 * 18446744073709551615 (2^64-1)[ for STACK]; kept at 18446744073709551615",
 * the first time in the process only. what may be NULL.
 */
void prof_weight_saturated(const char *what);

struct prof_stacks {
	struct prof_intern frames;	/* frame names */
	size_t nweights;		/* weights per stack, 1 or more */
	/* private */
	uint32_t *slots;		/* open addressing: stack id + 1 */
	size_t nslots;
	uint32_t *frame_pool;		/* all stacks' frame ids, concatenated */
	size_t pool_len, pool_cap;
	size_t *offsets;		/* stack id -> start in frame_pool */
	uint32_t *depths;		/* stack id -> number of frames */
	uint64_t *hashes;		/* stack id -> hash */
	prof_weight *weights;		/* stack id * nweights + column */
	size_t count, cap;
};

/* Initialise an empty table with nweights weight columns (0 means 1). */
void prof_stacks_init(struct prof_stacks *t, size_t nweights);

/* Free everything. */
void prof_stacks_release(struct prof_stacks *t);

/* Intern a frame name; returns its frame id. */
static inline uint32_t prof_stacks_frame(struct prof_stacks *t, const char *name, size_t len)
{
	return prof_intern(&t->frames, name, len);
}

/* The name of frame id (NUL-terminated); length in *len if not NULL. */
static inline const char *prof_stacks_frame_name(const struct prof_stacks *t, uint32_t frame, size_t *len)
{
	return prof_intern_str(&t->frames, frame, len);
}

/* Id of the stack frames[0..depth) (root first), adding it with zero weights if new. */
uint32_t prof_stacks_intern(struct prof_stacks *t, const uint32_t *frames, size_t depth);

/*
 * Add weights[0..nweights) to the stack frames[0..depth) (saturating at
 * PROF_WEIGHT_MAX, reported once); returns its id.
 */
uint32_t prof_stacks_add(struct prof_stacks *t, const uint32_t *frames, size_t depth,
			 const prof_weight *weights);

/*
 * Like prof_stacks_add() with a shorter row: adds weights[0..n) to the
 * first n columns (n is clamped to nweights) and leaves the others as
 * they are; n = 0 only interns the stack. Returns the stack id.
 */
uint32_t prof_stacks_add_columns(struct prof_stacks *t, const uint32_t *frames, size_t depth,
				 const prof_weight *weights, size_t n);

/* Number of distinct stacks. */
static inline size_t prof_stacks_count(const struct prof_stacks *t)
{
	return t->count;
}

/* Frames of stack id (root first) and their number in *depth. */
static inline const uint32_t *prof_stacks_frames(const struct prof_stacks *t, uint32_t id, size_t *depth)
{
	*depth = t->depths[id];
	return t->frame_pool + t->offsets[id];
}

/*
 * The weight row of stack id (nweights values, writable; adding to it
 * should go through prof_weight_add()).
 */
static inline prof_weight *prof_stacks_weights(const struct prof_stacks *t, uint32_t id)
{
	return t->weights + (size_t)id * t->nweights;
}

/*
 * Add every stack of src into dst (frame names re-interned). Weight
 * columns are matched by position; src may have fewer columns than dst.
 * prof_stacks_merge_column() adds only src's column src_column into dst's
 * column dst_column (used to build differential tables). Sums saturate
 * as in prof_stacks_add().
 */
void prof_stacks_merge(struct prof_stacks *dst, const struct prof_stacks *src);
void prof_stacks_merge_column(struct prof_stacks *dst, size_t dst_column,
			      const struct prof_stacks *src, size_t src_column);

/*
 * Stack ids ordered by their folded text ("a;b;c") in byte order, the
 * order of FlameGraph's stackcollapse output. Stacks whose weights are
 * all zero are left out. Returns a malloc'ed array of *n ids; caller frees.
 */
uint32_t *prof_stacks_sorted(const struct prof_stacks *t, size_t *n);

/* Append the folded text of stack id ("a;b;c", no count) to a prof_buf. */
struct prof_buf;
void prof_stacks_format(const struct prof_stacks *t, uint32_t id, struct prof_buf *out);

#endif
