/*
 * snappy (codec.h): the raw snappy format, no levels. The C API has no
 * version call and no allocator hook: the version comes from the shared
 * library's file name, the memory is unknown.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <snappy-c.h>

#include "codec/ops.h"

/* "libsnappy.so.1.1.9" -> "1.1.9", "unknown" if it cannot be told. */
static const char *snappy_version(void)
{
	static char buf[64];
	Dl_info info;
	char path[PATH_MAX];
	const char *so;

	if (!dladdr((void *)snappy_compress, &info) || !info.dli_fname ||
	    !realpath(info.dli_fname, path))
		return "unknown";
	so = strstr(path, ".so.");
	if (!so)
		return "unknown";
	snprintf(buf, sizeof(buf), "%s", so + 4);
	return buf;
}

static size_t snappy_bound(int level, size_t n)
{
	(void)level;
	return snappy_max_compressed_length(n);
}

static size_t snappy_comp(struct prof_codec_ctx *x, void *dst, size_t cap,
			  const void *src, size_t n)
{
	size_t len = cap;

	if (snappy_compress(src, n, dst, &len) != SNAPPY_OK) {
		prof_codec_ctx_err(x, "snappy_compress failed");
		return PROF_CODEC_FAIL;
	}
	return len;
}

static size_t snappy_decomp(struct prof_codec_ctx *x, void *dst, size_t cap,
			    const void *src, size_t n)
{
	size_t len;

	if (snappy_uncompressed_length(src, n, &len) != SNAPPY_OK) {
		prof_codec_ctx_err(x, "snappy: corrupt input");
		return PROF_CODEC_FAIL;
	}
	if (len > cap) {
		x->too_small = 1;
		prof_codec_ctx_err(x, "snappy: output larger than %zu bytes", cap);
		return PROF_CODEC_FAIL;
	}
	if (snappy_uncompress(src, n, dst, &len) != SNAPPY_OK) {
		prof_codec_ctx_err(x, "snappy: corrupt input");
		return PROF_CODEC_FAIL;
	}
	return len;
}

static const struct prof_codec_ops snappy_ops = {
	.version = snappy_version,
	.bound = snappy_bound,
	.compress = snappy_comp,
	.decompress = snappy_decomp,
};

const struct prof_codec prof_codec_snappy = {
	.name = "snappy",
	.desc = "snappy raw format",
	.library = "snappy",
	.min_level = PROF_CODEC_NOLEVEL,
	.max_level = PROF_CODEC_NOLEVEL,
	.default_level = PROF_CODEC_NOLEVEL,
	.flags = PROF_CODEC_F_SIZED,
	.ops = &snappy_ops,
};
