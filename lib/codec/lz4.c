/*
 * liblz4's codecs (codec.h): lz4 (block API, level = acceleration, as
 * `lz4 -b1`), lz4hc (block API, HC levels, as `lz4 -b3` and up) and lz4f
 * (the frame format as the lz4 CLI writes it: 4 MiB independent blocks
 * with a content checksum). The block format records no size: a
 * too-small output buffer reads as corrupt data.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#include <lz4frame.h>
#include <lz4hc.h>

#include "codec/ops.h"
#include "base/xalloc.h"

static const char *lz4_version(void)
{
	return LZ4_versionString();
}

/* ---- lz4 and lz4hc: the block API over a state of our own ---- */

static size_t lz4_bound(int level, size_t n)
{
	(void)level;
	return n > LZ4_MAX_INPUT_SIZE ? n : (size_t)LZ4_compressBound((int)n);
}

static void lz4_state_new(struct prof_codec_ctx *x, int size)
{
	x->state = xcalloc(1, (size_t)size);
	x->cmem_fixed = size;
	x->dmem_fixed = 0;
}

static int lz4_init(struct prof_codec_ctx *x, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	lz4_state_new(x, LZ4_sizeofState());
	return 0;
}

static int lz4hc_init(struct prof_codec_ctx *x, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	lz4_state_new(x, LZ4_sizeofStateHC());
	return 0;
}

/* LZ4_compress_fast_extState and LZ4_compress_HC_extStateHC take the same arguments. */
typedef int lz4_block_fn(void *state, const char *src, char *dst, int n, int cap, int level);

static size_t lz4_block(struct prof_codec_ctx *x, lz4_block_fn *fn, const char *fn_name,
			void *dst, size_t cap, const void *src, size_t n)
{
	int r = fn(x->state, src, dst, (int)n, cap > INT_MAX ? INT_MAX : (int)cap, x->level);

	if (r <= 0) {
		prof_codec_ctx_err(x, "%s failed", fn_name);
		return PROF_CODEC_FAIL;
	}
	return (size_t)r;
}

static size_t lz4_compress(struct prof_codec_ctx *x, void *dst, size_t cap,
			   const void *src, size_t n)
{
	return lz4_block(x, LZ4_compress_fast_extState, "LZ4_compress_fast_extState",
			 dst, cap, src, n);
}

static size_t lz4hc_compress(struct prof_codec_ctx *x, void *dst, size_t cap,
			     const void *src, size_t n)
{
	return lz4_block(x, LZ4_compress_HC_extStateHC, "LZ4_compress_HC_extStateHC",
			 dst, cap, src, n);
}

static size_t lz4_decompress(struct prof_codec_ctx *x, void *dst, size_t cap,
			     const void *src, size_t n)
{
	int r;

	if (n > INT_MAX) {
		prof_codec_ctx_err(x, "LZ4_decompress_safe: input too large");
		return PROF_CODEC_FAIL;
	}
	r = LZ4_decompress_safe(src, dst, (int)n, cap > INT_MAX ? INT_MAX : (int)cap);
	if (r < 0) {
		prof_codec_ctx_err(x, "LZ4_decompress_safe: corrupt input or output larger than %zu bytes",
				   cap);
		return PROF_CODEC_FAIL;
	}
	return (size_t)r;
}

/* ---- lz4f: the frame API ---- */

struct lz4f_state {
	LZ4F_cctx *c;
	LZ4F_dctx *d;
	LZ4F_preferences_t prefs;
};

/* The frame the lz4 CLI writes, at level. */
static void lz4f_prefs(LZ4F_preferences_t *p, int level)
{
	memset(p, 0, sizeof(*p));
	p->frameInfo.blockSizeID = LZ4F_max4MB;
	p->frameInfo.blockMode = LZ4F_blockIndependent;
	p->frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
	p->compressionLevel = level;
}

static size_t lz4f_bound(int level, size_t n)
{
	LZ4F_preferences_t p;

	lz4f_prefs(&p, level);
	return LZ4F_compressFrameBound(n, &p);
}

static int lz4f_init(struct prof_codec_ctx *x, char *err, size_t errlen)
{
	struct lz4f_state *s = xcalloc(1, sizeof(*s));
	LZ4F_errorCode_t e;

	x->state = s;
	e = LZ4F_createCompressionContext(&s->c, LZ4F_VERSION);
	if (!LZ4F_isError(e))
		e = LZ4F_createDecompressionContext(&s->d, LZ4F_VERSION);
	if (LZ4F_isError(e)) {
		snprintf(err, errlen, "lz4f: %s", LZ4F_getErrorName(e));
		return -1;
	}
	lz4f_prefs(&s->prefs, x->level);
	return 0;
}

