/*
 * liblzma's codec (codec.h): xz, the .xz format (preset level, CRC64,
 * single-threaded), both streams allocating through the counting
 * allocator (ops.h).
 */
#include <stdint.h>
#include <stdlib.h>

#include <lzma.h>

#include "codec/ops.h"
#include "base/xalloc.h"

struct xz_state {
	lzma_stream c, d;
	lzma_allocator c_alloc, d_alloc;
};

static void *xz_alloc(void *opaque, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		return NULL;
	return prof_codec_mem_alloc(opaque, nmemb * size);
}

static void xz_free(void *opaque, void *p)
{
	prof_codec_mem_free(opaque, p);
}

static const char *xz_version(void)
{
	return lzma_version_string();
}

static size_t xz_bound(int level, size_t n)
{
	(void)level;
	return lzma_stream_buffer_bound(n);
}

static const char *lzma_msg(lzma_ret r)
{
	switch (r) {
	case LZMA_MEM_ERROR: return "cannot allocate memory";
	case LZMA_MEMLIMIT_ERROR: return "memory limit reached";
	case LZMA_FORMAT_ERROR: return "not in the .xz format";
	case LZMA_OPTIONS_ERROR: return "unsupported options";
	case LZMA_DATA_ERROR: return "compressed data is corrupt";
	case LZMA_BUF_ERROR: return "unexpected end of input";
	case LZMA_UNSUPPORTED_CHECK: return "unsupported integrity check";
	default: return "internal error";
	}
}

static int xz_init(struct prof_codec_ctx *x, char *err, size_t errlen)
{
	struct xz_state *s = xcalloc(1, sizeof(*s));
	lzma_stream init = LZMA_STREAM_INIT;

	(void)err;
	(void)errlen;
	x->state = s;
	s->c = init;
	s->d = init;
	s->c_alloc.alloc = s->d_alloc.alloc = xz_alloc;
	s->c_alloc.free = s->d_alloc.free = xz_free;
	s->c_alloc.opaque = &x->cmem;
	s->d_alloc.opaque = &x->dmem;
	s->c.allocator = &s->c_alloc;
	s->d.allocator = &s->d_alloc;
	return 0;
}

static void xz_release(struct prof_codec_ctx *x)
{
	struct xz_state *s = x->state;

	if (!s)
		return;
	lzma_end(&s->c);
	lzma_end(&s->d);
	free(s);
}

/* Run s over src into dst to the end of the stream (or an error). */
static lzma_ret xz_code(lzma_stream *s, void *dst, size_t cap, const void *src, size_t n)
{
	lzma_ret r;

	s->next_in = src;
	s->avail_in = n;
	s->next_out = dst;
	s->avail_out = cap;
	do
		r = lzma_code(s, LZMA_FINISH);
	while (r == LZMA_OK && s->avail_out);
	return r;
}

static size_t xz_compress(struct prof_codec_ctx *x, void *dst, size_t cap,
			  const void *src, size_t n)
{
	lzma_stream *s = &((struct xz_state *)x->state)->c;
	lzma_ret r = lzma_easy_encoder(s, (uint32_t)x->level, LZMA_CHECK_CRC64);

	if (r != LZMA_OK) {
		prof_codec_ctx_err(x, "lzma_easy_encoder: %s", lzma_msg(r));
		return PROF_CODEC_FAIL;
	}
	r = xz_code(s, dst, cap, src, n);
	if (r != LZMA_STREAM_END) {
		prof_codec_ctx_err(x, "lzma_code: %s",
				   r == LZMA_OK ? "output buffer too small" : lzma_msg(r));
		return PROF_CODEC_FAIL;
	}
	return cap - s->avail_out;
}

static size_t xz_decompress(struct prof_codec_ctx *x, void *dst, size_t cap,
			    const void *src, size_t n)
{
	lzma_stream *s = &((struct xz_state *)x->state)->d;
	lzma_ret r = lzma_stream_decoder(s, UINT64_MAX, 0);

	if (r != LZMA_OK) {
		prof_codec_ctx_err(x, "lzma_stream_decoder: %s", lzma_msg(r));
		return PROF_CODEC_FAIL;
	}
	r = xz_code(s, dst, cap, src, n);
	if (r == LZMA_STREAM_END) {
		if (s->avail_in) {
			prof_codec_ctx_err(x, "xz: trailing data after the end of the stream");
			return PROF_CODEC_FAIL;
		}
		return cap - s->avail_out;
	}
	if ((r == LZMA_OK || r == LZMA_BUF_ERROR) && s->avail_out == 0) {
		x->too_small = 1;
		prof_codec_ctx_err(x, "xz: output larger than %zu bytes", cap);
		return PROF_CODEC_FAIL;
	}
	prof_codec_ctx_err(x, "xz: %s", lzma_msg(r));
	return PROF_CODEC_FAIL;
}

static const struct prof_codec_ops xz_ops = {
	.version = xz_version,
	.bound = xz_bound,
	.init = xz_init,
	.release = xz_release,
	.compress = xz_compress,
	.decompress = xz_decompress,
	.mem = prof_codec_counted_mem,
};

const struct prof_codec prof_codec_xz = {
	.name = "xz",
	.desc = "liblzma .xz stream (preset, CRC64, single-threaded)",
	.library = "liblzma",
	.min_level = 0,
	.max_level = 9,
	.default_level = 6,
	.flags = PROF_CODEC_F_SIZED,
	.ops = &xz_ops,
};
