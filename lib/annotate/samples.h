#ifndef PROF_ANNOTATE_SAMPLES_H
#define PROF_ANNOTATE_SAMPLES_H
/*
 * The sampled instruction addresses of a profrec recording (the ip,
 * map_id and map columns of profrec-samples TSV, prof-formats.5) or of
 * perf script text, as counts per (file, file offset): what profannotate
 * annotates. Rows of
 * other events than the first one, without an ip, or outside file
 * mappings (kernel, JIT) are counted apart.
 */
#include <stddef.h>
#include <stdint.h>

/* A file the recording's samples fall in. */
struct prof_ann_file {
	char *path;
	char *build_id;			/* lower-case hex, or NULL (not recorded) */
	uint64_t start, pgoff;		/* its first mapping: run time = off - pgoff + start */
	unsigned long samples;
};

/* The samples at one offset of one file. */
struct prof_ann_hit {
	uint32_t file;			/* index in files */
	uint64_t off;			/* file offset of the instruction */
	unsigned long count;
};

struct prof_ann_samples {
	struct prof_ann_file *files;
	size_t nfiles;
	struct prof_ann_hit *hits;	/* sorted by file, then offset; offsets distinct */
	size_t nhits;
	char *event;			/* the event counted (malloc'ed; NULL: not printed) */
	unsigned long rows, counted, no_ip, outside_files, other_events;
};

/*
 * Read path (profrec TSV, else perf script text, samples_perf.c says
 * how its addresses are placed; compressed inputs too, io/input.h; "-"
 * is stdin) into *s. Returns 0; -1 after reporting "prog: path[:line]:
 * why" (unreadable, a recording without the ip column, malformed rows,
 * neither format, perf script text without the ip or dso field).
 */
int prof_ann_samples_read(const char *path, struct prof_ann_samples *s);

/* Free what *s holds. */
void prof_ann_samples_release(struct prof_ann_samples *s);

#endif
