/*
 * proffold: fold stack samples (perf script text, profrec sample TSV,
 * folded stacks) into folded stacks, optionally transformed, or into a
 * bottleneck report.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/buf.h"
#include "io/chunk.h"
#include "base/error.h"
#include "formats/folded.h"
#include "io/input.h"
#include "core/meta.h"
#include "base/options.h"
#include "io/output.h"
#include "formats/perfscript.h"
#include "formats/samples_tsv.h"
#include "core/stack.h"
#include "core/top.h"
#include "core/transform.h"
#include "base/units.h"
#include "base/xalloc.h"

#define SYNOPSIS "proffold [-ahqv] [-e event] [-f format] [-j jobs] [-o file] [--option ...] [file ...]"

static const char help_text[] =
"usage: " SYNOPSIS "\n"
"Fold stack samples into folded stacks (\"root;...;leaf weight\", sorted).\n"
"Input: perf script text, profrec sample TSV or folded stacks, detected\n"
"automatically, compressed or not; several files are merged.\n"
"\n"
"Input and folding:\n"
"  -f, --format=FMT        auto (default), perf, profrec or folded\n"
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
"      --time-from=T       only samples at or after T (s, or with unit: 1.5s, 200ms)\n"
"      --time-to=T         only samples before T (relative to the first sample)\n"
"  -j, --jobs=N            threads for perf script input (default: cores for big files)\n"
"\n"
"Transformations (any input):\n"
"      --focus=REGEX       keep stacks with a frame matching REGEX\n"
"      --exclude=REGEX     drop stacks with a frame matching REGEX\n"
"      --skip-after=FUNC   make the deepest FUNC frame the root\n"
"      --strip-comm        drop the root (process name) frame\n"
"      --collapse-recursion  f;f;f -> f\n"
"      --max-depth=N       keep the N frames nearest the root\n"
"      --reverse           leaf first\n"
"\n"
"Output:\n"
"  -o, --output=FILE       write FILE (atomically; .gz/.zst/.lz4 compress)\n"
"      --no-header         no leading \"# key=value\" metadata line\n"
"      --top=N             bottleneck report of the N top functions (TSV)\n"
"      --sort=KEY          rank the report by self (default) or total\n"
"      --threshold=PCT     flag functions with this self share (default 5)\n"
"      --human             aligned text report instead of TSV\n"
"  -q, --quiet             no notes on stderr\n"
"  -v, --verbose           more notes on stderr\n"
"  -h, --help              this help\n"
"\n"
"Exit status: 0 success, 1 failure, malformed input (the rest is folded) or\n"
"no sample in the time window, 2 usage error.\n";

enum {
	OPT_ADDRS = 0x100, OPT_COLLAPSE, OPT_COUNTS, OPT_CPP, OPT_EXCLUDE, OPT_FOCUS,
	OPT_HUMAN, OPT_JIT, OPT_KERNEL, OPT_MARK_INLINED, OPT_MAX_DEPTH, OPT_NO_HEADER,
	OPT_PID, OPT_REVERSE, OPT_SKIP_AFTER, OPT_SORT, OPT_STRIP_COMM, OPT_THRESHOLD,
	OPT_TID, OPT_TIME_FROM, OPT_TIME_TO, OPT_TOP,
};

static const struct option long_opts[] = {
	{ "addrs", no_argument, NULL, OPT_ADDRS },
	{ "all", no_argument, NULL, 'a' },
	{ "collapse-recursion", no_argument, NULL, OPT_COLLAPSE },
	{ "counts", no_argument, NULL, OPT_COUNTS },
	{ "cpp-names", no_argument, NULL, OPT_CPP },
	{ "event-filter", required_argument, NULL, 'e' },
	{ "exclude", required_argument, NULL, OPT_EXCLUDE },
	{ "focus", required_argument, NULL, OPT_FOCUS },
	{ "format", required_argument, NULL, 'f' },
	{ "help", no_argument, NULL, 'h' },
	{ "human", no_argument, NULL, OPT_HUMAN },
	{ "jit", no_argument, NULL, OPT_JIT },
	{ "jobs", required_argument, NULL, 'j' },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "list-options", no_argument, NULL, PROF_OPT_LIST_OPTIONS },
	{ "mark-inlined", no_argument, NULL, OPT_MARK_INLINED },
	{ "max-depth", required_argument, NULL, OPT_MAX_DEPTH },
	{ "no-header", no_argument, NULL, OPT_NO_HEADER },
	{ "output", required_argument, NULL, 'o' },
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

enum format { FMT_AUTO, FMT_PERF, FMT_PROFREC, FMT_FOLDED };

/* Everything main() decided from the command line. */
struct config {
	enum format format;
	struct prof_perfscript_opts perf;
	struct prof_samples_opts samples;
	struct prof_transform xf;
	long jobs;			/* 0: automatic */
	const char *output;
	int no_header;
	int top;
	size_t top_n;
	struct prof_top_opts top_opts;
};