static void lz4f_release(struct prof_codec_ctx *x)
{
	struct lz4f_state *s = x->state;

	if (!s)
		return;
	if (s->c)
		LZ4F_freeCompressionContext(s->c);
	if (s->d)
		LZ4F_freeDecompressionContext(s->d);
	free(s);
}

static size_t lz4f_compress(struct prof_codec_ctx *x, void *dst, size_t cap,
			    const void *src, size_t n)
{
	struct lz4f_state *s = x->state;
	char *d = dst;
	size_t pos, r;

	r = LZ4F_compressBegin(s->c, d, cap, &s->prefs);
	if (LZ4F_isError(r))
		goto err;
	pos = r;
	r = LZ4F_compressUpdate(s->c, d + pos, cap - pos, src, n, NULL);
	if (LZ4F_isError(r))
		goto err;
	pos += r;
	r = LZ4F_compressEnd(s->c, d + pos, cap - pos, NULL);
	if (LZ4F_isError(r))
		goto err;
	return pos + r;
err:
	prof_codec_ctx_err(x, "LZ4F_compress: %s", LZ4F_getErrorName(r));
	return PROF_CODEC_FAIL;
}

static size_t lz4f_decompress(struct prof_codec_ctx *x, void *dst, size_t cap,
			      const void *src, size_t n)
{
	struct lz4f_state *s = x->state;
	const char *in = src;
	char *d = dst;
	size_t ipos = 0, opos = 0, r = 1;

	LZ4F_resetDecompressionContext(s->d);
	while (ipos < n || r != 0) {
		size_t dsz = cap - opos, ssz = n - ipos;

		r = LZ4F_decompress(s->d, d + opos, &dsz, in + ipos, &ssz, NULL);
		if (LZ4F_isError(r)) {
			prof_codec_ctx_err(x, "LZ4F_decompress: %s", LZ4F_getErrorName(r));
			return PROF_CODEC_FAIL;
		}
		ipos += ssz;
		opos += dsz;
		if (ssz == 0 && dsz == 0 && r != 0) {
			if (opos == cap && ipos < n) {
				x->too_small = 1;
				prof_codec_ctx_err(x, "lz4f: output larger than %zu bytes", cap);
			} else if (opos == cap) {
				/* input all consumed but frame not done: more output pending? */
				x->too_small = 1;
				prof_codec_ctx_err(x, "lz4f: output larger than %zu bytes or truncated input",
						   cap);
			} else {
				prof_codec_ctx_err(x, "lz4f: truncated input");
			}
			return PROF_CODEC_FAIL;
		}
	}
	return opos;
}

static const struct prof_codec_ops lz4_ops = {
	.version = lz4_version,
	.max_block = LZ4_MAX_INPUT_SIZE,
	.bound = lz4_bound,
	.init = lz4_init,
	.compress = lz4_compress,
	.decompress = lz4_decompress,
};

static const struct prof_codec_ops lz4hc_ops = {
	.version = lz4_version,
	.max_block = LZ4_MAX_INPUT_SIZE,
	.bound = lz4_bound,
	.init = lz4hc_init,
	.compress = lz4hc_compress,
	.decompress = lz4_decompress,
};

static const struct prof_codec_ops lz4f_ops = {
	.version = lz4_version,
	.bound = lz4f_bound,
	.init = lz4f_init,
	.release = lz4f_release,
	.compress = lz4f_compress,
	.decompress = lz4f_decompress,
};

const struct prof_codec prof_codec_lz4 = {
	.name = "lz4",
	.desc = "LZ4 block API, level = acceleration (lz4 -b1; -b --fast=N is N+1)",
	.library = "lz4",
	.min_level = 1,
	.max_level = 65537,
	.default_level = 1,
	.ops = &lz4_ops,
};

const struct prof_codec prof_codec_lz4hc = {
	.name = "lz4hc",
	.desc = "LZ4 HC block API (lz4 -b3 .. -b12)",
	.library = "lz4",
	.min_level = 1,
	.max_level = 12,
	.default_level = 9,
	.ops = &lz4hc_ops,
};

const struct prof_codec prof_codec_lz4f = {
	.name = "lz4f",
	.desc = "LZ4 frame as the lz4 CLI writes it (4 MiB blocks, checksum)",
	.library = "lz4",
	.min_level = 1,
	.max_level = 12,
	.default_level = 1,
	.flags = PROF_CODEC_F_SIZED,
	.ops = &lz4f_ops,
};
