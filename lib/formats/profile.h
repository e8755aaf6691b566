#ifndef PROF_PROFILE_H
#define PROF_PROFILE_H
/*
 * Read any profile: the one entry point through which tools (proffold,
 * profflame, profcmp, the report) turn input files into a stack table.
 *
 * lib/formats holds one reader or writer per format, and this entry:
 *   profile.{c,h}         detect an input's format, dispatch, metadata
 *   folded.{c,h}          folded stacks: the one folded reading loop, writer
 *   samples_tsv.{c,h}     profrec's sample TSV reader
 *   perfscript.h          `perf script` text, as stackcollapse-perf.pl
 *     perfscript_lines.c    its line grammar and format detection
 *     perfscript.c          its parser (frames, samples)
 *     perfscript_read.c     whole inputs, several threads
 *   tsv.{c,h}, tsv_schemas.c   TSV splitting, validation, every tool's columns
 *   heatmap.{c,h}         the subsecond heat map (on_sample below)
 *   block_line.h          walking the lines of an io/chunk.h block
 *
 *     struct prof_profile_opts o;
 *     struct prof_stacks t;
 *     struct prof_meta meta = PROF_META_INIT;
 *     struct prof_profile_summary sum;
 *
 *     prof_profile_opts_init(&o);
 *     o.event = "cpu-clock";               (optional, like proffold -e)
 *     prof_stacks_init(&t, 2);              (2: keep differential input)
 *     if (prof_profile_read("app.tsv", &o, &t, &meta, &sum))
 *             rval = 1;                     (already reported; t holds
 *                                            everything valid)
 *     ... prof_meta_get(&meta, "unit") ...
 *     prof_stacks_release(&t); prof_meta_release(&meta);
 *
 * Formats, detected from the first 64 KiB of the decompressed input
 * (gzip, zstd and lz4 are undone by io/input.h, whatever the file name):
 *  - profrec sample TSV (samples_tsv.h): its header line is the
 *    profrec-samples columns. One event is folded (opts.event, else the
 *    first of the metadata's event list, else the first row's).
 *  - `perf script` text, with or without -g (perfscript.h): folded
 *    exactly like stackcollapse-perf.pl, read by opts.jobs threads.
 *  - pprof's profile.proto, gzip'd (.pb.gz) or raw (pprof.h): one
 *    sample type is folded (opts.event, else the profile's default).
 *  - other profilers' and debuggers' output (import.h): DTrace and
 *    bpftrace aggregated stacks, eu-stack and gdb backtraces, perf report
 *    -g folded, speedscope JSON; read whole, one sample per backtrace.
 *  - anything else is folded stacks (folded.h), which includes
 *    profheap's PID.*.folded files and the two-count differential form
 *    ("stack BEFORE AFTER", weight columns 0 and 1).
 * Every input may start with "# key=value" metadata lines (meta.h).
 *
 * Metadata. Each input contributes its own pairs plus what folding it
 * decided: perf script gives unit (ns for cpu-clock and task-clock, the
 * event name for hardware counters, "events" or "samples" otherwise),
 * event and source=perf-script; profrec TSV gives the unit of the event
 * folded (its item of a "unit=ns,count" list), event and source=profrec;
 * folded input gives its own pairs (unit=bytes for profheap output).
 * With counts set the unit is "samples". Several inputs keep what they
 * all agree on: a key missing from one or different in one is dropped,
 * except source, which becomes "merged"; adding inputs of different
 * units is done but warned about.
 *
 * Several inputs (prof_profile_read_all) are added into one table.
 * perf script inputs are folded after the others, so that when profrec
 * profiles (whose kernel frames end in "_[k]") are among them, perf's
 * kernel frames are marked the same way (annotate_kernel is then forced,
 * with a note) and a kernel function keeps one name. The event that the
 * first profrec input folded is folded in the later ones, and the first
 * perf script input's in later perf script inputs.
 *
 * An input whose lines end in a carriage return alone (classic Mac OS)
 * is refused as unreadable, with the command that converts it.
 *
 * Errors are reported on stderr, never fatal, as "prog: file:line: what"
 * for malformed lines (the first ten per input, then a count), "prog:
 * file: strerror" for inputs that cannot be opened or read; everything
 * valid is kept and the functions return -1. Notes (events skipped, the
 * kernel marking) go through prof_info() at verbosity 1 and line counts
 * at verbosity 2 (base/error.h).
 */
#include <stddef.h>
#include <stdint.h>
#include "core/meta.h"
#include "core/stack.h"

struct prof_samples_addrs;

enum prof_profile_format {
	PROF_PROFILE_AUTO = 0,		/* detect (the default) */
	PROF_PROFILE_FOLDED,
	PROF_PROFILE_PROFREC,		/* profrec sample TSV */
	PROF_PROFILE_PERF_SCRIPT,
	PROF_PROFILE_PPROF,		/* pprof profile.proto (pprof.h) */
	PROF_PROFILE_DTRACE,		/* DTrace, bpftrace stacks (dtrace.h) */
	PROF_PROFILE_EUSTACK,		/* eu-stack output (eustack.h) */
	PROF_PROFILE_GDB,		/* gdb backtraces (gdbbt.h) */
	PROF_PROFILE_PERF_REPORT,	/* perf report -g folded (perfreport.h) */
	PROF_PROFILE_SPEEDSCOPE,	/* speedscope JSON (speedscope_read.h) */
};

/*
 * How to read and fold inputs. Zeroed fields mean "default"; use
 * prof_profile_opts_init(), which also opens the time window's end.
 */
