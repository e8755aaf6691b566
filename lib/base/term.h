#ifndef PROF_BASE_TERM_H
#define PROF_BASE_TERM_H
/*
 * What a tool may assume about the terminal its output goes to: its width
 * (tables cut to fit) and whether to colour (--color=auto|always|never,
 * NO_COLOR). Output to a pipe or a file is never cut nor coloured unless
 * asked: scripts read it.
 */

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

/* ANSI SGR sequences the tools use. */
#define PROF_SGR_RED "\033[31m"
#define PROF_SGR_GREEN "\033[32m"
#define PROF_SGR_BOLD_RED "\033[1;31m"
#define PROF_SGR_DIM "\033[2m"
#define PROF_SGR_RESET "\033[0m"

#endif
