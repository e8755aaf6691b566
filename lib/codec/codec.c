/*
 * The codec table behind profcompress (codec.h): one-shot block
 * compression and decompression over the system's libraries, with the
 * library state kept in a reusable context.
 */
#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <pthread.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#include <lz4frame.h>
#include <lz4hc.h>
#include <zlib.h>
#include <zstd.h>
#ifdef HAVE_BROTLI
#include <brotli/decode.h>
#include <brotli/encode.h>
#endif
#ifdef HAVE_LZMA
#include <lzma.h>
#endif
#ifdef HAVE_BZIP2
#include <bzlib.h>
#endif
#ifdef HAVE_SNAPPY
#include <snappy-c.h>
#endif
#ifdef HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

#include "codec/codec.h"
#include "base/xalloc.h"

enum codec_id {
	C_MEMCPY, C_ZLIB, C_GZIP, C_ZSTD, C_LZ4, C_LZ4HC, C_LZ4F,
	C_BROTLI, C_XZ, C_BZIP2, C_SNAPPY, C_LIBDEFLATE,
};

#define NOLVL PROF_CODEC_NOLEVEL
#define SIZED PROF_CODEC_F_SIZED
#define DICT PROF_CODEC_F_DICT

static const struct prof_codec codec_memcpy = {
	"memcpy", "memcpy(3) both ways: the machine's ceiling", NOLVL, NOLVL, NOLVL, SIZED, C_MEMCPY };
static const struct prof_codec codec_zlib = {
	"zlib", "zlib, raw deflate stream (no header)", 0, 9, 6, SIZED | DICT, C_ZLIB };
static const struct prof_codec codec_gzip = {
	"gzip", "zlib with gzip framing (header, CRC32)", 0, 9, 6, SIZED, C_GZIP };
static const struct prof_codec codec_zstd = {
	"zstd", "zstd frames as zstd -b makes them", -131072, 22, 3, SIZED | DICT, C_ZSTD };
static const struct prof_codec codec_lz4 = {
	"lz4", "LZ4 block API, level = acceleration (lz4 -b1; -b --fast=N is N+1)", 1, 65537, 1, 0, C_LZ4 };
static const struct prof_codec codec_lz4hc = {
	"lz4hc", "LZ4 HC block API (lz4 -b3 .. -b12)", 1, 12, 9, 0, C_LZ4HC };
static const struct prof_codec codec_lz4f = {
	"lz4f", "LZ4 frame as the lz4 CLI writes it (4 MiB blocks, checksum)", 1, 12, 1, SIZED, C_LZ4F };
#ifdef HAVE_BROTLI
static const struct prof_codec codec_brotli = {
	"brotli", "brotli stream, window sized to the block", 0, 11, 6, SIZED, C_BROTLI };
#endif
#ifdef HAVE_LZMA
static const struct prof_codec codec_xz = {
	"xz", "liblzma .xz stream (preset, CRC64, single-threaded)", 0, 9, 6, SIZED, C_XZ };
#endif
#ifdef HAVE_BZIP2
static const struct prof_codec codec_bzip2 = {
	"bzip2", "libbz2 stream (level = block size x100k)", 1, 9, 9, SIZED, C_BZIP2 };
#endif
#ifdef HAVE_SNAPPY
static const struct prof_codec codec_snappy = {
	"snappy", "snappy raw format", NOLVL, NOLVL, NOLVL, SIZED, C_SNAPPY };
#endif
#ifdef HAVE_LIBDEFLATE
static const struct prof_codec codec_libdeflate = {
	"libdeflate", "libdeflate raw deflate (levels 0-12)", 0, 12, 6, SIZED, C_LIBDEFLATE };
#endif

const struct prof_codec *const prof_codecs[] = {
	&codec_memcpy, &codec_lz4, &codec_lz4hc, &codec_lz4f, &codec_zstd,
	&codec_zlib, &codec_gzip,
#ifdef HAVE_LIBDEFLATE
	&codec_libdeflate,
#endif
#ifdef HAVE_SNAPPY
	&codec_snappy,
#endif
#ifdef HAVE_BROTLI
	&codec_brotli,
#endif
#ifdef HAVE_BZIP2
	&codec_bzip2,
#endif
#ifdef HAVE_LZMA
	&codec_xz,
#endif
	NULL,
};

const char *prof_codec_missing(void)
{
	return ""
#ifndef HAVE_LIBDEFLATE
		" libdeflate"
#endif
#ifndef HAVE_SNAPPY
		" snappy"
#endif
#ifndef HAVE_BROTLI
		" brotli"
#endif
#ifndef HAVE_BZIP2
		" bzip2"
#endif
#ifndef HAVE_LZMA
		" xz"
#endif
		;
}

const struct prof_codec *prof_codec_find(const char *name)
{
	for (size_t i = 0; prof_codecs[i]; i++)
		if (strcmp(prof_codecs[i]->name, name) == 0)
			return prof_codecs[i];
	return NULL;
}

int prof_codec_has_levels(const struct prof_codec *c)
{
	return c->min_level != NOLVL;
}

/*
 * The version of the shared library that holds sym, from its file name
 * ("libsnappy.so.1.1.9" -> "1.1.9"), for libraries without a version call.
 */