/* What the time window kept, over all inputs with sample times. */
struct window_seen {
	unsigned long inputs;		/* perf script and profrec inputs */
	unsigned long samples;		/* samples they gave in the window */
	int have_span;
	uint64_t lo_ns, hi_ns;		/* span of their sample times */
};

static void window_note(struct window_seen *w, unsigned long samples, int have, uint64_t lo,
			uint64_t hi)
{
	w->inputs++;
	w->samples += samples;
	if (!have)
		return;
	if (!w->have_span || lo < w->lo_ns)
		w->lo_ns = lo;
	if (!w->have_span || hi > w->hi_ns)
		w->hi_ns = hi;
	w->have_span = 1;
}

/* Seconds, exact to the nanosecond: "0.5s", "12s", "0.00000015s". */
static void add_secs(struct prof_buf *b, uint64_t ns)
{
	char frac[16];
	size_t n;

	prof_buf_addf(b, "%llu", (unsigned long long)(ns / 1000000000u));
	if (ns % 1000000000u) {
		snprintf(frac, sizeof(frac), "%09llu", (unsigned long long)(ns % 1000000000u));
		for (n = strlen(frac); n > 0 && frac[n - 1] == '0'; n--)
			frac[n - 1] = '\0';
		prof_buf_addf(b, ".%s", frac);
	}
	prof_buf_addch(b, 's');
}

/* The window kept nothing: say what it was and what the input spans. */
static void window_empty(const struct config *c, const struct window_seen *w)
{
	struct prof_buf b = PROF_BUF_INIT;

	add_secs(&b, c->perf.time_from_ns);
	prof_buf_add(&b, "..", 2);
	if (c->perf.time_to_ns == UINT64_MAX)
		prof_buf_addstr(&b, "end");
	else
		add_secs(&b, c->perf.time_to_ns);
	if (w->have_span) {
		prof_buf_addstr(&b, "; the profile spans ");
		add_secs(&b, w->lo_ns);
		prof_buf_add(&b, "..", 2);
		add_secs(&b, w->hi_ns);
	} else {
		prof_buf_addstr(&b, "; the input has no timed samples");
	}
	prof_warn("no samples in the window %s", prof_buf_cstr(&b));
	prof_buf_release(&b);
}

#define BLOCK_SIZE (256u << 10)
#define PEEK_SIZE (64u << 10)

/* The unit perf script weights are in. */
static const char *perf_unit(const struct prof_perfscript_ctx *ctx,
			     const struct prof_perfscript_stats *st, int counts)
{
	static char buf[64];
	size_t n;

	if (counts || !st->weighted)
		return "samples";
	if (!ctx->event)
		return "events";	/* periods of an event perf did not name */
	/* "cpu-clock", "cpu-clock:ppp", "cpu-clock/call-graph=fp/" */
	n = strcspn(ctx->event, ":/");
	if ((n == 9 && strncmp(ctx->event, "cpu-clock", 9) == 0) ||
	    (n == 10 && strncmp(ctx->event, "task-clock", 10) == 0))
		return "ns";
	/* "cycles", "cycles:u" -> "cycles"; tracepoints and the rest: "events" */
	if (n == 0 || n >= sizeof(buf) || strchr(ctx->event, '/'))
		return "events";
	memcpy(buf, ctx->event, n);
	buf[n] = '\0';
	return strspn(buf, "abcdefghijklmnopqrstuvwxyz0123456789-_") == n ? buf : "events";
}

