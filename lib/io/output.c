#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <lz4frame.h>
#include <zlib.h>
#include <zstd.h>
#include "base/buf.h"
#include "base/error.h"
#include "io/input.h"
#include "io/output.h"
#include "base/xalloc.h"

#define STAGE_SIZE (256 * 1024)

struct prof_output {
	int fd;
	int is_stdout;		/* fd 1: "-", NULL, /dev/stdout */
	char *name;		/* destination as given */
	char *target;		/* with tmp: the file renamed over (links followed) */
	char *tmp;		/* temporary path beside target, or NULL (in place) */
	enum prof_out_mode mode;
	enum prof_compression comp;
	int failed;
	int broken_pipe;	/* the failure was EPIPE: the reader went away */
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
		prof_warn_errno("%s", o->name);
	}
	if (!o->failed && err == EPIPE)
		o->broken_pipe = 1;
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

/*
 * Follow the symbolic links of path's last component to the name a rename
 * must replace (which need not exist yet: a dangling link's target is
 * created). Sets *magic when a link lives on procfs (/dev/stdout,
 * /dev/fd/N, /proc/PID/fd/N): such a link names an open file, not a path,
 * and is written in place. Returns a malloc'd path, or NULL with errno
 * ELOOP.
 */
static char *resolve_links(const char *path, int *magic)
{
	static dev_t proc_dev;
	static int proc_known;
	char *cur = xstrdup(path);

	*magic = 0;
	if (!proc_known) {
		struct stat ps;

		proc_known = 1;
		proc_dev = lstat("/proc/self", &ps) == 0 ? ps.st_dev : (dev_t)-1;
	}
	for (int hops = 0; hops < 40; hops++) {
		char link[PATH_MAX];
		struct stat st;
		ssize_t n;

		if (lstat(cur, &st) < 0 || !S_ISLNK(st.st_mode))
			return cur;
		if (st.st_dev == proc_dev) {
			*magic = 1;
			return cur;
		}
		n = readlink(cur, link, sizeof(link) - 1);
		if (n < 0)
			return cur;
		link[n] = '\0';
		if (link[0] != '/' && strchr(cur, '/')) {
			struct prof_buf b = PROF_BUF_INIT;

			prof_buf_add(&b, cur, (size_t)(strrchr(cur, '/') - cur) + 1);
			prof_buf_addstr(&b, link);
			free(cur);
			cur = prof_buf_detach(&b, NULL);
		} else {
			free(cur);
			cur = xstrdup(link);
		}
	}
	free(cur);
	errno = ELOOP;
	return NULL;
}

/*
 * A temporary file beside target, named ".BASE.XXXXXX". An existing
 * target (old, non-NULL) lends it its mode, owner and group; a new one
 * gets 0666 less the umask. Returns the descriptor or -1 (errno set).
 */
