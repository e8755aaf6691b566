#ifndef PROF_RECORD_ROTATE_H
#define PROF_RECORD_ROTATE_H
/*
 * Continuous recording (profrec --rotate): one profile file per interval
 * of a recording, written into a directory, with bounded disk use.
 *
 * Intervals are aligned on the UTC clock: with an interval of I seconds
 * they end at the multiples of I since the Unix epoch (60: every minute
 * at :00), so the files of several hosts cover the same minutes; the
 * first interval runs from the start of the recording to the first
 * boundary, the last one to its end. The clock read at the start maps
 * CLOCK_MONOTONIC, the clock of every record (perfevent.h), to UTC; the
 * boundaries are monotonic times from then on (a clock step changes no
 * interval).
 *
 * Each record goes to exactly one interval, chosen by its timestamp
 * (records reach the recorder in timestamp order): the interval
 * [from, until) that holds it. Off-CPU spans are written when the thread
 * runs again and go to the interval of that moment.
 *
 * A file is named after the UTC second its interval starts,
 * "profrec-YYYYMMDDTHHMMSSZ.tsv" (".folded" with --folded), is complete
 * in itself (every stack's and mapping's text is written again at its
 * first use in each file, folded weights count that interval only), and
 * carries in its metadata line (prof-formats.5) the recording's keys with
 * start_time set to the interval's start and from / until, the
 * interval's bounds in Unix seconds with three decimals. While an
 * interval is recorded its file is ".NAME" (hidden); it gets its name,
 * by rename(2), only once complete. The last interval, cut short by the
 * end of the recording, gets its real end: a TSV file, whose metadata
 * line was written first, is then copied once with the corrected line.
 *
 * After each finished interval the oldest interval files of the
 * directory (any "profrec-YYYYMMDDTHHMMSSZ.*", also of earlier runs) are
 * deleted while there are more than keep or they hold more than
 * max_bytes together; the newest is always kept.
 */
#include <stdint.h>

#include "core/meta.h"

struct prof_output;
struct prof_sample_writer;

struct prof_rotate_options {
	const char *dir;		/* where the files go (created when missing) */
	unsigned interval_s;		/* interval length in whole seconds; 0: no rotation */
	uint64_t keep;			/* most interval files kept (0: no limit) */
	uint64_t max_bytes;		/* most bytes they hold together (0: no limit) */
};

/*
 * Parse the value of option name ("rotate": a duration of whole seconds,
 * at least 1 s; "keep": a positive count; "max-bytes": a positive size,
 * prof_parse_size()) into o. Returns NULL, or what is wrong (a static
 * string for a usage error).
 */
const char *prof_rotate_option(struct prof_rotate_options *o, const char *name, const char *arg);

/*
 * Check the options of a recording writing to output (-o; NULL for
 * standard output): --keep and --max-bytes need --rotate, which needs
 * -o DIR and metadata (no --no-header). Sets o->dir. Returns NULL or
 * what is wrong.
 */
const char *prof_rotate_check(struct prof_rotate_options *o, const char *output, int no_header);

/* A rotating recording's state. Callers read the counts. */
struct prof_rotation {
	struct prof_rotate_options opt;
	unsigned long long files;	/* interval files written */
	unsigned long long bytes;	/* their bytes */
	unsigned long long failed;	/* intervals that could not be written */
	uint64_t from_ns, until_ns;	/* the open interval, CLOCK_MONOTONIC ns */
	/* private */
	const char *suffix;		/* "tsv" or "folded" */
	int folded;
	int64_t wall_minus_mono;	/* CLOCK_REALTIME - CLOCK_MONOTONIC, ns */
	struct prof_meta meta;		/* the recording's, with the interval's times */
	struct prof_output *out;	/* the open interval's hidden file */
	char *stage, *name;		/* its paths: DIR/.NAME and DIR/NAME */
	int lock_fd;			/* DIR/.profrec.lock, held (flock) */
	char *lock_path;
	char describe[96];
};

/*
 * A rotation into o->dir (created with mode 0777 less the umask when
 * missing), folded files or TSV. The directory is locked for the
 * rotation's life (flock(2) on DIR/.profrec.lock, which holds the
 * recorder's pid and is removed by prof_rotation_free()): a second
 * recorder into it is refused.
 * Returns NULL after reporting "prog: DIR: strerror" when the directory
 * cannot be made or written, or "prog: DIR: another recorder (pid N) is
 * writing its intervals here ..." when it is locked.
 * Free with prof_rotation_free().
 */
struct prof_rotation *prof_rotation_new(const struct prof_rotate_options *o, int folded);

/* Remove an open interval's hidden file and free rot (NULL is fine). */
void prof_rotation_free(struct prof_rotation *rot);

/*
 * Open the first interval, starting at start_ns (CLOCK_MONOTONIC): its
 * file gets w's output (prof_sample_writer_restart()) and meta's keys
 * (copied) with the interval's. Returns 0, or -1 when the file could not
 * be made (reported; the interval's records are then dropped, the
 * recording goes on).
 */
int prof_rotation_begin(struct prof_rotation *rot, struct prof_sample_writer *w,
			const struct prof_meta *meta, uint64_t start_ns);

/*
 * Finish every interval that ends at or before time_ns and open the next
 * one (an interval without records is a file without samples): called
 * with each record's time before the record is written, and by the loop
 * with a time before which no record can come any more.
 */
void prof_rotation_advance(struct prof_rotation *rot, struct prof_sample_writer *w,
			   uint64_t time_ns);

/*
 * End the recording at end_ns: finish the intervals before it and the
 * last one, until end_ns. Returns 0, or -1 when any interval could not
 * be written (each reported).
 */
int prof_rotation_finish(struct prof_rotation *rot, struct prof_sample_writer *w,
			 uint64_t end_ns);

/* "N files in DIR" for the summary; valid until the next call. */
const char *prof_rotation_describe(struct prof_rotation *rot);

#endif
