/* Unit tests: compressed input detection, the line reader, output files. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include "io/input.h"
#include "io/output.h"
#include "../unit.h"
#include "base/xalloc.h"

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

/* Write s to path through prof_output in mode m; returns close's result. */
static int put(const char *path, enum prof_out_mode m, const char *s)
{
	struct prof_output *o = prof_output_open(path, m, PROF_COMP_NONE);

	if (!o)
		return -2;
	prof_output_puts(o, s);
	return prof_output_close(o);
}

static int file_is(const char *path, const char *want)
{
	size_t len;
	char *s = prof_read_file(path, &len);
	int ok = s && len == strlen(want) && memcmp(s, want, len) == 0;

	free(s);
	return ok;
}

/* Names in the test directory starting with ".": temporary files left. */
static int temp_files_left(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)) != NULL)
		if (e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	if (d)
		closedir(d);
	return n;
}

static void test_output_targets(void)
{
	static const enum prof_out_mode modes[] = { PROF_OUT_ATOMIC, PROF_OUT_STREAM };

	for (int mi = 0; mi < 2; mi++) {
		enum prof_out_mode m = modes[mi];
		char title[128], p[256], q[256];
		struct stat st;

		snprintf(title, sizeof(title), "%s output: a replaced file keeps mode 0640 and its group",
			 m == PROF_OUT_ATOMIC ? "atomic" : "stream");
		TEST(title) {
			snprintf(p, sizeof(p), "%s/perm.txt", dir);
			unlink(p);
			CHECK(put(p, m, "old\n") == 0);
			CHECK(chmod(p, 0640) == 0);
			if (geteuid() == 0)
				CHECK(chown(p, 0, 65534) == 0);
			CHECK(put(p, m, "new\n") == 0);
			CHECK(stat(p, &st) == 0);
			CHECK((st.st_mode & 07777) == 0640);
			if (geteuid() == 0)
				CHECK(st.st_gid == 65534 && st.st_uid == 0);
			CHECK(file_is(p, "new\n"));
			CHECK(temp_files_left() == 0);
		}
		snprintf(title, sizeof(title), "%s output: a symlink stays a link, its target is replaced",
			 m == PROF_OUT_ATOMIC ? "atomic" : "stream");
		TEST(title) {
			snprintf(p, sizeof(p), "%s/target.txt", dir);
			snprintf(q, sizeof(q), "%s/link.txt", dir);
			unlink(p);
			unlink(q);
			CHECK(put(p, PROF_OUT_ATOMIC, "old\n") == 0);
			CHECK(symlink("target.txt", q) == 0);	/* relative to the link */
			CHECK(put(q, m, "new\n") == 0);
			CHECK(lstat(q, &st) == 0 && S_ISLNK(st.st_mode));
			CHECK(file_is(p, "new\n"));
			/* A dangling link: its target is created, the link kept. */
			CHECK(unlink(p) == 0);
			CHECK(put(q, m, "created\n") == 0);
			CHECK(lstat(q, &st) == 0 && S_ISLNK(st.st_mode));
			CHECK(file_is(p, "created\n"));
			CHECK(temp_files_left() == 0);
		}
		snprintf(title, sizeof(title), "%s output: a FIFO is written in place",
			 m == PROF_OUT_ATOMIC ? "atomic" : "stream");
		TEST(title) {
			char got[64] = "";
			pid_t pid;
			int fds[2], status;
			ssize_t n;

			snprintf(p, sizeof(p), "%s/fifo", dir);
			unlink(p);
			CHECK(mkfifo(p, 0600) == 0);
			CHECK(pipe(fds) == 0);
			pid = fork();
			if (pid == 0) {
				/* The reader: copy what comes through the FIFO to the pipe. */
				char buf[64];
				int fd = open(p, O_RDONLY);

				close(fds[0]);
				while ((n = read(fd, buf, sizeof(buf))) > 0)
					if (write(fds[1], buf, (size_t)n) != n)
						_exit(1);
				_exit(0);
			}
			close(fds[1]);
			CHECK(put(p, m, "through the fifo\n") == 0);
			n = read(fds[0], got, sizeof(got) - 1);
			CHECK(n == 17 && strcmp(got, "through the fifo\n") == 0);
			close(fds[0]);
			waitpid(pid, &status, 0);
			CHECK(lstat(p, &st) == 0 && S_ISFIFO(st.st_mode));
			CHECK(temp_files_left() == 0);
		}
		snprintf(title, sizeof(title), "%s output: device nodes are written in place, a full one fails",
			 m == PROF_OUT_ATOMIC ? "atomic" : "stream");
		TEST(title) {
			snprintf(p, sizeof(p), "%s/null", dir);
			snprintf(q, sizeof(q), "%s/full", dir);
			unlink(p);
			unlink(q);
			if (mknod(p, S_IFCHR | 0666, makedev(1, 3)) < 0 ||
			    mknod(q, S_IFCHR | 0666, makedev(1, 7)) < 0) {
				printf("SKIP %s: %s: mknod: %s\n", UNIT_SUITE, title, strerror(errno));
				unit_name = NULL;
				break;
			}
			CHECK(put(p, m, "discarded\n") == 0);
			CHECK(lstat(p, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3));
			CHECK(put(q, m, "no room\n") == -1);
			CHECK(lstat(q, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 7));
			CHECK(temp_files_left() == 0);
		}
	}
	TEST("output: an open file named through /proc (a pipe as /proc/self/fd/N) is written in place") {
		char p[256], q[256], got[64] = "";
		struct stat st;
		int fds[2];

		CHECK(pipe(fds) == 0);
		snprintf(p, sizeof(p), "/proc/self/fd/%d", fds[1]);
		CHECK(put(p, PROF_OUT_ATOMIC, "piped\n") == 0);
		/* And through a link of ours pointing there. */
		snprintf(q, sizeof(q), "%s/to-pipe", dir);
		unlink(q);
		CHECK(symlink(p, q) == 0);
		CHECK(put(q, PROF_OUT_STREAM, "again\n") == 0);
		close(fds[1]);
		CHECK(read(fds[0], got, sizeof(got) - 1) == 12);
		CHECK_STR(got, "piped\nagain\n");
		close(fds[0]);
		CHECK(lstat(q, &st) == 0 && S_ISLNK(st.st_mode));
		unlink(q);
	}
	TEST("output: a directory is refused, a hard link is replaced (its other name keeps the old data)") {
		char p[256], q[256];
		struct stat st;

		snprintf(p, sizeof(p), "%s/hard1", dir);
		snprintf(q, sizeof(q), "%s/hard2", dir);
		CHECK(put(dir, PROF_OUT_ATOMIC, "x\n") == -2);
		CHECK(put(p, PROF_OUT_ATOMIC, "old\n") == 0);
		CHECK(link(p, q) == 0);
		CHECK(put(p, PROF_OUT_ATOMIC, "new\n") == 0);
		CHECK(file_is(p, "new\n") && file_is(q, "old\n"));
		CHECK(stat(p, &st) == 0 && st.st_nlink == 1);
		unlink(q);
	}
	TEST("stream output: the old file stays whole until close, whole lines only in the temporary") {
		char p[256], tmp[300] = "";
		struct prof_output *o;
		DIR *d;
		struct dirent *e;
		char *s;
		size_t len;

		snprintf(p, sizeof(p), "%s/rec.tsv", dir);
		CHECK(put(p, PROF_OUT_ATOMIC, "old good file\n") == 0);
		o = prof_output_open(p, PROF_OUT_STREAM, PROF_COMP_NONE);
		CHECK(o != NULL);
		/* 300 KB of 10-byte lines then half a line: more than the buffer. */
		for (int i = 0; i < 30000; i++)
			prof_output_puts(o, "123456789\n");
		prof_output_puts(o, "12345");
		CHECK(file_is(p, "old good file\n"));
		d = opendir(dir);
		while (d && (e = readdir(d)) != NULL)
			if (strncmp(e->d_name, ".rec.tsv.", 9) == 0)
				snprintf(tmp, sizeof(tmp), "%s/%s", dir, e->d_name);
		if (d)
			closedir(d);
		CHECK(tmp[0] != '\0');
		s = prof_read_file(tmp, &len);
		CHECK(s && len > 0 && len % 10 == 0 && s[len - 1] == '\n');
		free(s);
		prof_output_puts(o, "6789\n");
		CHECK(prof_output_close(o) == 0);
		s = prof_read_file(p, &len);
		CHECK(s && len == 300010 && s[len - 1] == '\n');
		free(s);
		CHECK(temp_files_left() == 0);
	}
	TEST("stream output: abort and a write error keep the old file and remove the temporary") {
		char p[256];
		struct prof_output *o;
		struct rlimit old, small = { 65536, RLIM_INFINITY };
		char line[101];
		int r;

		snprintf(p, sizeof(p), "%s/rec.tsv", dir);
		CHECK(put(p, PROF_OUT_ATOMIC, "old good file\n") == 0);
		o = prof_output_open(p, PROF_OUT_STREAM, PROF_COMP_NONE);
		prof_output_puts(o, "interrupted\n");
		prof_output_flush(o);
		prof_output_abort(o);
		CHECK(file_is(p, "old good file\n"));
		CHECK(temp_files_left() == 0);
		/* A file-size limit makes writes fail with EFBIG, as a full disk would. */
		memset(line, 'x', 99);
		line[99] = '\n';
		line[100] = '\0';
		signal(SIGXFSZ, SIG_IGN);
		getrlimit(RLIMIT_FSIZE, &old);
		small.rlim_max = old.rlim_max;
		CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0);
		o = prof_output_open(p, PROF_OUT_STREAM, PROF_COMP_NONE);
		for (int i = 0; i < 10000; i++)
			prof_output_puts(o, line);
		r = prof_output_close(o);
		setrlimit(RLIMIT_FSIZE, &old);
		signal(SIGXFSZ, SIG_DFL);
		CHECK(r == -1);
		CHECK(file_is(p, "old good file\n"));
		CHECK(temp_files_left() == 0);
	}
}

