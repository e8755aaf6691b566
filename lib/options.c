#include <stdio.h>
#include <stdlib.h>
#include "error.h"
#include "options.h"

void prof_list_options(const struct option *opts)
{
	for (; opts->name; opts++) {
		if (opts->val == PROF_OPT_LIST_OPTIONS)
			continue;
		printf("--%s%s\n", opts->name, opts->has_arg == required_argument ? "=" : "");
	}
	exit(prof_close_stdout());
}

void prof_help(const char *text)
{
	fputs(text, stdout);
	exit(prof_close_stdout());
}