static const char *soname_version(void *sym, char *buf, size_t n)
{
	Dl_info info;
	char path[PATH_MAX];
	const char *so;

	if (!dladdr(sym, &info) || !info.dli_fname || !realpath(info.dli_fname, path))
		return "unknown";
	so = strstr(path, ".so.");
	if (!so)
		return "unknown";
	snprintf(buf, n, "%s", so + 4);
	return buf;
}

const char *prof_codec_version(const struct prof_codec *c)
{
	static char buf[64] __attribute__((unused));

	switch ((enum codec_id)c->id) {
	case C_MEMCPY:
		return gnu_get_libc_version();
	case C_ZLIB:
	case C_GZIP:
		return zlibVersion();
	case C_ZSTD:
		return ZSTD_versionString();
	case C_LZ4:
	case C_LZ4HC:
	case C_LZ4F:
		return LZ4_versionString();
	case C_BROTLI:
#ifdef HAVE_BROTLI
	{
		uint32_t v = BrotliEncoderVersion();
		snprintf(buf, sizeof(buf), "%u.%u.%u", v >> 24, (v >> 12) & 0xfff, v & 0xfff);
		return buf;
	}
#else
		break;
#endif
	case C_XZ:
#ifdef HAVE_LZMA
		return lzma_version_string();
#else
		break;
#endif
	case C_BZIP2:
#ifdef HAVE_BZIP2
	{
		/* "1.0.8, 13-Jul-2019": keep the number */
		snprintf(buf, sizeof(buf), "%s", BZ2_bzlibVersion());
		buf[strcspn(buf, ", ")] = '\0';
		return buf;
	}
#else
		break;
#endif
	case C_SNAPPY:
#ifdef HAVE_SNAPPY
		return soname_version((void *)snappy_compress, buf, sizeof(buf));
#else
		break;
#endif
	case C_LIBDEFLATE:
#ifdef HAVE_LIBDEFLATE
		return LIBDEFLATE_VERSION_STRING;
#else
		break;
#endif
	}
	return "unknown";
}

/* ---- counting allocator with a cache of freed blocks ----
 * Libraries that take an allocator (zlib, bzip2, liblzma, brotli,
 * libdeflate) allocate through this: it tracks the live and peak bytes
 * (the memory columns) and keeps freed blocks for reuse by size, so a
 * library that must rebuild its state on every call (bzip2 and brotli have
 * no reset) does not pay malloc, mmap and page faults inside the timed
 * region. */

#define CMEM_CACHE 64
#define CMEM_HDR 16

struct cmem {
	size_t live, peak;
	unsigned ncache;
	void *cache[CMEM_CACHE];	/* header pointers */
	size_t cache_size[CMEM_CACHE];
};

static void *cmem_alloc(struct cmem *m, size_t n)
{
	char *h = NULL;

	for (unsigned i = 0; i < m->ncache; i++) {
		if (m->cache_size[i] == n) {
			h = m->cache[i];
			m->ncache--;
			m->cache[i] = m->cache[m->ncache];
			m->cache_size[i] = m->cache_size[m->ncache];
			break;
		}
	}
	if (!h) {
		if (n > SIZE_MAX - CMEM_HDR)
			return NULL;
		h = malloc(n + CMEM_HDR);
		if (!h)
			return NULL;
		memcpy(h, &n, sizeof(n));
	}
	m->live += n;
	if (m->live > m->peak)
		m->peak = m->live;
	return h + CMEM_HDR;
}

static void cmem_free(struct cmem *m, void *p)
{
	char *h;
	size_t n;

	if (!p)
		return;
	h = (char *)p - CMEM_HDR;
	memcpy(&n, h, sizeof(n));
	if (!m) {
		free(h);
		return;
	}
	m->live -= n;
	if (m->ncache < CMEM_CACHE) {
		m->cache[m->ncache] = h;
		m->cache_size[m->ncache] = n;
		m->ncache++;
	} else {
		free(h);
	}
}

static void cmem_release(struct cmem *m)
{
	for (unsigned i = 0; i < m->ncache; i++)
		free(m->cache[i]);
	m->ncache = 0;
}

static void *zlib_alloc(void *opaque, uInt items, uInt size)
{
	return cmem_alloc(opaque, (size_t)items * size);
}

static void zlib_free(void *opaque, void *p)
{
	cmem_free(opaque, p);
}

#ifdef HAVE_BZIP2
static void *bz_alloc(void *opaque, int items, int size)
{
	return cmem_alloc(opaque, (size_t)items * (size_t)size);
}

static void bz_free(void *opaque, void *p)
{
	cmem_free(opaque, p);
}
#endif

#ifdef HAVE_LZMA
static void *xz_alloc(void *opaque, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		return NULL;
	return cmem_alloc(opaque, nmemb * size);
}

static void xz_free(void *opaque, void *p)
{
	cmem_free(opaque, p);
}
#endif

#ifdef HAVE_BROTLI
static void *br_alloc(void *opaque, size_t n)
{
	return cmem_alloc(opaque, n);
}

static void br_free(void *opaque, void *p)
{
	cmem_free(opaque, p);
}
#endif

#ifdef HAVE_LIBDEFLATE
/* libdeflate's allocator is global: the context being built is named in
 * a thread-local variable while it allocates. */
static __thread struct cmem *ld_cmem;
static pthread_once_t ld_once = PTHREAD_ONCE_INIT;

