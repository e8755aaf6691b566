#ifndef PROF_HEAP_REPORT_H
#define PROF_HEAP_REPORT_H
/*
 * lib/heap, the heap profiler, in the order the data flows:
 *   launch.h        starting the command under the shim (its PROFHEAP_*
 *                   environment, the "could not record" marker)
 *   shim/           libprofheap.so, preloaded into the command: records
 *                   every allocation into TAG.heap, and what an exec is
 *                   about to run (shim/exec.h) (never in libcommon.a)
 *   format.h        the layout of TAG.heap, shared by writer and reader
 *   records.h       reading TAG.heap: per-stack sums of every thread
 *   suppressions.h  LeakSanitizer-style suppressions, runtime objects
 *   report.h        (this file) the records into the one stack table and
 *                   out as folded reports, the leak report, the run's sums
 *
 * The heap report: what profheap makes of the record files its shim
 * wrote (heap/records.h) once the command has exited.
 *
 * Each record file (TAG.heap, TAG = PID or PID.SEQ for the later images
 * of a process that called exec) and the copy of its mappings (TAG.maps)
 * become one struct prof_heap_process: its call stacks, symbolized, in
 * one stack table whose columns are the five reports plus the blocks
 * leaked (enum prof_heap_column), and its totals. Leaks matching a
 * suppression (heap/suppressions.h), or whose every frame lies in the C
 * or C++ runtime, are counted apart and left out of the leak column.
 * From it come the files TAG.REPORT.folded, the leak report on stderr
 * and the sums over the run.
 *
 * Every function reports its own errors ("prog: path: problem") and
 * returns -1; the figures of what could be read stay valid.
 */
#include <stddef.h>
#include <stdint.h>
#include "core/stack.h"

struct prof_buf;
struct prof_output;
struct prof_symbolizer;
struct prof_heap_supp;

/* The reports (-r), which are also the first columns of the table. */
enum prof_heap_column {
	PROF_HEAP_ALLOC,	/* bytes allocated */
	PROF_HEAP_COUNT,	/* allocations */
	PROF_HEAP_LEAK,		/* bytes leaked (suppressed ones left out) */
	PROF_HEAP_PEAK,		/* bytes live at the peak */
	PROF_HEAP_TEMP,		/* temporary allocations (freed right away) */
	PROF_HEAP_NREPORTS,
	PROF_HEAP_LEAK_BLOCKS = PROF_HEAP_NREPORTS,	/* blocks leaked (not a report) */
	PROF_HEAP_NCOLUMNS
};

/* "alloc", "count", "leak", "peak", "temp". */
const char *prof_heap_report_name(enum prof_heap_column report);

/* The unit of a report: "bytes" or "allocations". */
const char *prof_heap_report_unit(enum prof_heap_column report);

/* The report named name, or -1. */
int prof_heap_report_parse(const char *name);

/* One record file, processed. */
struct prof_heap_process {
	int pid;
	int ppid;			/* the parent when the record began (fork or start) */
	uint64_t start_ns;		/* CLOCK_MONOTONIC when the record began: the fork, or the exec of this image */
	uint32_t flags;			/* PH_FLAG_* of its header */
	uint64_t peak_bytes;		/* its own peak of live bytes */
	uint64_t peak_ns;		/* when the heap left its peak (or exited at it), since start_ns; 0: none */
	uint64_t sample_mean;		/* 0: exact figures */
	uint64_t used;			/* bytes of the record file in use */
	struct prof_stacks stacks;	/* PROF_HEAP_NCOLUMNS columns */
	double alloc_bytes, alloc_count;
	double leak_bytes, leak_blocks;	/* live at the end, not suppressed */
	double supp_bytes, supp_blocks;	/* live at the end, suppressed */
	/* allocations on frame-pointer stacks, and those cut after 1 or 2 frames */
	double fp_allocs, fp_short;
	unsigned long damaged;		/* records out of range, left out */
	char *exe;			/* the program of this image (malloc'ed) */
	char *exec_path;		/* PH_FLAG_EXEC: the program it exec'd (malloc'ed), else NULL */
	char python[32];		/* PH_FLAG_PYTHON or _UNSUPPORTED: its version, else "" */
};

/*
 * Read the record file heap_path and symbolize its stacks with the
 * mappings in maps_path (NULL: none; a missing file is warned about),
 * frames without a mapping staying unresolved, into *p
 * (initialised here; release it with prof_heap_process_release() even
 * on failure). Frames are root first; a walk that was cut short ends in
 * "[truncated]" ("[start-up]" when cut in the loader's start-up), an
 * allocation without a stack is "[no stack]". supp decides which blocks
 * still live are not leaks; so does the runtime: a stack of runtime
 * frames only is not a leak when complete, and is when cut short (the
 * program may have called the runtime); one cut at start-up is not.
 * A process that saw another file tree than profheap (its header says)
 * has its files opened through the root it handed over, in roots
 * (heap/roots.h; NULL: none), else only those a build-id confirms.
 * Returns 0, or -1 when the file cannot be read as a record file
 * (reported).
 */
struct prof_heap_roots;
int prof_heap_process_read(struct prof_heap_process *p, const char *heap_path,
			   const char *maps_path, struct prof_symbolizer *sym,
			   const struct prof_heap_supp *supp, const struct prof_heap_roots *roots);

/* Free p's table. */
void prof_heap_process_release(struct prof_heap_process *p);

