/*
 * memcpy(3) both ways: the ceiling every codec is compared with (codec.h).
 */
#include <gnu/libc-version.h>
#include <string.h>

#include "codec/ops.h"

static const char *memcpy_version(void)
{
	return gnu_get_libc_version();
}

static size_t memcpy_bound(int level, size_t n)
{
	(void)level;
	return n;
}

static int memcpy_init(struct prof_codec_ctx *x, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	x->cmem_fixed = x->dmem_fixed = 0;
	return 0;
}

static size_t memcpy_compress(struct prof_codec_ctx *x, void *dst, size_t cap,
			      const void *src, size_t n)
{
	if (cap < n) {
		prof_codec_ctx_err(x, "output buffer too small");
		return PROF_CODEC_FAIL;
	}
	memcpy(dst, src, n);
	return n;
}

static size_t memcpy_decompress(struct prof_codec_ctx *x, void *dst, size_t cap,
				const void *src, size_t n)
{
	if (cap < n) {
		x->too_small = 1;
		prof_codec_ctx_err(x, "output larger than %zu bytes", cap);
		return PROF_CODEC_FAIL;
	}
	memcpy(dst, src, n);
	return n;
}

static const struct prof_codec_ops memcpy_ops = {
	.version = memcpy_version,
	.bound = memcpy_bound,
	.init = memcpy_init,
	.compress = memcpy_compress,
	.decompress = memcpy_decompress,
};

const struct prof_codec prof_codec_memcpy = {
	.name = "memcpy",
	.desc = "memcpy(3) both ways: the machine's ceiling",
	.library = "glibc",
	.min_level = PROF_CODEC_NOLEVEL,
	.max_level = PROF_CODEC_NOLEVEL,
	.default_level = PROF_CODEC_NOLEVEL,
	.flags = PROF_CODEC_F_SIZED | PROF_CODEC_F_BASELINE,
	.ops = &memcpy_ops,
};
