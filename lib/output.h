#ifndef PROF_OUTPUT_H
#define PROF_OUTPUT_H
/*
 * Writing output files, optionally compressed.
 *
 * Two modes, following who writes:
 *  - PROF_OUT_ATOMIC (batch tools: proffold, profflame, profcompress ...):
 *    data goes to a temporary file in the destination's directory that is
 *    renamed over the destination by prof_output_close() only when every
 *    write succeeded, so there is never a half-written file.
 *  - PROF_OUT_STREAM (recorders: profrec, profheap, profgpu): data goes to
 *    the final name as it comes; prof_output_flush() pushes it (and ends a
 *    compressed frame/block) so an interrupted run keeps everything up to
 *    the last flush, readable by prof_input (a truncated last frame is
 *    reported and everything before it kept).
 *
 * A NULL or "-" path means stdout (always streamed). Compression is
 * chosen by PROF_COMP_* or, with prof_compression_from_suffix(), by the
 * name: ".gz", ".zst", ".lz4". Write errors are remembered and reported
 * once; a closed pipe (EPIPE) on stdout fails the write quietly, without a message.
 */
#include <stdarg.h>
#include <stddef.h>
#include "error.h"
#include "input.h"

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

/* Bytes written to the file so far (after compression). */
unsigned long long prof_output_bytes(const struct prof_output *o);

/*
 * Finish: flush, end the compressed stream, close, and in ATOMIC mode
 * rename the temporary file over the destination. Frees o. Returns 0, or
 * -1 after reporting an error (in ATOMIC mode the temporary file is
 * removed and the destination left untouched).
 */
int prof_output_close(struct prof_output *o);

/* Give up: in ATOMIC mode remove the temporary file. Frees o. */
void prof_output_abort(struct prof_output *o);

#endif
