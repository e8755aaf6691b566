#ifndef PROF_HEATMAP_H
#define PROF_HEATMAP_H
/*
 * The subsecond heat map (FlameScope's layout): samples counted per cell,
 * one column per second, one row per bucket of the second (bucket_ns
 * divides one second). Times are those of the --time-from/--time-to
 * window (profile.h): profrec TSV's time_ns (since the start of
 * recording), or perf script's time since the input's first sample; so
 * the cells of a range hold exactly what `proffold --time-from A
 * --time-to B` folds for it when A and B fall on bucket edges.
 *
 * Each cell keeps, besides its sample count and weight, the stacks of its
 * samples (ids in the stack table the profile is read into, aggregated
 * per cell): a range's flame graph is then the merge of its cells'
 * stacks (prof_heatmap_range_stacks), without reading the input again.
 *
 *     struct prof_heatmap hm;
 *     struct prof_profile_opts o;
 *
 *     prof_heatmap_init(&hm, 20000000);          (20 ms buckets)
 *     prof_profile_opts_init(&o);
 *     o.on_sample = prof_heatmap_on_sample;
 *     o.on_sample_ctx = &hm;
 *     prof_profile_read_all(paths, n, &o, &t, &meta, &sum);
 *     prof_heatmap_finish(&hm);
 *     prof_heatmap_write(&hm, &meta, 1, out);     (or read hm.cells)
 *     prof_heatmap_release(&hm);
 */
#include <stddef.h>
#include <stdint.h>
#include "core/stack.h"

struct prof_meta;
struct prof_output;

struct prof_heatmap_cell {
	unsigned long samples;
	prof_weight weight;
};

/* One stack of one cell: its id in the profile's table and its share. */
struct prof_heatmap_stack {
	size_t cell;
	uint32_t id;
	unsigned long samples;
	prof_weight weight;
};

struct prof_heatmap {
	uint64_t bucket_ns;
	size_t per_second;		/* buckets per second: rows */
	size_t seconds;			/* columns: up to the last sample's second */
	struct prof_heatmap_cell *cells;	/* [second * per_second + bucket] */
	size_t ncells, cells_cap;
	/* Cell stacks: in arrival order until finish, then sorted by
	 * (cell, id) and merged; cell c's are stacks[start[c]..start[c+1]). */
	struct prof_heatmap_stack *stacks;
	size_t nstacks, stacks_cap;
	size_t *start;			/* ncells + 1 entries, after finish */
	unsigned long untimed;		/* samples without a time (not placed) */
	unsigned long too_late;		/* samples past PROF_HEATMAP_MAX_CELLS cells
					 * (a time far off: not placed) */
};

/* The bucket unless told: FlameScope's 20 ms, 50 rows a second. */
#define PROF_HEATMAP_DEFAULT_BUCKET_NS 20000000u

/* The most cells a heat map holds: 16M (93 h of 20 ms buckets). */
#define PROF_HEATMAP_MAX_CELLS (16u << 20)

/*
 * 0 if bucket_ns is a usable bucket: at least 1 ms (FlameScope's finest
 * is 20 ms; finer cells are mostly empty) and dividing one second evenly.
 * Else -1.
 */
int prof_heatmap_bucket_ok(uint64_t bucket_ns);

/*
 * Parse a bucket option's value arg (a duration, bare numbers in seconds:
 * "20ms", "0.05") into *bucket_ns. Returns 0, or -1 if arg is not a
 * duration or not a usable bucket (prof_heatmap_bucket_ok).
 */
int prof_heatmap_bucket_parse(const char *arg, uint64_t *bucket_ns);

/* An empty heat map of buckets of bucket_ns (prof_heatmap_bucket_ok). */
void prof_heatmap_init(struct prof_heatmap *hm, uint64_t bucket_ns);

/*
 * Add a sample of stack id with weight w at time_ns (negative: the
 * sample has no time; it is counted in untimed; past the last cell
 * possible, in too_late). The signature of
 * prof_profile_opts.on_sample, ctx being the heat map.
 */
void prof_heatmap_on_sample(void *ctx, uint32_t id, prof_weight w, int64_t time_ns);

/* Aggregate the cells' stacks; call once, after the last sample. */
void prof_heatmap_finish(struct prof_heatmap *hm);

/*
 * Read paths[0..n) (n == 0: standard input) as prof_profile_read_all()
 * does with opts (its on_sample is set here) into the heat map hm
 * (initialised by the caller with its bucket), the table t its cell
 * stacks refer to (initialised by the caller) and meta, then finish hm.
 * Samples without a time or too late are reported (a warning each), and
 * so is an input with stacks but no sample times (folded stacks).
 * Returns 0, or -1 if an input failed (reported) or no sample could be
 * placed though stacks were read.
 */
struct prof_profile_opts;
int prof_heatmap_read(const char *const *paths, size_t n, struct prof_profile_opts *opts,
		      struct prof_heatmap *hm, struct prof_stacks *t, struct prof_meta *meta);

/*
 * The stacks of the cells whose time lies in [from_ns, to_ns) (to_ns
 * UINT64_MAX: no end; a cell belongs to the range when its start does)
 * added into dst with their weights in column 0, frames copied from src,
 * the table the profile was read into. With from and to on bucket edges
 * this is `proffold --time-from/--time-to` for the range. After finish.
 * Returns the samples added.
 */
unsigned long prof_heatmap_range_stacks(const struct prof_heatmap *hm,
					const struct prof_stacks *src, uint64_t from_ns,
					uint64_t to_ns, struct prof_stacks *dst);

/*
 * Write the proffold-heatmap TSV (prof-formats.5) to o: with
 * meta_line, meta's pairs plus bucket_ms as a "# key=value" line; the
 * header line; then every cell, zeros included, second by second. The
 * event column names meta's "event" ("" if none). Returns 0, or -1 on a
 * write error.
 */
int prof_heatmap_write(const struct prof_heatmap *hm, const struct prof_meta *meta,
		       int meta_line, struct prof_output *o);

/* Free what the heat map holds. */
void prof_heatmap_release(struct prof_heatmap *hm);

/*
 * proffold --heatmap: read paths[0..n) with opts (prof_heatmap_read())
 * into a heat map of bucket_ns buckets and write its TSV to output (NULL:
 * stdout; atomically, compressed by suffix), with the metadata line
 * unless no_header. Returns 0, or 1 if an input or the output failed
 * (reported; what could be read is still written).
 */
int prof_heatmap_fold_file(const char *const *paths, size_t n, struct prof_profile_opts *opts,
			   uint64_t bucket_ns, const char *output, int no_header);

#endif
