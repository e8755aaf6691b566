#ifndef PROF_CODEC_BENCHMARK_H
#define PROF_CODEC_BENCHMARK_H
/*
 * The compression benchmark engine of profcompress(1): every selected
 * cell (codec, level; selection.h) is run on each input held in memory,
 * whole or in independent blocks shared by threads, and gives one row:
 * compressed size, compression and decompression speed (wall and CPU,
 * timed by base/bench.h) and the codec's memory. Every decompression is
 * verified, byte for byte and by CRC-32, once before and once after the
 * timed runs, into a buffer poisoned first so that a decoder that writes
 * nothing cannot pass.
 *
 * In decode-only mode each input is a compressed stream of the cell's
 * codec: its decompressed size is found by decoding it once into a
 * growing buffer, that result is the reference, and only decompression
 * is timed.
 *
 * Messages go to stderr (prof_warn): "input: codec:level: compression
 * failed: why"; with -v (prof_verbosity >= 2) how each side was timed.
 * When stderr is a terminal and prof_verbosity > 0, a progress line
 * ("cell n/N: input: codec:level") is rewritten in place and blanked out
 * before any other message and at the end.
 *
 * The rows' computations (ratio, Pareto frontier, recommendations) and
 * writers are in report.h.
 */
#include <stddef.h>
#include <stdint.h>

#include "base/bench.h"
#include "base/buf.h"
#include "codec/selection.h"

struct prof_codec_bench_opts {
	double seconds;			/* timed work per cell and direction */
	double batch;			/* target batch length; 0: base/bench's default */
	enum prof_bench_stat stat;
	unsigned threads;		/* threads sharing the blocks, >= 1 */
	uint64_t block;			/* block size; 0: each input whole */
	int decode_only;		/* inputs are compressed streams (see above) */
	int join;			/* the inputs concatenated are one input */
	int pareto;			/* flag each input's Pareto frontier */
	const char *dict_path;		/* the dictionary's file (metadata), or NULL */
	const char *dict;		/* the dictionary, or NULL */
	size_t dictlen;
};

enum prof_codec_status {
	PROF_CODEC_OK,
	PROF_CODEC_COMP_ERROR,
	PROF_CODEC_DECOMP_ERROR,
	PROF_CODEC_MISMATCH,		/* decoded data differs from the original */
};

/* One cell on one input: a row of the profcompress schema (prof-formats.5). */
struct prof_codec_row {
	char *input;			/* its name, tabs and newlines made spaces; owned */
	const struct prof_codec *codec;
	int level;			/* PROF_CODEC_NOLEVEL: none (and decode-only) */
	uint64_t block_bytes;		/* the -b size, 0 for whole inputs */
	uint64_t orig, comp;		/* original and compressed bytes */
	int have_comp;			/* comp is known */
	double cspeed, dspeed;		/* MB/s (10^6 original bytes per second); < 0: none */
	double ccpu, dcpu;		/* the same per CPU second */
	long long cmem, dmem;		/* bytes of codec state; < 0: unknown */
	enum prof_codec_status status;
	int suspect_c, suspect_d;	/* CPU and wall time disagreed (base/bench.h) */
	int pareto_c, pareto_d;		/* on the ratio/speed frontier (report.h) */
};

/* Rows in the order run: inputs, then cells. { 0 } is empty. */
struct prof_codec_rows {
	struct prof_codec_row *v;
	size_t n, cap;
};

/* Free the rows and their names; the list is empty again. */
void prof_codec_rows_release(struct prof_codec_rows *rows);

/*
 * Benchmark the inputs files[0..nfiles) ("-" is stdin): read each whole
 * (decompressing gzip, zstd and lz4 files first, except in decode-only
 * mode), run every cell on it (or, with o->join, on their concatenation
 * once all are read), flag the Pareto frontier if o->pareto, and append
 * the rows to rows. Appends the metadata lines (prof-formats.5: machine
 * and options, library versions, each input's name, size and SHA-256)
 * to meta. An unreadable or empty input is reported and skipped (with
 * o->join, nothing is benchmarked then). Returns PROF_EXIT_OK, or
 * PROF_EXIT_FAIL when an input was skipped or a cell failed.
 */
int prof_codec_bench_files(const struct prof_codec_bench_opts *o,
			   const struct prof_codec_cells *cells,
			   char *const *files, size_t nfiles,
			   struct prof_codec_rows *rows, struct prof_buf *meta);

/*
 * Run every cell on one input in memory, data[0..len) named name (no
 * progress line, no metadata), and append the rows (Pareto flags if
 * o->pareto). Failures are in the rows' status and reported on stderr.
 */
void prof_codec_bench_memory(const struct prof_codec_bench_opts *o,
			     const struct prof_codec_cells *cells, const char *name,
			     const char *data, size_t len, struct prof_codec_rows *rows);

/*
 * Read path ("-" or NULL: stdin) as it is, without decompressing it.
 * Returns a malloc'ed buffer (NUL-terminated, *len bytes before it), or
 * NULL after reporting "prog: path: strerror".
 */
char *prof_codec_read_raw(const char *path, size_t *len);

#endif