/* prof_open_regular / prof_check_regular: a FIFO is refused without blocking. */
static void test_open_regular(void)
{
	TEST("prof_open_regular: a regular file opens; a FIFO, a device, a directory are refused") {
		char *fifo = xstrdup(path_in_dir("named-pipe")), err[128];
		int fd;

		CHECK(write_file(path_in_dir("plain"), PROF_COMP_NONE, "x\n", 2, 2) == 0);
		fd = prof_open_regular(path_in_dir("plain"), err, sizeof(err));
		CHECK(fd >= 0 && (fcntl(fd, F_GETFL) & O_NONBLOCK) == 0);
		if (fd >= 0)
			close(fd);
		CHECK(prof_check_regular(path_in_dir("plain"), err, sizeof(err)) == 0);
		CHECK(mkfifo(fifo, 0600) == 0);
		alarm(20);	/* the old open blocked for ever */
		CHECK(prof_open_regular(fifo, err, sizeof(err)) < 0 && errno == EINVAL);
		CHECK_STR(err, "not a regular file (a FIFO)");
		alarm(0);
		CHECK(prof_check_regular(fifo, err, sizeof(err)) < 0);
		CHECK_STR(err, "not a regular file (a FIFO)");
		CHECK(prof_open_regular("/dev/zero", err, sizeof(err)) < 0);
		CHECK_STR(err, "not a regular file (a character device)");
		CHECK(prof_open_regular(dir, err, sizeof(err)) < 0);
		CHECK_STR(err, "not a regular file (a directory)");
		CHECK(prof_open_regular(path_in_dir("missing"), err, sizeof(err)) < 0 && errno == ENOENT);
		CHECK_STR(err, strerror(ENOENT));
		free(fifo);
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
	test_output_targets();
	test_open_regular();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	TEST("prepend: a line on top of a file, compressed as its suffix says") {
		char path[] = "/tmp/unit_prepend.XXXXXX", name[64], *data;
		size_t len = 0;
		struct prof_output *o;
		int fd = mkstemp(path);

		close(fd);
		unlink(path);
		snprintf(name, sizeof(name), "%s.zst", path);
		o = prof_output_open(name, PROF_OUT_STREAM, PROF_COMP_ZSTD);
		CHECK(o && prof_output_puts(o, "a\tb\n1\t2\n") == 0 && prof_output_close(o) == 0);
		CHECK(prof_output_prepend(name, "# stopped_by=SIGTERM\n") == 0);
		data = prof_read_file(name, &len);
		CHECK(data && strcmp(data, "# stopped_by=SIGTERM\na\tb\n1\t2\n") == 0);
		free(data);
		unlink(name);
		CHECK(prof_output_prepend(name, "x\n") == -1);	/* reported: no file */
	}
	return UNIT_RESULT();
}
