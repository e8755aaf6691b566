#ifndef PROF_PERFSCRIPT_H
#define PROF_PERFSCRIPT_H
/*
 * The `perf script` text reader: folds samples into a stack table exactly
 * like FlameGraph's stackcollapse-perf.pl (default options), so the folded
 * output is byte-identical to the Perl script's. The rules, all of them the
 * Perl script's unless marked (ext):
 *
 *  - Lines starting with '#' are skipped; an empty line ends a sample.
 *  - An event line is matched with the semantics of the Perl regex
 *    /^(\S.+?)\s+(\d+)[/]*(\d+)*\s+/: the comm is the shortest prefix of at
 *    least two bytes followed by whitespace and a number (so "io worker 1"
 *    splits into comm "io worker" and tid 1); a missing or "0" tid makes
 *    the number the tid and the pid "?". /:\s*(\d+)*\s+(\S+):\s*$/ gives
 *    the period and the event name. The comm becomes the root frame with
 *    spaces turned into '_' (--pid: "comm-PID", --tid: "comm-PID/TID").
 *  - Only samples of one event are folded: the event_filter option, or
 *    the first event seen; the others are counted per event name.
 *  - Weight: the period when printed and not "0", else 1 (counts: 1).
 *    A period like "00" weighs 0 but its stack is still listed: in a
 *    table of two or more weight columns it gets 1 in column 1.
 *  - A frame line /^\s*(\w+)\s*(.+) \((.*)\)/ gives pc, symbol and dso:
 *    "+0x.." offset stripped, symbols starting with '(' dropped, split at
 *    "->" (pieces after the first tagged "_[i]"), "[unknown]" replaced by
 *    "[dso basename]" ("[name <pc>]" with addrs), ';' -> ':', the argument
 *    list cut at the first '(' unless it opens "(anonymous namespace)" or
 *    the name is a Go method "pkg.(*T).M", quotes deleted, a leading 'L'
 *    dropped from Java class names (comm "java..."), "_[k]" for kernel
 *    dsos and "_[j]" for /tmp/perf-PID.map with the annotate options.
 *  - cpp_names (ext): cut only at the first '(' outside <...>/{...} and
 *    not in "operator()", and keep "(anonymous namespace)::f" frames.
 *  - mark_inlined (ext): frames whose dso is "(inlined)" get "_[i]".
 *  - (ext) A symbol that is a mangled C++ or Rust name (perf script
 *    --no-demangle, or a perf built without a demangler) is demangled
 *    first (base/demangle.h: as perf prints it, Rust without its hash),
 *    then tidied as above, so it folds to the frame perf's demangled
 *    output gives; no_demangle keeps it as it is (the Perl script's way).
 *  - (ext) A trailing "\r" is removed like the newline; the last sample is
 *    kept even without a final empty line (the Perl script loses it).
 *  - (ext) A sample without call chain is one line carrying its frame,
 *    "[blanks]comm pid[/tid] [cpu] [time:] [period event:] pc sym (dso)":
 *    folded at once as comm;sym with its period. The comm is the shortest
 *    prefix after which the rest parses; the line must carry a time, an
 *    event or a " (dso)". A line that is both an event line and such a
 *    sample line is an event line if frame lines follow it.
 *  - (ext) An event line arriving while a sample is open ends it.
 *  - (ext) -F +srcline lines ("  file.c:12", "  dso[addr]") and
 *    side-band records (": PERF_RECORD_...") are skipped.
 *  - (ext) A frame line "pc sym" without " (dso)" (-F ip,sym) is a frame
 *    with an unknown dso, a kernel one if pc is a kernel address.
 *  - Any other line is malformed: counted and reported with its line
 *    number, never fatal.
 *
 * Frame lines are memoised: each distinct raw line is processed once and
 * later occurrences reuse its frame ids, so the hot loop is memchr, a
 * hash of the line and an array append.
 */
#include <stddef.h>
#include <stdint.h>
#include "core/stack.h"

struct prof_chunks;

struct prof_perfscript_opts {
	int include_pid;	/* root "comm-PID" */
	int include_tid;	/* root "comm-PID/TID" */
	int annotate_kernel;	/* "_[k]" */
	int annotate_jit;	/* "_[j]" */
	int include_addrs;	/* "[dso <pc>]" for unknown symbols */
	int counts;		/* weight 1 per sample, ignoring periods */
	int cpp_names;		/* C++-aware argument-list cutting */
	int mark_inlined;	/* "_[i]" on "(inlined)" frames */
	int no_demangle;	/* keep mangled C++ and Rust names */
	const char *event_filter;	/* NULL or "": the first event */
	int time_window;	/* keep samples in [time_from, time_to) */
	uint64_t time_from_ns;	/* relative to the first sample's time */
	uint64_t time_to_ns;	/* UINT64_MAX: no end */
	/* When set, called for every sample folded, in input order, with the
	 * id of its stack in the table and its weights (nw = 1); the input
	 * is then read by one thread. */
	void (*on_stack)(void *ctx, uint32_t id, const prof_weight *w, int nw);
	void *on_stack_ctx;
	/* When set, called likewise with the sample's time (profile.h's
	 * on_sample; -1: none). */
	void (*on_sample)(void *ctx, uint32_t id, prof_weight w, int64_t time_ns);
	void *on_sample_ctx;
};

