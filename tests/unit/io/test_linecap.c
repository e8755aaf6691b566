/*
 * Unit tests: the line cap (io/input.h) in both line readers, prof_lines
 * and io/chunk.h's blocks: a line over the cap ends the reading (the
 * lines before it come through, it and the rest never do: /dev/zero was
 * read for ever), and no block holds it;
 * and prof_read_file_max(), the cap of inputs held whole.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/buf.h"
#include "io/chunk.h"
#include "io/input.h"
#include "../unit.h"

/* "short\n", then a line of n 'x', "\n", "after\n", "tail" (no newline). */
static char *text_with_long_line(size_t n, size_t *len)
{
	char *s = malloc(n + 64);

	*len = (size_t)sprintf(s, "short\n");
	memset(s + *len, 'x', n);
	*len += n;
	*len += (size_t)sprintf(s + *len, "\nafter\ntail");
	return s;
}

/* Every line prof_lines gives, "NUMBER:TEXT|" each, into out. */
static unsigned long read_lines(const char *text, size_t len, struct prof_buf *out)
{
	struct prof_lines *lr = prof_lines_from_mem("mem", text, len);
	unsigned long too_long;
	size_t n;
	char *line;

	while ((line = prof_lines_next(lr, &n)) != NULL)
		prof_buf_addf(out, "%lu:%.*s|", prof_lines_lineno(lr), (int)(n > 20 ? 20 : n), line);
	too_long = prof_lines_too_long(lr);
	prof_lines_close(lr);
	return too_long;
}

/* An input file holding text (chunks read from an input, not memory). */
static char *temp_with(const char *text, size_t len)
{
	char *path = strdup("/tmp/unit_linecap.XXXXXX");
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		abort();
	close(fd);
	return path;
}

/* All blocks of kind, concatenated; the largest block's size in *biggest. */
static unsigned long read_chunks(const char *path, enum prof_chunk_boundary kind, size_t target,
				 struct prof_buf *out, size_t *biggest)
{
	struct prof_chunks *r = prof_chunks_open(prof_input_open(path), target);
	unsigned long too_long;
	int last = 0;
	size_t n;
	char *b;

	*biggest = 0;
	while ((b = prof_chunks_next(r, kind, &n, &last)) != NULL) {
		if (n > *biggest)
			*biggest = n;
		prof_buf_add(out, b, n);
		prof_chunks_recycle(r, b);
	}
	too_long = prof_chunks_too_long(r);
	prof_chunks_close(r);
	return too_long;
}

