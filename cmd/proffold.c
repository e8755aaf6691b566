/*
 * proffold: fold stack samples (perf script text, profrec sample TSV,
 * folded stacks) into folded stacks, optionally transformed, into a
 * bottleneck report, or into a subsecond heat map.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/error.h"
#include "base/options.h"
#include "base/term.h"
#include "base/units.h"
#include "core/meta.h"
#include "core/stack.h"
#include "core/top.h"
#include "core/transform.h"
#include "formats/folded.h"
#include "formats/heatmap.h"
#include "formats/pprof.h"
#include "formats/profile.h"
#include "formats/speedscope.h"
#include "io/output.h"

/* What -f/--format/--input-format take (the same option under two names). */
#define INPUT_FORMATS "auto,perf,profrec,pprof,folded,dtrace,bpftrace,eu-stack,gdb,perf-report,speedscope"
#define SYNOPSIS "proffold [-ahqv] [-e event] [-f format] [-j jobs] [-o file] [--option ...] [file ...]"

static const char help_text[] =
"usage: " SYNOPSIS "\n"
"Fold stack samples into folded stacks (\"root;...;leaf weight\", sorted).\n"
"Input: perf script text, profrec sample TSV, pprof or folded stacks, detected\n"
"automatically, compressed or not; several files are merged. Also read:\n"
"DTrace and bpftrace stacks, eu-stack and gdb backtraces, perf report -g\n"
"folded, speedscope JSON (prof-formats(5)).\n"
"\n"
"Input and folding:\n"
"  -f, --format=FMT        (also --input-format) auto (default), perf, profrec,\n"
"                          pprof, folded, dtrace, bpftrace, eu-stack, gdb,\n"
"                          perf-report, speedscope\n"
"  -e, --event-filter=EV   fold only events EV (default: the first event)\n"
"      --pid               root frame comm-PID\n"
"      --tid               root frame comm-PID/TID\n"
"      --kernel            annotate kernel frames _[k]\n"
"      --jit               annotate JIT frames (/tmp/perf-PID.map) _[j]\n"
"  -a, --all               --kernel and --jit\n"
"      --addrs             keep addresses of unknown symbols: [dso <addr>]\n"
"      --counts            weight 1 per sample instead of the period\n"
"      --cpp-names         cut C++ argument lists outside <...> only\n"
"      --mark-inlined      tag perf's (inlined) frames _[i]\n"
"      --no-demangle       keep mangled C++ and Rust names (perf script --no-demangle)\n"
"      --time-from=T       only samples at or after T (s, or with unit: 1.5s, 200ms)\n"
"      --time-to=T         only samples before T (relative to the first sample)\n"
"  -j, --jobs=N            threads for perf script input (default: cores for big files)\n"
"\n"
"Transformations (any input):\n"
"      --focus=REGEX       keep stacks with a frame matching REGEX\n"
"      --exclude=REGEX     drop stacks with a frame matching REGEX\n"
"      --skip-after=FUNC   make the deepest FUNC frame the root\n"
"      --strip-comm        drop the root (process name) frame\n"
"      --merge-threads     the same: one tower per function, not one per thread\n"
"      --collapse-recursion  f;f;f -> f\n"
"      --max-depth=N       keep the N frames nearest the root\n"
"      --reverse           leaf first\n"
"      --callers=FUNC      who calls FUNC: stacks leaf first from FUNC up\n"
"      --callees=FUNC      what FUNC calls: stacks from FUNC down (the two\n"
"                          halves of a sandwich view, rooted at FUNC)\n"
"\n"
"Output:\n"
"  -o, --output=FILE       write FILE (atomically; .gz/.zst/.lz4 compress;\n"
"                          .pb.gz: pprof, .speedscope.json: speedscope)\n"
"      --output-format=FMT folded (default), pprof (gzip'd profile.proto)\n"
"                          or speedscope (JSON)\n"
"      --no-header         no leading \"# key=value\" metadata line\n"
"      --top=N             bottleneck report of the N top functions (TSV)\n"
"      --sort=KEY          rank the report by self (default) or total\n"
"      --threshold=PCT     flag functions with this self share (default 5)\n"
"                          (the hottest path merges the threads of profrec and\n"
"                          perf script input: it starts below their names)\n"
"      --human             aligned text report instead of TSV (on a terminal:\n"
"                          rows cut to its width)\n"
"      --heatmap           subsecond heat map (TSV): samples per bucket of each second\n"
"      --bucket=DUR        heat map bucket, dividing 1s (default 20ms)\n"
"  -q, --quiet             no notes on stderr\n"
"  -v, --verbose           more notes on stderr\n"
"  -h, --help              this help\n"
"\n"
PROF_MAX_LINE_HELP
"Exit status: 0 success, 1 failure, malformed input (the rest is folded) or\n"
"no sample in the time window, 2 usage error.\n";