/* A parsed event (sample header) line; pointers into the line. */
struct prof_perf_event {
	const char *comm, *pid, *tid, *period, *event, *time;
	size_t comm_len, pid_len, tid_len, period_len, event_len, time_len;
	int has_event;		/* the period/event regex matched */
};

/*
 * Match line[0..n) as an event line. Returns 1 and fills ev, or 0 if the
 * line is not an event line. tid_len is 0 when no tid was printed (the
 * Perl script then calls the number the tid and the pid "?"); period_len
 * is 0 when no period was printed; time_len 0 when no time was found.
 */
int prof_perfscript_event_line(const char *line, size_t n, struct prof_perf_event *ev);

/*
 * (ext) A sample line that carries its frame, as perf script prints
 * samples without call chains (see above). Returns 1 and fills ev
 * (comm, pid, tid, and the period, event and time as
 * prof_perfscript_event_line() does) and *frame, the offset of the frame
 * text ("pc symbol (dso)") in line; 0 if the line is not one. Public for
 * profannotate, which reads the sampled pc of such lines.
 */
int prof_perfscript_sample_line(const char *line, size_t n, struct prof_perf_event *ev,
				size_t *frame);

/* What the first lines of an input tell every parser (see prescan). */
struct prof_perfscript_ctx {
	char *event;		/* the event folded (malloc'ed), NULL if not known yet */
	size_t event_len;
	int event_defaulted;	/* taken from the input, not from the options */
	int time_known;
	uint64_t time_base_ns;	/* time of the first sample */
};

/*
 * Learn the event and the first sample time from a block if not known
 * yet. Parsers of later blocks get the same answer whichever thread runs
 * them. Returns nonzero once everything needed is known.
 */
int prof_perfscript_prescan(struct prof_perfscript_ctx *ctx, const char *buf, size_t len,
			    int need_time);

/* Free the context's strings. */
void prof_perfscript_ctx_release(struct prof_perfscript_ctx *ctx);

/* Per-event sample counts of the events not folded. */
struct prof_perf_other_event {
	char *name;
	unsigned long samples;
};

/* Statistics of a parse. */
struct prof_perfscript_stats {
	unsigned long lines;		/* lines read */
	unsigned long samples;		/* samples folded */
	unsigned long malformed;	/* unrecognized lines */
	unsigned long outside_time;	/* samples outside the time window */
	int weighted;			/* some sample carried a period */
	/* with a time window: the span of the folded event's sample times */
	int have_times;
	uint64_t time_min_ns, time_max_ns;
	struct prof_perf_other_event *others;
	size_t nothers;
	/* The first malformed lines (line number, excerpt), for reporting. */
	unsigned long bad_line[10];
	char *bad_text[10];
	size_t nbad;
};

struct prof_perfscript;

/* A parser adding to t (not owned). opts must outlive it. */
struct prof_perfscript *prof_perfscript_new(struct prof_stacks *t,
					    const struct prof_perfscript_opts *opts);

/*
 * Parse buf[0..len): whole lines, starting at a sample boundary (after an
 * empty line or at the start of the input). line0 is the number of the
 * line before buf's first (for messages). With last set, a sample not
 * ended by an empty line is folded too. ctx is read, and completed if the
 * event is not known yet.
 */
void prof_perfscript_parse(struct prof_perfscript *ps, struct prof_perfscript_ctx *ctx,
			   const char *buf, size_t len, unsigned long line0, int last);

/* The parser's statistics so far. */
const struct prof_perfscript_stats *prof_perfscript_stats(const struct prof_perfscript *ps);

/* Free the parser (not the table). */
void prof_perfscript_free(struct prof_perfscript *ps);

/* Add src's counts and reports into dst (for merging threads). */
void prof_perfscript_stats_merge(struct prof_perfscript_stats *dst,
				 const struct prof_perfscript_stats *src);

/* Free the strings of a stats structure filled by stats_merge. */
void prof_perfscript_stats_release(struct prof_perfscript_stats *s);

/*
 * Read a whole input from r with jobs threads (1: this thread only):
 * blocks split at sample boundaries, one stack table per thread, merged
 * into t in the end; the result is the same for any jobs. Statistics are
 * stored in *stats (release with prof_perfscript_stats_release) and the
 * event in ctx (release with prof_perfscript_ctx_release; initialise it
 * zeroed). Reports nothing itself. Returns 0, or -1 if the input failed.
 */
int prof_perfscript_read(struct prof_chunks *r, struct prof_stacks *t,
			 const struct prof_perfscript_opts *opts, int jobs,
			 struct prof_perfscript_ctx *ctx, struct prof_perfscript_stats *stats);

/*
 * Nonzero if the text looks like `perf script` output: somewhere in its
 * first lines an event line ending in "event:", an event line followed by
 * a frame line ending in " (dso)" (indented or not), or a sample line
 * with its frame (see above) -- lines that folded stacks, which end in a
 * count, and TSV never have. complete: buf is the whole input (its last
 * line may lack a newline), not a window onto its start.
 */
int prof_perfscript_detect(const char *buf, size_t len, int complete);

#endif
