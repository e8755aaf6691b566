/*
 * profcmp: compare profiles function by function, or benchmark tables
 * row by row, one run or several a side, and gate regressions for CI.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/buf.h"
#include "base/error.h"
#include "base/options.h"
#include "base/term.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "compare/functions.h"
#include "compare/table.h"
#include "core/meta.h"
#include "core/stack.h"
#include "formats/profile.h"
#include "io/input.h"
#include "io/output.h"

#define SYNOPSIS "profcmp [-hqt] [-e event] [-n count] [-o file] [--option ...] base new\n" \
	"       profcmp [-hqt] [-e event] [-n count] [-o file] [--option ...] base ... -- new ..."

static const char help_text[] =
"usage: " SYNOPSIS "\n"
"Compare profiles (folded stacks, profrec TSV, perf script text,\n"
"profheap output; compressed or not) function by function, or benchmark\n"
"tables (any other TSV: profcompress results, name/value lists) row by\n"
"row. Several inputs a side, \"--\" between them, are repeated runs.\n"
"Amounts are compared (ms, bytes, samples); a difference gets a verdict\n"
"only beyond its noise: 3 standard errors of the sample counts for one\n"
"function (more for many: see profcmp(1)), and with several runs a side\n"
"Mann-Whitney p < 0.05 and a 95% bootstrap interval of the ratio\n"
"excluding 1. Output: TSV, largest change first.\n"
"\n"
"Profiles:\n"
"  -e, --event-filter=EV   fold event EV of profrec TSV inputs (default: the first)\n"
"  -t, --total             rank and judge by total weight instead of self\n"
"      --normalize         judge shares of each run's whole instead of amounts\n"
"      --no-normalize      judge amounts, also for attached recordings (-p, -a)\n"
"      --folded-diff       write \"stack BASE NEW\" lines for profflame --diff\n"
"  -f, --function=NAME     the gate watches only this function\n"
"Tables:\n"
"      --table             read both inputs as tables (whitespace \"name value\" lists)\n"
"  -k, --key=COL[,COL]     columns that identify a row (default: the text columns,\n"
"                          level, block_bytes, threads, jobs, gpu, cpu)\n"
"  -m, --metric=COL[,COL]  columns to compare (default: the other numeric ones)\n"
"      --higher-better=COL[,COL]  metrics where more is better\n"
"      --lower-better=COL[,COL]   metrics where less is better\n"
"                          (default by name: per_s, ratio, speed, ... higher)\n"
"Both:\n"
"  -n, --top=N             only the N largest changes\n"
"      --min-delta=PCT     drop changes under PCT (profiles: points of the base\n"
"                          whole; tables: percent of the base value)\n"
"      --fail-above=PCT    exit 1 when something regressed by more than PCT percent\n"
"      --human             aligned table for a person: totals first, the gate last\n"
"      --color=WHEN        verdicts in colour: auto (a terminal, no NO_COLOR),\n"
"                          always, never\n"
"  -o, --output=FILE       write FILE (atomically; .gz/.zst/.lz4 compress)\n"
"  -q, --quiet             no notes on stderr\n"
"  -h, --help              this help\n"
"\n"
PROF_MAX_LINE_HELP
"Exit status: 0 success, 1 a regression above --fail-above, an empty,\n"
"malformed or mismatched input (named), 2 usage error.\n";

enum {
	OPT_COLOR = 0x100, OPT_FAIL_ABOVE, OPT_FOLDED_DIFF, OPT_HIGHER, OPT_HUMAN, OPT_LOWER,
	OPT_MIN_DELTA, OPT_NO_NORMALIZE, OPT_NORMALIZE, OPT_TABLE,
};

static const struct option long_opts[] = {
	{ "color", required_argument, NULL, OPT_COLOR },
	{ "event-filter", required_argument, NULL, 'e' },
	{ "fail-above", required_argument, NULL, OPT_FAIL_ABOVE },
	{ "folded-diff", no_argument, NULL, OPT_FOLDED_DIFF },
	{ "function", required_argument, NULL, 'f' },
	{ "help", no_argument, NULL, 'h' },
	{ "higher-better", required_argument, NULL, OPT_HIGHER },
	{ "human", no_argument, NULL, OPT_HUMAN },
	{ "key", required_argument, NULL, 'k' },
	{ "lower-better", required_argument, NULL, OPT_LOWER },
	{ "metric", required_argument, NULL, 'm' },
	{ "min-delta", required_argument, NULL, OPT_MIN_DELTA },
	{ "no-normalize", no_argument, NULL, OPT_NO_NORMALIZE },
	{ "normalize", no_argument, NULL, OPT_NORMALIZE },
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "table", no_argument, NULL, OPT_TABLE },
	{ "top", required_argument, NULL, 'n' },
	{ "total", no_argument, NULL, 't' },
	{ "list-options", no_argument, NULL, PROF_OPT_LIST_OPTIONS },
	{ NULL, 0, NULL, 0 },
};

struct config {
	const char *event, *function, *output;
	const char **paths[2];		/* each side's inputs */
	size_t npaths[2];
	int folded_diff, human, force_table, color;
	size_t top;
	double fail_above;		/* < 0: no gate */
	struct prof_functions_opts fopts;
	struct prof_table_compare_opts topts;
};

