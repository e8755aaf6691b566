#ifndef PROF_ERROR_H
#define PROF_ERROR_H
/*
 * Diagnostics and exit codes shared by every proftools program.
 *
 * Messages go to stderr as "prog: message" (lowercase, no trailing period).
 * Input problems carry their position: "prog: file:line: message".
 * Only data goes to stdout; everything here writes to stderr.
 *
 * Exit codes are the same in every tool (STYLE.md §3):
 *   0  success
 *   1  failure, including "some input was bad, the rest was processed"
 *   2  usage error
 * Tools that run a command exit with that command's status instead
 * (see proc.h).
 */
#include <stdarg.h>

enum {
	PROF_EXIT_OK = 0,
	PROF_EXIT_FAIL = 1,
	PROF_EXIT_USAGE = 2,
};

#if defined(__GNUC__)
#define PROF_NORETURN __attribute__((noreturn))
#define PROF_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PROF_NORETURN
#define PROF_PRINTF(f, a)
#endif

/* The program name used as message prefix; "proftools" until set. */
extern const char *prof_progname;

/* Verbosity for prof_info(): 0 with -q, 1 by default, 2+ with -v. */
extern int prof_verbosity;

/*
 * While nonzero, warnings are not printed: for a second, quiet reading
 * of an input that is read again, and reported then (profreport reads
 * the files its summary uses, then the sections that show them).
 */
extern int prof_warn_muted;
/*
 * Called before every message on stderr (prof_warn(), prof_info(), ...),
 * NULL: nothing. base/term.h's progress line sets it to blank itself out,
 * so that a message never lands in the middle of it.
 */
extern void (*prof_before_message)(void);

/* Set prof_progname from argv[0] (its basename). Call first in main. */
void prof_set_progname(const char *argv0);

/* "prog: message\n" on stderr. */
void prof_warn(const char *fmt, ...) PROF_PRINTF(1, 2);

/* "prog: message: strerror(errno)\n" on stderr; errno is preserved. */
void prof_warn_errno(const char *fmt, ...) PROF_PRINTF(1, 2);

/* "prog: file:line: message\n"; line 0 omits the line number. */
void prof_input_warn(const char *file, unsigned long line, const char *fmt, ...)
	PROF_PRINTF(3, 4);

/* prof_warn() then exit(PROF_EXIT_FAIL). */
PROF_NORETURN void prof_die(const char *fmt, ...) PROF_PRINTF(1, 2);

/* prof_warn_errno() then exit(PROF_EXIT_FAIL). */
PROF_NORETURN void prof_die_errno(const char *fmt, ...) PROF_PRINTF(1, 2);

/*
 * Usage error: "prog: message\n" then "usage: SYNOPSIS\n" on stderr,
 * exit(PROF_EXIT_USAGE). fmt may be NULL to print only the synopsis.
 */
PROF_NORETURN void prof_usage_error(const char *synopsis, const char *fmt, ...)
	PROF_PRINTF(2, 3);

/* Chatter on stderr ("prog: message") when prof_verbosity >= level. */
void prof_info(int level, const char *fmt, ...) PROF_PRINTF(2, 3);

/*
 * Flush and close stdout at the end of main. Returns PROF_EXIT_OK, or
 * reports "prog: write error: ..." and returns PROF_EXIT_FAIL. A closed
 * pipe (EPIPE) is not reported: "| head" is normal use.
 * Call as: return rval | prof_close_stdout();  (both are 0 or 1)
 */
int prof_close_stdout(void);

/* The shared va_list worker behind the functions above. */
void prof_vwarn(const char *prefix, const char *fmt, va_list ap, int errnum);

#endif
