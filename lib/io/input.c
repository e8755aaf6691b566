#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <lz4frame.h>
#include <zlib.h>
#include <zstd.h>
#include "base/error.h"
#include "base/units.h"
#include "io/input.h"
#include "base/xalloc.h"

#define RAW_SIZE (64 * 1024)

struct prof_input {
	int fd;			/* -1 for memory input */
	const unsigned char *mem;
	size_t mem_len, mem_pos;
	char *name;
	int failed, eof, detected;
	enum prof_compression comp;
	unsigned char *raw;	/* bytes read but not yet consumed */
	size_t raw_pos, raw_len;
	int in_frame;		/* a compressed frame is open (for truncation) */
	z_stream z;
	ZSTD_DCtx *zstd;
	LZ4F_dctx *lz4;
};

const char *prof_compression_name(enum prof_compression c)
{
	switch (c) {
	case PROF_COMP_GZIP: return "gzip";
	case PROF_COMP_ZSTD: return "zstd";
	case PROF_COMP_LZ4: return "lz4";
	case PROF_COMP_NONE: break;
	}
	return "none";
}

static struct prof_input *input_new(int fd, const char *name)
{
	struct prof_input *in = xcalloc(1, sizeof(*in));

	in->fd = fd;
	in->name = xstrdup(name);
	in->raw = xmalloc(RAW_SIZE);
	return in;
}

/* The copies made by prof_spool_input(), and the names of what they copy. */
static char **spooled, **spooled_names;
static size_t nspooled;

const char *prof_input_display_name(const char *path)
{
	if (!path || strcmp(path, "-") == 0)
		return "<stdin>";
	for (size_t i = 0; i < nspooled; i++)
		if (strcmp(spooled[i], path) == 0)
			return spooled_names[i];
	return path;
}

struct prof_input *prof_input_open(const char *path)
{
	int fd;

	if (!path || strcmp(path, "-") == 0)
		return input_new(0, "<stdin>");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		prof_warn_errno("%s", path);
		return NULL;
	}
	return input_new(fd, prof_input_display_name(path));
}

/* "not a regular file (a FIFO)" for a mode that is not S_ISREG's. */
static void not_regular(mode_t mode, char *err, size_t errlen)
{
	const char *what = S_ISFIFO(mode) ? "a FIFO" : S_ISCHR(mode) ? "a character device" :
			   S_ISBLK(mode) ? "a block device" : S_ISDIR(mode) ? "a directory" :
			   S_ISSOCK(mode) ? "a socket" : "of an unknown type";

	snprintf(err, errlen, "not a regular file (%s)", what);
}

