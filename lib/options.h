#ifndef PROF_OPTIONS_H
#define PROF_OPTIONS_H
/*
 * Shared command-line conventions.
 *
 * Every tool accepts the hidden option --list-options, which prints each
 * long option of its getopt_long table as "--name" (with "=" appended when
 * it takes an argument), one per line, and exits 0. The bash and zsh
 * completions call it, so they can never go stale. Add
 *     { "list-options", no_argument, NULL, PROF_OPT_LIST_OPTIONS },
 * to the table and call prof_list_options() from that case.
 */
#include <getopt.h>

#define PROF_OPT_LIST_OPTIONS 0x10000

/* Print the long options of opts (NULL-terminated table), exit 0. */
__attribute__((noreturn)) void prof_list_options(const struct option *opts);

/* Print text to stdout, exit 0 (for --help). */
__attribute__((noreturn)) void prof_help(const char *text);

#endif
