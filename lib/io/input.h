#ifndef PROF_INPUT_H
#define PROF_INPUT_H
/*
 * Reading input files, compressed or not, and splitting them into lines.
 *
 * prof_input reads bytes from a file or stdin and transparently
 * decompresses gzip, zstd and lz4-frame data, recognised by magic number
 * (never by file name), so every tool reads compressed profiles.
 *
 * prof_lines splits any prof_input (or a memory buffer) into lines of any
 * length without a per-line allocation: the returned pointer stays valid
 * until the next call. Lines may contain NUL bytes; use the length.
 *
 * Lines are capped: neither prof_lines nor io/chunk.h's blocks hand over a
 * line longer than prof_max_line() bytes: PROF_MAX_LINE_DEFAULT (16 MiB),
 * or the size in the environment variable PROFTOOLS_MAX_LINE ("64M"), one
 * setting for every reader of every tool. Such a line is reported as
 * "prog: file:line: line longer than N bytes" and reading stops there:
 * the lines before it are handed over, it and the rest of the input are
 * never read (issue 25: reading on to its newline never ended on
 * /dev/zero), so memory stays bounded by the cap and time by the bytes
 * up to the cap. 16 MiB is far
 * above any line a profile holds (a folded stack 10,000 frames deep with
 * 200-byte C++ names is 2 MB) and small enough to hold at once.
 *
 * Errors (open failure, read error, corrupt or truncated compressed
 * stream) are reported once on stderr as "prog: name: problem" by these
 * functions themselves; callers only test the result and set their exit
 * status to 1. Everything decoded before the error is still delivered.
 */
#include <stddef.h>
#include <sys/types.h>

enum prof_compression {
	PROF_COMP_NONE = 0,
	PROF_COMP_GZIP,
	PROF_COMP_ZSTD,
	PROF_COMP_LZ4,
};

/* "none", "gzip", "zstd", "lz4". */
const char *prof_compression_name(enum prof_compression c);

struct prof_input;

#define PROF_MAX_LINE_DEFAULT ((size_t)16 << 20)

/*
 * The longest line handed over, in bytes without its newline. Read from
 * PROFTOOLS_MAX_LINE on the first call (a size, base/units.h: "64M"); a
 * value that is not a size of at least 1 byte is warned about once and
 * the default kept.
 */
size_t prof_max_line(void);

/*
 * Change the cap for every reader opened from now on, over the
 * environment (tests; not thread-safe); 0 goes back to the environment.
 */
void prof_set_max_line(size_t bytes);

/*
 * Open path for reading; NULL or "-" means stdin (named "<stdin>").
 * Returns NULL after reporting "prog: path: strerror" if it cannot be
 * opened. Compression is detected on the first read.
 */
struct prof_input *prof_input_open(const char *path);

/*
 * Open path read-only (close-on-exec) only if it is a regular file, for
 * a file a tool reads whole, maps or seeks in by the name it was given
 * (an ELF object named by a recording, a file of a run directory): a
 * FIFO would block the open and then the read, a device such as
 * /dev/zero never ends, and neither can be what such a name means. The
 * open never blocks (O_NONBLOCK, cleared once the file is known to be
 * regular). Returns the descriptor, or -1 with err (errlen bytes, cut)
 * holding why: strerror(errno), or "not a regular file (a FIFO)" and the
 * like (errno EINVAL then); nothing is reported, the caller names path.
 */
int prof_open_regular(const char *path, char *err, size_t errlen);

/*
 * The checks of prof_open_regular() on fd, a descriptor opened read-only
 * with O_NONBLOCK (by openat2(2) under a directory, say): fd itself
 * (blocking again) when it is a regular file, else -1 with err and errno
 * as prof_open_regular() sets them, fd closed.
 */
int prof_regular_fd(int fd, char *err, size_t errlen);

/*
 * Whether path is a regular file, by stat(2), which never blocks: 0 if it
 * is, -1 with err holding why as prof_open_regular() says it. For a
 * caller that opens the file later through another reader.
 */
int prof_check_regular(const char *path, char *err, size_t errlen);

/*
 * Read up to n decompressed bytes. Returns the count, 0 at end of input,
 * or -1 after an error (already reported; prof_input_failed() is then
 * true and further reads return 0).
 */
ssize_t prof_input_read(struct prof_input *in, void *buf, size_t n);

/*
 * The bytes left to read when that is known before reading them: an
 * uncompressed regular file (fstat(2)'s size less what was read), after
 * the first read; -1 otherwise (a pipe, compressed data, memory). Lets a
 * reader refuse an input over its cap before holding any of it.
 */