static void note_others(const char *event, int defaulted, const char *others,
			unsigned long nsamples)
{
	if (!others || !*others)
		return;
	prof_info(1, "note: folded only '%s' samples (%s); skipped %lu sample%s of: %s%s",
		  event, defaulted ? "the first event" : "--event-filter", nsamples,
		  nsamples == 1 ? "" : "s", others,
		  defaulted ? " (choose with --event-filter)" : "");
}

/*
 * Add one input's metadata (its own pairs and what folding it set) to the
 * output's. The output keeps what all inputs agree on: a key that is
 * missing from an input or has another value there is dropped, except
 * source, which becomes "merged". Adding profiles in different units is
 * allowed but worth a warning.
 */
static void merge_meta(struct prof_meta *meta, const struct prof_meta *in, int first)
{
	size_t i = 0;

	if (first) {
		prof_meta_merge(meta, in);
		return;
	}
	while (i < meta->count) {
		const char *key = meta->keys[i], *v = prof_meta_get(in, key);

		if (v && strcmp(v, meta->values[i]) == 0) {
			i++;
		} else if (strcmp(key, "source") == 0) {
			prof_meta_set(meta, key, "merged");
			i++;
		} else {
			if (v && strcmp(key, "unit") == 0)
				prof_warn("warning: inputs in different units (%s, %s) were added together",
					  meta->values[i], v);
			prof_meta_remove(meta, key);
		}
	}
}

static int fold_perf(struct config *c, struct prof_chunks *r, struct prof_stacks *t,
		     struct prof_meta *meta, int first, struct prof_perfscript_ctx *ctx, long jobs,
		     struct window_seen *win)
{
	struct prof_meta im = PROF_META_INIT;
	struct prof_perfscript_stats st;
	struct prof_buf others = PROF_BUF_INIT;
	unsigned long skipped = 0;
	size_t i;
	int rval = 0;

	memset(&st, 0, sizeof(st));
	ctx->time_known = 0;	/* each file's times start at its first sample */
	if (prof_perfscript_read(r, t, &c->perf, (int)jobs, ctx, &st))
		rval = 1;
	for (i = 0; i < st.nbad; i++)
		prof_input_warn(prof_chunks_name(r), st.bad_line[i], "unrecognized line: %s",
				st.bad_text[i]);
	if (st.malformed > st.nbad)
		prof_input_warn(prof_chunks_name(r), 0, "%lu unrecognized lines in all", st.malformed);
	if (st.malformed)
		rval = 1;
	for (i = 0; i < st.nothers; i++) {
		if (i)
			prof_buf_add(&others, ", ", 2);
		prof_buf_addstr(&others, st.others[i].name);
		skipped += st.others[i].samples;
	}
	if (ctx->event)
		note_others(ctx->event, ctx->event_defaulted, prof_buf_cstr(&others), skipped);
	if (c->perf.time_window && !ctx->time_known && st.outside_time)
		prof_warn("%s: no sample times in the input: --time-from/--time-to dropped every sample",
			  prof_chunks_name(r));
	if (c->perf.time_window) {
		/* times relative to the file's first sample, as the window is */
		int have = st.have_times && ctx->time_known && st.time_min_ns >= ctx->time_base_ns;

		window_note(win, st.samples, have, have ? st.time_min_ns - ctx->time_base_ns : 0,
			    have ? st.time_max_ns - ctx->time_base_ns : 0);
	}
	prof_info(2, "%s: %lu line%s, %lu sample%s folded", prof_chunks_name(r), st.lines,
		  st.lines == 1 ? "" : "s", st.samples, st.samples == 1 ? "" : "s");
	prof_meta_set(&im, "unit", perf_unit(ctx, &st, c->perf.counts));
	if (ctx->event)
		prof_meta_set(&im, "event", ctx->event);
	prof_meta_set(&im, "source", "perf-script");
	merge_meta(meta, &im, first);
	prof_meta_release(&im);
	prof_buf_release(&others);
	prof_perfscript_stats_release(&st);
	return rval;
}

