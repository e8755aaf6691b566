#ifndef PROF_UNIT_H
#define PROF_UNIT_H
/*
 * A minimal unit-test harness: each CHECK prints nothing when it holds;
 * each TEST(name) block ends with "PASS file: name" or "FAIL file: name: why"
 * (the lines tests/run.sh counts). main() returns 1 if anything failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int unit_failed_total;
static int unit_failed_here;
static const char *unit_name;

#define UNIT_SUITE (strrchr(__FILE__, '/') ? strrchr(__FILE__, '/') + 1 : __FILE__)

#define TEST(name) for (unit_name = (name), unit_failed_here = 0; unit_name; \
	printf(unit_failed_here ? "" : "PASS %s: %s\n", UNIT_SUITE, unit_name), unit_name = NULL)

#define CHECK(cond) do {                                                      \
	if (!(cond) && !unit_failed_here) {                                   \
		printf("FAIL %s: %s: line %d: %s\n", UNIT_SUITE, unit_name,    \
		       __LINE__, #cond);                                      \
		unit_failed_here = 1;                                         \
		unit_failed_total++;                                          \
	}                                                                     \
} while (0)

#define CHECK_STR(a, b) CHECK(strcmp((a), (b)) == 0)
#define CHECK_MEM(a, b, n) CHECK(memcmp((a), (b), (n)) == 0)

#define UNIT_RESULT() (unit_failed_total ? 1 : 0)

/* A new temporary file holding text; its malloc'ed path (the caller removes it). */
static inline char *unit_temp_file(const char *text)
{
	char *path = strdup("/tmp/unit_test.XXXXXX");
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	fputs(text, f);
	fclose(f);
	return path;
}

#endif