static double parse_pct(const char *opt, const char *arg)
{
	double v;

	if (prof_parse_double(arg, &v) < 0 || v < 0)
		prof_usage_error(SYNOPSIS, "bad %s '%s' (a percentage, 0 or more)", opt, arg);
	return v;
}

/*
 * Where the new side starts: the first "--" that is not an option's
 * argument. getopt would take it as the end of the options and lose it.
 */
static int find_separator(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--"))
			return i;
		if (a[0] != '-' || !a[1])
			continue;
		if (a[1] == '-') {
			for (const struct option *o = long_opts; o->name; o++)
				if (o->has_arg == required_argument && !strcmp(a + 2, o->name))
					i++;	/* "--opt value" */
		} else if (strchr("efkmno", a[strlen(a) - 1]) &&
			   strspn(a + 1, "hqt") == strlen(a) - 2) {
			i++;	/* "-o value", "-qo value" */
		}
	}
	return argc;
}

static void parse_options(int argc, char **argv, struct config *c)
{
	int ch, split = find_separator(argc, argv);
	uint64_t n;

	c->fail_above = -1;
	while ((ch = prof_getopt_long(split, argv, "e:f:hk:m:n:o:qt", long_opts, NULL)) != -1) {
		switch (ch) {
		case 'e': c->event = optarg; break;
		case 'f': c->function = optarg; break;
		case 'h': prof_help(help_text);
		case 'k': c->topts.keys = optarg; break;
		case 'm': c->topts.metrics = optarg; break;
		case 'n':
			if (prof_parse_u64(optarg, &n) < 0 || n == 0)
				prof_usage_error(SYNOPSIS, "bad --top '%s' (a count, 1 or more)", optarg);
			c->top = (size_t)n;
			break;
		case 'o': c->output = optarg; break;
		case 'q': prof_verbosity = 0; break;
		case 't': c->fopts.by_total = 1; break;
		case OPT_COLOR:
			if ((c->color = prof_color_parse(optarg)) < 0)
				prof_usage_error(SYNOPSIS, "bad --color '%s' (auto, always or never)", optarg);
			break;
		case OPT_FAIL_ABOVE: c->fail_above = parse_pct("--fail-above", optarg); break;
		case OPT_FOLDED_DIFF: c->folded_diff = 1; break;
		case OPT_HIGHER: c->topts.higher_better = optarg; break;
		case OPT_HUMAN: c->human = 1; break;
		case OPT_LOWER: c->topts.lower_better = optarg; break;
		case OPT_MIN_DELTA:
			c->fopts.min_delta = c->topts.min_delta_pct = parse_pct("--min-delta", optarg);
			break;
		case OPT_NO_NORMALIZE: c->fopts.normalize = -1; break;
		case OPT_NORMALIZE: c->fopts.normalize = 1; break;
		case OPT_TABLE: c->force_table = 1; break;
		case PROF_OPT_LIST_OPTIONS:
			prof_list_option_values(long_opts, (const struct prof_option_values[]){
				{ "color", "auto,always,never" }, { NULL, NULL } });
		default: prof_usage_error(SYNOPSIS, NULL);
		}
	}
	if (split < argc) {
		/* base ... -- new ...: repeated runs */
		c->paths[0] = (const char **)argv + optind;
		c->npaths[0] = (size_t)(split - optind);
		c->paths[1] = (const char **)argv + split + 1;
		c->npaths[1] = (size_t)(argc - split - 1);
		if (!c->npaths[0] || !c->npaths[1])
			prof_usage_error(SYNOPSIS, "no %s input %s \"--\"", c->npaths[0] ? "new" : "base",
					 c->npaths[0] ? "after" : "before");
	} else {
		if (argc - optind != 2)
			prof_usage_error(SYNOPSIS, argc - optind < 2 ? "two inputs needed: base and new"
				: "too many inputs (two: base and new; several runs: base ... -- new ...)");
		c->paths[0] = (const char **)argv + optind;
		c->paths[1] = (const char **)argv + optind + 1;
		c->npaths[0] = c->npaths[1] = 1;
	}
	if (c->folded_diff && (c->human || c->force_table))
		prof_usage_error(SYNOPSIS, "--folded-diff writes folded stacks: not with --%s",
				 c->human ? "human" : "table");
	if (c->folded_diff && (c->npaths[0] > 1 || c->npaths[1] > 1))
		prof_usage_error(SYNOPSIS, "--folded-diff compares one profile with one");
}