static int fold_profrec(struct config *c, struct prof_chunks *r, struct prof_stacks *t,
			struct prof_meta *meta, int first, char **event, struct window_seen *win)
{
	struct prof_samples_stats st;
	struct prof_meta in = PROF_META_INIT;
	const char *unit;
	char *own_unit = NULL;
	int rval = 0;

	memset(&st, 0, sizeof(st));
	if (*event)
		st.event = xstrdup(*event);
	else if (c->samples.event_filter && *c->samples.event_filter)
		st.event = xstrdup(c->samples.event_filter);
	if (prof_samples_read(r, t, &c->samples, &in, &st))
		rval = 1;
	note_others(st.event ? st.event : "?", !(c->samples.event_filter && *c->samples.event_filter),
		    st.others, st.other_samples);
	if (c->samples.time_window)
		window_note(win, st.samples, st.have_times, st.time_min_ns, st.time_max_ns);
	unit = c->samples.counts ? "samples" : prof_meta_get(&in, "unit");
	if (unit && !c->samples.counts && strchr(unit, ',')) {
		/* "event=cpu-clock,offcpu-time unit=ns,count": the folded event's */
		int k = st.event ? prof_meta_list_index(prof_meta_get(&in, "event"), st.event) : -1;

		unit = own_unit = k >= 0 ? prof_meta_list_item(unit, (size_t)k) : NULL;
	}
	prof_meta_set(&in, "unit", unit ? unit : "ns");
	if (st.event) {
		prof_meta_set(&in, "event", st.event);
		if (!*event)
			*event = xstrdup(st.event);
	}
	prof_meta_set(&in, "source", "profrec");
	merge_meta(meta, &in, first);
	free(own_unit);
	prof_meta_release(&in);
	prof_samples_stats_release(&st);
	return rval;
}

/* *from_profrec: set if the metadata says profrec made the stacks. */
static int fold_folded(struct prof_chunks *r, struct prof_stacks *t, struct prof_meta *meta,
		       int first, int *ncounts, int *from_profrec)
{
	struct prof_meta in = PROF_META_INIT;
	const char *src;
	int rval = 0, n = 0;

	if (prof_samples_read_folded(r, t, &in, NULL, &n))
		rval = 1;
	if (n > *ncounts)
		*ncounts = n;
	src = prof_meta_get(&in, "source");
	if (src && strcmp(src, "profrec") == 0)
		*from_profrec = 1;
	merge_meta(meta, &in, first);
	prof_meta_release(&in);
	return rval;
}

