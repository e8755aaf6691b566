#ifndef PROF_CODEC_H
#define PROF_CODEC_H
/*
 * The compression codecs of the system's libraries behind one interface,
 * for profcompress(1): a table of codecs (name, level range, version) and
 * a context per (codec, level) that compresses and decompresses whole
 * memory blocks ("one-shot"), reusing its library state between calls so
 * that a benchmark times the codec and not its setup.
 *
 * Codecs: memcpy (the ceiling), zlib (raw deflate), gzip (zlib with gzip
 * framing), zstd (frames as `zstd -b` makes them: ZSTD_compress2 with the
 * level only, content size recorded, no checksum), lz4 (block API,
 * level = acceleration, as `lz4 -b1`), lz4hc (block API, HC levels, as
 * `lz4 -b3` and up), lz4f (frame format as the lz4 CLI writes it: 4 MiB
 * independent blocks with a content checksum) and, when the build found
 * their libraries, brotli, xz (the .xz format, CRC64), bzip2, snappy and
 * libdeflate (raw deflate). Codec-internal threading is never enabled.
 *
 * The folder lib/codec, read first here:
 *   codec.h      this interface and the registry of the build's codecs;
 *   ops.h        what a codec file implements: each library's codecs live
 *                in a file of their own (memcpy.c, lz4.c, zstd.c, zlib.c,
 *                libdeflate.c, snappy.c, brotli.c, bzip2.c, lzma.c) behind
 *                an operations table; codec.mk decides which files are
 *                compiled (adding a codec: its file and one line there);
 *   selection.h  which codecs and levels to run (-e specs, aliases);
 *   benchmark.h  the benchmark engine: inputs, timed cells, verification;
 *   report.h     Pareto frontier, recommendations, the TSV and human tables.
 *
 * Decompression always checks that the result has exactly the expected
 * size; corrupt or truncated input gives an error, never a crash (every
 * decoder used is a "safe" one that bounds its writes by the capacity).
 *
 * Ownership: a struct prof_codec_ctx owns its library state and its
 * dictionary copy; prof_codec_ctx_free() releases them. Contexts are not
 * shared between threads: make one per thread.
 */
#include <stddef.h>
#include <stdint.h>

/* A level value meaning "the codec has no levels" (memcpy, snappy). */
#define PROF_CODEC_NOLEVEL INT32_MIN

struct prof_codec_ops;

struct prof_codec {
	const char *name;		/* "zstd" */
	const char *desc;		/* one line for -l */
	const char *library;		/* its library, as metadata names it: "liblzma" */
	int min_level, max_level;	/* valid levels (both NOLEVEL if none) */
	int default_level;		/* the level used when none is given */
	unsigned flags;			/* PROF_CODEC_F_* */
	const struct prof_codec_ops *ops;	/* lib/codec/ops.h */
};

enum {
	PROF_CODEC_F_DICT = 1,		/* supports -D dictionaries */
	PROF_CODEC_F_SIZED = 2,		/* decode-only can find the size */
	PROF_CODEC_F_BASELINE = 4,	/* not a compressor: a ceiling (memcpy) */
	PROF_CODEC_F_ZERO_DEFAULT = 8,	/* level 0 means the default level (zstd) */
};

/* Every codec of this build, NULL-terminated, in a stable order. */
extern const struct prof_codec *const prof_codecs[];

/*
 * The names of the optional codecs this build left out (their library or
 * headers were not found), NULL-terminated; empty when none.
 */
extern const char *const prof_codecs_not_built[];

/* The codec called name, or NULL. */
const struct prof_codec *prof_codec_find(const char *name);

/* Nonzero if the codec uses levels. */
int prof_codec_has_levels(const struct prof_codec *c);

/*
 * The library version of the codec ("1.5.4"; "zlib 1.2.13" style is not
 * used: the codec name says which library). Returns a static string,
 * "unknown" when the library cannot tell.
 */
const char *prof_codec_version(const struct prof_codec *c);

/* Nonzero if name is one of prof_codecs_not_built. */
int prof_codec_is_not_built(const char *name);

/*
 * Worst-case compressed size of a block of n bytes at this level (what
 * the compress buffer must hold).
 */
size_t prof_codec_bound(const struct prof_codec *c, int level, size_t n);

struct prof_codec_ctx;

/*
 * Create a context for codec c at level (PROF_CODEC_NOLEVEL for codecs
 * without levels). dict/dictlen: an optional dictionary (copied); it is
 * an error for a codec without PROF_CODEC_F_DICT. Returns NULL and writes
 * a message into err (errlen bytes) on failure (bad level, library
 * error). Allocates the library state now, outside any timed region.
 */
struct prof_codec_ctx *prof_codec_ctx_new(const struct prof_codec *c, int level,
					  const void *dict, size_t dictlen,
					  char *err, size_t errlen);

/* Free a context; NULL is ignored. */
void prof_codec_ctx_free(struct prof_codec_ctx *x);

/*
 * Compress src[0..n) into dst (capacity cap, at least
 * prof_codec_bound()). Returns the compressed size, or (size_t)-1 on a
 * library error (message via prof_codec_ctx_error()).
 */
size_t prof_codec_compress(struct prof_codec_ctx *x, void *dst, size_t cap,
			   const void *src, size_t n);

/*
 * Decompress src[0..n) into dst (capacity cap). Returns the decompressed
 * size, or (size_t)-1 on error: corrupt or truncated data, trailing
 * garbage, or output that does not fit in cap (then
 * prof_codec_ctx_too_small() is nonzero, so a caller that does not know
 * the size can retry with a larger buffer). For the lz4 block format,
 * which records no size, a too-small buffer reads as corrupt data.
 */
size_t prof_codec_decompress(struct prof_codec_ctx *x, void *dst, size_t cap,
			     const void *src, size_t n);

/* The message of the last failed call ("" if none). */
const char *prof_codec_ctx_error(const struct prof_codec_ctx *x);

/* Nonzero if the last decompression failed only for lack of room. */
int prof_codec_ctx_too_small(const struct prof_codec_ctx *x);

/*
 * Memory the codec's library state uses for compression and for
 * decompression, in bytes, as far as the library can tell (zstd: its
 * context sizes; lz4: state sizes; zlib, xz, bzip2, brotli, libdeflate:
 * the peak of the allocations it made through our allocator during the
 * calls so far). -1 when unknown (snappy, lz4f's internal state). Valid
 * after at least one compression (decompression) call.
 */
long long prof_codec_comp_mem(const struct prof_codec_ctx *x);
long long prof_codec_decomp_mem(const struct prof_codec_ctx *x);

#endif