long long prof_input_size_left(const struct prof_input *in);

/* Detected compression (valid after the first read). */
enum prof_compression prof_input_compression(const struct prof_input *in);

/* The display name given at open ("<stdin>" for stdin). */
const char *prof_input_name(const struct prof_input *in);

/* Nonzero once a read or decompression error has been reported. */
int prof_input_failed(const struct prof_input *in);

/* Close and free; NULL is ignored. */
void prof_input_close(struct prof_input *in);

/*
 * Read a whole input into memory (decompressed). Returns a NUL-terminated
 * malloc'ed buffer and its length in *len, or NULL after reporting an
 * error (a partial read still returns NULL). The caller frees. Only for
 * inputs the user sized on purpose (profcompress's benchmark file): a
 * file read for its lines goes through prof_lines, one embedded whole
 * through prof_read_file_max().
 */
char *prof_read_file(const char *path, size_t *len);

/*
 * prof_read_file() holding at most max bytes: a larger input (after
 * decompression) is reported as "prog: path: larger than MAX bytes" and
 * NULL returned, having held no more than max + 64 KiB at any time.
 */
char *prof_read_file_max(const char *path, size_t max, size_t *len);

/*
 * Copy standard input to a new temporary file (mkstemp under $TMPDIR or
 * /tmp), for a tool that must read an input twice (sniff, then read).
 * Returns its malloc'ed path, removed at exit; dies on error (a full
 * disk is not worth going on with). A line longer than prof_max_line()
 * is copied to one byte over the cap, which the reader then reports, and
 * the copy ends there, as the reader's reading would.
 */
char *prof_spool_stdin(void);

/*
 * prof_spool_stdin() for any input that cannot be read twice by its
 * name: path ("-" for standard input) is read once, as a stream, into a
 * temporary file whose path is returned (removed at exit). For a pipe
 * of the shell's <(...) (/dev/fd/N), a FIFO (its open waits for a
 * writer, as cat's does) or a socket. A device or a directory is
 * refused ("prog: path: not a regular file, pipe or socket (a character
 * device)": /dev/zero would never end, /dev/null holds no data) and NULL
 * returned, as after a failed open (reported); prof_spool_stdin() exits
 * 1 there instead.
 */
char *prof_spool_input(const char *path);

/*
 * path itself when it names a regular file, which can be read twice
 * (sniffed, then read); else prof_spool_input(path)'s copy ("-",
 * <(...), a FIFO). NULL after reporting (a missing file, a device).
 */
const char *prof_input_rereadable(const char *path);

/* "<stdin>" for NULL or "-", the name of what a path prof_spool_input()
 * returned copies ("<stdin>" for standard input), else path: the name
 * messages and metadata give the input. */
const char *prof_input_display_name(const char *path);

struct prof_lines;

/* Open a line reader on a path (see prof_input_open); NULL on error. */
struct prof_lines *prof_lines_open(const char *path);

/* Line reader over an open input; takes ownership of in. */
struct prof_lines *prof_lines_from_input(struct prof_input *in);

/*
 * Line reader over memory (not copied: data must outlive the reader);
 * name is used in messages.
 */
struct prof_lines *prof_lines_from_mem(const char *name, const char *data, size_t len);

/*
 * The next line, without its "\n" (and without a "\r" before it), NUL-
 * terminated in place; its length in *len. A last line without a final
 * newline is returned too. NULL at end of input or after an error
 * (check prof_lines_failed()). The line may be modified by the caller
 * up to its length; it is valid until the next call.
 */
char *prof_lines_next(struct prof_lines *lr, size_t *len);

/* Number of the line last returned (1-based; 0 before the first). */
unsigned long prof_lines_lineno(const struct prof_lines *lr);

/* The input's display name. */
const char *prof_lines_name(const struct prof_lines *lr);

/* Nonzero if reading stopped on an error (already reported). */
int prof_lines_failed(const struct prof_lines *lr);

/*
 * The number of lines over the cap met (reported; 1 at most, as reading
 * stops at it). A reader that returns a status fails when it is nonzero.
 */
unsigned long prof_lines_too_long(const struct prof_lines *lr);

/* Nonzero if the last line returned had no terminating newline. */
int prof_lines_unterminated(const struct prof_lines *lr);

/* Close and free (closing the input); NULL is ignored. */
void prof_lines_close(struct prof_lines *lr);

#endif
