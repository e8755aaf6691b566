#ifndef PROF_RECORD_SAMPLE_WRITER_H
#define PROF_RECORD_SAMPLE_WRITER_H
/*
 * Where a recording's samples go: streamed as profrec-samples TSV
 * (prof-formats.5: one row per sample, a stack's text written on the
 * first row that uses its stack id only), or added up in the stack table
 * and written as folded stacks at the end.
 *
 * TSV rows also carry the sampled instruction address (ip, hex) and the
 * mapping it falls in (map_id; the mapping's "START PGOFF BUILD_ID PATH"
 * text on the first row using that id), what profannotate needs to find
 * the instruction in its file and to check that the file is unchanged.
 *
 * And the addresses of the other frames (the addrs column: what pprof's
 * -disasm and a caller's line need): a TSV stack_id stands for a stack
 * AND the addresses of its frames above the sampled ip's, so the stack's
 * text and those addresses are written once, on the first row of the
 * pair, and every row costs only its ids. A stack of the table reached
 * from two call sites has two TSV ids (the same text twice); the ids of
 * the TSV are not the table's.
 */
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "core/intern.h"

struct prof_meta;
struct prof_output;
struct prof_stacks;
struct prof_map;
struct prof_addrspace;

/* One sample (or off-CPU interval). */
struct prof_sample_row {
	uint64_t time;		/* CLOCK_MONOTONIC ns; written relative to the start */
	int pid, tid;
	const char *comm;
	int cpu;
	const char *event;	/* the event's name */
	uint64_t weight;	/* TSV: the period (ns for clocks); folded: what to add */
	uint32_t stack;		/* stack id in the writer's table */
	int has_ip;		/* ip is the sampled instruction (0: off-CPU rows) */
	uint64_t ip;
	const struct prof_map *map;	/* the mapping holding ip, or NULL (kernel, unknown) */
	/*
	 * The addresses of the stack's first naddrs frames, root first (a
	 * callchain's addrs; 0: a frame without one), the others being the
	 * sampled ip's; their mappings are looked up in as (kernel addresses
	 * have none). NULL, 0: none known (off-CPU, Python rows).
	 */
	const uint64_t *addrs;
	size_t naddrs;
	struct prof_addrspace *as;
};

struct prof_sample_writer {
	struct prof_output *out;	/* not owned */
	struct prof_stacks *stacks;	/* not owned */
	int folded;
	uint64_t start_ns;		/* time 0 of the TSV's time_ns column */
	/*
	 * Frames renamed at the end (deferred naming, callchain.h): frame
	 * id -> the id written instead, for ids below nrename; NULL: none.
	 * Owned (freed by release). Folded output is written with it; a TSV
	 * file is rewritten with it by prof_sample_writer_rename_file().
	 */
	uint32_t *rename;
	size_t nrename;
	/*
	 * Metadata learnt at the end ("# key=value ...\n", set by the
	 * caller): a TSV file's rewrite adds the line after its own
	 * metadata (a later pair wins, prof-formats.5). Owned.
	 */
	struct prof_buf late_meta;
	/* private */
	struct prof_buf line;
	struct prof_intern ids;		/* TSV: (stack, addresses) keys -> the TSV's stack_id */
	struct prof_buf key;
	/* TSV: mappings (start, offset, build-id, path) -> index; the ids
	 * each column numbers them with, in its order of first use
	 * (UINT32_MAX: not named there yet) */
	struct prof_intern maps;
	uint32_t *map_col_id, *addrs_col_id;
	size_t map_ids_cap;
	uint32_t map_col_next, addrs_col_next;
};

/* Initialise; out and stacks are borrowed. */
void prof_sample_writer_init(struct prof_sample_writer *w, struct prof_output *out,
			     struct prof_stacks *stacks, int folded);

/* Free its buffers (not out or stacks). */
void prof_sample_writer_release(struct prof_sample_writer *w);

/*
 * Start the output: TSV gets meta's "# key=value" line and the column
 * header, flushed so that even a recording without samples is a valid
 * file; folded output has nothing to write yet. Returns 0 or -1 (write
 * error, reported by the output).
 */
int prof_sample_writer_begin(struct prof_sample_writer *w, const struct prof_meta *meta);

/* Write a TSV row, or add row->weight to the stack's first weight column. */
void prof_sample_writer_add(struct prof_sample_writer *w, const struct prof_sample_row *row);

/*
 * Start over on out, the next file of a rotating recording (rotate.h),
 * whose time 0 is start_ns: every stack's and mapping's text is written
 * again at its first use, and folded weights start again from zero, so
 * that each file is complete in itself. Call prof_sample_writer_begin()
 * next.
 */
void prof_sample_writer_restart(struct prof_sample_writer *w, struct prof_output *out,
				uint64_t start_ns);

/*
 * End the output: folded output writes the table (meta's line first
 * unless meta is NULL), without the stacks of weight 0 (met in an
 * earlier file of a rotation, or off-CPU switches whose thread never ran
 * again); TSV has written everything. Returns 0 or -1
 * (write error, reported). The caller closes the output.
 */
int prof_sample_writer_finish(struct prof_sample_writer *w, const struct prof_meta *meta);

/*
 * Rewrite the TSV file path (closed; compressed as its suffix says),
 * atomically, with w->rename applied to every stack's text (frame by
 * frame, found by name: the file's stack ids are not looked at): how
 * frames named only at the end of the recording get their names in a
 * file streamed while they had none; w->late_meta is added to its
 * metadata. Returns 0 (also when there is nothing to
 * rename), or -1 after reporting (the file is left as it was).
 */
int prof_sample_writer_rename_file(struct prof_sample_writer *w, const char *path);

#endif