enum {
	OPT_ADDRS = 0x100, OPT_BUCKET, OPT_CALLEES, OPT_CALLERS, OPT_COLLAPSE, OPT_COUNTS, OPT_CPP, OPT_EXCLUDE, OPT_FOCUS,
	OPT_HEATMAP, OPT_HUMAN, OPT_JIT, OPT_KERNEL, OPT_MARK_INLINED, OPT_MAX_DEPTH, OPT_MERGE_THREADS, OPT_NO_DEMANGLE, OPT_NO_HEADER,
	OPT_OUTPUT_FORMAT, OPT_PID, OPT_REVERSE, OPT_SKIP_AFTER, OPT_SORT, OPT_STRIP_COMM, OPT_THRESHOLD,
	OPT_TID, OPT_TIME_FROM, OPT_TIME_TO, OPT_TOP,
};

static const struct option long_opts[] = {
	{ "addrs", no_argument, NULL, OPT_ADDRS },
	{ "all", no_argument, NULL, 'a' },
	{ "bucket", required_argument, NULL, OPT_BUCKET },
	{ "callees", required_argument, NULL, OPT_CALLEES },
	{ "callers", required_argument, NULL, OPT_CALLERS },
	{ "collapse-recursion", no_argument, NULL, OPT_COLLAPSE },
	{ "counts", no_argument, NULL, OPT_COUNTS },
	{ "cpp-names", no_argument, NULL, OPT_CPP },
	{ "event-filter", required_argument, NULL, 'e' },
	{ "exclude", required_argument, NULL, OPT_EXCLUDE },
	{ "focus", required_argument, NULL, OPT_FOCUS },
	{ "format", required_argument, NULL, 'f' },
	{ "heatmap", no_argument, NULL, OPT_HEATMAP },
	{ "help", no_argument, NULL, 'h' },
	{ "human", no_argument, NULL, OPT_HUMAN },
	{ "input-format", required_argument, NULL, 'f' },
	{ "jit", no_argument, NULL, OPT_JIT },
	{ "jobs", required_argument, NULL, 'j' },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "list-options", no_argument, NULL, PROF_OPT_LIST_OPTIONS },
	{ "mark-inlined", no_argument, NULL, OPT_MARK_INLINED },
	{ "max-depth", required_argument, NULL, OPT_MAX_DEPTH },
	{ "merge-threads", no_argument, NULL, OPT_MERGE_THREADS },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "no-header", no_argument, NULL, OPT_NO_HEADER },
	{ "output", required_argument, NULL, 'o' },
	{ "output-format", required_argument, NULL, OPT_OUTPUT_FORMAT },
	{ "pid", no_argument, NULL, OPT_PID },
	{ "quiet", no_argument, NULL, 'q' },
	{ "reverse", no_argument, NULL, OPT_REVERSE },
	{ "skip-after", required_argument, NULL, OPT_SKIP_AFTER },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "strip-comm", no_argument, NULL, OPT_STRIP_COMM },
	{ "threshold", required_argument, NULL, OPT_THRESHOLD },
	{ "tid", no_argument, NULL, OPT_TID },
	{ "time-from", required_argument, NULL, OPT_TIME_FROM },
	{ "time-to", required_argument, NULL, OPT_TIME_TO },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "verbose", no_argument, NULL, 'v' },
	{ NULL, 0, NULL, 0 },
};

/* Everything main() decided from the command line. */
struct config {
	struct prof_profile_opts read;
	struct prof_transform xf;
	const char *output;
	enum { OUT_FOLDED, OUT_PPROF, OUT_SPEEDSCOPE } out_format;
	int split_threads;	/* speedscope: a profile per root "comm-PID/TID" */
	int no_header;
	int top;
	struct prof_top_opts top_opts;
	int heatmap;
	uint64_t bucket_ns;	/* 0: --bucket not given */
	const char *sandwich[1];	/* --callers or --callees: the function (xf.base) */
};

