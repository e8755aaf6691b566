#ifndef PROF_RECORD_RECORDER_H
#define PROF_RECORD_RECORDER_H
/*
 * The recorder: profrec's engine. Read this header first; the rest of
 * lib/record/ are its parts, lowest first:
 *
 *   decode.h         perf_event records (bytes) -> C structs, no kernel needed
 *   perfevent.h      perf_event_open(2): events, one ring per CPU, drained
 *                    in timestamp order
 *   threads.h        processes (address spaces) and threads (names), kept
 *                    up to date from MMAP2, COMM and FORK records
 *   callchain.h      a sample -> a stack of the stack table (symbolized
 *                    frame pointer chain or DWARF unwinding)
 *   offcpu.h         switch-out samples + switch records -> off-CPU spans
 *   sample_writer.h  samples -> profrec-samples TSV or folded stacks
 *   proclog.h        processes started and images exec'd -> profrec-processes TSV
 *
 * recorder.c holds the recorder's life cycle, the record handler, the
 * loop and the summary; events.c the events, their attrs and opening them.
 *
 * A recording: prof_recorder_init() (options, target, output), then
 * prof_recorder_open() opens every event on every CPU for the target,
 * prof_recorder_meta() + prof_recorder_begin() write the header,
 * prof_recorder_run() drains the rings into the writer until the command
 * exits, a stop signal comes or the duration is over, and
 * prof_recorder_finish() writes what is written at the end (folded
 * stacks). prof_recorder_record() is the handler of one record: the
 * drain calls it, and unit tests feed it records built in memory.
 *
 * Reports go to stderr (prof_warn()): why events could not be opened,
 * and at the end the summary of prof_recorder_report().
 */
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/stack.h"
#include "record/callchain.h"
#include "record/jvm.h"
#include "record/perfevent.h"
#include "record/sample_writer.h"
#include "record/threads.h"

struct prof_meta;
struct prof_output;
struct prof_rotate_options;
struct prof_rotation;
struct prof_symbolizer;
struct prof_unwinder;

/* An event to sample: a perf_event type and config, and its weight's unit. */
struct prof_event_def {
	const char *name;
	unsigned type;			/* PERF_TYPE_* */
	unsigned long long config;	/* PERF_COUNT_* */
	const char *unit;		/* "ns" or "count" */
};

/* The event of a name or an alias of one ("cs", "faults"...), or NULL. */
const struct prof_event_def *prof_event_find(const char *name);

/* "offcpu-time": where threads wait, in ns (offcpu.h). */
extern const struct prof_event_def prof_event_offcpu;

#define PROF_RECORDER_MAX_EVENTS 9

struct prof_recorder_options {
	const struct prof_event_def *events[PROF_RECORDER_MAX_EVENTS];
	int nevents;
	int offcpu_event;		/* index of prof_event_offcpu in events, or -1 */
	enum prof_call_graph call_graph;
	unsigned stack_bytes;		/* DWARF mode: user stack bytes copied per sample */
	uint64_t freq, period;		/* samples per second, or every period events when set */
	int inherit;			/* follow children and new threads */
	int folded;			/* aggregate, write folded stacks at the end */
	int lines, no_inline, no_demangle, debuginfod;	/* symbolizer options (symbolize.h) */
	size_t mmap_pages;		/* ring buffer pages per CPU */
	const char *runtime_perf;	/* runtimes whose perf support was turned on (runtimes.h) */
	int ask_jvm;			/* ask running JVMs for their perf maps at the end (jvm.h) */
	const char *processes;		/* path of the process log (proclog.h), or NULL */
};

/*
 * Add the events of a comma-separated list of names (prof_event_find();
 * one already there is not added again). Returns 0; -1 at an unknown
 * name, pointed to by *bad (into list, *bad_len bytes long); -2 when the
 * events would fill every place but the one kept for prof_event_offcpu.
 */
int prof_recorder_add_events(struct prof_recorder_options *o, const char *list,
			     const char **bad, int *bad_len);

/*
 * Parse a call graph mode: "fp", "none", "dwarf" or "dwarf,BYTES" (user
 * stack bytes per sample, 8..65528, with size suffixes, rounded down to
 * a multiple of 8, into *stack_bytes). Returns 0, -1 for an unknown
 * mode, -2 for a bad size; nothing is changed on error.
 */
int prof_call_graph_parse(const char *arg, enum prof_call_graph *mode, unsigned *stack_bytes);

