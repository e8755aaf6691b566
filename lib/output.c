#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <lz4frame.h>
#include <zlib.h>
#include <zstd.h>
#include "buf.h"
#include "error.h"
#include "output.h"
#include "xalloc.h"

#define STAGE_SIZE (256 * 1024)

struct prof_output {
	int fd;
	int is_stdout;
	char *name;		/* destination as given */
	char *tmp;		/* ATOMIC: temporary path */
	enum prof_out_mode mode;
	enum prof_compression comp;
	int failed;
	unsigned long long bytes;
	char *stage;		/* uncompressed data not yet encoded */
	size_t stage_len;
	unsigned char *cbuf;	/* encoder output */
	size_t ccap;
	int frame_open;
	z_stream z;
	ZSTD_CCtx *zstd;
	LZ4F_cctx *lz4;
};

enum prof_compression prof_compression_from_suffix(const char *path)
{
	size_t n = path ? strlen(path) : 0;

	if (n > 3 && strcmp(path + n - 3, ".gz") == 0)
		return PROF_COMP_GZIP;
	if (n > 4 && strcmp(path + n - 4, ".zst") == 0)
		return PROF_COMP_ZSTD;
	if (n > 4 && strcmp(path + n - 4, ".lz4") == 0)
		return PROF_COMP_LZ4;
	return PROF_COMP_NONE;
}

int prof_compression_parse(const char *name, enum prof_compression *c)
{
	if (!strcmp(name, "none"))
		*c = PROF_COMP_NONE;
	else if (!strcmp(name, "gz") || !strcmp(name, "gzip"))
		*c = PROF_COMP_GZIP;
	else if (!strcmp(name, "zst") || !strcmp(name, "zstd"))
		*c = PROF_COMP_ZSTD;
	else if (!strcmp(name, "lz4"))
		*c = PROF_COMP_LZ4;
	else
		return -1;
	return 0;
}

static void out_fail(struct prof_output *o, int err)
{
	if (!o->failed && err != EPIPE) {
		errno = err;
		prof_warn_errno("%s: write error", o->name);
	}
	o->failed = 1;
}

static int write_fd(struct prof_output *o, const void *p, size_t n)
{
	const char *c = p;

	while (n > 0 && !o->failed) {
		ssize_t r = write(o->fd, c, n);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			out_fail(o, errno);
			break;
		}
		c += r;
		n -= (size_t)r;
		o->bytes += (unsigned long long)r;
	}
	return o->failed ? -1 : 0;
}

struct prof_output *prof_output_open(const char *path, enum prof_out_mode mode,
				     enum prof_compression comp)
{
	struct prof_output *o = xcalloc(1, sizeof(*o));