/*
 * Write the folded stacks, the --top report, or the pprof or speedscope
 * export of t (samples: column 2 counts samples, see main); 0 or 1.
 */
static int write_result(struct config *c, const struct prof_stacks *t,
			const struct prof_meta *meta, size_t ncounts,
			const struct prof_pprof_counter *samples)
{
	const char *src = prof_meta_get(meta, "source");
	struct prof_pprof_profile pp;
	struct prof_output *o;
	int w;

	if (ncounts > 1 && (c->out_format == OUT_PPROF || c->out_format == OUT_SPEEDSCOPE)) {
		/* either would keep the first count alone: the "after" side lost */
		prof_warn("a differential profile (two counts per stack) has no %s form: "
			  "write it folded, or export each side apart",
			  c->out_format == OUT_PPROF ? "pprof" : "speedscope");
		return 1;
	}
	/* pprof is gzip'd whatever the name (".pb.gz" names it, not ".gz") */
	o = prof_output_open(c->output, PROF_OUT_ATOMIC, c->out_format == OUT_PPROF ? PROF_COMP_GZIP :
			     c->output ? prof_compression_from_suffix(c->output) : PROF_COMP_NONE);
	if (!o)
		return 1;
	if (c->out_format == OUT_PPROF) {
		/* sample counts only when every input was samples (not folded lines) */
		prof_pprof_describe(&pp, t, meta, 0, samples->samples && src && (!strcmp(src, "profrec") ||
				    !strcmp(src, "perf-script")) ? 2 : -1);
		pp.duration_nanos = samples->last_ns;
		pp.addrs = samples;	/* profrec input: the leaf frames' mappings */
		w = prof_pprof_write(&pp, o);
	} else if (c->out_format == OUT_SPEEDSCOPE) {
		struct prof_speedscope_opts so = {
			.name = c->output, .unit = prof_meta_get(meta, "unit"),
			.split_roots = c->split_threads && samples->samples,
		};
		w = prof_speedscope_write(t, &so, o);
	} else if (c->top) {
		c->top_opts.unit = prof_meta_get(meta, "unit");
		c->top_opts.width = c->output ? 0 : prof_term_width(STDOUT_FILENO);
		w = prof_top_write(t, &c->top_opts, meta, o);
	} else {
		w = prof_folded_write(t, c->no_header ? NULL : meta, ncounts, o);
	}
	if (w) {
		prof_output_abort(o);
		return 1;
	}
	return prof_output_close(o) ? 1 : 0;
}

static uint64_t parse_time_opt(const char *opt, const char *arg)
{
	double s;

	if (prof_parse_duration(arg, 1.0, &s) || s < 0)
		prof_usage_error(SYNOPSIS, "--%s: bad time '%s'", opt, arg);
	return (uint64_t)(s * 1e9 + 0.5);
}

