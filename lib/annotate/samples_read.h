#ifndef PROF_ANNOTATE_SAMPLES_READ_H
#define PROF_ANNOTATE_SAMPLES_READ_H
/*
 * Private to the readers of samples.h: samples.c (profrec TSV, and the
 * dispatch) and samples_perf.c (perf script text) fill one struct
 * prof_ann_samples through these.
 */
#include <stddef.h>
#include <stdint.h>
#include "annotate/samples.h"
#include "base/hashmap.h"

struct prof_lines;

/*
 * The index in s->files of path with build_id (NULL: not known), added
 * with its first mapping start, pgoff when absent; *cap is the files'
 * capacity (PROF_GROW).
 */
size_t prof_ann_file_index(struct prof_ann_samples *s, size_t *cap, const char *path,
			   const char *build_id, uint64_t start, uint64_t pgoff);

/* Where each (file, offset) is in s->hits while reading; zeroed at first. */
struct prof_ann_hit_index {
	struct prof_hashmap at;		/* (file, offset) -> index in s->hits */
	size_t cap;			/* capacity of s->hits (PROF_GROW) */
};

/*
 * One sample at file offset off of file: its hit counted, or added. The
 * hits of one offset are counted as they come, so a million samples
 * leave only as many hits as distinct offsets to sort.
 */
void prof_ann_hit_add(struct prof_ann_samples *s, struct prof_ann_hit_index *ix, uint32_t file,
		      uint64_t off);

/* Free the index (not the hits). */
void prof_ann_hit_index_release(struct prof_ann_hit_index *ix);

/* Sort the hits by file and offset and merge those of one offset. */
void prof_ann_hits_merge(struct prof_ann_samples *s);

/*
 * Read the rest of lr as `perf script` text into s (zeroed), line[0..len)
 * being its first line that is neither empty nor a comment (NULL: none),
 * after_blank set when an empty line came before it. Returns 0, or -1
 * after reporting "prog: input: why" (not perf script text, no ip field,
 * no sample placed).
 */
int prof_ann_perf_read(struct prof_lines *lr, char *line, size_t len, int after_blank,
		       struct prof_ann_samples *s);

#endif
