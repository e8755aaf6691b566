/* lib/base/sysfile.c: small /proc and /sys files read in one go. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../unit.h"
#include "base/sysfile.h"

static char dir[] = "/tmp/test_sysfile.XXXXXX";

static const char *put(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

int main(void)
{
	char buf[16];

	if (!mkdtemp(dir))
		return 2;
	TEST("whole file, NUL-terminated, cut at size - 1") {
		CHECK(prof_read_small_file(put("a", "hello\n"), buf, sizeof(buf)) == 6);
		CHECK_STR(buf, "hello\n");
		CHECK(prof_read_small_file(put("b", "0123456789abcdefghij"), buf, sizeof(buf)) == 15);
		CHECK_STR(buf, "0123456789abcde");
	}
	TEST("a line loses its newline (and CR)") {
		CHECK(prof_read_file_line(put("c", "bash\r\n"), buf, sizeof(buf)) == 4);
		CHECK_STR(buf, "bash");
		CHECK(prof_read_file_line(put("d", ""), buf, sizeof(buf)) == 0);
		CHECK_STR(buf, "");
	}
	TEST("missing file: -1 and an empty buffer") {
		strcpy(buf, "x");
		CHECK(prof_read_small_file("/nonexistent/x", buf, sizeof(buf)) == -1);
		CHECK_STR(buf, "");
	}
	TEST("integers: value, default when missing or not a number") {
		CHECK(prof_read_file_ll(put("e", "  -3\n"), 7) == -3);
		CHECK(prof_read_file_ll(put("f", "x1\n"), 7) == 7);
		CHECK(prof_read_file_ll("/nonexistent/x", 9) == 9);
		CHECK(prof_read_file_ll("/proc/sys/kernel/pid_max", 0) > 0);
	}
	TEST("key lookup: colon and tab forms, first match, missing key") {
		char out[32];
		const char *p = put("g", "model name\t: Fancy CPU 3000\nName:\tbash\nName:\tother\n");

		CHECK(prof_read_file_key(p, "model name", out, sizeof(out)) == 0);
		CHECK_STR(out, "Fancy CPU 3000");
		CHECK(prof_read_file_key(p, "Name", out, sizeof(out)) == 0);
		CHECK_STR(out, "bash");
		CHECK(prof_read_file_key(p, "Pid", out, sizeof(out)) == -1);
		CHECK_STR(out, "");
		CHECK(prof_read_file_key("/proc/self/status", "Pid", out, sizeof(out)) == 0);
		CHECK(atoi(out) == getpid());
	}
	for (const char *n = "abcdefg"; *n; n++) {
		char path[256];

		snprintf(path, sizeof(path), "%s/%c", dir, *n);
		unlink(path);
	}
	rmdir(dir);
	return UNIT_RESULT();
}
