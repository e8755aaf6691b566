#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/buf.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "formats/folded.h"
#include "formats/import.h"
#include "formats/perfscript.h"
#include "formats/pprof.h"
#include "formats/profile.h"
#include "formats/samples_tsv.h"
#include "io/chunk.h"
#include "io/input.h"

#define BLOCK_SIZE (256u << 10)
#define PEEK_SIZE (64u << 10)

/* What the time window kept, over all inputs with sample times. */
struct window_seen {
	unsigned long inputs;		/* perf script and profrec inputs */
	unsigned long samples;		/* samples they gave in the window */
	int have_span;
	uint64_t lo_ns, hi_ns;		/* span of their sample times */
};

/* The state of one prof_profile_read_all(): what later inputs inherit. */
struct reading {
	const struct prof_profile_opts *opts;
	struct prof_perfscript_opts perf;	/* opts, as the readers take them */
	struct prof_samples_opts samples;
	struct prof_stacks *t;
	struct prof_meta *meta;
	struct prof_profile_summary *sum;
	struct prof_perfscript_ctx perf_ctx;	/* the perf script event */
	char *profrec_event;		/* the event the first profrec input folded */
	struct window_seen win;
	unsigned long nmerged;		/* inputs whose metadata went into meta */
	int kernel_marked;		/* a profrec-made input: kernel frames "_[k]" */
};

void prof_profile_opts_init(struct prof_profile_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->time_to_ns = UINT64_MAX;
}

static const char *const format_names[] = {
	[PROF_PROFILE_AUTO] = "auto",
	[PROF_PROFILE_FOLDED] = "folded",
	[PROF_PROFILE_PROFREC] = "profrec",
	[PROF_PROFILE_PERF_SCRIPT] = "perf",
	[PROF_PROFILE_PPROF] = "pprof",
	[PROF_PROFILE_DTRACE] = "dtrace",
	[PROF_PROFILE_EUSTACK] = "eu-stack",
	[PROF_PROFILE_GDB] = "gdb",
	[PROF_PROFILE_PERF_REPORT] = "perf-report",
	[PROF_PROFILE_SPEEDSCOPE] = "speedscope",
};