int main(void)
{
	TEST("default cap is 16 MiB unless PROFTOOLS_MAX_LINE says otherwise") {
		unsetenv("PROFTOOLS_MAX_LINE");
		prof_set_max_line(0);
		CHECK(prof_max_line() == (size_t)16 << 20);
		setenv("PROFTOOLS_MAX_LINE", "64K", 1);
		prof_set_max_line(0);
		CHECK(prof_max_line() == 65536);
		unsetenv("PROFTOOLS_MAX_LINE");
	}

	TEST("prof_lines: a line of cap bytes passes, cap + 1 is dropped, numbering kept") {
		struct prof_buf out = PROF_BUF_INIT;
		size_t len;
		char *s = text_with_long_line(100, &len);

		prof_set_max_line(100);
		CHECK(read_lines(s, len, &out) == 0);
		CHECK_STR(prof_buf_cstr(&out), "1:short|2:xxxxxxxxxxxxxxxxxxxx|3:after|4:tail|");
		prof_buf_reset(&out);
		prof_set_max_line(99);
		CHECK(read_lines(s, len, &out) == 1);
		CHECK_STR(prof_buf_cstr(&out), "1:short|");
		prof_buf_release(&out);
		free(s);
	}

	TEST("prof_lines: a line far longer than the buffer, and a long last line") {
		struct prof_buf out = PROF_BUF_INIT;
		size_t len;
		char *s = text_with_long_line(5u << 20, &len);

		prof_set_max_line(1000);
		CHECK(read_lines(s, len, &out) == 1);
		CHECK_STR(prof_buf_cstr(&out), "1:short|");
		prof_buf_reset(&out);
		/* an unterminated last line over the cap */
		prof_set_max_line(4);
		CHECK(read_lines("a\nbbbbbbbbbbbbbbb", 17, &out) == 1);
		CHECK_STR(prof_buf_cstr(&out), "1:a|");
		prof_buf_release(&out);
		free(s);
	}

	TEST("chunks: the long line ends the input, blocks stay near the target") {
		struct prof_buf out = PROF_BUF_INIT;
		size_t len, biggest;
		char *s = text_with_long_line(3u << 20, &len), *path = temp_with(s, len);

		prof_set_max_line(4096);
		CHECK(read_chunks(path, PROF_CHUNK_LINE, 8192, &out, &biggest) == 1);
		CHECK_STR(prof_buf_cstr(&out), "short\n");
		CHECK(biggest < 64 * 1024);
		prof_buf_reset(&out);
		CHECK(read_chunks(path, PROF_CHUNK_BLANK, 8192, &out, &biggest) == 1);
		CHECK_STR(prof_buf_cstr(&out), "short\n");
		CHECK(biggest < 64 * 1024);
		prof_buf_reset(&out);
		prof_set_max_line(3u << 20);	/* exactly the cap: kept whole */
		CHECK(read_chunks(path, PROF_CHUNK_LINE, 8192, &out, &biggest) == 0);
		CHECK(out.len == len && memcmp(out.data, s, len) == 0);
		unlink(path);
		free(path);
		prof_buf_release(&out);
		free(s);
	}

	TEST("chunks: short lines over a small cap inside a block, and at the end") {
		static const char text[] = "a\nbbbbbbbbbb\nc\nd\neeeeeeeeeeee";
		struct prof_buf out = PROF_BUF_INIT;
		char *path = temp_with(text, sizeof(text) - 1);
		size_t biggest;

		prof_set_max_line(4);
		CHECK(read_chunks(path, PROF_CHUNK_LINE, 4096, &out, &biggest) == 1);
		CHECK_STR(prof_buf_cstr(&out), "a\n");
		unlink(path);
		free(path);
		prof_buf_release(&out);
	}
	TEST("/dev/zero (a line that never ends): both readers stop at the cap") {
		struct prof_lines *lr;
		struct prof_buf out = PROF_BUF_INIT;
		size_t n, biggest;

		prof_set_max_line(4096);
		alarm(60);	/* they read on to the newline: for ever */
		lr = prof_lines_open("/dev/zero");
		CHECK(lr && prof_lines_next(lr, &n) == NULL && prof_lines_too_long(lr) == 1);
		CHECK(prof_lines_next(lr, &n) == NULL);
		prof_lines_close(lr);
		CHECK(read_chunks("/dev/zero", PROF_CHUNK_BLANK, 8192, &out, &biggest) == 1);
		CHECK(out.len == 0);
		alarm(0);
		prof_buf_release(&out);
	}

	TEST("prof_read_file_max: a file of max bytes is read, max + 1 refused") {
		char *path = temp_with("0123456789", 10), *got;
		size_t len = 0;

		got = prof_read_file_max(path, 10, &len);
		CHECK(got && len == 10 && !strcmp(got, "0123456789"));
		free(got);
		len = 0;
		CHECK(prof_read_file_max(path, 9, &len) == NULL && len == 0);
		unlink(path);
		free(path);
	}

	TEST("prof_read_file_max: a file larger than its first buffer, cut at max") {
		size_t len = 0, n = 200000;
		char *s = malloc(n), *path, *got;

		memset(s, 'y', n);
		path = temp_with(s, n);
		CHECK(prof_read_file_max(path, n - 1, &len) == NULL);
		got = prof_read_file_max(path, n, &len);
		CHECK(got && len == n && memcmp(got, s, n) == 0);
		free(got);
		unlink(path);
		free(path);
		free(s);
	}
	TEST("prof_chunks_read_all: lines not capped, the whole capped at max") {
		size_t len = 0, n = 300000;
		char *s = malloc(n), *path, *got;
		struct prof_chunks *r;

		memset(s, 'z', n);	/* one line longer than the line cap */
		path = temp_with(s, n);
		prof_set_max_line(4096);
		r = prof_chunks_open(prof_input_open(path), 8192);
		prof_chunks_peek(r, 100, &len);
		got = prof_chunks_read_all(r, n, &len);
		CHECK(got && len == n && memcmp(got, s, n) == 0 && !prof_chunks_too_long(r));
		free(got);
		prof_chunks_close(r);
		r = prof_chunks_open(prof_input_open(path), 8192);
		CHECK(prof_chunks_read_all(r, n - 1, &len) == NULL);
		prof_chunks_close(r);
		r = prof_chunks_open(prof_input_open(path), 8192);
		prof_chunks_peek(r, 1000, &len);	/* peeked bytes alone over max */
		CHECK(prof_chunks_read_all(r, 10, &len) == NULL);
		prof_chunks_close(r);
		unlink(path);
		free(path);
		free(s);
	}
	prof_set_max_line(0);
	return UNIT_RESULT();
}