static int make_temp(struct prof_output *o, const struct stat *old)
{
	const char *slash = strrchr(o->target, '/');
	struct prof_buf t = PROF_BUF_INIT;
	int fd;

	if (slash)
		prof_buf_add(&t, o->target, (size_t)(slash - o->target) + 1);
	prof_buf_addf(&t, ".%s.XXXXXX", slash ? slash + 1 : o->target);
	o->tmp = prof_buf_detach(&t, NULL);
	fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0) {
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	if (old) {
		mode_t m = old->st_mode & 07777;

		/* Owner and group first: fchown clears set-id bits. */
		if (fchown(fd, old->st_uid, old->st_gid) < 0) {
			if (fchown(fd, (uid_t)-1, old->st_gid) < 0)
				m &= ~(mode_t)S_ISGID;
			m &= ~(mode_t)S_ISUID;
		}
		fchmod(fd, m);
	} else {
		mode_t mask = umask(0);

		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	return fd;
}

struct prof_output *prof_output_open(const char *path, enum prof_out_mode mode,
				     enum prof_compression comp)
{
	struct prof_output *o = xcalloc(1, sizeof(*o));
	struct stat st;
	int magic, exists;

	o->mode = mode;
	o->comp = comp;
	o->stage = xmalloc(STAGE_SIZE);
	if (!path || strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0) {
		/* /dev/stdout is fd 1 as it is (a ">>" redirection appends). */
		o->fd = 1;
		o->is_stdout = 1;
		o->name = xstrdup(path && *path == '/' ? path : "<stdout>");
		o->mode = PROF_OUT_STREAM;
		goto opened;
	}
	o->name = xstrdup(path);
	o->target = resolve_links(path, &magic);
	if (!o->target) {
		prof_warn_errno("%s", path);
		goto fail;
	}
	exists = stat(o->target, &st) == 0;
	if (!exists && errno != ENOENT) {
		prof_warn_errno("%s", path);
		goto fail;
	}
	if (exists && S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		prof_warn_errno("%s", path);
		goto fail;
	}
	/*
	 * A regular file or a new name is replaced by a temporary file
	 * renamed over it at close; anything else (device, FIFO, an open
	 * file named through /proc) is written in place.
	 */
	if (!magic && (!exists || S_ISREG(st.st_mode))) {
		o->fd = make_temp(o, exists ? &st : NULL);
		if (o->fd >= 0)
			goto opened;
		/* A directory we cannot write to: write an existing file in place. */
		if (!exists || (errno != EACCES && errno != EPERM && errno != EROFS)) {
			/* Name the destination: that is what the user asked for. */
			prof_warn_errno("%s", path);
			goto fail;
		}
	}
	o->fd = open(magic ? path : o->target, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (o->fd < 0) {
		prof_warn_errno("%s", path);
		goto fail;
	}
opened:
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
	free(o->target);
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

/*
 * The buffer is full. A stream (a recorder's file, stdout) passes on only
 * the whole lines and keeps the last partial one, so whatever a reader
 * sees (a pipe, a file left by a killed run) ends at a line boundary; a
 * line longer than the buffer goes out in pieces.
 */
static int encode_lines(struct prof_output *o)
{
	size_t len = o->stage_len, keep = 0;
	int r;

	if (o->mode == PROF_OUT_STREAM) {
		size_t i = len;

		while (i > 0 && o->stage[i - 1] != '\n')
			i--;
		if (i > 0)
			keep = len - i;
	}
	o->stage_len = len - keep;
	r = encode(o, 0);
	memmove(o->stage, o->stage + (len - keep), keep);
	o->stage_len = keep;
	return r;
}

int prof_output_write(struct prof_output *o, const void *p, size_t n)
{
	const char *c = p;

	if (o->failed)
		return -1;
	while (n > 0) {
		size_t room = STAGE_SIZE - o->stage_len;

		if (room == 0) {
			if (encode_lines(o))
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

int prof_output_broken_pipe(const struct prof_output *o)
{
	return o->broken_pipe;
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
	free(o->target);
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
			if (r == 0 && rename(o->tmp, o->target) < 0) {
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

int prof_output_replaces(const struct prof_output *o)
{
	return o->tmp != NULL;
}

int prof_output_prepend(const char *path, const char *text)
{
	struct prof_input *in = prof_input_open(path);
	struct prof_output *out;
	char buf[65536];
	ssize_t n;

	if (!in)
		return -1;
	out = prof_output_open(path, PROF_OUT_ATOMIC, prof_compression_from_suffix(path));
	if (!out) {
		prof_input_close(in);
		return -1;
	}
	prof_output_puts(out, text);
	while ((n = prof_input_read(in, buf, sizeof(buf))) > 0)
		prof_output_write(out, buf, (size_t)n);
	if (n < 0) {
		prof_input_close(in);
		prof_output_abort(out);
		return -1;
	}
	prof_input_close(in);
	return prof_output_close(out);
}