int prof_check_regular(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		not_regular(st.st_mode, err, errlen);
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int prof_open_regular(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	return prof_regular_fd(fd, err, errlen);
}

int prof_regular_fd(int fd, char *err, size_t errlen)
{
	int flags;
	struct stat st;

	if (fstat(fd, &st) < 0 || (flags = fcntl(fd, F_GETFL)) < 0 ||
	    fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		not_regular(st.st_mode, err, errlen);
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

static struct prof_input *input_from_mem(const char *name, const char *data, size_t len)
{
	struct prof_input *in = input_new(-1, name);

	in->mem = (const unsigned char *)data;
	in->mem_len = len;
	return in;
}

static void input_fail(struct prof_input *in, const char *what, const char *detail)
{
	if (!in->failed)
		prof_input_warn(in->name, 0, "%s%s%s", what, detail ? ": " : "", detail ? detail : "");
	in->failed = 1;
}

/* Read raw bytes into p; returns count, 0 at EOF, -1 on error (reported). */
static ssize_t raw_read(struct prof_input *in, void *p, size_t n)
{
	ssize_t r;

	if (in->fd < 0) {
		size_t left = in->mem_len - in->mem_pos;

		if (n > left)
			n = left;
		memcpy(p, in->mem + in->mem_pos, n);
		in->mem_pos += n;
		return (ssize_t)n;
	}
	do
		r = read(in->fd, p, n);
	while (r < 0 && errno == EINTR);
	if (r < 0) {
		input_fail(in, "read error", strerror(errno));
		return -1;
	}
	return r;
}

/* Top up the raw buffer (keeping unconsumed bytes). 0 at EOF, -1 error. */
static ssize_t refill(struct prof_input *in)
{
	ssize_t r;

	if (in->raw_pos > 0) {
		memmove(in->raw, in->raw + in->raw_pos, in->raw_len - in->raw_pos);
		in->raw_len -= in->raw_pos;
		in->raw_pos = 0;
	}
	if (in->eof || in->raw_len == RAW_SIZE)
		return 0;
	r = raw_read(in, in->raw + in->raw_len, RAW_SIZE - in->raw_len);
	if (r == 0)
		in->eof = 1;
	if (r > 0)
		in->raw_len += (size_t)r;
	return r;
}

/* The compression of a stream that starts with p (its first avail bytes, 4 are enough). */
static int compression_of(const unsigned char *p, size_t avail)
{
	if (avail >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return PROF_COMP_GZIP;
	if (avail >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd)
		return PROF_COMP_ZSTD;
	if (avail >= 4 && p[0] == 0x04 && p[1] == 0x22 && p[2] == 0x4d && p[3] == 0x18)
		return PROF_COMP_LZ4;
	return PROF_COMP_NONE;
}

static int detect(struct prof_input *in)
{
	while (in->raw_len - in->raw_pos < 4 && !in->eof)
		if (refill(in) < 0)
			return -1;
	in->detected = 1;
	in->comp = compression_of(in->raw + in->raw_pos, in->raw_len - in->raw_pos);
	if (in->comp == PROF_COMP_GZIP) {
		if (inflateInit2(&in->z, 15 + 16) != Z_OK)
			prof_die("inflateInit2 failed");
	} else if (in->comp == PROF_COMP_ZSTD) {
		in->zstd = ZSTD_createDCtx();
		if (!in->zstd)
			prof_die("out of memory");
	} else if (in->comp == PROF_COMP_LZ4) {
		if (LZ4F_isError(LZ4F_createDecompressionContext(&in->lz4, LZ4F_VERSION)))
			prof_die("LZ4F_createDecompressionContext failed");
	}
	return 0;
}

/* Decompress some of the raw buffer into out; returns bytes produced or -1. */
static ssize_t decode_step(struct prof_input *in, unsigned char *out, size_t n)
{
	unsigned char *src = in->raw + in->raw_pos;
	size_t avail = in->raw_len - in->raw_pos;

	switch (in->comp) {
	case PROF_COMP_GZIP: {
		int r;

		if (avail == 0)
			return 0;
		in->z.next_in = src;
		in->z.avail_in = (uInt)avail;
		in->z.next_out = out;
		in->z.avail_out = (uInt)(n > UINT32_MAX ? UINT32_MAX : n);
		in->in_frame = 1;
		r = inflate(&in->z, Z_NO_FLUSH);
		in->raw_pos += avail - in->z.avail_in;
		if (r == Z_STREAM_END) {
			/* Concatenated members (flushed recorder output) follow. */
			inflateReset(&in->z);
			in->in_frame = 0;
		} else if (r != Z_OK && r != Z_BUF_ERROR) {
			input_fail(in, "corrupt gzip data", in->z.msg);
			return -1;
		}
		return (ssize_t)(n - in->z.avail_out);
	}
	case PROF_COMP_ZSTD: {
		ZSTD_inBuffer ib = { src, avail, 0 };
		ZSTD_outBuffer ob = { out, n, 0 };
		size_t r;

		if (avail == 0)
			return 0;
		r = ZSTD_decompressStream(in->zstd, &ob, &ib);
		in->raw_pos += ib.pos;
		if (ZSTD_isError(r)) {
			input_fail(in, "corrupt zstd data", ZSTD_getErrorName(r));
			return -1;
		}
		in->in_frame = r != 0;
		return (ssize_t)ob.pos;
	}
	case PROF_COMP_LZ4: {
		size_t dst = n, srclen = avail, r;

		if (avail == 0)
			return 0;
		r = LZ4F_decompress(in->lz4, out, &dst, src, &srclen, NULL);
		in->raw_pos += srclen;
		if (LZ4F_isError(r)) {
			input_fail(in, "corrupt lz4 data", LZ4F_getErrorName(r));
			return -1;
		}
		in->in_frame = r != 0;
		return (ssize_t)dst;
	}
	case PROF_COMP_NONE:
		break;
	}
	return 0;
}

ssize_t prof_input_read(struct prof_input *in, void *buf, size_t n)
{
	unsigned char *out = buf;

	if (in->failed || n == 0)
		return in->failed ? -1 : 0;
	if (!in->detected && detect(in) < 0)
		return -1;
	if (in->comp == PROF_COMP_NONE) {
		size_t avail = in->raw_len - in->raw_pos;

		if (avail) {
			if (n > avail)
				n = avail;
			memcpy(out, in->raw + in->raw_pos, n);
			in->raw_pos += n;
			return (ssize_t)n;
		}
		if (in->eof)
			return 0;
		return raw_read(in, out, n);
	}
	for (;;) {
		size_t before = in->raw_pos;
		ssize_t got = decode_step(in, out, n);

		if (got != 0)
			return got;
		if (in->raw_pos != before)
			continue;	/* headers consumed, no output yet */
		if (in->eof) {
			if (in->in_frame || in->raw_pos < in->raw_len) {
				input_fail(in, "truncated compressed stream", NULL);
				return -1;
			}
			return 0;
		}
		if (refill(in) < 0)
			return -1;
	}
}

long long prof_input_size_left(const struct prof_input *in)
{
	struct stat st;
	off_t at;

	if (in->fd < 0 || !in->detected || in->comp != PROF_COMP_NONE || fstat(in->fd, &st) < 0 ||
	    !S_ISREG(st.st_mode) || (at = lseek(in->fd, 0, SEEK_CUR)) < 0)
		return -1;
	/* bytes read into the raw buffer but not yet consumed are still to come */
	return (long long)st.st_size - (long long)at + (long long)(in->raw_len - in->raw_pos);
}

enum prof_compression prof_input_compression(const struct prof_input *in)
{
	return in->comp;
}

const char *prof_input_name(const struct prof_input *in)
{
	return in->name;
}

int prof_input_failed(const struct prof_input *in)
{
	return in->failed;
}

void prof_input_close(struct prof_input *in)
{
	if (!in)
		return;
	if (in->fd > 0)
		close(in->fd);
	if (in->comp == PROF_COMP_GZIP)
		inflateEnd(&in->z);
	ZSTD_freeDCtx(in->zstd);
	if (in->lz4)
		LZ4F_freeDecompressionContext(in->lz4);
	free(in->raw);
	free(in->name);
	free(in);
}

char *prof_read_file(const char *path, size_t *len)
{
	return prof_read_file_max(path, SIZE_MAX / 2, len);
}

char *prof_read_file_max(const char *path, size_t max, size_t *len)
{
	struct prof_input *in = prof_input_open(path);
	size_t cap = 1 << 16, n = 0;
	char *buf;
	ssize_t r;

	if (!in)
		return NULL;
	buf = xmalloc(cap + 1);
	for (;;) {
		if (n == cap) {
			if (n > max)
				break;
			/* one byte past max tells a file of exactly max from a larger one */
			cap = cap > max / 2 ? max + 1 : cap * 2;
			buf = xrealloc(buf, cap + 1);
		}
		r = prof_input_read(in, buf + n, cap - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	if (n > max)
		prof_warn("%s: larger than %zu bytes", prof_input_name(in), max);
	if (r < 0 || n > max) {
		prof_input_close(in);
		free(buf);
		return NULL;
	}
	prof_input_close(in);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* ---- line reader ---- */

static size_t max_line;	/* 0: not known yet */

size_t prof_max_line(void)
{
	const char *env;
	uint64_t v;

	if (max_line)
		return max_line;
	max_line = PROF_MAX_LINE_DEFAULT;
	env = getenv("PROFTOOLS_MAX_LINE");
	if (env && *env) {
		if (prof_parse_size(env, &v) == 0 && v >= 1 && v <= SIZE_MAX / 4)
			max_line = (size_t)v;
		else
			prof_warn("PROFTOOLS_MAX_LINE: expected a size such as 64M, got '%s': "
				  "lines are capped at %zu bytes", env, max_line);
	}
	return max_line;
}

void prof_set_max_line(size_t bytes)
{
	max_line = bytes;
}

struct prof_lines {
	struct prof_input *in;
	char *buf;
	size_t cap;
	size_t start, end;	/* unread data is buf[start..end) */
	size_t scanned;		/* buf[start..scanned) holds no newline */
	size_t max;		/* prof_max_line() when opened */
	unsigned long lineno, too_long;
	int eof, unterminated;
	int stopped;		/* a line over the cap ended the reading */
};

#define LINES_INITIAL (64 << 10)

struct prof_lines *prof_lines_from_input(struct prof_input *in)
{
	struct prof_lines *lr;

	if (!in)
		return NULL;
	lr = xcalloc(1, sizeof(*lr));
	lr->in = in;
	lr->max = prof_max_line();
	lr->cap = LINES_INITIAL;
	lr->buf = xmalloc(lr->cap + 1);
	return lr;
}

struct prof_lines *prof_lines_open(const char *path)
{
	return prof_lines_from_input(prof_input_open(path));
}

struct prof_lines *prof_lines_from_mem(const char *name, const char *data, size_t len)
{
	return prof_lines_from_input(input_from_mem(name, data, len));
}

/*
 * Line lineno + 1 is over the cap: say so; it and the rest of the input
 * are left unread (an input with no newline, /dev/zero, would otherwise
 * be read for ever).
 */
static char *lines_too_long(struct prof_lines *lr)
{
	lr->too_long++;
	prof_input_warn(prof_input_name(lr->in), lr->lineno + 1,
			"line longer than %zu bytes (PROFTOOLS_MAX_LINE raises the cap)", lr->max);
	lr->stopped = 1;
	lr->start = lr->scanned = lr->end = 0;
	return NULL;
}

/* The line ending at nl, or the unterminated one at end of input (nl NULL). */
static char *lines_take(struct prof_lines *lr, char *nl, size_t *len)
{
	char *line = lr->buf + lr->start;
	size_t n = nl ? (size_t)(nl - line) : lr->end - lr->start;

	lr->start = lr->scanned = nl ? lr->start + n + 1 : lr->end;
	if (n && line[n - 1] == '\r')
		n--;
	line[n] = '\0';	/* cap + 1 bytes allocated: room for it */
	lr->lineno++;
	lr->unterminated = !nl;
	*len = n;
	return line;
}

char *prof_lines_next(struct prof_lines *lr, size_t *len)
{
	if (lr->stopped)
		return NULL;
	for (;;) {
		char *nl = memchr(lr->buf + lr->scanned, '\n', lr->end - lr->scanned);
		ssize_t r;

		if (nl) {
			if ((size_t)(nl - (lr->buf + lr->start)) > lr->max)
				return lines_too_long(lr);
			return lines_take(lr, nl, len);
		}
		lr->scanned = lr->end;
		if (lr->end - lr->start > lr->max)
			return lines_too_long(lr);
		if (lr->eof) {
			if (lr->start != lr->end && prof_input_failed(lr->in)) {
				/* Cut short: never hand over an incomplete line (chunk.h). */
				prof_warn("%s: the input is cut short: its incomplete last line is "
					  "left out", prof_input_name(lr->in));
				lr->start = lr->scanned = lr->end;
			}
			if (lr->start == lr->end)
				return NULL;
			return lines_take(lr, NULL, len);
		}
		if (lr->start > 0) {
			memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
			lr->end -= lr->start;
			lr->scanned -= lr->start;
			lr->start = 0;
		}
		if (lr->end == lr->cap) {
			lr->cap *= 2;
			lr->buf = xrealloc(lr->buf, lr->cap + 1);
		}
		r = prof_input_read(lr->in, lr->buf + lr->end, lr->cap - lr->end);
		if (r <= 0)
			lr->eof = 1;
		else
			lr->end += (size_t)r;
	}
}

unsigned long prof_lines_too_long(const struct prof_lines *lr)
{
	return lr->too_long;
}

unsigned long prof_lines_lineno(const struct prof_lines *lr)
{
	return lr->lineno;
}

const char *prof_lines_name(const struct prof_lines *lr)
{
	return prof_input_name(lr->in);
}

int prof_lines_failed(const struct prof_lines *lr)
{
	return prof_input_failed(lr->in);
}

int prof_lines_unterminated(const struct prof_lines *lr)
{
	return lr->unterminated;
}

void prof_lines_close(struct prof_lines *lr)
{
	if (!lr)
		return;
	prof_input_close(lr->in);
	free(lr->buf);
	free(lr);
}

static void remove_spooled(void)
{
	for (size_t i = 0; i < nspooled; i++) {
		unlink(spooled[i]);
		free(spooled[i]);
		free(spooled_names[i]);
	}
	free(spooled);
	free(spooled_names);
}

/* write(2) all of buf, or die naming path. */
static void write_all(int fd, const char *buf, size_t n, const char *path)
{
	for (size_t off = 0; off < n;) {
		ssize_t w = write(fd, buf + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			prof_die_errno("%s", path);
		off += (size_t)w;
	}
}

/*
 * The kind of file fd is when it is none that can be read as a stream
 * of data: a device (/dev/zero never ends, /dev/null is never data), a
 * directory. NULL for a regular file, a pipe or a socket.
 */
static const char *not_a_stream(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0 || S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) ||
	    S_ISSOCK(st.st_mode))
		return NULL;
	return S_ISCHR(st.st_mode) ? "a character device" : S_ISBLK(st.st_mode) ?
	       "a block device" : S_ISDIR(st.st_mode) ? "a directory" : "of an unknown type";
}

char *prof_spool_input(const char *path)
{
	const char *dir = getenv("TMPDIR"), *name = prof_input_display_name(path), *kind;
	char buf[65536], *tmp;
	size_t cap = prof_max_line(), run = 0;	/* bytes since the last newline */
	int first = 1, plain = 1, over = 0, in = STDIN_FILENO, fd;
	ssize_t n;

	/* A FIFO's open waits for its writer, as cat(1)'s does: then it is read once. */
	if (path && strcmp(path, "-") && (in = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		prof_warn_errno("%s", path);
		return NULL;
	}
	if ((kind = not_a_stream(in))) {
		prof_input_warn(name, 0, "not a regular file, pipe or socket (%s): nothing to read", kind);
		if (in != STDIN_FILENO)
			close(in);
		return NULL;
	}
	tmp = xasprintf("%s/%s.XXXXXX", dir && *dir ? dir : "/tmp", prof_progname);
	if ((fd = mkstemp(tmp)) < 0)
		prof_die_errno("%s", tmp);
	if (!nspooled)
		atexit(remove_spooled);
	spooled = xreallocarray(spooled, nspooled + 1, sizeof(*spooled));
	spooled_names = xreallocarray(spooled_names, nspooled + 1, sizeof(*spooled_names));
	spooled[nspooled] = tmp;
	spooled_names[nspooled++] = xstrdup(name);
	while (!over && (n = read(in, buf, sizeof(buf))) != 0) {
		size_t i = 0, end = n > 0 ? (size_t)n : 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			prof_die_errno("%s", name);
		if (first)
			plain = compression_of((unsigned char *)buf, (size_t)n) == PROF_COMP_NONE;
		first = 0;
		/*
		 * Plain text is copied up to cap + 1 bytes of its first line
		 * over the cap, enough for the reader to say it is too long:
		 * reading stops there, as the reader's does (io: a line over the
		 * cap ends its input), so that /dev/zero ends and cannot fill
		 * the disk. Compressed input is copied as it is.
		 */
		while (plain && i < (size_t)n) {
			char *nl = memchr(buf + i, '\n', (size_t)n - i);
			size_t c = nl ? (size_t)(nl - (buf + i)) : (size_t)n - i;
			size_t room = run > cap ? 0 : cap + 1 - run;

			if (c > room) {
				end = i + room;
				over = 1;
				break;
			}
			run = nl ? 0 : run + c;
			i += c + (nl ? 1 : 0);
		}
		write_all(fd, buf, end, tmp);
	}
	if (in != STDIN_FILENO)
		close(in);
	if (close(fd) < 0)
		prof_die_errno("%s", tmp);
	return tmp;
}

const char *prof_input_rereadable(const char *path)
{
	struct stat st;

	if (strcmp(path, "-") && stat(path, &st) < 0)
		prof_warn_errno("%s", path);
	else if (strcmp(path, "-") && S_ISREG(st.st_mode))
		return path;
	else
		return prof_spool_input(path);
	return NULL;
}

char *prof_spool_stdin(void)
{
	char *path = prof_spool_input("-");

	if (!path)
		exit(PROF_EXIT_FAIL);
	return path;
}
