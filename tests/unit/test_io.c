/* Unit tests: compressed input detection, the line reader, output files. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "input.h"
#include "output.h"
#include "unit.h"
#include "xalloc.h"

static char dir[] = "/tmp/prof-unit-io.XXXXXX";

static char *path_in_dir(const char *name)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

/* Write data through prof_output with compression c, flushing every chunk bytes. */
static int write_file(const char *path, enum prof_compression c, const char *data, size_t len,
		      size_t chunk)
{
	struct prof_output *o = prof_output_open(path, PROF_OUT_STREAM, c);
	size_t off;

	if (!o)
		return -1;
	for (off = 0; off < len; off += chunk) {
		size_t n = len - off < chunk ? len - off : chunk;

		prof_output_write(o, data + off, n);
		prof_output_flush(o);
	}
	return prof_output_close(o);
}

static size_t count_lines(const char *path, size_t *bytes, int *failed)
{
	struct prof_lines *lr = prof_lines_open(path);
	size_t n = 0, len;
	char *line;

	*bytes = 0;
	while ((line = prof_lines_next(lr, &len)) != NULL) {
		n++;
		*bytes += len;
	}
	*failed = prof_lines_failed(lr);
	prof_lines_close(lr);
	return n;
}

static void test_lines_basic(void)
{
	TEST("lines: empty input") {
		struct prof_lines *lr = prof_lines_from_mem("mem", "", 0);
		size_t len;

		CHECK(prof_lines_next(lr, &len) == NULL);
		CHECK(!prof_lines_failed(lr));
		prof_lines_close(lr);
	}
	TEST("lines: no trailing newline, CRLF, numbering") {
		static const char text[] = "one\r\ntwo\n\nlast";
		struct prof_lines *lr = prof_lines_from_mem("mem", text, sizeof(text) - 1);
		size_t len;
		char *l;

		l = prof_lines_next(lr, &len);
		CHECK(l && len == 3 && strcmp(l, "one") == 0);
		l = prof_lines_next(lr, &len);
		CHECK(l && strcmp(l, "two") == 0 && prof_lines_lineno(lr) == 2);
		l = prof_lines_next(lr, &len);
		CHECK(l && len == 0);
		CHECK(!prof_lines_unterminated(lr));
		l = prof_lines_next(lr, &len);
		CHECK(l && strcmp(l, "last") == 0 && prof_lines_unterminated(lr));
		CHECK(prof_lines_lineno(lr) == 4);
		CHECK(prof_lines_next(lr, &len) == NULL);
		prof_lines_close(lr);
	}
	TEST("lines: NUL bytes inside a line keep their length") {
		static const char text[] = "a\0b\nc";
		struct prof_lines *lr = prof_lines_from_mem("mem", text, 5);
		size_t len;
		char *l = prof_lines_next(lr, &len);

		CHECK(l && len == 3 && l[1] == '\0' && l[2] == 'b');
		prof_lines_close(lr);
	}
	TEST("lines: a 10 MB line between short ones") {
		size_t big = 10 * 1024 * 1024, len;
		char *text = xmalloc(big + 16);
		struct prof_lines *lr;
		char *l;

		memcpy(text, "x\n", 2);
		memset(text + 2, 'y', big);
		memcpy(text + 2 + big, "\nz\n", 3);
		lr = prof_lines_from_mem("mem", text, big + 5);
		l = prof_lines_next(lr, &len);
		CHECK(l && len == 1);
		l = prof_lines_next(lr, &len);
		CHECK(l && len == big && l[0] == 'y' && l[big - 1] == 'y' && l[big] == '\0');
		l = prof_lines_next(lr, &len);
		CHECK(l && len == 1 && l[0] == 'z');
		CHECK(prof_lines_next(lr, &len) == NULL);
		prof_lines_close(lr);
		free(text);
	}
	TEST("lines: missing file is an error, reported") {
		CHECK(prof_lines_open("/nonexistent/file") == NULL);
	}
}