int prof_profile_format_parse(const char *name)
{
	size_t i;

	if (strcmp(name, "perf-script") == 0)
		return PROF_PROFILE_PERF_SCRIPT;
	if (strcmp(name, "bpftrace") == 0)
		return PROF_PROFILE_DTRACE;
	for (i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
		if (strcmp(name, format_names[i]) == 0)
			return (int)i;
	return -1;
}

const char *prof_profile_format_name(enum prof_profile_format f)
{
	return (size_t)f < sizeof(format_names) / sizeof(format_names[0]) ? format_names[f] : "?";
}

enum prof_profile_format prof_profile_detect(const char *buf, size_t len, int complete)
{
	enum prof_profile_format f;

	if (prof_pprof_detect(buf, len, complete))
		return PROF_PROFILE_PPROF;
	if (prof_samples_detect(buf, len))
		return PROF_PROFILE_PROFREC;
	if (prof_perfscript_detect(buf, len, complete))
		return PROF_PROFILE_PERF_SCRIPT;
	if ((f = prof_import_detect(buf, len, complete)) != PROF_PROFILE_AUTO)
		return f;
	return PROF_PROFILE_FOLDED;
}

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
static void warn_window_empty(const struct prof_profile_opts *o, const struct window_seen *w)
{
	struct prof_buf b = PROF_BUF_INIT;

	add_secs(&b, o->time_from_ns);
	prof_buf_add(&b, "..", 2);
	if (o->time_to_ns == UINT64_MAX)
		prof_buf_addstr(&b, "end");
	else
		add_secs(&b, o->time_to_ns);
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

/* The unit perf script weights are in. */
static const char *perf_unit(const struct prof_perfscript_ctx *ctx,
			     const struct prof_perfscript_stats *st, int counts)
{
	static _Thread_local char buf[64];	/* profcmp reads two inputs at once */
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

static void note_other_events(const char *event, int defaulted, const char *others,
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
 * Add one input's metadata to the result's: the first input's is copied,
 * later ones keep what all agree on (see profile.h).
 */
static void merge_meta(struct reading *rd, const struct prof_meta *in)
{
	struct prof_meta *meta = rd->meta;
	size_t i = 0;

	if (rd->nmerged++ == 0) {
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

/* Report what the perf script reader found wrong; nonzero if anything. */
static int report_perf_lines(const char *name, const struct prof_perfscript_stats *st)
{
	size_t i;

	for (i = 0; i < st->nbad; i++)
		prof_input_warn(name, st->bad_line[i], "unrecognized line: %s", st->bad_text[i]);
	if (st->malformed > st->nbad)
		prof_input_warn(name, 0, "%lu unrecognized lines in all", st->malformed);
	return st->malformed != 0;
}

/* The note on the events perf script input had besides the one folded. */
static void note_perf_others(const struct prof_perfscript_ctx *ctx,
			     const struct prof_perfscript_stats *st)
{
	struct prof_buf others = PROF_BUF_INIT;
	unsigned long skipped = 0;
	size_t i;

	for (i = 0; i < st->nothers; i++) {
		if (i)
			prof_buf_add(&others, ", ", 2);
		prof_buf_addstr(&others, st->others[i].name);
		skipped += st->others[i].samples;
	}
	if (ctx->event)
		note_other_events(ctx->event, ctx->event_defaulted, prof_buf_cstr(&others), skipped);
	prof_buf_release(&others);
}

static int read_perf(struct reading *rd, struct prof_chunks *r, long jobs)
{
	struct prof_perfscript_ctx *ctx = &rd->perf_ctx;
	struct prof_meta im = PROF_META_INIT;
	struct prof_perfscript_stats st;
	const char *name = prof_chunks_name(r);
	int rval = 0;

	memset(&st, 0, sizeof(st));
	ctx->time_known = 0;	/* each file's times start at its first sample */
	if (prof_perfscript_read(r, rd->t, &rd->perf, (int)jobs, ctx, &st))
		rval = -1;
	if (report_perf_lines(name, &st))
		rval = -1;
	note_perf_others(ctx, &st);
	if (rd->perf.time_window && !ctx->time_known && st.outside_time)
		prof_warn("%s: no sample times in the input: --time-from/--time-to dropped every sample",
			  name);
	if (rd->perf.time_window) {
		/* times relative to the file's first sample, as the window is */
		int have = st.have_times && ctx->time_known && st.time_min_ns >= ctx->time_base_ns;

		window_note(&rd->win, st.samples, have, have ? st.time_min_ns - ctx->time_base_ns : 0,
			    have ? st.time_max_ns - ctx->time_base_ns : 0);
	}
	prof_info(2, "%s: %lu line%s, %lu sample%s folded", name, st.lines,
		  st.lines == 1 ? "" : "s", st.samples, st.samples == 1 ? "" : "s");
	prof_meta_set(&im, "unit", perf_unit(ctx, &st, rd->perf.counts));
	if (ctx->event)
		prof_meta_set(&im, "event", ctx->event);
	prof_meta_set(&im, "source", "perf-script");
	merge_meta(rd, &im);
	prof_meta_release(&im);
	prof_perfscript_stats_release(&st);
	return rval;
}

/*
 * The unit of the event folded: "event=cpu-clock,offcpu-time
 * unit=ns,count" lists one unit per event. Returns a malloc'ed string or
 * NULL.
 */
static char *profrec_unit(const struct prof_meta *in, const char *event, int counts)
{
	const char *unit = prof_meta_get(in, "unit");
	int k;

	if (counts)
		return xstrdup("samples");
	if (!unit)
		return NULL;
	if (!strchr(unit, ','))
		return xstrdup(unit);
	k = event ? prof_meta_list_index(prof_meta_get(in, "event"), event) : -1;
	return k >= 0 ? prof_meta_list_item(unit, (size_t)k) : NULL;
}

static int read_profrec(struct reading *rd, struct prof_chunks *r)
{
	const char *filter = rd->samples.event_filter;
	int chosen = filter && *filter;
	struct prof_samples_stats st;
	struct prof_meta in = PROF_META_INIT;
	char *unit;
	int rval = 0;

	memset(&st, 0, sizeof(st));
	if (rd->profrec_event)
		st.event = xstrdup(rd->profrec_event);
	else if (chosen)
		st.event = xstrdup(filter);
	if (prof_samples_read(r, rd->t, &rd->samples, &in, &st))
		rval = -1;
	note_other_events(st.event ? st.event : "?", !chosen, st.others, st.other_samples);
	if (rd->samples.time_window)
		window_note(&rd->win, st.samples, st.have_times, st.time_min_ns, st.time_max_ns);
	unit = profrec_unit(&in, st.event, rd->samples.counts);
	prof_meta_set(&in, "unit", unit ? unit : "ns");
	if (st.event) {
		prof_meta_set(&in, "event", st.event);
		if (!rd->profrec_event)
			rd->profrec_event = xstrdup(st.event);
	}
	prof_meta_set(&in, "source", "profrec");
	merge_meta(rd, &in);
	rd->kernel_marked = 1;
	free(unit);
	prof_meta_release(&in);
	prof_samples_stats_release(&st);
	return rval;
}

static int read_folded(struct reading *rd, struct prof_chunks *r)
{
	struct prof_meta in = PROF_META_INIT;
	struct prof_folded_stats st = { 0, 0, 0 };
	struct prof_folded_reader fr;
	const char *src;
	int rval;

	prof_folded_reader_init(&fr, rd->t, &in, &st, prof_chunks_name(r));
	fr.on_stack = rd->opts->on_stack;
	fr.ctx = rd->opts->on_stack_ctx;
	rval = prof_folded_reader_run_chunks(&fr, r);
	if (st.ncounts > rd->sum->ncounts)
		rd->sum->ncounts = st.ncounts;
	/* folded by profrec: its kernel frames carry "_[k]" */
	src = prof_meta_get(&in, "source");
	if (src && strcmp(src, "profrec") == 0)
		rd->kernel_marked = 1;
	/* An input that could not be read at all (a directory) has no say. */
	if (!prof_chunks_failed(r) || st.lines || in.count)
		merge_meta(rd, &in);
	prof_meta_release(&in);
	return rval;
}

/* Other profilers' output (import.h): read whole by its importer. */
static int read_import(struct reading *rd, struct prof_chunks *r, enum prof_profile_format f)
{
	struct prof_import imp;
	int rval;

	prof_import_init(&imp, prof_chunks_name(r), rd->t);
	imp.include_pid = rd->opts->include_pid;
	imp.include_tid = rd->opts->include_tid;
	imp.counts = rd->opts->counts;
	imp.event = rd->opts->event;
	imp.on_stack = rd->opts->on_stack;
	imp.on_stack_ctx = rd->opts->on_stack_ctx;
	rval = prof_import_read(&imp, f, r);
	if (imp.counts)
		prof_meta_set(&imp.meta, "unit", "samples");
	prof_info(2, "%s: %lu stack%s folded", prof_chunks_name(r), imp.stacks,
		  imp.stacks == 1 ? "" : "s");
	merge_meta(rd, &imp.meta);
	prof_import_release(&imp);
	return rval;
}

/* pprof: the whole (decompressed) message, then pprof.h's reader. */
static int read_pprof(struct reading *rd, struct prof_chunks *r)
{
	struct prof_pprof_read_opts po = {
		.type = rd->opts->event, .counts = rd->opts->counts,
		.on_stack = rd->opts->on_stack, .on_stack_ctx = rd->opts->on_stack_ctx,
	};
	struct prof_meta in = PROF_META_INIT;
	struct prof_buf all = PROF_BUF_INIT;
	size_t len;
	int last, rval;
	char *block;

	while ((block = prof_chunks_next(r, PROF_CHUNK_LINE, &len, &last)) != NULL) {
		prof_buf_add(&all, block, len);
		prof_chunks_recycle(r, block);
	}
	rval = prof_chunks_failed(r) ? -1 : prof_pprof_read(all.data, all.len, prof_chunks_name(r),
							       &po, rd->t, &in);
	merge_meta(rd, &in);
	prof_meta_release(&in);
	prof_buf_release(&all);
	return rval;
}

/* A regular file, not standard input: it can be opened again. */
static int is_regular(const char *path)
{
	struct stat sb;

	return path && strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* Threads for perf script input: one for a pipe or a small file. */
static long default_jobs(const char *path)
{
	int is_stdin = !path || strcmp(path, "-") == 0;
	struct stat sb;
	long n;

	if ((is_stdin ? fstat(0, &sb) : stat(path, &sb)) != 0 || !S_ISREG(sb.st_mode) ||
	    sb.st_size < (off_t)(8u << 20))
		return 1;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 16 ? 16 : n;
}

static struct prof_chunks *open_input(const char *path)
{
	struct prof_input *in = prof_input_open(path);

	return in ? prof_chunks_open(in, BLOCK_SIZE) : NULL;
}

/* Close an input read, counting it if reading it failed. */
static void close_input(struct reading *rd, struct prof_chunks *r)
{
	if (prof_chunks_failed(r))
		rd->sum->unreadable++;
	prof_chunks_close(r);
}

/*
 * Lines ended by CR alone (classic Mac OS) would be read as one line of
 * the whole input: refuse them with the way out. True when the first
 * block has a CR and no newline.
 */
static int cr_only(struct prof_chunks *r)
{
	size_t len;
	const char *p = prof_chunks_peek(r, PEEK_SIZE, &len);

	if (!len || memchr(p, '\n', len) || !memchr(p, '\r', len))
		return 0;
	prof_input_warn(prof_chunks_name(r), 1, "lines end in a carriage return alone (classic "
			"Mac OS), not a newline; convert the file: tr '\\r' '\\n'");
	return 1;
}

static enum prof_profile_format detect_input(struct reading *rd, struct prof_chunks *r)
{
	size_t len;
	const char *p;

	if (rd->opts->format != PROF_PROFILE_AUTO)
		return rd->opts->format;
	p = prof_chunks_peek(r, PEEK_SIZE, &len);
	return prof_profile_detect(p, len, len < PEEK_SIZE);
}

static void reading_init(struct reading *rd, const struct prof_profile_opts *o,
			 struct prof_stacks *t, struct prof_meta *meta,
			 struct prof_profile_summary *sum)
{
	memset(rd, 0, sizeof(*rd));
	memset(sum, 0, sizeof(*sum));
	sum->ncounts = 1;
	rd->opts = o;
	rd->t = t;
	rd->meta = meta;
	rd->sum = sum;
	rd->perf.include_pid = rd->samples.include_pid = o->include_pid;
	rd->perf.include_tid = rd->samples.include_tid = o->include_tid;
	rd->perf.counts = rd->samples.counts = o->counts;
	rd->perf.event_filter = rd->samples.event_filter = o->event;
	rd->perf.time_window = rd->samples.time_window = o->time_window;
	rd->perf.time_from_ns = rd->samples.time_from_ns = o->time_from_ns;
	rd->perf.time_to_ns = rd->samples.time_to_ns = o->time_to_ns;
	rd->perf.annotate_kernel = o->annotate_kernel;
	rd->perf.annotate_jit = o->annotate_jit;
	rd->perf.include_addrs = o->include_addrs;
	rd->perf.cpp_names = o->cpp_names;
	rd->perf.no_demangle = o->no_demangle;
	rd->perf.mark_inlined = o->mark_inlined;
	rd->perf.on_stack = rd->samples.on_stack = o->on_stack;
	rd->perf.on_stack_ctx = rd->samples.on_stack_ctx = o->on_stack_ctx;
	rd->perf.on_sample = rd->samples.on_sample = o->on_sample;
	rd->perf.on_sample_ctx = rd->samples.on_sample_ctx = o->on_sample_ctx;
	rd->samples.on_address = o->on_address;
	rd->samples.on_address_ctx = o->on_address_ctx;
}

/*
 * Read the perf script inputs that were put off: paths[index[i]], or the
 * reader kept open in open[i] for a pipe.
 */
static int read_perf_inputs(struct reading *rd, const char *const *paths, const size_t *index,
			    struct prof_chunks **open, size_t n)
{
	size_t i;
	int rval = 0;

	if (n && rd->kernel_marked && !rd->perf.annotate_kernel) {
		rd->perf.annotate_kernel = 1;
		prof_info(1, "note: perf script kernel frames marked _[k] as in the profrec input");
	}
	for (i = 0; i < n; i++) {
		const char *path = paths[index[i]];
		struct prof_chunks *r = open[i] ? open[i] : open_input(path);

		if (!r) {
			rd->sum->unreadable++;
			rval = -1;
			continue;
		}
		rd->sum->format = PROF_PROFILE_PERF_SCRIPT;
		if (read_perf(rd, r, rd->opts->jobs ? rd->opts->jobs : default_jobs(path)))
			rval = -1;
		close_input(rd, r);
	}
	return rval;
}

int prof_profile_read_all(const char *const *paths, size_t n,
			  const struct prof_profile_opts *opts, struct prof_stacks *t,
			  struct prof_meta *meta, struct prof_profile_summary *sum)
{
	static const char *const stdin_only[] = { "-" };
	struct prof_profile_summary local;
	struct reading rd;
	struct prof_chunks **perf_open;
	size_t *perf_index, nperf = 0, i;
	int rval = 0;

	if (n == 0) {
		paths = stdin_only;
		n = 1;
	}
	reading_init(&rd, opts, t, meta, sum ? sum : &local);
	perf_open = xcalloc(n, sizeof(*perf_open));
	perf_index = xcalloc(n, sizeof(*perf_index));
	for (i = 0; i < n; i++) {
		struct prof_chunks *r = open_input(paths[i]);
		enum prof_profile_format f;

		if (!r) {
			rd.sum->unreadable++;
			rval = -1;
			continue;
		}
		rd.sum->inputs++;
		if (cr_only(r)) {
			prof_chunks_close(r);
			rd.sum->unreadable++;
			rval = -1;
			continue;
		}
		f = detect_input(&rd, r);
		if (f == PROF_PROFILE_PERF_SCRIPT) {
			/* read last (see profile.h); a file is opened again, a pipe kept */
			perf_index[nperf] = i;
			if (is_regular(paths[i])) {
				prof_chunks_close(r);
				r = NULL;
			}
			perf_open[nperf++] = r;
			continue;
		}
		rd.sum->format = f;
		if (opts->time_window && f != PROF_PROFILE_PROFREC) {
			/* every sample would pass: a window that selects nothing is no window */
			prof_warn("%s: %s input has no sample times: --time-from/--time-to cannot "
				  "select its samples (profrec TSV or perf script text with its "
				  "time field has them)", prof_chunks_name(r), prof_profile_format_name(f));
			rval = -1;
			close_input(&rd, r);
			continue;
		}
		if (prof_import_handles(f)) {
			if (read_import(&rd, r, f))
				rval = -1;
			close_input(&rd, r);
			continue;
		}
		if ((f == PROF_PROFILE_PROFREC ? read_profrec(&rd, r) :
		     f == PROF_PROFILE_PPROF ? read_pprof(&rd, r) : read_folded(&rd, r)) != 0)
			rval = -1;
		close_input(&rd, r);
	}
	if (read_perf_inputs(&rd, paths, perf_index, perf_open, nperf))
		rval = -1;
	free(perf_open);
	free(perf_index);
	/* Like grep finding nothing: the result is empty, and an error. */
	if (opts->time_window && rd.win.inputs && !rd.win.samples) {
		warn_window_empty(opts, &rd.win);
		rd.sum->window_empty = 1;
		rval = -1;
	}
	prof_perfscript_ctx_release(&rd.perf_ctx);
	free(rd.profrec_event);
	return rval;
}

int prof_profile_read(const char *path, const struct prof_profile_opts *opts,
		      struct prof_stacks *t, struct prof_meta *meta,
		      struct prof_profile_summary *sum)
{
	const char *paths[1];

	paths[0] = path ? path : "-";
	return prof_profile_read_all(paths, 1, opts, t, meta, sum);
}

int prof_profile_roots_are_threads(const struct prof_meta *meta)
{
	const char *src = prof_meta_get(meta, "source");

	return src && (!strcmp(src, "profrec") || !strcmp(src, "perf-script"));
}