static struct prof_output *open_output(const struct config *c)
{
	return prof_output_open(c->output, PROF_OUT_ATOMIC, prof_compression_from_suffix(c->output));
}

/* The gate's verdict: on stderr, and as the last line of a human table. */
static void say_verdict(const struct config *c, struct prof_output *o, unsigned long failed,
			const char *what)
{
	if (c->fail_above < 0)
		return;
	if (c->human && failed)
		prof_output_printf(o, "\ngate: FAIL: %lu %s regressed by more than %g%%\n", failed,
				   what, c->fail_above);
	else if (c->human)
		prof_output_printf(o, "\ngate: pass: nothing regressed by more than %g%%\n",
				   c->fail_above);
	if (failed)
		prof_warn("%lu %s regressed by more than %g%%", failed, what, c->fail_above);
}

/* How --human tables are drawn: cut to the terminal, verdicts coloured. */
static void style_of(const struct config *c, struct prof_compare_style *st)
{
	int to_stdout = !c->output || !strcmp(c->output, "-");

	st->width = to_stdout ? prof_term_width(STDOUT_FILENO) : 0;
	st->color = (to_stdout || c->color != PROF_COLOR_AUTO) && prof_color_on(c->color, STDOUT_FILENO);
}

/* ---- profiles ---- */

static void set_meta(const struct config *c, struct prof_meta *m)
{
	prof_meta_set(m, "source", "profcmp");
	for (int side = 0; side < 2; side++) {
		struct prof_buf b = PROF_BUF_INIT;

		for (size_t i = 0; i < c->npaths[side]; i++) {
			if (i)
				prof_buf_addch(&b, ',');
			prof_buf_addstr(&b, prof_input_display_name(c->paths[side][i]));
		}
		prof_meta_set(m, side ? "new" : "base", prof_buf_cstr(&b));
		prof_buf_release(&b);
	}
}