/* A call site that leaked. */
struct prof_heap_leak {
	double bytes, blocks;
	uint32_t id;			/* stack id in the table */
};

/*
 * The stacks of t with leaked bytes, largest first (ties by stack id).
 * Returns a malloc'ed array of *n entries (caller frees; NULL when none).
 */
struct prof_heap_leak *prof_heap_leaks(const struct prof_stacks *t, size_t *n);

/*
 * Append the innermost max_frames frames of stack id, innermost first,
 * as "leaf < caller < ..." (with " < ..." when frames were left out).
 * A stack with Python frames (--python) starts at its innermost one: a
 * Python user's line, not the interpreter's C below it.
 */
void prof_heap_site_format(const struct prof_stacks *t, uint32_t id, size_t max_frames,
			   struct prof_buf *out);

/*
 * Write column report of t as folded stacks to out, with the metadata
 * line "tool=profheap report=NAME unit=UNIT" (and pid=PID when pid > 0).
 * Stacks with nothing in that column are left out. Does not close out.
 * Returns 0, or -1 on a write error.
 */
int prof_heap_write_folded(const struct prof_stacks *t, enum prof_heap_column report, int pid,
			   struct prof_output *out);

/*
 * Write column report of t as pprof's profile.proto (formats/pprof.h,
 * uncompressed: open out with PROF_COMP_GZIP) with the sample types of
 * that report: alloc_space bytes and alloc_objects count (alloc; count
 * has them the other way round), leak_space bytes and leak_objects count
 * (leak: bytes and blocks leaked), peak_space bytes (peak),
 * temp_objects count (temp); the first is the default. Does not close
 * out. Returns 0, or -1 on a write error.
 */
int prof_heap_write_pprof(const struct prof_stacks *t, enum prof_heap_column report,
			  struct prof_output *out);

/*
 * Write every report of p into dir/TAG.REPORT.folded (atomically), the
 * metadata line naming the process: pid=, ppid=, start_ns= and exe= (the
 * image's program) beside tool=, report= and unit=, so that a reader can
 * rebuild the process tree and exec chains of a run (proftools-profile
 * tells a launcher, such as a shell shim, from the program it exec'd).
 * Returns 0, or -1 if a file could not be written (reported).
 */
int prof_heap_process_write(const struct prof_heap_process *p, const char *dir, const char *tag);

/*
 * The leak report of one process on stderr, at prof_verbosity >= 1:
 * sampling, allocations and peak, then the leaks (or "no leaks"), the ten
 * largest sites (all of them at verbosity 2) and the suppressed blocks
 * (verbosity 2). execed: a later image of the process exists. Blocks
 * still live when exec replaced an image are not leaks, whether the new
 * program was profiled or not (PH_FLAG_EXEC without a later image: then
 * a note first names it, says why it was not profiled and that the
 * figures are those of the old image). more_in: the directory where the
 * rest is (the -v -v hint is given when NULL).
 */
void prof_heap_process_report(const struct prof_heap_process *p, const char *tag, int execed,
			      const char *more_in);

/* The sums over a run. */
struct prof_heap_totals {
	double leak_bytes, leak_blocks;	/* leaks of processes that exited */
	double supp_bytes, supp_blocks;
	double fp_allocs, fp_short;
	int files;			/* record files of the run found */
	int python;			/* processes whose Python frames were recorded */
	int python_unsupported;		/* processes of a CPython --python does not support */
	int processes;			/* of them, processed */
};

/* What prof_heap_run_process() needs besides the files. */
struct prof_heap_roots;
struct prof_heap_run {
	const char *dir;		/* where the record files are */
	uint64_t run_id;		/* only files of this run (header.run_id) */
	int keep;			/* keep the record files (trimmed) */
	const char *more_in;		/* see prof_heap_process_report() */
	const struct prof_heap_supp *supp;
	int no_demangle;		/* keep C++ and Rust names mangled */
	const struct prof_heap_roots *roots;	/* handed over by processes of other trees, or NULL */
};

/*
 * The tags of the record files of run run_id in dir, ordered by pid then
 * sequence (so each exec'd image comes after the one it replaced).
 * Returns a malloc'ed array of *n malloc'ed strings (caller frees each
 * and the array; an empty array when there are none), or NULL (*n 0)
 * when dir cannot be read (reported).
 */
char **prof_heap_run_tags(const char *dir, uint64_t run_id, size_t *n);

/*
 * Process every record file of the run: write the folded files, give each
 * process's leak report, add every process's table into merged (which has
 * PROF_HEAP_NCOLUMNS columns) and its figures into *tot, then remove the
 * record files (or trim them with run->keep). The blocks an image left
 * live when exec replaced it stay in its own TAG.leak.folded but are
 * leaks neither in merged nor in *tot. Returns 0, or -1 when there
 * were no record files or one could not be processed (reported).
 */
int prof_heap_postprocess(const struct prof_heap_run *run, struct prof_stacks *merged,
			  struct prof_heap_totals *tot);

/*
 * The run-wide lines on stderr at verbosity >= 1: the frame-pointer hint
 * when most stacks stop after one or two frames, the leaks of all the
 * processes when there were several.
 */
void prof_heap_totals_report(const struct prof_heap_totals *tot);

/* v rounded to an integer with thousands separators ("1,234,567"), in buf. */
char *prof_heap_fmt_count(char *buf, size_t n, double v);

#endif