/*
 * The layout of the records the events of options o write (decode.h):
 * IDENTIFIER (the events share a CPU's ring), IP, TID, TIME (the rings
 * are merged by it), CPU and PERIOD; the call chain unless
 * PROF_CALL_GRAPH_NONE; user registers and stack in DWARF mode.
 * prof_recorder_init() gives it to the recorder's rings, so records
 * decode before any event is opened.
 */
struct prof_record_layout prof_recorder_layout(const struct prof_recorder_options *o);

/*
 * Defaults: no events yet, no off-CPU event, frame pointers, 8192 stack
 * bytes, 999 Hz, inherit, TSV, 128 pages.
 */
void prof_recorder_options_init(struct prof_recorder_options *o);

/* What to record: exactly one of a command, processes or threads, every CPU. */
struct prof_record_target {
	char **argv;		/* the command (for the metadata), started as child... */
	pid_t child;		/* ...by prof_child_spawn(), waiting to exec; 0: none */
	const int *pids;	/* -p: processes (all their threads), or -t: one thread */
	size_t npids;
	int tid_only;		/* pids holds one thread id (-t) */
	int all_cpus;		/* every process on every CPU (-a) */
};

/* Counts of a recording, for the tool's summary. */
struct prof_recorder_stats {
	unsigned long long samples[PROF_RECORDER_MAX_EVENTS];	/* per event */
	unsigned long long lost;		/* records the rings had no room for */
	unsigned long long lost_samples;	/* samples the kernel dropped */
	unsigned long long bad;			/* malformed samples skipped */
	unsigned long long throttled;		/* PERF_RECORD_THROTTLE */
	unsigned long long threads_seen;	/* threads with a sample */
};

/*
 * Callers read the fields above "private"; a unit test feeding records
 * also registers their sample ids with prof_perf_add_id(&r->perf, ...).
 */
struct prof_proclog;

struct prof_recorder {
	struct prof_recorder_options opt;
	struct prof_record_target target;
	int user_only;			/* kernel frames were not permitted (after open) */
	uint64_t start_ns;		/* CLOCK_MONOTONIC at prof_recorder_begin() */
	struct prof_recorder_stats stats;
	struct prof_stacks stacks;	/* the stacks of every sample */
	struct prof_callchain chain;	/* its fp_*_stacks counts too */
	struct prof_threads threads;	/* the processes and threads met */
	struct prof_rotation *rot;	/* --rotate: one file per interval (rotate.h), or NULL */
	uint64_t end_ns;		/* CLOCK_MONOTONIC when the events were disabled */
	struct prof_proclog *proclog;	/* opt.processes: the process log, else NULL */
	/* private */
	struct prof_jvm_asks jvm;	/* the JVMs asked for their perf maps at the end */
	struct prof_perf perf;		/* perf.layout: prof_recorder_layout(&opt) */
	struct prof_symbolizer *sym;
	struct prof_unwinder *unw;
	struct prof_sample_writer writer;
	struct prof_hashmap pids;	/* every process met (set): runtimes' maps to remove */
};

/*
 * Initialise a recorder of target (copied; its arrays are borrowed) with
 * options o, writing to out (borrowed; the caller closes it). Reads
 * kernel.perf_event_max_stack, creates the symbolizer (and the DWARF
 * unwinder in DWARF mode). Opens nothing yet.
 */
void prof_recorder_init(struct prof_recorder *r, const struct prof_recorder_options *o,
			const struct prof_record_target *target, struct prof_output *out);

/* Close the events, free everything (not the output; the rotation). */
void prof_recorder_release(struct prof_recorder *r);

/*
 * profrec -o NAME.pb.gz, NAME.speedscope.json: the recording's TSV file,
 * in, converted to out by convert (prof_pprof_convert(), ...); pprof with
 * --lines gets each Function's start_line from the recording's
 * symbolizer (the functions' DWARF DW_AT_decl_line, looked up in the
 * files of the Mappings as they are now: a file whose build-id differs
 * is not read). Call before prof_recorder_release(). Returns 0, or -1
 * after reporting.
 */
int prof_recorder_convert(struct prof_recorder *r, int (*convert)(const char *, const char *),
			  const char *in, const char *out);

/*
 * Write one file per interval instead of to the output given to
 * prof_recorder_init() (NULL then): a rotation (rotate.h) into o->dir,
 * which prof_recorder_begin() starts, the records move on at interval
 * ends and prof_recorder_finish() ends. Returns 0, or -1 when the
 * directory cannot be used (reported).
 */
int prof_recorder_rotate(struct prof_recorder *r, const struct prof_rotate_options *o);

