#ifndef PROF_CODEC_OPS_H
#define PROF_CODEC_OPS_H
/*
 * What a codec file implements (lib/codec/FILE.c, one per library), for
 * the files of lib/codec only; users of the codecs read codec.h.
 *
 * A codec file defines one `const struct prof_codec prof_codec_NAME` per
 * codec it offers (lz4.c: prof_codec_lz4, prof_codec_lz4hc,
 * prof_codec_lz4f), each pointing at a struct prof_codec_ops. The
 * registry (codec.c) lists the codecs that lib/codec/codec.mk names in
 * PROF_CODECS, and names those of the files it left out (their library
 * was not found) in PROF_CODECS_NOT_BUILT: adding a codec is its file
 * plus one line in codec.mk.
 *
 * codec.c does the common part of every call: level and dictionary
 * checks, the context, clearing the error, the block size limit. The
 * operations do only the library's part, report errors with
 * prof_codec_ctx_err() and return PROF_CODEC_FAIL.
 *
 * What the codec files call back (the counting allocator,
 * prof_codec_counted_mem, prof_codec_ctx_err) is defined in support.c,
 * not in codec.c: dependencies run one way, codec.c -> codec files ->
 * support.c (tests/layout.sh checks that lib/ has no cycle).
 */
#include <stddef.h>

#include "codec/codec.h"

#define PROF_CODEC_FAIL ((size_t)-1)

/*
 * The counting allocator (for libraries that take one: zlib, bzip2,
 * liblzma, brotli, libdeflate): it tracks the live and peak bytes (the
 * memory columns) and keeps freed blocks for reuse by size, so that a
 * library that must rebuild its state on every call (bzip2 and brotli
 * have no reset) does not pay malloc, mmap and page faults inside the
 * timed region.
 */
#define PROF_CODEC_MEM_CACHE 64

struct prof_codec_mem {
	size_t live, peak;
	unsigned ncache;
	void *cache[PROF_CODEC_MEM_CACHE];	/* block headers */
	size_t cache_size[PROF_CODEC_MEM_CACHE];
};

/* n bytes counted in m (a cached block of that size if there is one); NULL on OOM. */
void *prof_codec_mem_alloc(struct prof_codec_mem *m, size_t n);

/* Give back p (NULL ignored) to m's cache; m NULL: free it at once. */
void prof_codec_mem_free(struct prof_codec_mem *m, void *p);

/* Free m's cached blocks (every block must have been given back). */
void prof_codec_mem_release(struct prof_codec_mem *m);

/* A context: the common part, then the library's state. */
struct prof_codec_ctx {
	const struct prof_codec *codec;
	int level;			/* a valid level, or PROF_CODEC_NOLEVEL */
	char *dict;			/* the dictionary (a copy) or NULL */
	size_t dictlen;
	int too_small;			/* set by decompress: out of room */
	char err[256];			/* set by prof_codec_ctx_err() */
	struct prof_codec_mem cmem, dmem;	/* for allocator-counted libraries */
	long long cmem_fixed, dmem_fixed;	/* state sizes without ops->mem; -1 unknown */
	void *state;			/* the codec's own, made by ops->init */
};

struct prof_codec_ops {
	/* The library's version (a static string), "unknown" if it cannot tell. */
	const char *(*version)(void);
	/* Optional: the library's own level range, when it is wider than the table's. */
	void (*level_range)(int *lo, int *hi);
	/* The largest block one call takes; 0: no limit. */
	size_t max_block;
	/* Worst-case compressed size of n bytes. */
	size_t (*bound)(int level, size_t n);
	/*
	 * Optional: make the library state (x->state, x->*_fixed). Returns 0,
	 * or -1 with a message in err; release then runs on what was made.
	 */
	int (*init)(struct prof_codec_ctx *x, char *err, size_t errlen);
	/* Optional: free what init made; NULL: free(x->state). */
	void (*release)(struct prof_codec_ctx *x);
	/* See prof_codec_compress() and prof_codec_decompress(). */
	size_t (*compress)(struct prof_codec_ctx *x, void *dst, size_t cap,
			   const void *src, size_t n);
	size_t (*decompress)(struct prof_codec_ctx *x, void *dst, size_t cap,
			     const void *src, size_t n);
	/*
	 * Optional: the memory of the compression (decomp 0) or decompression
	 * (decomp 1) state; NULL: x->cmem_fixed and x->dmem_fixed.
	 * prof_codec_counted_mem for libraries that use the counting allocator.
	 */
	long long (*mem)(const struct prof_codec_ctx *x, int decomp);
};

/* ops->mem of the allocator-counted codecs: the peak of x->cmem or x->dmem. */
long long prof_codec_counted_mem(const struct prof_codec_ctx *x, int decomp);

/* Set x's error message (printf-like). */
void prof_codec_ctx_err(struct prof_codec_ctx *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