	o->mode = mode;
	o->comp = comp;
	o->stage = xmalloc(STAGE_SIZE);
	if (!path || strcmp(path, "-") == 0) {
		o->fd = 1;
		o->is_stdout = 1;
		o->name = xstrdup("<stdout>");
		o->mode = PROF_OUT_STREAM;
	} else if (mode == PROF_OUT_ATOMIC) {
		const char *slash = strrchr(path, '/');
		struct prof_buf t = PROF_BUF_INIT;
		mode_t mask = umask(0);

		umask(mask);
		if (slash)
			prof_buf_add(&t, path, (size_t)(slash - path) + 1);
		prof_buf_addf(&t, ".%s.XXXXXX", slash ? slash + 1 : path);
		o->tmp = prof_buf_detach(&t, NULL);
		o->name = xstrdup(path);
		o->fd = mkostemp(o->tmp, O_CLOEXEC);
		if (o->fd < 0) {
			/* Name the destination: that is what the user asked for. */
			prof_warn_errno("%s", path);
			goto fail;
		}
		fchmod(o->fd, 0666 & ~mask);
	} else {
		o->name = xstrdup(path);
		o->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (o->fd < 0) {
			prof_warn_errno("%s", path);
			goto fail;
		}
	}
	switch (comp) {
	case PROF_COMP_GZIP:
		if (deflateInit2(&o->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
			prof_die("deflateInit2 failed");
		o->ccap = deflateBound(&o->z, STAGE_SIZE) + 64;
		break;
	case PROF_COMP_ZSTD:
		o->zstd = ZSTD_createCCtx();
		if (!o->zstd)
			prof_die("out of memory");
		ZSTD_CCtx_setParameter(o->zstd, ZSTD_c_compressionLevel, 3);
		ZSTD_CCtx_setParameter(o->zstd, ZSTD_c_checksumFlag, 1);
		o->ccap = ZSTD_CStreamOutSize();
		break;
	case PROF_COMP_LZ4:
		if (LZ4F_isError(LZ4F_createCompressionContext(&o->lz4, LZ4F_VERSION)))
			prof_die("LZ4F_createCompressionContext failed");
		o->ccap = LZ4F_compressBound(STAGE_SIZE, NULL) + LZ4F_HEADER_SIZE_MAX + 64;
		break;
	case PROF_COMP_NONE:
		break;
	}
	if (o->ccap)
		o->cbuf = xmalloc(o->ccap);
	return o;
fail:
	free(o->tmp);
	free(o->name);
	free(o->stage);
	free(o);
	return NULL;
}

/* Encode the staged bytes; end_frame closes the current frame/member. */
static int encode(struct prof_output *o, int end_frame)
{
	const char *src = o->stage;
	size_t len = o->stage_len;

	o->stage_len = 0;
	switch (o->comp) {
	case PROF_COMP_NONE:
		return write_fd(o, src, len);
	case PROF_COMP_GZIP: {
		int r;

		o->z.next_in = (unsigned char *)(uintptr_t)src;
		o->z.avail_in = (uInt)len;
		do {
			o->z.next_out = o->cbuf;
			o->z.avail_out = (uInt)o->ccap;
			r = deflate(&o->z, end_frame ? Z_FINISH : Z_NO_FLUSH);
			if (r == Z_STREAM_ERROR)
				prof_die("deflate failed");
			if (write_fd(o, o->cbuf, o->ccap - o->z.avail_out))
				return -1;
		} while (o->z.avail_out == 0 || (end_frame && r != Z_STREAM_END));
		o->frame_open = !end_frame && (o->frame_open || len);
		if (end_frame)
			deflateReset(&o->z);
		return 0;
	}
	case PROF_COMP_ZSTD: {
		ZSTD_inBuffer ib = { src, len, 0 };
		size_t left;

		do {
			ZSTD_outBuffer ob = { o->cbuf, o->ccap, 0 };

			left = ZSTD_compressStream2(o->zstd, &ob, &ib,
						    end_frame ? ZSTD_e_end : ZSTD_e_continue);
			if (ZSTD_isError(left))
				prof_die("ZSTD_compressStream2: %s", ZSTD_getErrorName(left));
			if (write_fd(o, o->cbuf, ob.pos))
				return -1;
		} while (ib.pos < ib.size || (end_frame && left != 0));
		o->frame_open = !end_frame && (o->frame_open || len);
		return 0;
	}
	case PROF_COMP_LZ4: {
		size_t r;

		if (!o->frame_open) {
			if (!len && end_frame)
				return 0;
			r = LZ4F_compressBegin(o->lz4, o->cbuf, o->ccap, NULL);
			if (LZ4F_isError(r))
				prof_die("LZ4F_compressBegin: %s", LZ4F_getErrorName(r));
			if (write_fd(o, o->cbuf, r))
				return -1;
			o->frame_open = 1;
		}
		r = LZ4F_compressUpdate(o->lz4, o->cbuf, o->ccap, src, len, NULL);
		if (LZ4F_isError(r))
			prof_die("LZ4F_compressUpdate: %s", LZ4F_getErrorName(r));
		if (write_fd(o, o->cbuf, r))
			return -1;
		if (end_frame) {
			r = LZ4F_compressEnd(o->lz4, o->cbuf, o->ccap, NULL);
			if (LZ4F_isError(r))
				prof_die("LZ4F_compressEnd: %s", LZ4F_getErrorName(r));
			o->frame_open = 0;
			return write_fd(o, o->cbuf, r);
		}
		return 0;
	}
	}
	return 0;
}

int prof_output_write(struct prof_output *o, const void *p, size_t n)
{
	const char *c = p;

	if (o->failed)
		return -1;
	while (n > 0) {
		size_t room = STAGE_SIZE - o->stage_len;

		if (room == 0) {
			if (encode(o, 0))
				return -1;
			continue;
		}
		if (room > n)
			room = n;
		memcpy(o->stage + o->stage_len, c, room);
		o->stage_len += room;
		c += room;
		n -= room;
	}
	return 0;
}

int prof_output_puts(struct prof_output *o, const char *s)
{
	return prof_output_write(o, s, strlen(s));
}

int prof_output_vprintf(struct prof_output *o, const char *fmt, va_list ap)
{
	char small[512];
	va_list cp;
	int n, r;

	va_copy(cp, ap);
	n = vsnprintf(small, sizeof(small), fmt, cp);
	va_end(cp);
	if (n < 0)
		return -1;
	if ((size_t)n < sizeof(small))
		return prof_output_write(o, small, (size_t)n);
	char *big = xmalloc((size_t)n + 1);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	r = prof_output_write(o, big, (size_t)n);
	free(big);
	return r;
}

int prof_output_printf(struct prof_output *o, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = prof_output_vprintf(o, fmt, ap);
	va_end(ap);
	return r;
}

int prof_output_flush(struct prof_output *o)
{
	if (o->failed)
		return -1;
	if (o->stage_len == 0 && !o->frame_open)
		return 0;
	return encode(o, 1);
}

const char *prof_output_name(const struct prof_output *o)
{
	return o->name;
}

unsigned long long prof_output_bytes(const struct prof_output *o)
{
	return o->bytes;
}

static void output_free(struct prof_output *o)
{
	if (o->comp == PROF_COMP_GZIP)
		deflateEnd(&o->z);
	ZSTD_freeCCtx(o->zstd);
	if (o->lz4)
		LZ4F_freeCompressionContext(o->lz4);
	free(o->cbuf);
	free(o->stage);
	free(o->tmp);
	free(o->name);
	free(o);
}

int prof_output_close(struct prof_output *o)
{
	int r = 0;

	if (o->stage_len || o->frame_open || (o->comp != PROF_COMP_NONE && o->bytes == 0))
		r = encode(o, 1);
	if (o->failed)
		r = -1;
	if (!o->is_stdout) {
		if (close(o->fd) < 0 && r == 0) {
			out_fail(o, errno);
			r = -1;
		}
		if (o->tmp) {
			if (r == 0 && rename(o->tmp, o->name) < 0) {
				prof_warn_errno("%s: rename", o->name);
				r = -1;
			}
			if (r)
				unlink(o->tmp);
		}
	}
	output_free(o);
	return r;
}

void prof_output_abort(struct prof_output *o)
{
	if (!o)
		return;
	if (!o->is_stdout) {
		close(o->fd);
		if (o->tmp)
			unlink(o->tmp);
	}
	output_free(o);
}