/* --folded-diff: the two tables side by side, no judging. */
static int folded_diff(const struct config *c, struct prof_meta *meta)
{
	struct prof_stacks t[2];
	struct prof_meta m[2] = { PROF_META_INIT, PROF_META_INIT };
	struct prof_profile_opts po;
	struct prof_output *o = NULL;
	const char *path[2] = { c->paths[0][0], c->paths[1][0] };
	int rval = PROF_EXIT_OK;

	prof_profile_opts_init(&po);
	po.event = c->event;
	for (int side = 0; side < 2; side++) {
		/* The base gets the new weights as a second column. */
		prof_stacks_init(&t[side], side ? 1 : 2);
		if (prof_profile_read(path[side], &po, &t[side], &m[side], NULL) < 0)
			rval = PROF_EXIT_FAIL;
	}
	if (!prof_functions_units_match(path, m))
		rval = PROF_EXIT_FAIL;
	else if ((o = open_output(c)) != NULL) {
		if (prof_meta_get(&m[0], "unit") || prof_meta_get(&m[1], "unit"))
			prof_meta_set(meta, "unit", prof_meta_get(&m[prof_meta_get(&m[0], "unit") ? 0 : 1], "unit"));
		prof_functions_write_folded_diff(&t[0], &t[1], meta, o);
		if (prof_output_close(o) < 0)
			rval = PROF_EXIT_FAIL;
	} else {
		rval = PROF_EXIT_FAIL;
	}
	for (int side = 0; side < 2; side++) {
		prof_stacks_release(&t[side]);
		prof_meta_release(&m[side]);
	}
	return rval;
}

static int compare_profiles(const struct config *c)
{
	struct prof_meta out_meta = PROF_META_INIT;
	struct prof_functions f;
	struct prof_compare_style st;
	struct prof_output *o = NULL;
	int rval = PROF_EXIT_OK, rc;
	unsigned long failed = 0;

	set_meta(c, &out_meta);
	if (c->folded_diff) {
		rval = folded_diff(c, &out_meta);
		prof_meta_release(&out_meta);
		return rval;
	}
	/* Nothing is written from inputs a gate could not judge. */
	if ((rc = prof_functions_read(&f, (const char *const **)c->paths, c->npaths, c->event,
				       &out_meta)) < 0 || !(o = open_output(c))) {
		rval = PROF_EXIT_FAIL;
		goto out;
	}
	prof_functions_judge(&f, &c->fopts);
	prof_meta_set(&out_meta, "measure", c->fopts.by_total ? "total" : "self");
	prof_meta_set(&out_meta, "values", f.normalized ? "percent" : "amounts");
	prof_meta_setf(&out_meta, "runs", "%zu,%zu", c->npaths[0], c->npaths[1]);
	style_of(c, &st);
	prof_functions_write(&f, &c->fopts, c->top, c->human, &st, &out_meta, o);
	if (c->fail_above >= 0)
		failed = prof_functions_gate(&f, c->fopts.by_total, c->fail_above, c->function,
					     c->fopts.min_delta);
	say_verdict(c, o, failed, failed == 1 ? "function" : "functions");
	if (prof_output_close(o) < 0 || failed || rc > 0)	/* rc > 0: bad lines, named */
		rval = PROF_EXIT_FAIL;
out:
	prof_functions_free(&f);
	prof_meta_release(&out_meta);
	return rval;
}

/* ---- tables ---- */

