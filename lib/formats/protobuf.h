#ifndef PROF_PROTOBUF_H
#define PROF_PROTOBUF_H
/*
 * The protocol buffers wire format, as much as pprof's profile.proto
 * needs (formats/pprof.h): varints, length-delimited fields (strings,
 * bytes, nested messages, packed repeated integers) and skipping the
 * fixed-width ones. No schema, no reflection, no dependency: a writer
 * appends fields to a prof_buf, a reader walks fields over bytes it does
 * not own.
 *
 * Encoding (https://protobuf.dev/programming-guides/encoding/): a field
 * is a tag varint (field number << 3 | wire type) and a payload: a varint
 * (wire type 0), 8 bytes (1), a length varint and that many bytes (2), or
 * 4 bytes (5). Wire types 3 and 4 (groups) are refused by the reader.
 * int64 values are varints of their two's complement (10 bytes when
 * negative), as protobuf's int64 (not sint64) encodes them.
 *
 * Reader errors carry the byte offset of what is wrong, counted from
 * the start of the outermost message (base below), so a caller can say
 * "file: byte 1234: truncated varint".
 */
#include <stddef.h>
#include <stdint.h>

struct prof_buf;

enum prof_pb_wire {
	PROF_PB_VARINT = 0,
	PROF_PB_I64 = 1,
	PROF_PB_LEN = 2,
	PROF_PB_I32 = 5,
};

/* ---- writing ------------------------------------------------------------ */

/* Append v as a varint (1 to 10 bytes). */
void prof_pb_put_varint(struct prof_buf *b, uint64_t v);

/* Append a varint field: tag (field, wire type 0) and v. */
void prof_pb_put_uint(struct prof_buf *b, uint32_t field, uint64_t v);

/* Append an int64 field (negative values take 10 bytes). */
static inline void prof_pb_put_int(struct prof_buf *b, uint32_t field, int64_t v)
{
	prof_pb_put_uint(b, field, (uint64_t)v);
}

/* Append a length-delimited field: tag, n, then p[0..n). */
void prof_pb_put_bytes(struct prof_buf *b, uint32_t field, const void *p, size_t n);

/* Append a packed repeated varint field of v[0..n) (nothing when n is 0). */
void prof_pb_put_packed(struct prof_buf *b, uint32_t field, const uint64_t *v, size_t n);

/* ---- reading ------------------------------------------------------------ */

/* A walk over the fields of one message: data[pos..end). */
struct prof_pb_reader {
	const unsigned char *data;
	size_t pos, end;
	size_t base;		/* offset of data[0] in the outermost message */
	const char *error;	/* after a failed call: what was wrong */
	size_t error_at;	/* and its offset (outermost message terms) */
};

/* One field as read. */
struct prof_pb_field {
	uint32_t number;
	enum prof_pb_wire wire;
	uint64_t value;			/* VARINT, I64, I32 */
	const unsigned char *bytes;	/* LEN: the payload, */
	size_t len;			/* its length */
	size_t offset;			/* LEN: offset of the payload, else of the
					 * field's tag (outermost terms) */
};

/* A reader over p[0..n), the outermost message (offsets count from p). */
void prof_pb_reader_init(struct prof_pb_reader *r, const void *p, size_t n);

/*
 * Read a varint at data[*pos..end) into *v, advancing *pos. Returns 0, or
 * -1 when it runs past end ("truncated varint") or past 10 bytes ("varint
 * too long"), with r's error and error_at set.
 */
int prof_pb_read_varint(struct prof_pb_reader *r, uint64_t *v);

/*
 * The next field of r into *f. Returns 1, 0 at the end of the message,
 * or -1 (error and error_at set): a truncated tag, value or payload, a
 * field number 0, a group or unknown wire type.
 */
int prof_pb_next(struct prof_pb_reader *r, struct prof_pb_field *f);

/* A reader over the payload of length-delimited field f (offsets kept). */
void prof_pb_reader_sub(const struct prof_pb_field *f, struct prof_pb_reader *sub);

/*
 * Repeated varints: a packed field (LEN) holds several, an unpacked one
 * (VARINT) one; both forms are valid for the same field. Calls add(ctx,
 * value) for each. Returns 0, or -1 with r's error set (a truncated
 * varint inside the packed payload, or another wire type).
 */
int prof_pb_repeated(struct prof_pb_reader *r, const struct prof_pb_field *f,
		     void (*add)(void *ctx, uint64_t v), void *ctx);

#endif
