/*
 * brotli (codec.h): a brotli stream whose window is the smallest that
 * covers the block, like the brotli CLI. The library has no reset: the
 * encoder and decoder are made per call, through the counting
 * allocator's cache (ops.h).
 */
#include <stdint.h>
#include <stdio.h>

#include <brotli/decode.h>
#include <brotli/encode.h>

#include "codec/ops.h"

static void *br_alloc(void *opaque, size_t n)
{
	return prof_codec_mem_alloc(opaque, n);
}

static void br_free(void *opaque, void *p)
{
	prof_codec_mem_free(opaque, p);
}

static const char *brotli_version(void)
{
	static char buf[32];
	uint32_t v = BrotliEncoderVersion();

	snprintf(buf, sizeof(buf), "%u.%u.%u", v >> 24, (v >> 12) & 0xfff, v & 0xfff);
	return buf;
}

static size_t brotli_bound(int level, size_t n)
{
	size_t bound = BrotliEncoderMaxCompressedSize(n);

	(void)level;
	return bound ? bound : n + n / 8 + 1024;
}

/* An encoder at x's level whose window is, like the brotli CLI's, the smallest that covers n bytes. */
static BrotliEncoderState *brotli_encoder(struct prof_codec_ctx *x, size_t n)
{
	BrotliEncoderState *s = BrotliEncoderCreateInstance(br_alloc, br_free, &x->cmem);
	int lgwin = BROTLI_MIN_WINDOW_BITS;

	if (!s) {
		prof_codec_ctx_err(x, "BrotliEncoderCreateInstance failed");
		return NULL;
	}
	while (lgwin < BROTLI_MAX_WINDOW_BITS && ((size_t)1 << lgwin) - 16 < n)
		lgwin++;
	BrotliEncoderSetParameter(s, BROTLI_PARAM_QUALITY, (uint32_t)x->level);
	BrotliEncoderSetParameter(s, BROTLI_PARAM_LGWIN, (uint32_t)lgwin);
	if (n <= UINT32_MAX)
		BrotliEncoderSetParameter(s, BROTLI_PARAM_SIZE_HINT, (uint32_t)n);
	return s;
}

static size_t brotli_compress(struct prof_codec_ctx *x, void *dst, size_t cap,
			      const void *src, size_t n)
{
	BrotliEncoderState *s = brotli_encoder(x, n);
	const uint8_t *in = src;
	uint8_t *out = dst;
	size_t avail_in = n, avail_out = cap, r = PROF_CODEC_FAIL;

	if (!s)
		return PROF_CODEC_FAIL;
	while (!BrotliEncoderIsFinished(s)) {
		if (!BrotliEncoderCompressStream(s, BROTLI_OPERATION_FINISH, &avail_in, &in,
						 &avail_out, &out, NULL)) {
			prof_codec_ctx_err(x, "BrotliEncoderCompressStream failed");
			goto out;
		}
		if (avail_out == 0 && !BrotliEncoderIsFinished(s)) {
			prof_codec_ctx_err(x, "brotli: output buffer too small");
			goto out;
		}
	}
	r = cap - avail_out;
out:
	BrotliEncoderDestroyInstance(s);
	return r;
}

/* The outcome of a whole-stream decode: the decoded size, or PROF_CODEC_FAIL and x's error. */
static size_t brotli_decoded(struct prof_codec_ctx *x, BrotliDecoderState *s,
			     BrotliDecoderResult res, size_t avail_in, size_t cap, size_t avail_out)
{
	switch (res) {
	case BROTLI_DECODER_RESULT_SUCCESS:
		if (!avail_in)
			return cap - avail_out;
		prof_codec_ctx_err(x, "brotli: trailing data after the end of the stream");
		break;
	case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT:
		x->too_small = 1;
		prof_codec_ctx_err(x, "brotli: output larger than %zu bytes", cap);
		break;
	case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT:
		prof_codec_ctx_err(x, "brotli: truncated input");
		break;
	default:
		prof_codec_ctx_err(x, "brotli: %s",
				   BrotliDecoderErrorString(BrotliDecoderGetErrorCode(s)));
		break;
	}
	return PROF_CODEC_FAIL;
}

static size_t brotli_decompress(struct prof_codec_ctx *x, void *dst, size_t cap,
				const void *src, size_t n)
{
	BrotliDecoderState *s = BrotliDecoderCreateInstance(br_alloc, br_free, &x->dmem);
	const uint8_t *in = src;
	uint8_t *out = dst;
	size_t avail_in = n, avail_out = cap, r;
	BrotliDecoderResult res;

	if (!s) {
		prof_codec_ctx_err(x, "BrotliDecoderCreateInstance failed");
		return PROF_CODEC_FAIL;
	}
	res = BrotliDecoderDecompressStream(s, &avail_in, &in, &avail_out, &out, NULL);
	r = brotli_decoded(x, s, res, avail_in, cap, avail_out);
	BrotliDecoderDestroyInstance(s);
	return r;
}

static const struct prof_codec_ops brotli_ops = {
	.version = brotli_version,
	.bound = brotli_bound,
	.compress = brotli_compress,
	.decompress = brotli_decompress,
	.mem = prof_codec_counted_mem,
};

const struct prof_codec prof_codec_brotli = {
	.name = "brotli",
	.desc = "brotli stream, window sized to the block",
	.library = "brotli",
	.min_level = 0,
	.max_level = 11,
	.default_level = 6,
	.flags = PROF_CODEC_F_SIZED,
	.ops = &brotli_ops,
};
