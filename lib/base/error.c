#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/error.h"

const char *prof_progname = "proftools";
int prof_verbosity = 1;
int prof_warn_muted;
void (*prof_before_message)(void);

void prof_set_progname(const char *argv0)
{
	const char *slash;

	if (!argv0 || !*argv0)
		return;
	slash = strrchr(argv0, '/');
	prof_progname = slash ? slash + 1 : argv0;
}

void prof_vwarn(const char *prefix, const char *fmt, va_list ap, int errnum)
{
	char msg[4096] = "";

	if (prof_warn_muted)
		return;
	if (fmt)
		vsnprintf(msg, sizeof(msg), fmt, ap);
	if (prof_before_message)
		prof_before_message();
	/* One call per message: unbuffered stderr writes it in one piece. */
	fprintf(stderr, "%s: %s%s%s%s\n", prof_progname, prefix ? prefix : "", msg,
		errnum ? ": " : "", errnum ? strerror(errnum) : "");
}

void prof_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	prof_vwarn(NULL, fmt, ap, 0);
	va_end(ap);
}

void prof_warn_errno(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	prof_vwarn(NULL, fmt, ap, saved);
	va_end(ap);
	errno = saved;
}

void prof_input_warn(const char *file, unsigned long line, const char *fmt, ...)
{
	char prefix[1024];
	va_list ap;

	if (line)
		snprintf(prefix, sizeof(prefix), "%s:%lu: ", file, line);
	else
		snprintf(prefix, sizeof(prefix), "%s: ", file);
	va_start(ap, fmt);
	prof_vwarn(prefix, fmt, ap, 0);
	va_end(ap);
}

void prof_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	prof_vwarn(NULL, fmt, ap, 0);
	va_end(ap);
	exit(PROF_EXIT_FAIL);
}

void prof_die_errno(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	prof_vwarn(NULL, fmt, ap, saved);
	va_end(ap);
	exit(PROF_EXIT_FAIL);
}

void prof_usage_error(const char *synopsis, const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		prof_vwarn(NULL, fmt, ap, 0);
		va_end(ap);
	}
	if (synopsis)
		fprintf(stderr, "usage: %s\n", synopsis);
	exit(PROF_EXIT_USAGE);
}

void prof_info(int level, const char *fmt, ...)
{
	va_list ap;

	if (prof_verbosity < level)
		return;
	va_start(ap, fmt);
	prof_vwarn(NULL, fmt, ap, 0);
	va_end(ap);
}

int prof_close_stdout(void)
{
	int failed = fflush(stdout) != 0 || ferror(stdout);
	int err = errno;

	/*
	 * EBADF from the close alone: fd 1 was closed (">&-") and stdio had
	 * nothing to write; the output layer already said what it lost.
	 */
	if (fclose(stdout) != 0 && !failed && errno != EBADF) {
		failed = 1;
		err = errno;
	}
	if (!failed)
		return PROF_EXIT_OK;
	if (err != EPIPE) {
		errno = err;
		prof_warn_errno("write error");
	}
	return PROF_EXIT_FAIL;
}