static void *ld_malloc(size_t n)
{
	struct cmem tmp = { 0 };

	return cmem_alloc(ld_cmem ? ld_cmem : &tmp, n);
}

static void ld_free(void *p)
{
	cmem_free(NULL, p);
}

static void ld_setup(void)
{
	libdeflate_set_memory_allocator(ld_malloc, ld_free);
}
#endif

/* ---- contexts ---- */

struct prof_codec_ctx {
	const struct prof_codec *codec;
	int level;
	char *dict;
	size_t dictlen;
	int too_small;
	char err[256];
	struct cmem cmem, dmem;		/* allocator-counted codecs */
	long long cmem_fixed, dmem_fixed;	/* known state sizes, or -1 */
	/* library state */
	z_stream zc, zd;
	int zc_ok, zd_ok;
	ZSTD_CCtx *zstd_c;
	ZSTD_DCtx *zstd_d;
	void *lz4_state;
	LZ4F_cctx *lz4f_c;
	LZ4F_dctx *lz4f_d;
	LZ4F_preferences_t lz4f_prefs;
#ifdef HAVE_LZMA
	lzma_stream xc, xd;
	lzma_allocator xc_alloc, xd_alloc;
#endif
#ifdef HAVE_LIBDEFLATE
	struct libdeflate_compressor *ld_c;
	struct libdeflate_decompressor *ld_d;
#endif
};

static void ctx_err(struct prof_codec_ctx *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void ctx_err(struct prof_codec_ctx *x, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->err, sizeof(x->err), fmt, ap);
	va_end(ap);
}

/* The largest block each codec's API takes in one call. */
static size_t max_block(const struct prof_codec *c)
{
	switch ((enum codec_id)c->id) {
	case C_LZ4:
	case C_LZ4HC:
		return LZ4_MAX_INPUT_SIZE;
	case C_ZLIB:
	case C_GZIP:
	case C_BZIP2:
		return UINT_MAX;
	default:
		return SIZE_MAX;
	}
}

size_t prof_codec_bound(const struct prof_codec *c, int level, size_t n)
{
	(void)level;
	switch ((enum codec_id)c->id) {
	case C_MEMCPY:
		return n;
	case C_ZLIB:
	case C_GZIP:
		/* compressBound() includes the 6-byte zlib wrapper; gzip's is 18 */
		return compressBound(n > ULONG_MAX ? ULONG_MAX : n) + 32;
	case C_ZSTD:
		return ZSTD_compressBound(n);
	case C_LZ4:
	case C_LZ4HC:
		return n > LZ4_MAX_INPUT_SIZE ? n : (size_t)LZ4_compressBound((int)n);
	case C_LZ4F: {
		LZ4F_preferences_t p;

		memset(&p, 0, sizeof(p));
		p.frameInfo.blockSizeID = LZ4F_max4MB;
		p.frameInfo.blockMode = LZ4F_blockIndependent;
		p.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
		return LZ4F_compressFrameBound(n, &p);
	}
	case C_BROTLI:
#ifdef HAVE_BROTLI
		return BrotliEncoderMaxCompressedSize(n) ? BrotliEncoderMaxCompressedSize(n)
							 : n + n / 8 + 1024;
#else
		break;
#endif
	case C_XZ:
#ifdef HAVE_LZMA
		return lzma_stream_buffer_bound(n);
#else
		break;
#endif
	case C_BZIP2:
		return n + n / 100 + 600;
	case C_SNAPPY:
#ifdef HAVE_SNAPPY
		return snappy_max_compressed_length(n);
#else
		break;
#endif
	case C_LIBDEFLATE:
#ifdef HAVE_LIBDEFLATE
		return libdeflate_deflate_compress_bound(NULL, n);
#else
		break;
#endif
	}
	return n + n / 2 + 1024;
}

