/*
 * libdeflate (codec.h): raw deflate, levels 0-12, whose compressor and
 * decompressor allocate through the counting allocator (ops.h).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <libdeflate.h>

#include "codec/ops.h"
#include "base/xalloc.h"

struct ld_state {
	struct libdeflate_compressor *c;
	struct libdeflate_decompressor *d;
};

/*
 * libdeflate's allocator is global: the context being built is named in
 * a thread-local variable while it allocates.
 */
static __thread struct prof_codec_mem *ld_mem;
static pthread_once_t ld_once = PTHREAD_ONCE_INIT;

static void *ld_malloc(size_t n)
{
	struct prof_codec_mem uncounted = { 0 };

	return prof_codec_mem_alloc(ld_mem ? ld_mem : &uncounted, n);
}

static void ld_free(void *p)
{
	prof_codec_mem_free(NULL, p);
}

static void ld_setup(void)
{
	libdeflate_set_memory_allocator(ld_malloc, ld_free);
}

static const char *ld_version(void)
{
	return LIBDEFLATE_VERSION_STRING;
}

static size_t ld_bound(int level, size_t n)
{
	(void)level;
	return libdeflate_deflate_compress_bound(NULL, n);
}

static int ld_init(struct prof_codec_ctx *x, char *err, size_t errlen)
{
	struct ld_state *s = xcalloc(1, sizeof(*s));

	x->state = s;
	pthread_once(&ld_once, ld_setup);
	ld_mem = &x->cmem;
	s->c = libdeflate_alloc_compressor(x->level);
	ld_mem = &x->dmem;
	s->d = libdeflate_alloc_decompressor();
	ld_mem = NULL;
	if (!s->c || !s->d) {
		snprintf(err, errlen, "libdeflate: cannot allocate level %d", x->level);
		return -1;
	}
	return 0;
}

static void ld_release(struct prof_codec_ctx *x)
{
	struct ld_state *s = x->state;

	if (!s)
		return;
	if (s->c)
		libdeflate_free_compressor(s->c);
	if (s->d)
		libdeflate_free_decompressor(s->d);
	free(s);
}

static size_t ld_compress(struct prof_codec_ctx *x, void *dst, size_t cap,
			  const void *src, size_t n)
{
	struct ld_state *s = x->state;
	size_t r = libdeflate_deflate_compress(s->c, src, n, dst, cap);

	if (r == 0) {
		prof_codec_ctx_err(x, "libdeflate_deflate_compress: output buffer too small");
		return PROF_CODEC_FAIL;
	}
	return r;
}

static size_t ld_decompress(struct prof_codec_ctx *x, void *dst, size_t cap,
			    const void *src, size_t n)
{
	struct ld_state *s = x->state;
	size_t in_used = 0, out = 0;
	enum libdeflate_result r =
		libdeflate_deflate_decompress_ex(s->d, src, n, dst, cap, &in_used, &out);

	if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
		x->too_small = 1;
		prof_codec_ctx_err(x, "libdeflate: output larger than %zu bytes", cap);
		return PROF_CODEC_FAIL;
	}
	if (r != LIBDEFLATE_SUCCESS) {
		prof_codec_ctx_err(x, "libdeflate: %s", r == LIBDEFLATE_BAD_DATA
				   ? "compressed data is corrupt or truncated" : "decoder error");
		return PROF_CODEC_FAIL;
	}
	if (in_used != n) {
		prof_codec_ctx_err(x, "libdeflate: trailing data after the end of the stream");
		return PROF_CODEC_FAIL;
	}
	return out;
}

static const struct prof_codec_ops libdeflate_ops = {
	.version = ld_version,
	.bound = ld_bound,
	.init = ld_init,
	.release = ld_release,
	.compress = ld_compress,
	.decompress = ld_decompress,
	.mem = prof_codec_counted_mem,
};

const struct prof_codec prof_codec_libdeflate = {
	.name = "libdeflate",
	.desc = "libdeflate raw deflate (levels 0-12)",
	.library = "libdeflate",
	.min_level = 0,
	.max_level = 12,
	.default_level = 6,
	.flags = PROF_CODEC_F_SIZED,
	.ops = &libdeflate_ops,
};
