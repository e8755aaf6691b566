/*
 * zlib's codecs (codec.h): zlib, a raw deflate stream (no header, takes a
 * dictionary), and gzip, the same with gzip framing (header, CRC32).
 * Both keep a deflate and an inflate stream per context, reset per call.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

#include "codec/ops.h"
#include "base/xalloc.h"

struct zlib_state {
	z_stream c, d;
	int c_ok, d_ok;		/* deflateInit2/inflateInit2 succeeded */
};

static void *zlib_alloc(void *opaque, uInt items, uInt size)
{
	return prof_codec_mem_alloc(opaque, (size_t)items * size);
}

static void zlib_free(void *opaque, void *p)
{
	prof_codec_mem_free(opaque, p);
}

static const char *zlib_library_version(void)
{
	return zlibVersion();
}

static size_t zlib_bound(int level, size_t n)
{
	(void)level;
	/* compressBound() includes the 6-byte zlib wrapper; gzip's is 18 */
	return compressBound(n > ULONG_MAX ? ULONG_MAX : n) + 32;
}

/* Both streams, with window bits wbits (-15: raw deflate, 31: gzip). */
static int zlib_init_wbits(struct prof_codec_ctx *x, int wbits, char *err, size_t errlen)
{
	struct zlib_state *s = xcalloc(1, sizeof(*s));

	x->state = s;
	s->c.zalloc = s->d.zalloc = zlib_alloc;
	s->c.zfree = s->d.zfree = zlib_free;
	s->c.opaque = &x->cmem;
	s->d.opaque = &x->dmem;
	if (deflateInit2(&s->c, x->level, Z_DEFLATED, wbits, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		snprintf(err, errlen, "%s: deflateInit2 failed", x->codec->name);
		return -1;
	}
	s->c_ok = 1;
	if (inflateInit2(&s->d, wbits) != Z_OK) {
		snprintf(err, errlen, "%s: inflateInit2 failed", x->codec->name);
		return -1;
	}
	s->d_ok = 1;
	return 0;
}

static int zlib_init(struct prof_codec_ctx *x, char *err, size_t errlen)
{
	return zlib_init_wbits(x, -15, err, errlen);
}

static int gzip_init(struct prof_codec_ctx *x, char *err, size_t errlen)
{
	return zlib_init_wbits(x, 31, err, errlen);
}

static void zlib_release(struct prof_codec_ctx *x)
{
	struct zlib_state *s = x->state;

	if (!s)
		return;
	if (s->c_ok)
		deflateEnd(&s->c);
	if (s->d_ok)
		inflateEnd(&s->d);
	free(s);
}

static size_t zlib_compress(struct prof_codec_ctx *x, void *dst, size_t cap,
			    const void *src, size_t n)
{
	z_stream *s = &((struct zlib_state *)x->state)->c;
	int r;

	if (deflateReset(s) != Z_OK) {
		prof_codec_ctx_err(x, "deflateReset failed");
		return PROF_CODEC_FAIL;
	}
	if (x->dict && deflateSetDictionary(s, (const Bytef *)x->dict, (uInt)x->dictlen) != Z_OK) {
		prof_codec_ctx_err(x, "deflateSetDictionary failed");
		return PROF_CODEC_FAIL;
	}
	s->next_in = (Bytef *)(uintptr_t)src;
	s->avail_in = (uInt)n;
	s->next_out = dst;
	s->avail_out = cap > UINT_MAX ? UINT_MAX : (uInt)cap;
	r = deflate(s, Z_FINISH);
	if (r != Z_STREAM_END) {
		prof_codec_ctx_err(x, "deflate: %s", s->msg ? s->msg : "output buffer too small");
		return PROF_CODEC_FAIL;
	}
	return (size_t)s->total_out;
}

static size_t zlib_decompress(struct prof_codec_ctx *x, void *dst, size_t cap,
			      const void *src, size_t n)
{
	z_stream *s = &((struct zlib_state *)x->state)->d;
	int r;

	if (inflateReset(s) != Z_OK) {
		prof_codec_ctx_err(x, "inflateReset failed");
		return PROF_CODEC_FAIL;
	}
	if (x->dict && inflateSetDictionary(s, (const Bytef *)x->dict, (uInt)x->dictlen) != Z_OK) {
		prof_codec_ctx_err(x, "inflateSetDictionary failed");
		return PROF_CODEC_FAIL;
	}
	s->next_in = (Bytef *)(uintptr_t)src;
	s->avail_in = n > UINT_MAX ? UINT_MAX : (uInt)n;
	s->next_out = dst;
	s->avail_out = cap > UINT_MAX ? UINT_MAX : (uInt)cap;
	r = inflate(s, Z_FINISH);
	if (r == Z_STREAM_END) {
		if (s->avail_in != 0 || n > UINT_MAX) {
			prof_codec_ctx_err(x, "inflate: trailing data after the end of the stream");
			return PROF_CODEC_FAIL;
		}
		return (size_t)s->total_out;
	}
	if ((r == Z_BUF_ERROR || r == Z_OK) && s->avail_out == 0) {
		x->too_small = 1;
		prof_codec_ctx_err(x, "inflate: output larger than %zu bytes", cap);
		return PROF_CODEC_FAIL;
	}
	if (r == Z_BUF_ERROR || r == Z_OK) {
		prof_codec_ctx_err(x, "inflate: truncated input");
		return PROF_CODEC_FAIL;
	}
	prof_codec_ctx_err(x, "inflate: %s", s->msg ? s->msg : zError(r));
	return PROF_CODEC_FAIL;
}

static const struct prof_codec_ops zlib_ops = {
	.version = zlib_library_version,
	.max_block = UINT_MAX,
	.bound = zlib_bound,
	.init = zlib_init,
	.release = zlib_release,
	.compress = zlib_compress,
	.decompress = zlib_decompress,
	.mem = prof_codec_counted_mem,
};

static const struct prof_codec_ops gzip_ops = {
	.version = zlib_library_version,
	.max_block = UINT_MAX,
	.bound = zlib_bound,
	.init = gzip_init,
	.release = zlib_release,
	.compress = zlib_compress,
	.decompress = zlib_decompress,
	.mem = prof_codec_counted_mem,
};

const struct prof_codec prof_codec_zlib = {
	.name = "zlib",
	.desc = "zlib, raw deflate stream (no header)",
	.library = "zlib",
	.min_level = 0,
	.max_level = 9,
	.default_level = 6,
	.flags = PROF_CODEC_F_SIZED | PROF_CODEC_F_DICT,
	.ops = &zlib_ops,
};

const struct prof_codec prof_codec_gzip = {
	.name = "gzip",
	.desc = "zlib with gzip framing (header, CRC32)",
	.library = "zlib",
	.min_level = 0,
	.max_level = 9,
	.default_level = 6,
	.flags = PROF_CODEC_F_SIZED,
	.ops = &gzip_ops,
};
