/*
 * profcmp: compare two profiles function by function, or two benchmark
 * tables row by row, and gate regressions for CI.
 */
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/error.h"
#include "base/options.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "compare/functions.h"
#include "compare/table.h"
#include "core/meta.h"
#include "core/stack.h"
#include "formats/profile.h"
#include "io/input.h"
#include "io/output.h"

#define SYNOPSIS "profcmp [-hqt] [-e event] [-n count] [-o file] [--option ...] base new"

static const char help_text[] =
"usage: " SYNOPSIS "\n"
"Compare two profiles (folded stacks, profrec TSV, perf script text,\n"
"profheap output; compressed or not) function by function, or two\n"
"benchmark tables (any other TSV: profcompress results, name/value lists)\n"
"row by row. Output: TSV, largest change first.\n"
"\n"
"Profiles:\n"
"  -e, --event-filter=EV   fold event EV of profrec TSV inputs (default: the first)\n"
"  -t, --total             rank and judge by total weight instead of self\n"
"      --no-normalize      raw weights instead of shares of each profile\n"
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
"      --human             aligned table for a person, the gate's verdict last\n"
"  -o, --output=FILE       write FILE (atomically; .gz/.zst/.lz4 compress)\n"
"  -q, --quiet             no notes on stderr\n"
"  -h, --help              this help\n"
"\n"
PROF_MAX_LINE_HELP
"Exit status: 0 success, 1 a regression above --fail-above, malformed or\n"
"mismatched inputs, 2 usage error.\n";

enum {
	OPT_FAIL_ABOVE = 0x100, OPT_FOLDED_DIFF, OPT_HIGHER, OPT_HUMAN, OPT_LOWER,
	OPT_MIN_DELTA, OPT_NO_NORMALIZE, OPT_TABLE,
};