/*
 * Open every event on every CPU for the target: for a command its child
 * (enabled at its exec), for -p every thread of each process, for -t the
 * thread, for -a every CPU. Without root and with perf_event_paranoid
 * above 1 kernel frames are left out (r->user_only, said on stderr unless
 * quiet); a refusal of the kernel part retries without it. Returns 0, or
 * the errno of the first failure, reported on stderr with what to do
 * about it.
 */
int prof_recorder_open(struct prof_recorder *r, int quiet);

/*
 * The recording's metadata (prof-formats.5): source, event, unit,
 * period or freq, call_graph, command, start_time, host, kernel.
 */
void prof_recorder_meta(const struct prof_recorder *r, struct prof_meta *m);

/*
 * Write the output's header (meta), read the mappings of attached
 * processes, and start the clock. Returns 0 or -1 (write error).
 */
int prof_recorder_begin(struct prof_recorder *r, const struct prof_meta *meta);

/* Where prof_recorder_run() learns that it should stop. */
struct prof_recorder_stop {
	volatile sig_atomic_t *signal;		/* the stop signal caught (SIGINT...), else 0 */
	volatile sig_atomic_t *count;		/* stop signals caught so far */
};

/*
 * Record until the command exits, *stop->signal is set, duration seconds
 * passed (0: no limit), every attached process is gone, or the output's
 * reader went away (prof_output_broken_pipe(): then the command started
 * gets SIGTERM, as under perf record, and attached ones run on); the command
 * must have been started (prof_child_start()). Then the events are
 * disabled and the rings drained. A command still running gets the stop
 * signal (SIGTERM after -d; SIGTERM or SIGKILL when it ignores that one,
 * SIGKILL at a second stop signal) and is waited for. The TSV output is
 * flushed every second. Returns the command's exit status
 * (prof_exit_status()), or 0 without a command.
 */
int prof_recorder_run(struct prof_recorder *r, double duration,
		      const struct prof_recorder_stop *stop);

/*
 * The handler of one record (a prof_perf_record_fn; arg is the recorder):
 * samples become stacks and go to the writer, side-band records update
 * the threads, lost records and throttling are counted.
 */
void prof_recorder_record(void *arg, const struct perf_event_header *hdr, uint64_t time);

/*
 * Finish the output: the frames of deferred naming (callchain.h) are
 * named, after asking each process they are in that is a running JVM
 * for its map (opt.ask_jvm, within 5 s in all: jvm.h's
 * prof_jvm_ask_all(); a warning when one the user named with -p wrote
 * none), and the maps that asking made removed; how many JVMs wrote a
 * map and how many did not go to the metadata (jvm_perfmaps,
 * jvm_perfmaps_failed: folded stacks' line, a TSV file's rewrite);
 * folded stacks are written now (with meta's line unless meta is NULL); a rotation writes its last interval (meta is
 * not used: each file has the metadata given to prof_recorder_begin()).
 * Returns 0 or -1 (write error, reported).
 */
int prof_recorder_finish(struct prof_recorder *r, const struct prof_meta *meta);

/*
 * A whole recording after prof_recorder_begin() and the command's start:
 * prof_recorder_run(), the V8 logs of runtimes.h removed, then, when the output's reader went away, the
 * output dropped and SIGPIPE raised with its default action (as a writer
 * into "| head" ends); else prof_recorder_finish() (folded: meta's line
 * unless NULL), out closed (NULL: a rotation), a TSV file rewritten with
 * the names of deferred naming (sample_writer.h), and prof_recorder_report()
 * on name (NULL or "-": standard output). Returns the command's status,
 * or 1 when writing failed and the command's status was 0 (or there is
 * no command).
 */
int prof_recorder_complete(struct prof_recorder *r, double duration,
			   const struct prof_recorder_stop *stop, struct prof_output *out,
			   const char *name, int quiet, const struct prof_meta *meta);

/*
 * The summary on stderr (unless quiet): "prog: DURATION, N samples
 * (EVENT N, ...), N lost, N samples/s, N threads, " then "SIZE (N
 * B/sample) to NAME" when bytes is known, else "output to NAME" (with
 * " failed" when out_failed); a rotation's bytes and "N files in DIR"
 * instead of bytes and name. Then warnings about what the counts say
 * went wrong (and, when one was turned on, the runtimes' perf support:
 * runtimes.h): records lost (a ring overflowed), malformed records, and,
 * unless quiet, user stacks mostly one or two frames deep (code built
 * without frame pointers).
 */
void prof_recorder_report(const struct prof_recorder *r, int quiet, double secs,
			  const char *name, unsigned long long bytes, int out_failed);

#endif
