#ifndef PROF_OUTPUT_H
#define PROF_OUTPUT_H
/*
 * Writing output files, optionally compressed.
 *
 * What is at the path decides how it is written:
 *  - a regular file or a new name: the data goes to a temporary file
 *    ".NAME.XXXXXX" beside it, renamed over it by prof_output_close() only
 *    when every write succeeded, so a failed or aborted run never leaves a
 *    half-written file and never clobbers an old one. The new file keeps
 *    the old one's mode, owner and group (owner and group as far as we may
 *    set them; set-id bits are dropped when they could not be kept); a new
 *    one gets 0666 less the umask. A hard link is replaced like any file:
 *    its other names keep the old contents (as perf, git and sed -i do).
 *    When the directory is not writable an existing file is written in
 *    place instead.
 *  - a symbolic link: followed to its final target (created when
 *    dangling), which is replaced as above; the link stays a link.
 *  - anything else (character or block device, FIFO, an open file named
 *    through /proc such as /dev/fd/N) is opened and written in place;
 *    /dev/stdout, "-" and NULL are standard output itself.
 * A directory or an unopenable target fails at open.
 *
 * Two modes, following who writes:
 *  - PROF_OUT_ATOMIC (batch tools: proffold, profflame, profcompress ...).
 *  - PROF_OUT_STREAM (recorders: profrec, profheap, profgpu): the same
 *    temporary file and rename at close (a recorder closes normally after
 *    SIGINT/SIGTERM, so an interrupted run keeps its data); the buffer
 *    passes on only whole lines when it fills, and prof_output_flush()
 *    pushes it (ending a compressed frame/block), so standard output and
 *    a temporary file left by a killed run end at a record boundary as
 *    long as the tool flushes between records.
 *
 * Compression is chosen by PROF_COMP_* or, with
 * prof_compression_from_suffix(), by the name: ".gz", ".zst", ".lz4".
 * Write errors (ENOSPC, EIO, EFBIG, /dev/full) are remembered and reported
 * once as "prog: path: strerror"; then close returns -1 and removes the
 * temporary file. A closed pipe (EPIPE) on stdout fails the write quietly,
 * without a message.
 */
#include <stdarg.h>
#include <stddef.h>
#include "base/error.h"
#include "io/input.h"

enum prof_out_mode {
	PROF_OUT_ATOMIC,
	PROF_OUT_STREAM,
};

struct prof_output;

/*
 * Open path for writing. Returns NULL after reporting
 * "prog: path: strerror" when it cannot be created.
 */
struct prof_output *prof_output_open(const char *path, enum prof_out_mode mode,
				     enum prof_compression comp);

/* Compression implied by a file name's suffix (PROF_COMP_NONE if none). */
enum prof_compression prof_compression_from_suffix(const char *path);

/*
 * Parse a compression name: "none", "gz"/"gzip", "zst"/"zstd", "lz4".
 * Returns 0 and sets *c, or -1 if unknown.
 */
int prof_compression_parse(const char *name, enum prof_compression *c);

/* Buffered write; returns 0, or -1 once an error was reported. */
int prof_output_write(struct prof_output *o, const void *p, size_t n);
int prof_output_puts(struct prof_output *o, const char *s);
int prof_output_printf(struct prof_output *o, const char *fmt, ...) PROF_PRINTF(2, 3);
int prof_output_vprintf(struct prof_output *o, const char *fmt, va_list ap);

/*
 * Push buffered data to the file descriptor; for compressed output end
 * the current frame so a reader can decode everything up to here.
 * Returns 0 or -1 (reported).
 */
int prof_output_flush(struct prof_output *o);

/* The display name ("<stdout>" for stdout). */
const char *prof_output_name(const struct prof_output *o);

/*
 * 1 when the output failed because its reader went away (EPIPE: "| head"
 * read what it wanted): a recorder then stops as if interrupted.
 */
int prof_output_broken_pipe(const struct prof_output *o);

/*
 * 1 when the data goes to a temporary file renamed over the destination
 * at close (a regular file or a new name): one a tool may rewrite after
 * closing it (prof_output_prepend()), as it may not a pipe or a device.
 */
int prof_output_replaces(const struct prof_output *o);

/* Bytes written to the file so far (after compression). */
unsigned long long prof_output_bytes(const struct prof_output *o);

/*
 * Finish: flush, end the compressed stream, close, and rename the
 * temporary file (if any) over the destination. Frees o. Returns 0, or -1
 * after reporting an error (the temporary file is removed and the
 * destination left untouched).
 */
int prof_output_close(struct prof_output *o);

/* Give up: remove the temporary file, leaving the destination as it was. Frees o. */
void prof_output_abort(struct prof_output *o);

/*
 * Rewrite the file path (compressed as its suffix says) with text before
 * what it holds, atomically: how a recorder adds a metadata line it
 * learnt only at the end (a run cut short) to a file it streamed.
 * Returns 0, or -1 after reporting (the file is left as it was).
 */
int prof_output_prepend(const char *path, const char *text);

#endif