static const struct option long_opts[] = {
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
	const char *paths[2];
	int folded_diff, human, force_table;
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

static void parse_options(int argc, char **argv, struct config *c)
{
	int ch;
	uint64_t n;

	c->fail_above = -1;
	while ((ch = prof_getopt_long(argc, argv, "e:f:hk:m:n:o:qt", long_opts, NULL)) != -1) {
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
		case OPT_FAIL_ABOVE: c->fail_above = parse_pct("--fail-above", optarg); break;
		case OPT_FOLDED_DIFF: c->folded_diff = 1; break;
		case OPT_HIGHER: c->topts.higher_better = optarg; break;
		case OPT_HUMAN: c->human = 1; break;
		case OPT_LOWER: c->topts.lower_better = optarg; break;
		case OPT_MIN_DELTA:
			c->fopts.min_delta = c->topts.min_delta_pct = parse_pct("--min-delta", optarg);
			break;
		case OPT_NO_NORMALIZE: c->fopts.raw = 1; break;
		case OPT_TABLE: c->force_table = 1; break;
		case PROF_OPT_LIST_OPTIONS: prof_list_options(long_opts);
		default: prof_usage_error(SYNOPSIS, NULL);
		}
	}
	if (argc - optind != 2)
		prof_usage_error(SYNOPSIS, argc - optind < 2 ? "two inputs needed: base and new"
							  : "too many inputs (two: base and new)");
	c->paths[0] = argv[optind];
	c->paths[1] = argv[optind + 1];
	if (!strcmp(c->paths[0], "-") && !strcmp(c->paths[1], "-"))
		prof_usage_error(SYNOPSIS, "only one input can be the standard input");
	if (c->folded_diff && (c->human || c->force_table))
		prof_usage_error(SYNOPSIS, "--folded-diff writes folded stacks: not with --%s",
				 c->human ? "human" : "table");
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

/* ---- profiles ---- */

struct side {
	const struct config *c;
	int side, rc;
	struct prof_stacks *t;
	struct prof_meta *meta;
};

static void *read_side(void *arg)
{
	struct side *s = arg;
	struct prof_profile_opts o;

	prof_profile_opts_init(&o);
	o.event = s->c->event;
	/* The base of --folded-diff gets the new weights as a second column. */
	prof_stacks_init(s->t, s->c->folded_diff && s->side == 0 ? 2 : 1);
	s->rc = prof_profile_read(s->c->paths[s->side], &o, s->t, s->meta, NULL);
	return NULL;
}

/* Both profiles, read at the same time (they share nothing). */
static int read_profiles(const struct config *c, struct prof_stacks t[2], struct prof_meta m[2])
{
	struct side s[2] = { { c, 0, 0, &t[0], &m[0] }, { c, 1, 0, &t[1], &m[1] } };
	pthread_t other;
	int threaded = pthread_create(&other, NULL, read_side, &s[1]) == 0;

	read_side(&s[0]);
	if (threaded)
		pthread_join(other, NULL);
	else
		read_side(&s[1]);
	return s[0].rc < 0 || s[1].rc < 0 ? -1 : 0;
}

/* Profiles of different units (samples and bytes) do not compare. */
static int units_match(const struct config *c, const struct prof_meta m[2])
{
	const char *u0 = prof_meta_get(&m[0], "unit"), *u1 = prof_meta_get(&m[1], "unit");

	if (u0 && u1 && strcmp(u0, u1)) {
		prof_warn("%s is in %s, %s in %s: profiles of different units do not compare",
			  prof_input_display_name(c->paths[0]), u0, prof_input_display_name(c->paths[1]), u1);
		return 0;
	}
	return 1;
}

static unsigned long gate_functions(const struct config *c, const struct prof_functions *f)
{
	unsigned long failed = 0;
	int seen = 0;

	for (size_t i = 0; i < f->n; i++) {
		const struct prof_function_change *r = &f->rows[i];

		if (c->function && strcmp(c->function, r->function))
			continue;
		seen = 1;
		if (r->verdict == PROF_CHANGE_ADDED ||
		    (r->verdict == PROF_CHANGE_WORSE && r->delta_pct > c->fail_above)) {
			failed++;
			if (isnan(r->delta_pct))
				prof_warn("regression: %s is new (%.2f points of the whole)",
					  r->function, r->delta_points);
			else
				prof_warn("regression: %s %s %+.1f%% (limit %g%%)", r->function,
					  c->fopts.by_total ? "total" : "self", r->delta_pct,
					  c->fail_above);
		}
	}
	if (c->function && !seen)
		prof_warn("--function: no function '%s' in either profile%s", c->function,
			  c->fopts.min_delta > 0 ? " (or its change is under --min-delta)" : "");
	return failed + (c->function && !seen);
}

static int compare_profiles(const struct config *c)
{
	struct prof_stacks t[2];
	struct prof_meta m[2] = { PROF_META_INIT, PROF_META_INIT }, out_meta = PROF_META_INIT;
	struct prof_functions f;
	struct prof_output *o = NULL;
	int rval = PROF_EXIT_OK;
	unsigned long failed = 0;

	if (read_profiles(c, t, m) < 0)
		rval = PROF_EXIT_FAIL;
	if (!units_match(c, m)) {
		rval = PROF_EXIT_FAIL;
		goto out;
	}
	prof_meta_set(&out_meta, "source", "profcmp");
	prof_meta_set(&out_meta, "base", prof_input_display_name(c->paths[0]));
	prof_meta_set(&out_meta, "new", prof_input_display_name(c->paths[1]));
	if (prof_meta_get(&m[0], "unit") || prof_meta_get(&m[1], "unit"))
		prof_meta_set(&out_meta, "unit", prof_meta_get(&m[prof_meta_get(&m[0], "unit") ? 0 : 1], "unit"));
	o = open_output(c);
	if (!o) {
		rval = PROF_EXIT_FAIL;
		goto out;
	}
	if (c->folded_diff) {
		prof_functions_write_folded_diff(&t[0], &t[1], &out_meta, o);
	} else {
		prof_meta_set(&out_meta, "measure", c->fopts.by_total ? "total" : "self");
		prof_meta_set(&out_meta, "values", c->fopts.raw ? "raw" : "percent");
		prof_functions_compare(&t[0], &t[1], &c->fopts, &f);
		prof_functions_write(&f, &c->fopts, c->top, c->human, &out_meta, o);
		if (c->fail_above >= 0)
			failed = gate_functions(c, &f);
		say_verdict(c, o, failed, failed == 1 ? "function" : "functions");
		prof_functions_free(&f);
	}
	if (prof_output_close(o) < 0 || failed)
		rval = PROF_EXIT_FAIL;
out:
	for (int side = 0; side < 2; side++) {
		prof_stacks_release(&t[side]);
		prof_meta_release(&m[side]);
	}
	prof_meta_release(&out_meta);
	return rval;
}

/* ---- tables ---- */

static unsigned long gate_table(const struct config *c, const struct prof_table_change *ch,
				size_t n)
{
	unsigned long failed = 0;

	for (size_t i = 0; i < n; i++)
		if (ch[i].verdict == PROF_CHANGE_WORSE && fabs(ch[i].change_pct) > c->fail_above) {
			failed++;
			prof_warn("regression: %s %s %+.1f%% (limit %g%%, %s is better)", ch[i].key,
				  ch[i].metric, ch[i].change_pct, c->fail_above,
				  ch[i].higher_better ? "higher" : "lower");
		}
	return failed;
}

static int compare_tables(const struct config *c)
{
	struct prof_table t[2];
	struct prof_table_change *ch = NULL;
	struct prof_meta meta = PROF_META_INIT;
	struct prof_output *o;
	unsigned long bad[2] = { 0, 0 }, failed = 0;
	size_t n = 0;
	int rval = PROF_EXIT_OK, ok[2];

	for (int side = 0; side < 2; side++) {
		ok[side] = prof_table_read(c->paths[side], &t[side], &bad[side]) == 0;
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
	prof_meta_set(&meta, "source", "profcmp");
	prof_meta_set(&meta, "base", prof_input_display_name(c->paths[0]));
	prof_meta_set(&meta, "new", prof_input_display_name(c->paths[1]));
	o = open_output(c);
	if (!o) {
		rval = PROF_EXIT_FAIL;
		goto out;
	}
	prof_table_changes_write(ch, c->top && c->top < n ? c->top : n, c->human, &meta, o);
	if (c->fail_above >= 0)
		failed = gate_table(c, ch, n);
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

int main(int argc, char **argv)
{
	struct config c = { 0 };
	int tables[2];

	prof_set_progname(argv[0]);
	parse_options(argc, argv, &c);
	for (int side = 0; side < 2; side++) {
		/* Standard input is read twice: sniffed, then read. */
		if (!strcmp(c.paths[side], "-"))
			c.paths[side] = prof_spool_stdin();
		tables[side] = c.force_table || prof_table_looks_like(c.paths[side]);
	}
	if (tables[0] != tables[1]) {
		prof_warn("%s is a %s, %s a %s: they do not compare", prof_input_display_name(c.paths[0]),
			  tables[0] ? "table" : "profile", prof_input_display_name(c.paths[1]),
			  tables[1] ? "table" : "profile");
		return PROF_EXIT_FAIL;
	}
	if (tables[0] && (c.folded_diff || c.function || c.event || c.fopts.by_total || c.fopts.raw))
		prof_usage_error(SYNOPSIS, "--%s is for profiles, and these inputs are tables",
				 c.folded_diff ? "folded-diff" : c.function ? "function" :
				 c.event ? "event-filter" : c.fopts.by_total ? "total" : "no-normalize");
	if (!tables[0] && (c.topts.keys || c.topts.metrics || c.topts.higher_better ||
			   c.topts.lower_better))
		prof_usage_error(SYNOPSIS, "--key, --metric, --higher-better and --lower-better "
				 "are for tables, and these inputs are profiles");
	return (tables[0] ? compare_tables(&c) : compare_profiles(&c)) | prof_close_stdout();
}