struct prof_codec_ctx *prof_codec_ctx_new(const struct prof_codec *c, int level,
					  const void *dict, size_t dictlen,
					  char *err, size_t errlen)
{
	struct prof_codec_ctx *x;

	if (!prof_codec_has_levels(c)) {
		if (level != NOLVL) {
			snprintf(err, errlen, "%s has no levels", c->name);
			return NULL;
		}
	} else {
		int lo = c->min_level, hi = c->max_level;

		if (c->id == C_ZSTD) {
			lo = ZSTD_minCLevel();
			hi = ZSTD_maxCLevel();
		}
		if (level == NOLVL)
			level = c->default_level;
		if (level < lo || level > hi) {
			snprintf(err, errlen, "%s: level %d out of range %d..%d", c->name,
				 level, lo, hi);
			return NULL;
		}
	}
	if (dict && !(c->flags & DICT)) {
		snprintf(err, errlen, "%s does not support dictionaries", c->name);
		return NULL;
	}

	x = xcalloc(1, sizeof(*x));
	x->codec = c;
	x->level = level;
	x->cmem_fixed = x->dmem_fixed = -1;
	if (dict) {
		x->dict = xmemdup(dict, dictlen);
		x->dictlen = dictlen;
	}

	switch ((enum codec_id)c->id) {
	case C_MEMCPY:
		x->cmem_fixed = x->dmem_fixed = 0;
		break;
	case C_ZLIB:
	case C_GZIP: {
		int wbits = c->id == C_GZIP ? 31 : -15;

		x->zc.zalloc = x->zd.zalloc = zlib_alloc;
		x->zc.zfree = x->zd.zfree = zlib_free;
		x->zc.opaque = &x->cmem;
		x->zd.opaque = &x->dmem;
		if (deflateInit2(&x->zc, level, Z_DEFLATED, wbits, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
			snprintf(err, errlen, "%s: deflateInit2 failed", c->name);
			goto fail;
		}
		x->zc_ok = 1;
		if (inflateInit2(&x->zd, wbits) != Z_OK) {
			snprintf(err, errlen, "%s: inflateInit2 failed", c->name);
			goto fail;
		}
		x->zd_ok = 1;
		break;
	}
	case C_ZSTD: {
		size_t r;

		x->zstd_c = ZSTD_createCCtx();
		x->zstd_d = ZSTD_createDCtx();
		if (!x->zstd_c || !x->zstd_d) {
			snprintf(err, errlen, "zstd: cannot create contexts");
			goto fail;
		}
		/* As benchzstd: the level (nbWorkers stays 0) and the dictionary. */
		r = ZSTD_CCtx_setParameter(x->zstd_c, ZSTD_c_compressionLevel, level);
		if (!ZSTD_isError(r) && x->dict)
			r = ZSTD_CCtx_loadDictionary(x->zstd_c, x->dict, x->dictlen);
		if (!ZSTD_isError(r) && x->dict)
			r = ZSTD_DCtx_loadDictionary(x->zstd_d, x->dict, x->dictlen);
		if (ZSTD_isError(r)) {
			snprintf(err, errlen, "zstd: %s", ZSTD_getErrorName(r));
			goto fail;
		}
		break;
	}
	case C_LZ4:
		x->lz4_state = xmalloc((size_t)LZ4_sizeofState());
		memset(x->lz4_state, 0, (size_t)LZ4_sizeofState());
		x->cmem_fixed = LZ4_sizeofState();
		x->dmem_fixed = 0;
		break;
	case C_LZ4HC:
		x->lz4_state = xmalloc((size_t)LZ4_sizeofStateHC());
		memset(x->lz4_state, 0, (size_t)LZ4_sizeofStateHC());
		x->cmem_fixed = LZ4_sizeofStateHC();
		x->dmem_fixed = 0;
		break;
	case C_LZ4F: {
		LZ4F_errorCode_t e = LZ4F_createCompressionContext(&x->lz4f_c, LZ4F_VERSION);

		if (!LZ4F_isError(e))
			e = LZ4F_createDecompressionContext(&x->lz4f_d, LZ4F_VERSION);
		if (LZ4F_isError(e)) {
			snprintf(err, errlen, "lz4f: %s", LZ4F_getErrorName(e));
			goto fail;
		}
		memset(&x->lz4f_prefs, 0, sizeof(x->lz4f_prefs));
		x->lz4f_prefs.frameInfo.blockSizeID = LZ4F_max4MB;
		x->lz4f_prefs.frameInfo.blockMode = LZ4F_blockIndependent;
		x->lz4f_prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
		x->lz4f_prefs.compressionLevel = level;
		break;
	}
	case C_BROTLI:
		break;
	case C_XZ:
#ifdef HAVE_LZMA
	{
		lzma_stream init = LZMA_STREAM_INIT;

		x->xc = init;
		x->xd = init;
		x->xc_alloc.alloc = x->xd_alloc.alloc = xz_alloc;
		x->xc_alloc.free = x->xd_alloc.free = xz_free;
		x->xc_alloc.opaque = &x->cmem;
		x->xd_alloc.opaque = &x->dmem;
		x->xc.allocator = &x->xc_alloc;
		x->xd.allocator = &x->xd_alloc;
		break;
	}
#else
		break;
#endif
	case C_BZIP2:
	case C_SNAPPY:
		break;
	case C_LIBDEFLATE:
#ifdef HAVE_LIBDEFLATE
		pthread_once(&ld_once, ld_setup);
		ld_cmem = &x->cmem;
		x->ld_c = libdeflate_alloc_compressor(level);
		ld_cmem = &x->dmem;
		x->ld_d = libdeflate_alloc_decompressor();
		ld_cmem = NULL;
		if (!x->ld_c || !x->ld_d) {
			snprintf(err, errlen, "libdeflate: cannot allocate level %d", level);
			goto fail;
		}
#endif
		break;
	}
	return x;
fail:
	prof_codec_ctx_free(x);
	return NULL;
}

void prof_codec_ctx_free(struct prof_codec_ctx *x)
{
	if (!x)
		return;
	if (x->zc_ok)
		deflateEnd(&x->zc);
	if (x->zd_ok)
		inflateEnd(&x->zd);
	ZSTD_freeCCtx(x->zstd_c);
	ZSTD_freeDCtx(x->zstd_d);
	free(x->lz4_state);
	if (x->lz4f_c)
		LZ4F_freeCompressionContext(x->lz4f_c);
	if (x->lz4f_d)
		LZ4F_freeDecompressionContext(x->lz4f_d);
#ifdef HAVE_LZMA
	if (x->codec->id == C_XZ) {
		lzma_end(&x->xc);
		lzma_end(&x->xd);
	}
#endif
#ifdef HAVE_LIBDEFLATE
	if (x->ld_c)
		libdeflate_free_compressor(x->ld_c);
	if (x->ld_d)
		libdeflate_free_decompressor(x->ld_d);
#endif
	cmem_release(&x->cmem);
	cmem_release(&x->dmem);
	free(x->dict);
	free(x);
}

const char *prof_codec_ctx_error(const struct prof_codec_ctx *x)
{
	return x->err;
}

int prof_codec_ctx_too_small(const struct prof_codec_ctx *x)
{
	return x->too_small;
}

long long prof_codec_comp_mem(const struct prof_codec_ctx *x)
{
	switch ((enum codec_id)x->codec->id) {
	case C_ZSTD:
		return (long long)ZSTD_sizeof_CCtx(x->zstd_c);
	case C_ZLIB:
	case C_GZIP:
	case C_BROTLI:
	case C_XZ:
	case C_BZIP2:
	case C_LIBDEFLATE:
		return (long long)x->cmem.peak;
	default:
		return x->cmem_fixed;
	}
}

long long prof_codec_decomp_mem(const struct prof_codec_ctx *x)
{
	switch ((enum codec_id)x->codec->id) {
	case C_ZSTD:
		return (long long)ZSTD_sizeof_DCtx(x->zstd_d);
	case C_ZLIB:
	case C_GZIP:
	case C_BROTLI:
	case C_XZ:
	case C_BZIP2:
	case C_LIBDEFLATE:
		return (long long)x->dmem.peak;
	default:
		return x->dmem_fixed;
	}
}

#define FAIL ((size_t)-1)

/* ---- per-codec compress ---- */

static size_t zlib_compress(struct prof_codec_ctx *x, void *dst, size_t cap,
			    const void *src, size_t n)
{
	z_stream *s = &x->zc;
	int r;

	if (deflateReset(s) != Z_OK) {
		ctx_err(x, "deflateReset failed");
		return FAIL;
	}
	if (x->dict && deflateSetDictionary(s, (const Bytef *)x->dict, (uInt)x->dictlen) != Z_OK) {
		ctx_err(x, "deflateSetDictionary failed");
		return FAIL;
	}
	s->next_in = (Bytef *)(uintptr_t)src;
	s->avail_in = (uInt)n;
	s->next_out = dst;
	s->avail_out = cap > UINT_MAX ? UINT_MAX : (uInt)cap;
	r = deflate(s, Z_FINISH);
	if (r != Z_STREAM_END) {
		ctx_err(x, "deflate: %s", s->msg ? s->msg : "output buffer too small");
		return FAIL;
	}
	return (size_t)s->total_out;
}

static size_t zlib_decompress(struct prof_codec_ctx *x, void *dst, size_t cap,
			      const void *src, size_t n)
{
	z_stream *s = &x->zd;
	int r;

	if (inflateReset(s) != Z_OK) {
		ctx_err(x, "inflateReset failed");
		return FAIL;
	}
	if (x->dict && inflateSetDictionary(s, (const Bytef *)x->dict, (uInt)x->dictlen) != Z_OK) {
		ctx_err(x, "inflateSetDictionary failed");
		return FAIL;
	}
	s->next_in = (Bytef *)(uintptr_t)src;
	s->avail_in = n > UINT_MAX ? UINT_MAX : (uInt)n;
	s->next_out = dst;
	s->avail_out = cap > UINT_MAX ? UINT_MAX : (uInt)cap;
	r = inflate(s, Z_FINISH);
	if (r == Z_STREAM_END) {
		if (s->avail_in != 0 || n > UINT_MAX) {
			ctx_err(x, "inflate: trailing data after the end of the stream");
			return FAIL;
		}
		return (size_t)s->total_out;
	}
	if ((r == Z_BUF_ERROR || r == Z_OK) && s->avail_out == 0) {
		x->too_small = 1;
		ctx_err(x, "inflate: output larger than %zu bytes", cap);
		return FAIL;
	}
	if (r == Z_BUF_ERROR || r == Z_OK) {
		ctx_err(x, "inflate: truncated input");
		return FAIL;
	}
	ctx_err(x, "inflate: %s", s->msg ? s->msg : zError(r));
	return FAIL;
}

static size_t zstd_compress(struct prof_codec_ctx *x, void *dst, size_t cap,
			    const void *src, size_t n)
{
	size_t r = ZSTD_compress2(x->zstd_c, dst, cap, src, n);

	if (ZSTD_isError(r)) {
		ctx_err(x, "ZSTD_compress2: %s", ZSTD_getErrorName(r));
		return FAIL;
	}
	return r;
}

/* Streaming decode as benchzstd does, continuing over concatenated frames. */
static size_t zstd_decompress(struct prof_codec_ctx *x, void *dst, size_t cap,
			      const void *src, size_t n)
{
	ZSTD_inBuffer in = { src, n, 0 };
	ZSTD_outBuffer out = { dst, cap, 0 };
	size_t r = 1;

	ZSTD_DCtx_reset(x->zstd_d, ZSTD_reset_session_only);
	for (;;) {
		size_t ipos = in.pos, opos = out.pos;

		r = ZSTD_decompressStream(x->zstd_d, &out, &in);
		if (ZSTD_isError(r)) {
			ctx_err(x, "ZSTD_decompressStream: %s", ZSTD_getErrorName(r));
			return FAIL;
		}
		if (r == 0 && in.pos == in.size)
			return out.pos;
		if (in.pos == ipos && out.pos == opos) {
			if (out.pos == out.size) {
				x->too_small = 1;
				ctx_err(x, "zstd: output larger than %zu bytes", cap);
			} else {
				ctx_err(x, "zstd: truncated input");
			}
			return FAIL;
		}
	}
}

static size_t lz4f_compress(struct prof_codec_ctx *x, void *dst, size_t cap,
			    const void *src, size_t n)
{
	char *d = dst;
	size_t pos, r;

	r = LZ4F_compressBegin(x->lz4f_c, d, cap, &x->lz4f_prefs);
	if (LZ4F_isError(r))
		goto err;
	pos = r;
	r = LZ4F_compressUpdate(x->lz4f_c, d + pos, cap - pos, src, n, NULL);
	if (LZ4F_isError(r))
		goto err;
	pos += r;
	r = LZ4F_compressEnd(x->lz4f_c, d + pos, cap - pos, NULL);
	if (LZ4F_isError(r))
		goto err;
	return pos + r;
err:
	ctx_err(x, "LZ4F_compress: %s", LZ4F_getErrorName(r));
	return FAIL;
}

static size_t lz4f_decompress(struct prof_codec_ctx *x, void *dst, size_t cap,
			      const void *src, size_t n)
{
	const char *s = src;
	char *d = dst;
	size_t ipos = 0, opos = 0, r = 1;

	LZ4F_resetDecompressionContext(x->lz4f_d);
	while (ipos < n || r != 0) {
		size_t dsz = cap - opos, ssz = n - ipos;

		r = LZ4F_decompress(x->lz4f_d, d + opos, &dsz, s + ipos, &ssz, NULL);
		if (LZ4F_isError(r)) {
			ctx_err(x, "LZ4F_decompress: %s", LZ4F_getErrorName(r));
			return FAIL;
		}
		ipos += ssz;
		opos += dsz;
		if (ssz == 0 && dsz == 0 && r != 0) {
			if (opos == cap && ipos < n) {
				x->too_small = 1;
				ctx_err(x, "lz4f: output larger than %zu bytes", cap);
			} else if (opos == cap) {
				/* input all consumed but frame not done: more output pending? */
				x->too_small = 1;
				ctx_err(x, "lz4f: output larger than %zu bytes or truncated input", cap);
			} else {
				ctx_err(x, "lz4f: truncated input");
			}
			return FAIL;
		}
	}
	return opos;
}

#ifdef HAVE_BROTLI
static size_t brotli_compress(struct prof_codec_ctx *x, void *dst, size_t cap,
			      const void *src, size_t n)
{
	BrotliEncoderState *s = BrotliEncoderCreateInstance(br_alloc, br_free, &x->cmem);
	const uint8_t *in = src;
	uint8_t *out = dst;
	size_t avail_in = n, avail_out = cap;
	int lgwin = BROTLI_MIN_WINDOW_BITS;
	size_t r = FAIL;

	if (!s) {
		ctx_err(x, "BrotliEncoderCreateInstance failed");
		return FAIL;
	}
	/* Like the brotli CLI: the smallest window that covers the input. */
	while (lgwin < BROTLI_MAX_WINDOW_BITS && ((size_t)1 << lgwin) - 16 < n)
		lgwin++;
	BrotliEncoderSetParameter(s, BROTLI_PARAM_QUALITY, (uint32_t)x->level);
	BrotliEncoderSetParameter(s, BROTLI_PARAM_LGWIN, (uint32_t)lgwin);
	if (n <= UINT32_MAX)
		BrotliEncoderSetParameter(s, BROTLI_PARAM_SIZE_HINT, (uint32_t)n);
	while (!BrotliEncoderIsFinished(s)) {
		if (!BrotliEncoderCompressStream(s, BROTLI_OPERATION_FINISH, &avail_in, &in,
						 &avail_out, &out, NULL)) {
			ctx_err(x, "BrotliEncoderCompressStream failed");
			goto out;
		}
		if (avail_out == 0 && !BrotliEncoderIsFinished(s)) {
			ctx_err(x, "brotli: output buffer too small");
			goto out;
		}
	}
	r = cap - avail_out;
out:
	BrotliEncoderDestroyInstance(s);
	return r;
}

static size_t brotli_decompress(struct prof_codec_ctx *x, void *dst, size_t cap,
				const void *src, size_t n)
{
	BrotliDecoderState *s = BrotliDecoderCreateInstance(br_alloc, br_free, &x->dmem);
	const uint8_t *in = src;
	uint8_t *out = dst;
	size_t avail_in = n, avail_out = cap;
	size_t r = FAIL;
	BrotliDecoderResult res;

	if (!s) {
		ctx_err(x, "BrotliDecoderCreateInstance failed");
		return FAIL;
	}
	res = BrotliDecoderDecompressStream(s, &avail_in, &in, &avail_out, &out, NULL);
	switch (res) {
	case BROTLI_DECODER_RESULT_SUCCESS:
		if (avail_in) {
			ctx_err(x, "brotli: trailing data after the end of the stream");
			break;
		}
		r = cap - avail_out;
		break;
	case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT:
		x->too_small = 1;
		ctx_err(x, "brotli: output larger than %zu bytes", cap);
		break;
	case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT:
		ctx_err(x, "brotli: truncated input");
		break;
	default:
		ctx_err(x, "brotli: %s",
			BrotliDecoderErrorString(BrotliDecoderGetErrorCode(s)));
		break;
	}
	BrotliDecoderDestroyInstance(s);
	return r;
}
#endif

#ifdef HAVE_LZMA
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

static size_t xz_compress(struct prof_codec_ctx *x, void *dst, size_t cap,
			  const void *src, size_t n)
{
	lzma_stream *s = &x->xc;
	lzma_ret r = lzma_easy_encoder(s, (uint32_t)x->level, LZMA_CHECK_CRC64);

	if (r != LZMA_OK) {
		ctx_err(x, "lzma_easy_encoder: %s", lzma_msg(r));
		return FAIL;
	}
	s->next_in = src;
	s->avail_in = n;
	s->next_out = dst;
	s->avail_out = cap;
	do
		r = lzma_code(s, LZMA_FINISH);
	while (r == LZMA_OK && s->avail_out);
	if (r != LZMA_STREAM_END) {
		ctx_err(x, "lzma_code: %s", r == LZMA_OK ? "output buffer too small" : lzma_msg(r));
		return FAIL;
	}
	return cap - s->avail_out;
}

static size_t xz_decompress(struct prof_codec_ctx *x, void *dst, size_t cap,
			    const void *src, size_t n)
{
	lzma_stream *s = &x->xd;
	lzma_ret r = lzma_stream_decoder(s, UINT64_MAX, 0);

	if (r != LZMA_OK) {
		ctx_err(x, "lzma_stream_decoder: %s", lzma_msg(r));
		return FAIL;
	}
	s->next_in = src;
	s->avail_in = n;
	s->next_out = dst;
	s->avail_out = cap;
	do
		r = lzma_code(s, LZMA_FINISH);
	while (r == LZMA_OK && s->avail_out);
	if (r == LZMA_STREAM_END) {
		if (s->avail_in) {
			ctx_err(x, "xz: trailing data after the end of the stream");
			return FAIL;
		}
		return cap - s->avail_out;
	}
	if ((r == LZMA_OK || r == LZMA_BUF_ERROR) && s->avail_out == 0) {
		x->too_small = 1;
		ctx_err(x, "xz: output larger than %zu bytes", cap);
		return FAIL;
	}
	ctx_err(x, "xz: %s", lzma_msg(r));
	return FAIL;
}
#endif

#ifdef HAVE_BZIP2
static size_t bzip2_compress(struct prof_codec_ctx *x, void *dst, size_t cap,
			     const void *src, size_t n)
{
	bz_stream s;
	int r;
	size_t out;

	memset(&s, 0, sizeof(s));
	s.bzalloc = bz_alloc;
	s.bzfree = bz_free;
	s.opaque = &x->cmem;
	r = BZ2_bzCompressInit(&s, x->level, 0, 0);
	if (r != BZ_OK) {
		ctx_err(x, "BZ2_bzCompressInit: error %d", r);
		return FAIL;
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
		ctx_err(x, "BZ2_bzCompress: %s", r == BZ_FINISH_OK ? "output buffer too small" : "error");
		return FAIL;
	}
	return out;
}

static size_t bzip2_decompress(struct prof_codec_ctx *x, void *dst, size_t cap,
			       const void *src, size_t n)
{
	bz_stream s;
	int r;
	size_t out = FAIL;

	memset(&s, 0, sizeof(s));
	s.bzalloc = bz_alloc;
	s.bzfree = bz_free;
	s.opaque = &x->dmem;
	r = BZ2_bzDecompressInit(&s, 0, 0);
	if (r != BZ_OK) {
		ctx_err(x, "BZ2_bzDecompressInit: error %d", r);
		return FAIL;
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
				ctx_err(x, "bzip2: trailing data after the end of the stream");
			else
				out = ((size_t)s.total_out_hi32 << 32) | s.total_out_lo32;
			break;
		}
		if (r != BZ_OK) {
			ctx_err(x, "bzip2: %s", r == BZ_DATA_ERROR_MAGIC ? "not bzip2 data"
					 : r == BZ_DATA_ERROR ? "compressed data is corrupt"
					 : "decoder error");
			break;
		}
		if (s.avail_out == 0) {
			x->too_small = 1;
			ctx_err(x, "bzip2: output larger than %zu bytes", cap);
			break;
		}
		if (s.avail_in == 0 || (ai == s.avail_in && ao == s.avail_out)) {
			ctx_err(x, "bzip2: truncated input");
			break;
		}
	}
	BZ2_bzDecompressEnd(&s);
	return out;
}
#endif