/* A regular file, not standard input: it can be opened again. */
static int is_regular(const char *path)
{
	struct stat sb;

	return strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

static long default_jobs(const char *path)
{
	struct stat sb;
	long n;

	int is_stdin = !path || strcmp(path, "-") == 0;

	/* A pipe's size is unknown: one thread (pass -j for more). */
	if ((is_stdin ? fstat(0, &sb) : stat(path, &sb)) != 0 || !S_ISREG(sb.st_mode) ||
	    sb.st_size < (off_t)(8u << 20))
		return 1;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 16 ? 16 : n;
}

static enum format detect(struct prof_chunks *r)
{
	size_t len;
	const char *p = prof_chunks_peek(r, PEEK_SIZE, &len);

	if (prof_samples_detect(p, len))
		return FMT_PROFREC;
	if (prof_perfscript_detect(p, len, len < PEEK_SIZE))
		return FMT_PERF;
	return FMT_FOLDED;
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
	struct prof_meta meta = PROF_META_INIT;
	struct prof_perfscript_ctx ctx;
	struct window_seen win;
	struct prof_output *o;
	char *profrec_event = NULL, errbuf[256];
	const char *const stdin_only[] = { "-" };
	const char *const *inputs;
	int ninputs, i, ch, rval = 0, ncounts = 1, nperf = 0, marked = 0, nmerged = 0;
	struct prof_chunks **perf_r;
	int *perf_i;
	uint64_t u;
	double d;

	prof_set_progname(argv[0]);
	memset(&c, 0, sizeof(c));
	memset(&ctx, 0, sizeof(ctx));
	memset(&win, 0, sizeof(win));
	c.perf.time_to_ns = UINT64_MAX;
	c.top_opts.threshold_pct = 5;
	while ((ch = prof_getopt_long(argc, argv, "ae:f:hj:o:qv", long_opts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			c.perf.annotate_kernel = c.perf.annotate_jit = 1;
			break;
		case 'e':
			c.perf.event_filter = c.samples.event_filter = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "auto") == 0)
				c.format = FMT_AUTO;
			else if (strcmp(optarg, "perf") == 0 || strcmp(optarg, "perf-script") == 0)
				c.format = FMT_PERF;
			else if (strcmp(optarg, "profrec") == 0)
				c.format = FMT_PROFREC;
			else if (strcmp(optarg, "folded") == 0)
				c.format = FMT_FOLDED;
			else
				prof_usage_error(SYNOPSIS, "--format: unknown format '%s'", optarg);
			break;
		case 'h':
			prof_help(help_text);
		case 'j':
			if (prof_parse_u64(optarg, &u) || u < 1 || u > 256)
				prof_usage_error(SYNOPSIS, "--jobs: expected 1..256, got '%s'", optarg);
			c.jobs = (long)u;
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
			c.perf.include_addrs = 1;
			break;
		case OPT_COLLAPSE:
			c.xf.collapse_recursion = 1;
			break;
		case OPT_COUNTS:
			c.perf.counts = c.samples.counts = 1;
			break;
		case OPT_CPP:
			c.perf.cpp_names = 1;
			break;
		case OPT_EXCLUDE:
		case OPT_FOCUS:
			if (prof_transform_add_regex(&c.xf, ch == OPT_EXCLUDE, optarg, errbuf,
						     sizeof(errbuf)))
				prof_usage_error(SYNOPSIS, "--%s: bad regex '%s': %s",
						 ch == OPT_EXCLUDE ? "exclude" : "focus", optarg, errbuf);
			break;
		case OPT_HUMAN:
			c.top_opts.human = 1;
			break;
		case OPT_JIT:
			c.perf.annotate_jit = 1;
			break;
		case OPT_KERNEL:
			c.perf.annotate_kernel = 1;
			break;
		case OPT_MARK_INLINED:
			c.perf.mark_inlined = 1;
			break;
		case OPT_MAX_DEPTH:
			if (prof_parse_u64(optarg, &u) || u < 1)
				prof_usage_error(SYNOPSIS, "--max-depth: expected a positive number, got '%s'",
						 optarg);
			c.xf.max_depth = (size_t)u;
			break;
		case OPT_NO_HEADER:
			c.no_header = 1;
			break;
		case OPT_PID:
			c.perf.include_pid = c.samples.include_pid = 1;
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
		case OPT_STRIP_COMM:
			c.xf.strip_comm = 1;
			break;
		case OPT_THRESHOLD:
			if (prof_parse_double(optarg, &d) || d < 0 || d > 100)
				prof_usage_error(SYNOPSIS, "--threshold: expected 0..100, got '%s'", optarg);
			c.top_opts.threshold_pct = d;
			break;
		case OPT_TID:
			c.perf.include_tid = c.samples.include_tid = 1;
			break;
		case OPT_TIME_FROM:
			c.perf.time_from_ns = parse_time_opt("time-from", optarg);
			c.perf.time_window = 1;
			break;
		case OPT_TIME_TO:
			c.perf.time_to_ns = parse_time_opt("time-to", optarg);
			c.perf.time_window = 1;
			break;
		case OPT_TOP:
			if (prof_parse_u64(optarg, &u) || u < 1)
				prof_usage_error(SYNOPSIS, "--top: expected a positive number, got '%s'", optarg);
			c.top = 1;
			c.top_opts.n = (size_t)u;
			break;
		case PROF_OPT_LIST_OPTIONS:
			prof_list_option_values(long_opts, (const struct prof_option_values[]){
				{ "format", "auto,perf,profrec,folded" }, { "sort", "self,total" },
				{ NULL, NULL } });
		default:
			prof_usage_error(SYNOPSIS, NULL);
		}
	}
	if (c.perf.time_window && c.perf.time_to_ns != UINT64_MAX &&
	    c.perf.time_to_ns <= c.perf.time_from_ns)
		prof_usage_error(SYNOPSIS, "--time-to must be later than --time-from");
	if (c.top_opts.human && !c.top)
		prof_usage_error(SYNOPSIS, "--human needs --top");
	c.samples.time_window = c.perf.time_window;
	c.samples.time_from_ns = c.perf.time_from_ns;
	c.samples.time_to_ns = c.perf.time_to_ns;

	if (optind < argc) {
		inputs = (const char *const *)argv + optind;
		ninputs = argc - optind;
	} else {
		inputs = stdin_only;
		ninputs = 1;
	}
	prof_stacks_init(&t, 2);
	/*
	 * perf script inputs are folded last: when profrec profiles are
	 * merged with them, their kernel frames are marked "_[k]" as profrec
	 * marks them, so that a kernel function has one name.
	 */
	perf_r = xcalloc((size_t)ninputs, sizeof(*perf_r));
	perf_i = xcalloc((size_t)ninputs, sizeof(*perf_i));
	for (i = 0; i < ninputs; i++) {
		struct prof_input *in = prof_input_open(inputs[i]);
		struct prof_chunks *r;

		if (!in) {
			rval = 1;
			continue;
		}
		r = prof_chunks_open(in, BLOCK_SIZE);
		switch (c.format != FMT_AUTO ? c.format : detect(r)) {
		case FMT_PERF:
			/* a file is opened again later; a pipe is kept open */
			perf_r[nperf] = is_regular(inputs[i]) ? NULL : r;
			perf_i[nperf++] = i;
			if (!perf_r[nperf - 1])
				prof_chunks_close(r);
			continue;
		case FMT_PROFREC:
			rval |= fold_profrec(&c, r, &t, &meta, !nmerged++, &profrec_event, &win);
			marked = 1;
			break;
		default:
			rval |= fold_folded(r, &t, &meta, !nmerged++, &ncounts, &marked);
			break;
		}
		prof_chunks_close(r);
	}
	if (nperf && marked && !c.perf.annotate_kernel) {
		c.perf.annotate_kernel = 1;
		prof_info(1, "note: perf script kernel frames marked _[k] as in the profrec input");
	}
	for (i = 0; i < nperf; i++) {
		struct prof_chunks *r = perf_r[i];

		if (!r) {
			struct prof_input *in = prof_input_open(inputs[perf_i[i]]);

			if (!in) {
				rval = 1;
				continue;
			}
			r = prof_chunks_open(in, BLOCK_SIZE);
		}
		rval |= fold_perf(&c, r, &t, &meta, !nmerged++, &ctx,
				  c.jobs ? c.jobs : default_jobs(inputs[perf_i[i]]), &win);
		prof_chunks_close(r);
	}
	free(perf_r);
	free(perf_i);
	/* Like grep finding nothing: the output is empty, the status 1. */
	if (c.perf.time_window && win.inputs && !win.samples) {
		window_empty(&c, &win);
		rval = 1;
	}
	if (prof_transform_active(&c.xf)) {
		prof_stacks_init(&xt, t.nweights);
		prof_transform_apply(&c.xf, &t, &xt);
		prof_stacks_release(&t);
		out_t = &xt;
	}
	o = prof_output_open(c.output, PROF_OUT_ATOMIC,
			     c.output ? prof_compression_from_suffix(c.output) : PROF_COMP_NONE);
	if (!o) {
		rval = 1;
	} else {
		int w;

		if (c.top) {
			c.top_opts.unit = prof_meta_get(&meta, "unit");
			w = prof_top_write(out_t, &c.top_opts, &meta, o);
		} else {
			w = prof_folded_write(out_t, c.no_header ? NULL : &meta, (size_t)ncounts, o);
		}
		if (w) {
			prof_output_abort(o);
			rval = 1;
		} else if (prof_output_close(o)) {
			rval = 1;
		}
	}
	prof_stacks_release(out_t);
	prof_meta_release(&meta);
	prof_perfscript_ctx_release(&ctx);
	prof_transform_release(&c.xf);
	free(profrec_event);
	return rval | prof_close_stdout();
}