struct prof_profile_opts {
	enum prof_profile_format format;	/* AUTO: detect per input */
	const char *event;	/* fold only this event; NULL or "": the first */
	/* Root frame: the process name, "comm-PID" or "comm-PID/TID". */
	int include_pid;
	int include_tid;
	int counts;		/* weight 1 per sample instead of its period/weight */
	/* Samples whose time is in [time_from_ns, time_to_ns), relative to
	 * the first sample of the input (perf script) or as recorded
	 * (profrec TSV's time_ns). An input of another format has no times:
	 * it is reported and left out (the read returns -1). */
	int time_window;
	uint64_t time_from_ns;
	uint64_t time_to_ns;	/* UINT64_MAX: no end */
	/* perf script only (perfscript.h says what each does). */
	int annotate_kernel;	/* "_[k]" */
	int annotate_jit;	/* "_[j]" */
	int include_addrs;	/* "[dso <addr>]" for unknown symbols */
	int cpp_names;		/* cut C++ argument lists outside <...> only */
	int no_demangle;	/* keep mangled C++ and Rust names of perf script text */
	int mark_inlined;	/* "_[i]" on perf's (inlined) frames */
	long jobs;		/* threads; 0: the cores for files of 8 MiB or more */
	/*
	 * When set, called for every sample or folded line in input order
	 * with the id in the table of the stack it was added to, its weights
	 * and their number (1, or 2 for differential folded lines): what a
	 * flame chart (time order) needs. perf script input is then read by
	 * one thread.
	 */
	void (*on_stack)(void *ctx, uint32_t id, const prof_weight *w, int nw);
	void *on_stack_ctx;
	/*
	 * When set, called for every sample of profrec TSV or perf script
	 * input folded, in input order, with its stack's id, its weight (of
	 * column 0) and its time in the time window's terms: profrec's
	 * time_ns, perf script's time since the input's first sample; -1 if
	 * the sample has no time. Folded input has no samples: never called.
	 * What a heat map (heatmap.h) needs. perf script input is then read
	 * by one thread.
	 */
	void (*on_sample)(void *ctx, uint32_t id, prof_weight w, int64_t time_ns);
	void *on_sample_ctx;
	/*
	 * When set, called for every profrec TSV sample folded with an
	 * address in a file mapping, its ip's or another frame's
	 * (samples_tsv.h's on_address): what pprof's mappings and locations
	 * need. Other inputs have no addresses: never called.
	 */
	void (*on_address)(void *ctx, uint32_t id, const struct prof_samples_addrs *a);
	void *on_address_ctx;
};

/* What reading gave, beyond the table and the metadata. */
struct prof_profile_summary {
	int ncounts;			/* weight columns the inputs carry: 1, or 2
					 * for differential folded input */
	enum prof_profile_format format;	/* of the last input read */
	unsigned long inputs;		/* inputs opened */
	unsigned long unreadable;	/* inputs that could not be opened or read
					 * to their end, a directory say (reported) */
	int window_empty;		/* a time window kept no sample (reported) */
};

/* Defaults: every field zero, no end to the time window. */
void prof_profile_opts_init(struct prof_profile_opts *opts);

/*
 * The format of an input whose first bytes are buf[0..len). complete:
 * buf is the whole input, not a window onto its start. Never returns
 * PROF_PROFILE_AUTO: what is neither profrec TSV nor perf script is
 * folded stacks.
 */
enum prof_profile_format prof_profile_detect(const char *buf, size_t len, int complete);

/*
 * The format named by name ("auto", "folded", "profrec", "perf",
 * "perf-script" or "pprof"), or -1 if none is. prof_profile_format_name()
 * gives the canonical name ("auto", "folded", "profrec", "perf", "pprof").
 */
int prof_profile_format_parse(const char *name);

/*
 * Whether the root frames of the stacks read with meta name threads
 * (comm, comm-PID, comm-PID/TID), as profrec's and perf script's do: its
 * "source" is "profrec" or "perf-script" (also after a round trip through
 * folded stacks, which keep the metadata line).
 */
int prof_profile_roots_are_threads(const struct prof_meta *meta);
/* The importers' names too: "dtrace" (or "bpftrace"), "eu-stack", "gdb",
 * "perf-report", "speedscope". */
const char *prof_profile_format_name(enum prof_profile_format f);

/*
 * Read one input (path; NULL or "-": standard input) into t, adding to
 * what t holds; its metadata (see above) is merged into meta, which may
 * already hold pairs. t needs two weight columns to keep the second
 * count of differential input. Beware a second column that means
 * something else: perf script samples of period 0 add 1 to column 1 so
 * that their stacks stay listed, as stackcollapse-perf.pl lists them
 * (perfscript.h); read into a one-column table and merge to avoid it.
 * sum (may be NULL) is filled.
 * Returns 0, or -1 if the input could not be opened or read, a line was
 * malformed (reported with file:line; the valid ones are kept), or a
 * time window kept no sample.
 */
int prof_profile_read(const char *path, const struct prof_profile_opts *opts,
		      struct prof_stacks *t, struct prof_meta *meta,
		      struct prof_profile_summary *sum);

/*
 * Read paths[0..n) (n == 0: standard input) into one table t with the
 * rules above for several inputs; meta receives what they agree on
 * (meta should be empty). An input that cannot be opened is reported
 * and skipped. Returns 0 or -1 as prof_profile_read() for any input.
 */
int prof_profile_read_all(const char *const *paths, size_t n,
			  const struct prof_profile_opts *opts, struct prof_stacks *t,
			  struct prof_meta *meta, struct prof_profile_summary *sum);

#endif