int main(int argc, char **argv)
{
	struct config c;
	struct prof_stacks t, xt, *out_t = &t;
	struct prof_pprof_counter samples = { .column = 2 };
	struct prof_meta meta = PROF_META_INIT;
	struct prof_profile_summary sum;
	char errbuf[256];
	int ch, fmt, rval = 0, callees = 0;
	uint64_t u;
	double d;

	prof_set_progname(argv[0]);
	memset(&c, 0, sizeof(c));
	prof_profile_opts_init(&c.read);
	c.top_opts.threshold_pct = 5;
	while ((ch = prof_getopt_long(argc, argv, "ae:f:hj:o:qv", long_opts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			c.read.annotate_kernel = c.read.annotate_jit = 1;
			break;
		case 'e':
			c.read.event = optarg;
			break;
		case 'f':
			if ((fmt = prof_profile_format_parse(optarg)) < 0)
				prof_usage_error(SYNOPSIS, "--input-format: unknown format '%s'", optarg);
			c.read.format = (enum prof_profile_format)fmt;
			break;
		case 'h':
			prof_help(help_text);
		case 'j':
			if (prof_parse_u64(optarg, &u) || u < 1 || u > 256)
				prof_usage_error(SYNOPSIS, "--jobs: expected 1..256, got '%s'", optarg);
			c.read.jobs = (long)u;
			break;
		case 'o':
			c.output = optarg;
			break;
		case 'q':
			prof_verbosity = 0;
			break;
		case 'v':
			prof_verbosity++;
			break;
		case OPT_ADDRS:
			c.read.include_addrs = 1;
			break;
		case OPT_BUCKET:
			if (prof_heatmap_bucket_parse(optarg, &c.bucket_ns))
				prof_usage_error(SYNOPSIS, "--bucket: expected a duration of at least "
						 "1ms dividing 1s evenly (10ms, 20ms, 50ms, 0.1s), got '%s'",
						 optarg);
			break;
		case OPT_CALLEES:
		case OPT_CALLERS:	/* core/transform's base, after reverse for the callers */
			if (c.xf.nbase)
				prof_usage_error(SYNOPSIS, "--callers and --callees are two graphs: one at a time");
			c.sandwich[0] = optarg;
			c.xf.base = c.sandwich;
			c.xf.nbase = 1;
			c.xf.reverse |= ch == OPT_CALLERS;
			callees = ch == OPT_CALLEES;
			break;
		case OPT_COLLAPSE:
			c.xf.collapse_recursion = 1;
			break;
		case OPT_COUNTS:
			c.read.counts = 1;
			break;
		case OPT_CPP:
			c.read.cpp_names = 1;
			break;
		case OPT_EXCLUDE:
		case OPT_FOCUS:
			if (prof_transform_add_regex(&c.xf, ch == OPT_EXCLUDE, optarg, errbuf,
						     sizeof(errbuf)))
				prof_usage_error(SYNOPSIS, "--%s: bad regex '%s': %s",
						 ch == OPT_EXCLUDE ? "exclude" : "focus", optarg, errbuf);
			break;
		case OPT_HEATMAP:
			c.heatmap = 1;
			break;
		case OPT_HUMAN:
			c.top_opts.human = 1;
			break;
		case OPT_JIT:
			c.read.annotate_jit = 1;
			break;
		case OPT_KERNEL:
			c.read.annotate_kernel = 1;
			break;
		case OPT_MARK_INLINED:
			c.read.mark_inlined = 1;
			break;
		case OPT_MAX_DEPTH:
			if (prof_parse_u64(optarg, &u) || u < 1)
				prof_usage_error(SYNOPSIS, "--max-depth: expected a positive number, got '%s'",
						 optarg);
			c.xf.max_depth = (size_t)u;
			break;
		case OPT_NO_DEMANGLE:
			c.read.no_demangle = 1;
			break;
		case OPT_NO_HEADER:
			c.no_header = 1;
			break;
		case OPT_OUTPUT_FORMAT:
			if ((fmt = strcmp(optarg, "folded") == 0 ? OUT_FOLDED : strcmp(optarg, "pprof") == 0
				   ? OUT_PPROF : strcmp(optarg, "speedscope") == 0 ? OUT_SPEEDSCOPE : -1) < 0)
				prof_usage_error(SYNOPSIS, "--output-format: expected folded, pprof or "
						 "speedscope, got '%s'", optarg);
			c.out_format = fmt;
			break;
		case OPT_PID:
			c.read.include_pid = 1;
			break;
		case OPT_REVERSE:
			c.xf.reverse = 1;
			break;
		case OPT_SKIP_AFTER:
			c.xf.skip_after = optarg;
			break;
		case OPT_SORT:
			if (strcmp(optarg, "self") == 0)
				c.top_opts.by_total = 0;
			else if (strcmp(optarg, "total") == 0)
				c.top_opts.by_total = 1;
			else
				prof_usage_error(SYNOPSIS, "--sort: expected self or total, got '%s'", optarg);
			break;
		case OPT_MERGE_THREADS:
		case OPT_STRIP_COMM:
			c.xf.strip_comm = 1;
			break;
		case OPT_THRESHOLD:
			if (prof_parse_double(optarg, &d) || d < 0 || d > 100)
				prof_usage_error(SYNOPSIS, "--threshold: expected 0..100, got '%s'", optarg);
			c.top_opts.threshold_pct = d;
			break;
		case OPT_TID:
			c.read.include_tid = 1;
			break;
		case OPT_TIME_FROM:
			c.read.time_from_ns = parse_time_opt("time-from", optarg);
			c.read.time_window = 1;
			break;
		case OPT_TIME_TO:
			c.read.time_to_ns = parse_time_opt("time-to", optarg);
			c.read.time_window = 1;
			break;
		case OPT_TOP:
			if (prof_parse_u64(optarg, &u) || u < 1)
				prof_usage_error(SYNOPSIS, "--top: expected a positive number, got '%s'", optarg);
			c.top = 1;
			c.top_opts.n = (size_t)u;
			break;
		case PROF_OPT_LIST_OPTIONS:
			prof_list_option_values(long_opts, (const struct prof_option_values[]){
				{ "format", INPUT_FORMATS },
				{ "input-format", INPUT_FORMATS },
				{ "sort", "self,total" },
				{ "output-format", "folded,pprof,speedscope" },
				{ NULL, NULL } });
		default:
			prof_usage_error(SYNOPSIS, NULL);
		}
	}
	if (!c.out_format && prof_pprof_name(c.output))
		c.out_format = OUT_PPROF;
	else if (!c.out_format && prof_speedscope_name(c.output))
		c.out_format = OUT_SPEEDSCOPE;
	if (c.out_format && (c.top || c.heatmap))
		prof_usage_error(SYNOPSIS, "--output-format %s: no --top or --heatmap",
				 c.out_format == OUT_PPROF ? "pprof" : "speedscope");
	/* speedscope: a profile per thread, unless a rewrite moves the root */
	c.split_threads = c.out_format == OUT_SPEEDSCOPE && !c.read.include_pid && !c.xf.strip_comm &&
			  !c.xf.reverse && !c.xf.skip_after && !c.xf.nbase;
	c.read.include_tid |= c.split_threads;
	if (c.out_format) {	/* count samples (column 2) as they are read */
		c.read.on_sample = prof_pprof_on_sample;
		c.read.on_sample_ctx = &samples;
		c.read.on_address = prof_pprof_on_address;
		c.read.on_address_ctx = &samples;
	}
	if (c.read.time_window && c.read.time_to_ns != UINT64_MAX &&
	    c.read.time_to_ns <= c.read.time_from_ns)
		prof_usage_error(SYNOPSIS, "--time-to must be later than --time-from");
	if (callees && c.xf.reverse)
		prof_usage_error(SYNOPSIS, "--callees with --reverse: --callers draws who calls it");
	if (c.top_opts.human && !c.top)
		prof_usage_error(SYNOPSIS, "--human needs --top");
	if (c.bucket_ns && !c.heatmap)
		prof_usage_error(SYNOPSIS, "--bucket needs --heatmap");
	if (c.heatmap && (c.top || prof_transform_active(&c.xf)))
		prof_usage_error(SYNOPSIS, "--heatmap counts samples: it takes no --top or "
				 "transformation");
	if (c.heatmap)
		return prof_heatmap_fold_file((const char *const *)argv + optind, (size_t)(argc - optind),
					      &c.read, c.bucket_ns ? c.bucket_ns : PROF_HEATMAP_DEFAULT_BUCKET_NS,
					      c.output, c.no_header) | prof_close_stdout();

	prof_stacks_init(&t, 3);	/* differential input's two columns, samples */
	samples.t = &t;
	if (prof_profile_read_all((const char *const *)argv + optind, (size_t)(argc - optind),
				  &c.read, &t, &meta, &sum))
		rval = 1;
	/* --top's hottest path merges threads, unless the roots moved (core/top.h) */
	c.top_opts.merge_roots = prof_profile_roots_are_threads(&meta) && !c.xf.strip_comm &&
				 !c.xf.skip_after && !c.xf.reverse && !c.xf.nbase;
	if (prof_transform_active(&c.xf)) {
		prof_stacks_init(&xt, t.nweights);
		prof_transform_apply(&c.xf, &t, &xt);
		prof_stacks_release(&t);
		out_t = &xt;
		if (c.xf.nbase && !prof_stacks_count(&xt)) {
			prof_warn("no stack contains '%s'", c.sandwich[0]);
			rval = 1;
		}
	}
	rval |= write_result(&c, out_t, &meta, (size_t)sum.ncounts, &samples);
	prof_pprof_counter_release(&samples);
	prof_stacks_release(out_t);
	prof_meta_release(&meta);
	prof_transform_release(&c.xf);
	return rval | prof_close_stdout();
}
