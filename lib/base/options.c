#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/error.h"
#include "base/options.h"

static const char *values_of(const struct prof_option_values *values, const char *name)
{
	for (; values && values->name; values++)
		if (strcmp(values->name, name) == 0)
			return values->values;
	return NULL;
}

void prof_list_option_values(const struct option *opts, const struct prof_option_values *values)
{
	const struct option *o;

	for (o = opts; o->name; o++) {
		const char *v = values_of(values, o->name);

		if (o->val == PROF_OPT_LIST_OPTIONS)
			continue;
		printf("--%s%s%s\n", o->name, o->has_arg == required_argument ? "=" : "",
		       o->has_arg == required_argument && v ? v : "");
	}
	for (o = opts; o->name; o++) {
		const char *v = values_of(values, o->name);

		if (v && o->has_arg == required_argument && !o->flag && o->val > 0 &&
		    o->val < 128 && isalnum(o->val))
			printf("-%c=%s\n", o->val, v);
	}
	exit(prof_close_stdout());
}

void prof_list_options(const struct option *opts)
{
	prof_list_option_values(opts, NULL);
}

int prof_getopt_long(int argc, char *const argv[], const char *shortopts,
		     const struct option *longopts, int *longind)
{
	char **av = (char **)argv;
	char *argv0 = argc > 0 ? av[0] : NULL;
	int c;

	/* glibc's getopt prefixes its messages with argv[0]. */
	if (argc > 0)
		av[0] = (char *)prof_progname;
	c = getopt_long(argc, argv, shortopts, longopts, longind);
	if (argc > 0)
		av[0] = argv0;
	return c;
}

void prof_help(const char *text)
{
	fputs(text, stdout);
	exit(prof_close_stdout());
}
