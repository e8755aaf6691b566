#ifndef PROF_IMPORT_H
#define PROF_IMPORT_H
/*
 * Reading what other profilers and debuggers write: the part the
 * importers share, and their detection and dispatch for profile.c.
 *
 *   import.{c,h}          this: a stack being built, errors, dispatch
 *   dtrace.{c,h}          DTrace and bpftrace aggregated stacks
 *   eustack.{c,h}         eu-stack (elfutils) thread backtraces
 *   gdbbt.{c,h}           gdb "thread apply all bt" (poor man's profiler)
 *   perfreport.{c,h}      perf report --stdio -g folded
 *   speedscope_read.{c,h} speedscope JSON (sampled and evented profiles)
 *   json.{c,h}            the JSON parser speedscope_read uses
 *
 * Every importer reads one whole input held in memory (these outputs are
 * small next to perf script text, and their records span lines or, for
 * JSON, the whole file), NUL-terminated and writable (lines are cut in
 * place). The text formats are gathered under io/chunk.h's line cap; a
 * speedscope file, often one line, is held whole up to PROF_MAX_DOCUMENT
 * (prof_import_read()). Frames are added to the stack table root first,
 * as folded stacks hold them, whatever order the input lists them in.
 *
 * Errors: a malformed line or value is reported as "prog: name:line:
 * what" (JSON: "prog: name:line:column: what"), the first ten per input,
 * then a count by prof_import_finish(); what is valid is kept.
 */
#include <stddef.h>
#include <stdint.h>
#include "core/meta.h"
#include "core/stack.h"
#include "formats/profile.h"

struct prof_chunks;

/* One input being imported into a stack table. */
struct prof_import {
	/* set by the caller (prof_import_init() zeroes them) */
	const char *name;		/* the input's name in messages */
	struct prof_stacks *t;
	int include_pid;		/* root frames with process ids, where known */
	int include_tid;		/* ... and thread ids */
	int counts;			/* weight 1 per stack line instead of its count */
	const char *event;		/* perf report: the event to fold (NULL: the first) */
	void (*on_stack)(void *ctx, uint32_t id, const prof_weight *w, int nw);
	void *on_stack_ctx;
	/* filled by the importer */
	struct prof_meta meta;		/* unit, event, source=FORMAT */
	unsigned long stacks;		/* stacks added (samples or aggregates) */
	unsigned long malformed;	/* problems found (the first ten reported) */
	unsigned long cut;		/* stacks cut to PROF_STACKS_MAX_EXPANDED_DEPTH */
	/* private: the frames of the stack being read, in reading order */
	uint32_t *frames;
	size_t depth, cap;
};

/* Start importing into t an input called name. */
void prof_import_init(struct prof_import *imp, const char *name, struct prof_stacks *t);

/* Free what imp holds (its metadata too). */
void prof_import_release(struct prof_import *imp);

/*
 * The frame id of name[0..len) in t, interned as folded text can hold it:
 * ';' (the frame separator) made ':', line breaks made blanks, so that
 * what is written folded reads back the same. Every importer of names
 * another program wrote interns them through this (pprof's too).
 */
uint32_t prof_import_frame_in(struct prof_stacks *t, const char *name, size_t len);

/* prof_import_frame_in() of imp's table. */
uint32_t prof_import_intern(struct prof_import *imp, const char *name, size_t len);

/* Append a frame id (from prof_import_intern()) to the stack being read. */
void prof_import_frame_id(struct prof_import *imp, uint32_t id);

/* Append the frame name[0..len): prof_import_intern(), then frame_id. */
void prof_import_frame(struct prof_import *imp, const char *name, size_t len);

/*
 * Append "[NAME]" for code without a symbol in the file path[0..len)
 * (NAME: its last component), as perf script folding names it; "[unknown]"
 * when len is 0.
 */
void prof_import_dso_frame(struct prof_import *imp, const char *path, size_t len);

/* Number of frames of the stack being read. */
static inline size_t prof_import_depth(const struct prof_import *imp)
{
	return imp->depth;
}

/*
 * Add the stack read so far with weight w (1 when imp->counts is set),
 * and start a new one. leaf_first: the frames were appended leaf first
 * (they are reversed). An empty stack is dropped. A stack deeper than
 * PROF_STACKS_MAX_EXPANDED_DEPTH keeps its innermost frames and is counted
 * in imp->cut, said by prof_import_finish(). Returns the stack id,
 * or UINT32_MAX when nothing was added.
 */
uint32_t prof_import_commit(struct prof_import *imp, prof_weight w, int leaf_first);

/* Forget the stack being read. */
static inline void prof_import_drop(struct prof_import *imp)
{
	imp->depth = 0;
}

/*
 * Count a malformed line (or value) and report it as "name:line: what"
 * while fewer than ten were; line 0 leaves the number out. A column
 * (JSON values) is reported after the line, "name:line:column: what";
 * column 0 leaves it out.
 */
void prof_import_bad(struct prof_import *imp, unsigned long line, unsigned long column,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * End of the input: report how many problems there were beyond the ten
 * reported, and how many stacks were cut (a note: not an error). Returns
 * 0, or -1 if there was any problem.
 */
int prof_import_finish(struct prof_import *imp);

/*
 * An unsigned decimal count: s[0..len) all digits, at most 2^64-1.
 * Returns 0 with *v set, or -1.
 */
int prof_import_count(const char *s, size_t len, prof_weight *v);

/*
 * The format of the input whose first bytes are buf[0..len) if it is one
 * of the imported ones (complete: buf is the whole input), else
 * PROF_PROFILE_AUTO. Called after profrec TSV and perf script were ruled
 * out; what nothing claims is folded stacks.
 */
enum prof_profile_format prof_import_detect(const char *buf, size_t len, int complete);

/* Nonzero if f is read by prof_import_read(). */
int prof_import_handles(enum prof_profile_format f);

/*
 * Fold the whole input buf[0..len) (NUL-terminated, writable) in format f
 * into imp, then prof_import_finish(). Returns 0, or -1 if anything was
 * malformed (reported).
 */
int prof_import_read_text(struct prof_import *imp, enum prof_profile_format f, char *buf,
			  size_t len);

/*
 * Read the whole input r in format f into imp (set up by the caller).
 * The text formats are gathered line by line under io/input.h's line cap
 * (a longer line is reported, left out, and fails the read); speedscope
 * JSON, one document and often one line, is held whole, up to
 * PROF_MAX_DOCUMENT bytes (a larger one is reported and not read).
 * Returns 0, or -1 if the input could not be read to its end, had a line
 * over the cap, was too large, or anything was malformed (reported; what
 * was valid is kept).
 */
int prof_import_read(struct prof_import *imp, enum prof_profile_format f,
		     struct prof_chunks *r);

#endif
