#ifndef PROF_CHUNK_H
#define PROF_CHUNK_H
/*
 * Reading an input in large blocks of whole lines, for parsers that walk
 * a buffer with memchr instead of asking for one line at a time, and for
 * splitting a big input between threads.
 *
 * A prof_chunks reader owns its prof_input. prof_chunks_next() returns a
 * malloc'ed block that ends at a boundary: after a newline (PROF_CHUNK_LINE)
 * or after a blank line, the end of a perf-script sample (PROF_CHUNK_BLANK).
 * The last block may end without one (an unterminated last line). Blocks
 * are handed over: the caller owns each one and gives it back with
 * prof_chunks_recycle() (or free()) when done, so a few buffers are reused
 * instead of faulting in fresh memory for every block.
 *
 * Read errors are reported by prof_input (input.h); the reader then
 * behaves as at end of input and prof_chunks_failed() is true. The last
 * line before such an error is incomplete: it is left out (and said),
 * never handed over.
 *
 * Lines are capped (io/input.h, prof_max_line()): a line over the cap is
 * reported with its file:line and ends the reading: the lines before it
 * are handed over (the block cut before it, marked last), it and the
 * rest of the input are never read. Its bytes are never held beyond the
 * cap, so a block stays within the cap and a few times the target size.
 * Counting lines for those messages costs one memchr pass over each
 * block.
 */
#include <stddef.h>

struct prof_input;

enum prof_chunk_boundary {
	PROF_CHUNK_LINE,	/* split after any newline */
	PROF_CHUNK_BLANK,	/* split after an empty line ("\n\n") */
};

struct prof_chunks;

/*
 * A reader over in (ownership taken) producing blocks of about target
 * bytes (more when a single line or sample is longer).
 */
struct prof_chunks *prof_chunks_open(struct prof_input *in, size_t target);

/*
 * Look at the first bytes of the input without consuming them: buffers
 * at least want bytes (fewer at end of input) and returns a pointer to
 * them, their number in *len. Valid until the next call on the reader.
 */
const char *prof_chunks_peek(struct prof_chunks *r, size_t want, size_t *len);

/*
 * The next block, ending at a boundary of the given kind, or NULL at end
 * of input. *len is its length; *last is set when it is the final block.
 * The caller owns the block (see prof_chunks_recycle).
 */
char *prof_chunks_next(struct prof_chunks *r, enum prof_chunk_boundary kind,
		       size_t *len, int *last);

/*
 * The largest input held whole by prof_chunks_read_all() callers (a JSON
 * document): 1 GiB, far above any real profile in such a format (parsing
 * one costs several times its size) yet a bound, so a runaway input fails
 * instead of taking the machine.
 */
#define PROF_MAX_DOCUMENT ((size_t)1 << 30)

/*
 * The rest of the input whole, in one malloc'ed NUL-terminated buffer (its
 * length in *len), for formats that are not lines (JSON) or whose records
 * span the input: lines are neither split nor capped (the cap above would
 * drop a one-line JSON document of more than 16 MiB). Bytes peeked come
 * first. At most max bytes: a longer input is reported as "prog: name:
 * larger than MAX bytes" and NULL returned, having held no more than
 * max + 64 KiB, or nothing read when the input is a plain file whose
 * size says so (io/input.h, prof_input_size_left()). On a read error,
 * what came before it (prof_chunks_failed() says so). The reader is then at end of input. The caller frees.
 */
char *prof_chunks_read_all(struct prof_chunks *r, size_t max, size_t *len);

/* Give a block back for reuse (thread-safe; NULL is ignored). */
void prof_chunks_recycle(struct prof_chunks *r, char *block);

/* The input's display name. */
const char *prof_chunks_name(const struct prof_chunks *r);

/* Nonzero if reading stopped on an error (already reported). */
int prof_chunks_failed(const struct prof_chunks *r);

/*
 * The number of lines handed over empty so far for being over the cap
 * (each reported). A reader that returns a status fails when it is nonzero.
 */
unsigned long prof_chunks_too_long(const struct prof_chunks *r);

/* Close the input and free the reader (blocks not yet given back stay valid). */
void prof_chunks_close(struct prof_chunks *r);

#endif
