/*
 * bzip2 (codec.h): a libbz2 stream, level = block size x100k. The
 * library has no reset: each call makes its stream, through the counting
 * allocator's cache (ops.h).
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <bzlib.h>

#include "codec/ops.h"

static void *bz_alloc(void *opaque, int items, int size)
{
	return prof_codec_mem_alloc(opaque, (size_t)items * (size_t)size);
}

static void bz_free(void *opaque, void *p)
{
	prof_codec_mem_free(opaque, p);
}

static const char *bzip2_version(void)
{
	static char buf[32];

	/* "1.0.8, 13-Jul-2019": keep the number */
	snprintf(buf, sizeof(buf), "%s", BZ2_bzlibVersion());
	buf[strcspn(buf, ", ")] = '\0';
	return buf;
}

static size_t bzip2_bound(int level, size_t n)
{
	(void)level;
	return n + n / 100 + 600;
}

/* A stream whose allocations are counted in m. */
static void bz_stream_init(bz_stream *s, struct prof_codec_mem *m)
{
	memset(s, 0, sizeof(*s));
	s->bzalloc = bz_alloc;
	s->bzfree = bz_free;
	s->opaque = m;
}

static size_t bzip2_compress(struct prof_codec_ctx *x, void *dst, size_t cap,
			     const void *src, size_t n)
{
	bz_stream s;
	int r;
	size_t out;

	bz_stream_init(&s, &x->cmem);
	r = BZ2_bzCompressInit(&s, x->level, 0, 0);
	if (r != BZ_OK) {
		prof_codec_ctx_err(x, "BZ2_bzCompressInit: error %d", r);
		return PROF_CODEC_FAIL;
	}
	s.next_in = (char *)(uintptr_t)src;
	s.avail_in = (unsigned)n;
	s.next_out = dst;
	s.avail_out = cap > UINT_MAX ? UINT_MAX : (unsigned)cap;
	do
		r = BZ2_bzCompress(&s, BZ_FINISH);
	while (r == BZ_FINISH_OK && s.avail_out);
	out = ((size_t)s.total_out_hi32 << 32) | s.total_out_lo32;
	BZ2_bzCompressEnd(&s);
	if (r != BZ_STREAM_END) {
		prof_codec_ctx_err(x, "BZ2_bzCompress: %s",
				   r == BZ_FINISH_OK ? "output buffer too small" : "error");
		return PROF_CODEC_FAIL;
	}
	return out;
}

static const char *bz_decode_error(int r)
{
	return r == BZ_DATA_ERROR_MAGIC ? "not bzip2 data"
		: r == BZ_DATA_ERROR ? "compressed data is corrupt" : "decoder error";
}

static size_t bzip2_decompress(struct prof_codec_ctx *x, void *dst, size_t cap,
			       const void *src, size_t n)
{
	bz_stream s;
	int r;
	size_t out = PROF_CODEC_FAIL;

	bz_stream_init(&s, &x->dmem);
	r = BZ2_bzDecompressInit(&s, 0, 0);
	if (r != BZ_OK) {
		prof_codec_ctx_err(x, "BZ2_bzDecompressInit: error %d", r);
		return PROF_CODEC_FAIL;
	}
	s.next_in = (char *)(uintptr_t)src;
	s.avail_in = n > UINT_MAX ? UINT_MAX : (unsigned)n;
	s.next_out = dst;
	s.avail_out = cap > UINT_MAX ? UINT_MAX : (unsigned)cap;
	for (;;) {
		unsigned ai = s.avail_in, ao = s.avail_out;

		r = BZ2_bzDecompress(&s);
		if (r == BZ_STREAM_END) {
			if (s.avail_in)
				prof_codec_ctx_err(x, "bzip2: trailing data after the end of the stream");
			else
				out = ((size_t)s.total_out_hi32 << 32) | s.total_out_lo32;
			break;
		}
		if (r != BZ_OK) {
			prof_codec_ctx_err(x, "bzip2: %s", bz_decode_error(r));
			break;
		}
		if (s.avail_out == 0) {
			x->too_small = 1;
			prof_codec_ctx_err(x, "bzip2: output larger than %zu bytes", cap);
			break;
		}
		if (s.avail_in == 0 || (ai == s.avail_in && ao == s.avail_out)) {
			prof_codec_ctx_err(x, "bzip2: truncated input");
			break;
		}
	}
	BZ2_bzDecompressEnd(&s);
	return out;
}

static const struct prof_codec_ops bzip2_ops = {
	.version = bzip2_version,
	.max_block = UINT_MAX,
	.bound = bzip2_bound,
	.compress = bzip2_compress,
	.decompress = bzip2_decompress,
	.mem = prof_codec_counted_mem,
};

const struct prof_codec prof_codec_bzip2 = {
	.name = "bzip2",
	.desc = "libbz2 stream (level = block size x100k)",
	.library = "bzip2",
	.min_level = 1,
	.max_level = 9,
	.default_level = 9,
	.flags = PROF_CODEC_F_SIZED,
	.ops = &bzip2_ops,
};