size_t prof_codec_compress(struct prof_codec_ctx *x, void *dst, size_t cap,
			   const void *src, size_t n)
{
	const struct prof_codec *c = x->codec;

	x->err[0] = '\0';
	if (n > max_block(c)) {
		ctx_err(x, "block of %zu bytes exceeds the %s API limit of %zu (use -b)",
			n, c->name, max_block(c));
		return FAIL;
	}
	switch ((enum codec_id)c->id) {
	case C_MEMCPY:
		if (cap < n) {
			ctx_err(x, "output buffer too small");
			return FAIL;
		}
		memcpy(dst, src, n);
		return n;
	case C_ZLIB:
	case C_GZIP:
		return zlib_compress(x, dst, cap, src, n);
	case C_ZSTD:
		return zstd_compress(x, dst, cap, src, n);
	case C_LZ4: {
		int r = LZ4_compress_fast_extState(x->lz4_state, src, dst, (int)n,
						   cap > INT_MAX ? INT_MAX : (int)cap, x->level);
		if (r <= 0) {
			ctx_err(x, "LZ4_compress_fast_extState failed");
			return FAIL;
		}
		return (size_t)r;
	}
	case C_LZ4HC: {
		int r = LZ4_compress_HC_extStateHC(x->lz4_state, src, dst, (int)n,
						   cap > INT_MAX ? INT_MAX : (int)cap, x->level);
		if (r <= 0) {
			ctx_err(x, "LZ4_compress_HC_extStateHC failed");
			return FAIL;
		}
		return (size_t)r;
	}
	case C_LZ4F:
		return lz4f_compress(x, dst, cap, src, n);
	case C_BROTLI:
#ifdef HAVE_BROTLI
		return brotli_compress(x, dst, cap, src, n);
#else
		break;
#endif
	case C_XZ:
#ifdef HAVE_LZMA
		return xz_compress(x, dst, cap, src, n);
#else
		break;
#endif
	case C_BZIP2:
#ifdef HAVE_BZIP2
		return bzip2_compress(x, dst, cap, src, n);
#else
		break;
#endif
	case C_SNAPPY:
#ifdef HAVE_SNAPPY
	{
		size_t len = cap;

		if (snappy_compress(src, n, dst, &len) != SNAPPY_OK) {
			ctx_err(x, "snappy_compress failed");
			return FAIL;
		}
		return len;
	}
#else
		break;
#endif
	case C_LIBDEFLATE:
#ifdef HAVE_LIBDEFLATE
	{
		size_t r = libdeflate_deflate_compress(x->ld_c, src, n, dst, cap);

		if (r == 0) {
			ctx_err(x, "libdeflate_deflate_compress: output buffer too small");
			return FAIL;
		}
		return r;
	}
#else
		break;
#endif
	}
	ctx_err(x, "%s is not available in this build", c->name);
	return FAIL;
}

