#ifndef PROF_BASE_TERM_H
#define PROF_BASE_TERM_H
/*
 * What a tool may assume about the terminal its output goes to: its width
 * (tables cut to fit), whether to colour (--color=auto|always|never,
 * NO_COLOR), and the progress line of long work on stderr. Output to a
 * pipe or a file is never cut nor coloured unless asked, and gets no
 * progress line: scripts and logs read it.
 */
#include <stddef.h>

enum prof_color_mode { PROF_COLOR_AUTO, PROF_COLOR_ALWAYS, PROF_COLOR_NEVER };

/* "auto", "always" or "never" (also "yes"/"no"); -1 for anything else. */
int prof_color_parse(const char *arg);

/*
 * Whether to colour output written to fd: always: yes; never: no; auto:
 * when fd is a terminal, $NO_COLOR is unset or empty (no-color.org) and
 * $TERM is not "dumb".
 */
int prof_color_on(enum prof_color_mode mode, int fd);

/*
 * The width of the terminal fd writes to, in columns; 0 when fd is not a
 * terminal (no limit). $COLUMNS, when a number, overrides the terminal's
 * own answer, as ls(1) lets it.
 */
unsigned prof_term_width(int fd);

/*
 * s cut to at most width columns (bytes of a UTF-8 character counted as
 * one column; wide characters are not measured) into buf (n bytes): when
 * it is longer, its first width - 1 characters and '~'. width 0: no limit
 * but buf's (cut the same way at n - 1 bytes). Returns buf.
 */
char *prof_term_cut(char *buf, size_t n, const char *s, size_t width);

/*
 * The same, cutting the start instead: '~' and the last width - 1
 * characters, for file names, whose end says most.
 */
char *prof_term_cut_start(char *buf, size_t n, const char *s, size_t width);

/*
 * The progress line of long work: one line on stderr, rewritten in place
 * ("\r"), cut to the terminal's width so that "\r" gets back to its start,
 * shown only when stderr is a terminal and prof_verbosity > 0 (not -q):
 * never in a pipe or a file. Messages through base/error.h blank it out
 * first (prof_before_message); the next prof_progress_show() draws it
 * again. One progress line at a time; end it with prof_progress_end().
 */
struct prof_progress {
	int on;			/* stderr is a terminal and not -q */
	unsigned width;		/* its columns */
	size_t shown;		/* columns of the line on screen, 0: none */
	char line[512];		/* the last line shown (to show it again) */
};

/*
 * Decide whether p is shown (stderr a terminal, prof_verbosity > 0) and
 * make it the line that messages blank out.
 */
void prof_progress_init(struct prof_progress *p);

/* Blank the line out for good: the prompt or what follows starts clean. */
void prof_progress_end(struct prof_progress *p);

/* Replace the line by the printf-formatted text (nothing when p is off). */
void prof_progress_show(struct prof_progress *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Blank out the line (before another message, and at the end). */
void prof_progress_clear(struct prof_progress *p);

/* Show the last line again (after prof_progress_clear() and a message). */
void prof_progress_redraw(struct prof_progress *p);

/* ANSI SGR sequences the tools use. */
#define PROF_SGR_RED "\033[31m"
#define PROF_SGR_GREEN "\033[32m"
#define PROF_SGR_BOLD_RED "\033[1;31m"
#define PROF_SGR_DIM "\033[2m"
#define PROF_SGR_RESET "\033[0m"

#endif
