/*
 * zstd (codec.h): frames as `zstd -b` makes them (ZSTD_compress2 with the
 * level only, content size recorded, no checksum), decoded by streaming
 * as benchzstd does. Takes a dictionary.
 */
#include <stdio.h>
#include <stdlib.h>
#include <zstd.h>

#include "codec/ops.h"
#include "base/xalloc.h"

struct zstd_state {
	ZSTD_CCtx *c;
	ZSTD_DCtx *d;
};

static const char *zstd_version(void)
{
	return ZSTD_versionString();
}

/* The library's range: the table's minimum is only a guess of it. */
static void zstd_level_range(int *lo, int *hi)
{
	*lo = ZSTD_minCLevel();
	*hi = ZSTD_maxCLevel();
}

static size_t zstd_bound(int level, size_t n)
{
	(void)level;
	return ZSTD_compressBound(n);
}

static int zstd_init(struct prof_codec_ctx *x, char *err, size_t errlen)
{
	struct zstd_state *s = xcalloc(1, sizeof(*s));
	size_t r;

	x->state = s;
	s->c = ZSTD_createCCtx();
	s->d = ZSTD_createDCtx();
	if (!s->c || !s->d) {
		snprintf(err, errlen, "zstd: cannot create contexts");
		return -1;
	}
	/* As benchzstd: the level (nbWorkers stays 0) and the dictionary. */
	r = ZSTD_CCtx_setParameter(s->c, ZSTD_c_compressionLevel, x->level);
	if (!ZSTD_isError(r) && x->dict)
		r = ZSTD_CCtx_loadDictionary(s->c, x->dict, x->dictlen);
	if (!ZSTD_isError(r) && x->dict)
		r = ZSTD_DCtx_loadDictionary(s->d, x->dict, x->dictlen);
	if (ZSTD_isError(r)) {
		snprintf(err, errlen, "zstd: %s", ZSTD_getErrorName(r));
		return -1;
	}
	return 0;
}

static void zstd_release(struct prof_codec_ctx *x)
{
	struct zstd_state *s = x->state;

	if (!s)
		return;
	ZSTD_freeCCtx(s->c);
	ZSTD_freeDCtx(s->d);
	free(s);
}

static size_t zstd_compress(struct prof_codec_ctx *x, void *dst, size_t cap,
			    const void *src, size_t n)
{
	struct zstd_state *s = x->state;
	size_t r = ZSTD_compress2(s->c, dst, cap, src, n);

	if (ZSTD_isError(r)) {
		prof_codec_ctx_err(x, "ZSTD_compress2: %s", ZSTD_getErrorName(r));
		return PROF_CODEC_FAIL;
	}
	return r;
}

/* Streaming decode as benchzstd does, continuing over concatenated frames. */
static size_t zstd_decompress(struct prof_codec_ctx *x, void *dst, size_t cap,
			      const void *src, size_t n)
{
	struct zstd_state *s = x->state;
	ZSTD_inBuffer in = { src, n, 0 };
	ZSTD_outBuffer out = { dst, cap, 0 };

	ZSTD_DCtx_reset(s->d, ZSTD_reset_session_only);
	for (;;) {
		size_t ipos = in.pos, opos = out.pos;
		size_t r = ZSTD_decompressStream(s->d, &out, &in);

		if (ZSTD_isError(r)) {
			prof_codec_ctx_err(x, "ZSTD_decompressStream: %s", ZSTD_getErrorName(r));
			return PROF_CODEC_FAIL;
		}
		if (r == 0 && in.pos == in.size)
			return out.pos;
		if (in.pos == ipos && out.pos == opos) {
			if (out.pos == out.size) {
				x->too_small = 1;
				prof_codec_ctx_err(x, "zstd: output larger than %zu bytes", cap);
			} else {
				prof_codec_ctx_err(x, "zstd: truncated input");
			}
			return PROF_CODEC_FAIL;
		}
	}
}

/* Its context sizes, as the library counts them. */
static long long zstd_mem(const struct prof_codec_ctx *x, int decomp)
{
	const struct zstd_state *s = x->state;

	return (long long)(decomp ? ZSTD_sizeof_DCtx(s->d) : ZSTD_sizeof_CCtx(s->c));
}

static const struct prof_codec_ops zstd_ops = {
	.version = zstd_version,
	.level_range = zstd_level_range,
	.bound = zstd_bound,
	.init = zstd_init,
	.release = zstd_release,
	.compress = zstd_compress,
	.decompress = zstd_decompress,
	.mem = zstd_mem,
};

const struct prof_codec prof_codec_zstd = {
	.name = "zstd",
	.desc = "zstd frames as zstd -b makes them",
	.library = "zstd",
	.min_level = -131072,
	.max_level = 22,
	.default_level = 3,
	.flags = PROF_CODEC_F_SIZED | PROF_CODEC_F_DICT | PROF_CODEC_F_ZERO_DEFAULT,
	.ops = &zstd_ops,
};
