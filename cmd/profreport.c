/*
 * profreport: one self-contained HTML page from a profiling run
 * directory (what proftools-profile writes: flame graphs, hotspot
 * tables, timelines, summaries).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "base/error.h"
#include "base/options.h"
#include "base/xalloc.h"
#include "io/output.h"
#include "report/report.h"

#define SYNOPSIS "profreport [-hq] [-o file] dir"

static const char help_text[] =
"usage: " SYNOPSIS "\n"
"Write one self-contained HTML page (no network, opens from disk) showing\n"
"what a profiling run directory holds: a summary of the run and its\n"
"findings (proftools-profile(1), FINDINGS), its timelines on one time axis,\n"
"then heat maps (*.heatmap.html), flame graphs (*.svg), hotspot and\n"
"comparison tables (*.tsv), summaries (*.log, *.txt), section by section:\n"
"cpu, offcpu, memory, gpu, host, compare; the run's metadata (run.meta).\n"
"\n"
"  -o, --output=FILE       write FILE instead of DIR/index.html (- for stdout)\n"
"  -q, --quiet             no notes nor progress line on stderr\n"
"  -h, --help              this help\n"
"\n"
PROF_MAX_LINE_HELP
"Exit status: 0 success, 1 nothing to report, unreadable files (the rest is\n"
"shown) or a write error, 2 usage error.\n";

static const struct option long_opts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "list-options", no_argument, NULL, PROF_OPT_LIST_OPTIONS },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	const char *output = NULL;
	char *path = NULL;
	struct prof_output *o;
	unsigned long bad = 0;
	struct stat st;
	int c, rval = PROF_EXIT_OK;

	prof_set_progname(argv[0]);
	while ((c = prof_getopt_long(argc, argv, "ho:q", long_opts, NULL)) != -1) {
		switch (c) {
		case 'h': prof_help(help_text);
		case 'o': output = optarg; break;
		case 'q': prof_verbosity = 0; break;
		case PROF_OPT_LIST_OPTIONS: prof_list_options(long_opts);
		default: prof_usage_error(SYNOPSIS, NULL);
		}
	}
	if (argc - optind != 1)
		prof_usage_error(SYNOPSIS, argc == optind ? "no directory" : "one directory only");
	if (stat(argv[optind], &st) < 0) {
		prof_warn_errno("%s", argv[optind]);
		return PROF_EXIT_FAIL;
	}
	if (!S_ISDIR(st.st_mode)) {
		prof_warn("%s: not a directory", argv[optind]);
		return PROF_EXIT_FAIL;
	}
	if (!output)
		output = path = xasprintf("%s/index.html", argv[optind]);
	o = prof_output_open(output, PROF_OUT_ATOMIC, PROF_COMP_NONE);
	if (!o) {
		free(path);
		return PROF_EXIT_FAIL;
	}
	if (prof_report_write(argv[optind], o, &bad) < 0) {
		prof_output_abort(o);
		rval = PROF_EXIT_FAIL;
	} else {
		if (prof_output_close(o) < 0 || bad)
			rval = PROF_EXIT_FAIL;
		else
			prof_info(1, "report in %s", output);
	}
	free(path);
	return rval | prof_close_stdout();
}