size_t prof_codec_decompress(struct prof_codec_ctx *x, void *dst, size_t cap,
			     const void *src, size_t n)
{
	const struct prof_codec *c = x->codec;

	x->err[0] = '\0';
	x->too_small = 0;
	switch ((enum codec_id)c->id) {
	case C_MEMCPY:
		if (cap < n) {
			x->too_small = 1;
			ctx_err(x, "output larger than %zu bytes", cap);
			return FAIL;
		}
		memcpy(dst, src, n);
		return n;
	case C_ZLIB:
	case C_GZIP:
		return zlib_decompress(x, dst, cap, src, n);
	case C_ZSTD:
		return zstd_decompress(x, dst, cap, src, n);
	case C_LZ4:
	case C_LZ4HC: {
		int r;

		if (n > INT_MAX) {
			ctx_err(x, "LZ4_decompress_safe: input too large");
			return FAIL;
		}
		r = LZ4_decompress_safe(src, dst, (int)n, cap > INT_MAX ? INT_MAX : (int)cap);
		if (r < 0) {
			ctx_err(x, "LZ4_decompress_safe: corrupt input or output larger than %zu bytes",
				cap);
			return FAIL;
		}
		return (size_t)r;
	}
	case C_LZ4F:
		return lz4f_decompress(x, dst, cap, src, n);
	case C_BROTLI:
#ifdef HAVE_BROTLI
		return brotli_decompress(x, dst, cap, src, n);
#else
		break;
#endif
	case C_XZ:
#ifdef HAVE_LZMA
		return xz_decompress(x, dst, cap, src, n);
#else
		break;
#endif
	case C_BZIP2:
#ifdef HAVE_BZIP2
		return bzip2_decompress(x, dst, cap, src, n);
#else
		break;
#endif
	case C_SNAPPY:
#ifdef HAVE_SNAPPY
	{
		size_t len;

		if (snappy_uncompressed_length(src, n, &len) != SNAPPY_OK) {
			ctx_err(x, "snappy: corrupt input");
			return FAIL;
		}
		if (len > cap) {
			x->too_small = 1;
			ctx_err(x, "snappy: output larger than %zu bytes", cap);
			return FAIL;
		}
		if (snappy_uncompress(src, n, dst, &len) != SNAPPY_OK) {
			ctx_err(x, "snappy: corrupt input");
			return FAIL;
		}
		return len;
	}
#else
		break;
#endif
	case C_LIBDEFLATE:
#ifdef HAVE_LIBDEFLATE
	{
		size_t in_used = 0, out = 0;
		enum libdeflate_result r =
			libdeflate_deflate_decompress_ex(x->ld_d, src, n, dst, cap, &in_used, &out);

		if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
			x->too_small = 1;
			ctx_err(x, "libdeflate: output larger than %zu bytes", cap);
			return FAIL;
		}
		if (r != LIBDEFLATE_SUCCESS) {
			ctx_err(x, "libdeflate: %s", r == LIBDEFLATE_BAD_DATA
				? "compressed data is corrupt or truncated" : "decoder error");
			return FAIL;
		}
		if (in_used != n) {
			ctx_err(x, "libdeflate: trailing data after the end of the stream");
			return FAIL;
		}
		return out;
	}
#else
		break;
#endif
	}
	ctx_err(x, "%s is not available in this build", c->name);
	return FAIL;
}
