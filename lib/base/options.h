#ifndef PROF_OPTIONS_H
#define PROF_OPTIONS_H
/*
 * Shared command-line conventions.
 *
 * Every tool accepts the hidden option --list-options, which prints each
 * long option of its getopt_long table as "--name" (with "=" appended when
 * it takes a required argument), one per line, and exits 0. The bash and
 * zsh completions call it, so they can never go stale. Add
 *     { "list-options", no_argument, NULL, PROF_OPT_LIST_OPTIONS },
 * to the table and call prof_list_options() from that case.
 *
 * An option whose argument is one of a fixed set of words declares them
 * in a prof_option_values table given to prof_list_option_values(): its
 * line then carries them, "--colors=hot,mem,io", and when the option also
 * has a short letter a second line names it, "-r=alloc,count" (short
 * lines only ever follow the long ones; completions offer values after
 * either spelling and never offer the short lines as options).
 */
#include <getopt.h>

#define PROF_OPT_LIST_OPTIONS 0x10000

/* The possible words of one option's argument. */
struct prof_option_values {
	const char *name;   /* long option name, without "--" */
	const char *values; /* comma-separated words */
};

/* Print the long options of opts (NULL-terminated table), exit 0. */
__attribute__((noreturn)) void prof_list_options(const struct option *opts);

/* The same, with value lists (table ends with a NULL name; may be NULL). */
__attribute__((noreturn)) void prof_list_option_values(const struct option *opts,
						       const struct prof_option_values *values);

/*
 * getopt_long() whose own messages ("unrecognized option", "option
 * requires an argument") start with the tool's name (prof_progname) like
 * every other message, not with argv[0] as typed ("bin/proffold: ...").
 */
int prof_getopt_long(int argc, char *const argv[], const char *shortopts,
		     const struct option *longopts, int *longind);

/*
 * The --help lines of every tool that reads input lines (the cap itself is
 * io/input.h's prof_max_line()): one text, so the tools say the same; their
 * man pages' ENVIRONMENT sections say it too (tests/long-lines.sh checks).
 */
#define PROF_MAX_LINE_HELP \
	"Environment: PROFTOOLS_MAX_LINE=SIZE caps an input line (default 16M); a\n" \
	"longer line is reported with its file:line and ends the reading.\n"

/* Print text to stdout, exit 0 (for --help). */
__attribute__((noreturn)) void prof_help(const char *text);

#endif
