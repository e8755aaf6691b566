#ifndef PROF_FUZZ_H
#define PROF_FUZZ_H
/*
 * What the libFuzzer targets of tests/fuzz/ share (tests/fuzz/README).
 *
 * Each fuzz_NAME.c defines LLVMFuzzerTestOneInput() and calls one lib/
 * parser on the input, the way a tool would. Inputs reach readers that
 * only take a path through a memfd ("/proc/self/fd/N"), so no test-only
 * API is needed in lib/. Diagnostics (prof_warn) are silenced, as they
 * would slow the fuzzer to the speed of the terminal; FUZZ_VERBOSE=1 in
 * the environment keeps them. Sanitizer reports go to file descriptor 2
 * and are not affected.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "base/error.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline void fuzz_quiet(void)
{
	const char *v = getenv("FUZZ_VERBOSE");
	FILE *null;

	prof_set_progname("fuzz");
	if (v && *v && strcmp(v, "0") != 0)
		return;
	/* libFuzzer took its own copy of the stderr FILE pointer already */
	null = fopen("/dev/null", "w");
	if (null)
		stderr = null;
}

/* Every target starts quiet (fuzz_quiet). One definition per target: fuzz.h is included once. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet();
	return 0;
}

/* The input as a file: a path valid until the next call. */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
	static char path[64];
	static int fd = -1;

	if (fd < 0) {
		fd = memfd_create("fuzz-input", MFD_CLOEXEC);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	return path;
}

/* The input as a NUL-terminated malloc'ed string (NUL bytes inside kept). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif
