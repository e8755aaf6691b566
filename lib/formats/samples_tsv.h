#ifndef PROF_SAMPLES_TSV_H
#define PROF_SAMPLES_TSV_H
/*
 * The reader of profrec's sample TSV (schema "profrec-samples",
 * prof-formats.5) into a stack table, streaming block by block (chunk.h):
 * memory grows with the distinct stacks, not with the input. Tools read
 * profiles through formats/profile.h, which detects this format and
 * calls this reader.
 *
 *     # source=profrec event=cpu-clock unit=ns ...
 *     time_ns pid tid comm cpu event weight stack_id stack [ip map_id map [addrs]]
 *
 * (tabs; files of profrec before 0.4 stop after stack, before 0.5 after
 * map; ip, the sampled address in hex, the mapping and the addresses of
 * the other frames are not folded: read for on_address only.)
 * The stack (frames root first joined by ';') is written only on the
 * first row using its stack_id; later rows leave it empty. A row naming
 * an undefined id is an input error. A header line after rows starts a
 * new id namespace (concatenated files). The comm, spaces turned into
 * '_', becomes the root frame ("comm-PID", "comm-PID/TID" on request),
 * as in perf script folding. Only one event is folded: the filter given,
 * else the first event of the metadata's "event=a,b" list, else the
 * first row's (the others are counted).
 *
 * Malformed lines are reported ("prog: file:line: what", the first 10,
 * then a count), skipped, and make the read return -1; everything valid
 * is kept.
 */
#include <stddef.h>
#include <stdint.h>
#include "core/meta.h"
#include "core/stack.h"

struct prof_chunks;

/* A file mapping of a recording (its map column), for on_address. */
struct prof_samples_map {
	uint64_t start, pgoff;	/* where it is mapped, the file offset mapped there */
	const char *build_id;	/* hex, "" when unknown */
	const char *path;
};

/*
 * The addresses of a row's frames. Frames [first, first + n) of the
 * stack folded (after its root frames) have addr[i] (0: none) in
 * maps[i] (NULL: no file mapping), as recorded: a caller's is its
 * return address. The frames after them are the sampled ip's, in map
 * (the leaf alone in files without the addrs column: first is the
 * leaf's index, n 0).
 */
struct prof_samples_addrs {
	int has_ip;
	uint64_t ip;
	const struct prof_samples_map *map;
	size_t first, n;
	const uint64_t *addr;
	const struct prof_samples_map *const *maps;
};

struct prof_samples_opts {
	int include_pid;
	int include_tid;
	int counts;			/* weight 1 per row */
	const char *event_filter;	/* NULL or "": the first event */
	int time_window;
	uint64_t time_from_ns, time_to_ns;	/* time_ns range [from, to) */
	/* When set, called for every row folded, in input order, with the
	 * id of its stack in t and its weight (nw = 1). */
	void (*on_stack)(void *ctx, uint32_t id, const prof_weight *w, int nw);
	void *on_stack_ctx;
	/* When set, called likewise with the sample's time (profile.h's
	 * on_sample; -1: none). */
	void (*on_sample)(void *ctx, uint32_t id, prof_weight w, int64_t time_ns);
	void *on_sample_ctx;
	/* When set, called for every row folded with an address in a file
	 * mapping, its ip's or another frame's (map_id defined by an earlier
	 * or this row's map column, mappings of the addrs column by that
	 * column), with its stack's id and the addresses (valid during the
	 * call only). A malformed map or addrs column is an input error. */
	void (*on_address)(void *ctx, uint32_t id, const struct prof_samples_addrs *a);
	void *on_address_ctx;
};

struct prof_samples_stats {
	unsigned long rows;		/* sample rows read */
	unsigned long samples;		/* rows folded */
	unsigned long malformed;
	unsigned long outside_time;
	unsigned long other_samples;	/* rows of other events */
	int have_times;			/* rows of the event folded were read: */
	uint64_t time_min_ns, time_max_ns;	/* the span of their time_ns */
	char *event;			/* the event folded (malloc'ed) or NULL */
	char *others;			/* other event names, ", "-separated, or NULL */
};

/* Nonzero if the first data line of buf is the profrec-samples header. */
int prof_samples_detect(const char *buf, size_t len);

/*
 * Read profrec TSV from r into t; its "#" metadata goes into meta (may be
 * NULL). stats must be zeroed, except that stats->event (malloc'ed) may
 * name the event to fold, ahead of opts->event_filter (the event an
 * earlier input folded); release it with prof_samples_stats_release().
 * Returns 0, or -1 if some line was malformed (reported) or the input
 * failed.
 */
int prof_samples_read(struct prof_chunks *r, struct prof_stacks *t,
		      const struct prof_samples_opts *opts, struct prof_meta *meta,
		      struct prof_samples_stats *stats);

/* Free the strings of stats. */
void prof_samples_stats_release(struct prof_samples_stats *stats);

#endif