static int compare_tables(const struct config *c)
{
	struct prof_table t[2];
	struct prof_table_change *ch = NULL;
	struct prof_meta meta = PROF_META_INIT;
	struct prof_compare_style st;
	struct prof_output *o;
	unsigned long bad[2] = { 0, 0 }, failed = 0;
	size_t n = 0;
	int rval = PROF_EXIT_OK, ok[2];

	for (int side = 0; side < 2; side++) {
		ok[side] = prof_table_read_runs(c->paths[side], c->npaths[side], &t[side], &bad[side]) == 0;
		if (ok[side] && !t[side].nrows) {
			prof_input_warn(t[side].name, 0, "no rows to compare");
			ok[side] = 0;
		}
	}
	if (!ok[0] || !ok[1] || prof_table_compare(&t[0], &t[1], &c->topts, &ch, &n) < 0) {
		rval = PROF_EXIT_FAIL;
		goto out;
	}
	if (bad[0] || bad[1])
		rval = PROF_EXIT_FAIL;
	set_meta(c, &meta);
	o = open_output(c);
	if (!o) {
		rval = PROF_EXIT_FAIL;
		goto out;
	}
	style_of(c, &st);
	prof_table_changes_write(ch, c->top && c->top < n ? c->top : n, c->human, &st, &meta, o);
	if (c->fail_above >= 0)
		failed = prof_table_gate(ch, n, c->fail_above);
	say_verdict(c, o, failed, failed == 1 ? "metric" : "metrics");
	if (prof_output_close(o) < 0 || failed)
		rval = PROF_EXIT_FAIL;
out:
	prof_table_changes_free(ch, n);
	for (int side = 0; side < 2; side++)
		prof_table_release(&t[side]);
	prof_meta_release(&meta);
	return rval;
}

/*
 * Make every input readable twice and tell its kind: 1 tables, 0
 * profiles, -1 after reporting (an input refused, or kinds that differ).
 * The operands are argv's: c->paths become copies that can point at the
 * spooled files (freed by main).
 */
static int prepare_inputs(struct config *c)
{
	int kind = -1, rval = 0;

	for (int side = 0; side < 2; side++) {
		const char **p = xcalloc(c->npaths[side] + 1, sizeof(*p));

		memcpy(p, c->paths[side], c->npaths[side] * sizeof(*p));
		c->paths[side] = p;
		for (size_t i = 0; i < c->npaths[side] && rval == 0; i++) {
			const char *path = prof_input_rereadable(p[i]);
			int table = path && (c->force_table || prof_table_looks_like(path));

			if (!path)
				rval = -1;
			else if (kind >= 0 && table != kind)
				prof_warn("%s is a %s, %s a %s: they do not compare",
					  prof_input_display_name(c->paths[0][0]), kind ? "table" : "profile",
					  prof_input_display_name(path), table ? "table" : "profile");
			if (!path || (kind >= 0 && table != kind))
				rval = -1;
			p[i] = path ? path : p[i];
			kind = table;
		}
	}
	return rval < 0 ? -1 : kind;
}

int main(int argc, char **argv)
{
	struct config c = { 0 };
	int kind, rval = PROF_EXIT_FAIL, stdin_seen = 0;

	prof_set_progname(argv[0]);
	parse_options(argc, argv, &c);
	for (int side = 0; side < 2; side++)
		for (size_t i = 0; i < c.npaths[side]; i++)
			if (!strcmp(c.paths[side][i], "-") && stdin_seen++)
				prof_usage_error(SYNOPSIS, "only one input can be the standard input");
	if ((kind = prepare_inputs(&c)) < 0)
		goto out;
	if (kind == 1 && (c.folded_diff || c.function || c.event || c.fopts.by_total || c.fopts.normalize))
		prof_usage_error(SYNOPSIS, "--%s is for profiles, and these inputs are tables",
				 c.folded_diff ? "folded-diff" : c.function ? "function" :
				 c.event ? "event-filter" : c.fopts.by_total ? "total" :
				 c.fopts.normalize > 0 ? "normalize" : "no-normalize");
	if (kind == 0 && (c.topts.keys || c.topts.metrics || c.topts.higher_better ||
			  c.topts.lower_better))
		prof_usage_error(SYNOPSIS, "--key, --metric, --higher-better and --lower-better "
				 "are for tables, and these inputs are profiles");
	rval = (kind == 1 ? compare_tables(&c) : compare_profiles(&c)) | prof_close_stdout();
out:
	free(c.paths[0]);
	free(c.paths[1]);
	return rval;
}