static void test_compression(void)
{
	static const enum prof_compression kinds[] = {
		PROF_COMP_NONE, PROF_COMP_GZIP, PROF_COMP_ZSTD, PROF_COMP_LZ4,
	};
	size_t n = 200000, i, k;
	char *data = xmalloc(n * 16);
	size_t len = 0;

	for (i = 0; i < n; i++)
		len += (size_t)sprintf(data + len, "line %zu;a;b\n", i);
	for (k = 0; k < 4; k++) {
		char name[64], title[96];
		size_t bytes;
		int failed;

		snprintf(name, sizeof(name), "data.%s", prof_compression_name(kinds[k]));
		snprintf(title, sizeof(title), "%s: round trip with frames flushed mid-stream",
			 prof_compression_name(kinds[k]));
		TEST(title) {
			CHECK(write_file(path_in_dir(name), kinds[k], data, len, 100000) == 0);
			CHECK(count_lines(path_in_dir(name), &bytes, &failed) == n);
			CHECK(bytes == len - n);
			CHECK(!failed);
		}
		if (kinds[k] == PROF_COMP_NONE)
			continue;
		snprintf(title, sizeof(title), "%s: truncated stream is an error, data before kept",
			 prof_compression_name(kinds[k]));
		TEST(title) {
			struct stat st;
			const char *p = path_in_dir(name);
			size_t lines;

			CHECK(stat(p, &st) == 0);
			CHECK(truncate(p, st.st_size * 6 / 10) == 0);
			lines = count_lines(p, &bytes, &failed);
			CHECK(failed);
			CHECK(lines > 0 && lines < n);
		}
		snprintf(title, sizeof(title), "%s: detected by magic, not by name",
			 prof_compression_name(kinds[k]));
		TEST(title) {
			struct prof_input *in;
			char b[16];

			CHECK(write_file(path_in_dir("noext"), kinds[k], "hello\n", 6, 6) == 0);
			in = prof_input_open(path_in_dir("noext"));
			CHECK(in && prof_input_read(in, b, sizeof(b)) == 6);
			CHECK(prof_input_compression(in) == kinds[k]);
			prof_input_close(in);
		}
	}
	TEST("gzip: garbage after magic is reported as corrupt") {
		static const char bad[] = "\x1f\x8b\x08\x00garbage garbage garbage";
		struct prof_lines *lr = prof_lines_from_mem("bad.gz", bad, sizeof(bad) - 1);
		size_t l;

		while (prof_lines_next(lr, &l))
			;
		CHECK(prof_lines_failed(lr));
		prof_lines_close(lr);
	}
	free(data);
}

static void test_output(void)
{
	TEST("atomic output: nothing at the destination until close") {
		const char *p = path_in_dir("atomic.txt");
		struct prof_output *o = prof_output_open(p, PROF_OUT_ATOMIC, PROF_COMP_NONE);

		CHECK(o != NULL);
		prof_output_puts(o, "abc\n");
		prof_output_flush(o);
		CHECK(access(p, F_OK) != 0);
		CHECK(prof_output_close(o) == 0);
		CHECK(access(p, F_OK) == 0);
	}
	TEST("atomic output: abort leaves the old file") {
		const char *p = path_in_dir("atomic.txt");
		struct prof_output *o = prof_output_open(p, PROF_OUT_ATOMIC, PROF_COMP_NONE);
		size_t len;
		char *s;

		prof_output_puts(o, "new contents\n");
		prof_output_abort(o);
		s = prof_read_file(p, &len);
		CHECK(s && strcmp(s, "abc\n") == 0);
		free(s);
	}
	TEST("output: unwritable directory fails at open") {
		CHECK(prof_output_open("/nonexistent/dir/x", PROF_OUT_ATOMIC, PROF_COMP_NONE) == NULL);
	}
	TEST("output: suffixes pick compression") {
		CHECK(prof_compression_from_suffix("a.zst") == PROF_COMP_ZSTD);
		CHECK(prof_compression_from_suffix("a.gz") == PROF_COMP_GZIP);
		CHECK(prof_compression_from_suffix("a.lz4") == PROF_COMP_LZ4);
		CHECK(prof_compression_from_suffix("a.txt") == PROF_COMP_NONE);
		CHECK(prof_compression_from_suffix("zst") == PROF_COMP_NONE);
	}
}

int main(void)
{
	char cmd[128];

	if (!mkdtemp(dir))
		return 1;
	test_lines_basic();
	test_compression();
	test_output();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	return UNIT_RESULT();
}
