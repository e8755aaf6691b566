#include <string.h>
#include "base/buf.h"
#include "formats/protobuf.h"

void prof_pb_put_varint(struct prof_buf *b, uint64_t v)
{
	unsigned char tmp[10];
	size_t n = 0;

	while (v >= 0x80) {
		tmp[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	tmp[n++] = (unsigned char)v;
	prof_buf_add(b, tmp, n);
}

void prof_pb_put_uint(struct prof_buf *b, uint32_t field, uint64_t v)
{
	prof_pb_put_varint(b, (uint64_t)field << 3 | PROF_PB_VARINT);
	prof_pb_put_varint(b, v);
}

void prof_pb_put_bytes(struct prof_buf *b, uint32_t field, const void *p, size_t n)
{
	prof_pb_put_varint(b, (uint64_t)field << 3 | PROF_PB_LEN);
	prof_pb_put_varint(b, n);
	prof_buf_add(b, p, n);
}

/* Bytes of v as a varint. */
static size_t varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

void prof_pb_put_packed(struct prof_buf *b, uint32_t field, const uint64_t *v, size_t n)
{
	size_t i, len = 0;

	if (!n)
		return;
	for (i = 0; i < n; i++)
		len += varint_size(v[i]);
	prof_pb_put_varint(b, (uint64_t)field << 3 | PROF_PB_LEN);
	prof_pb_put_varint(b, len);
	for (i = 0; i < n; i++)
		prof_pb_put_varint(b, v[i]);
}

void prof_pb_reader_init(struct prof_pb_reader *r, const void *p, size_t n)
{
	memset(r, 0, sizeof(*r));
	r->data = p;
	r->end = n;
}

static int fail(struct prof_pb_reader *r, const char *what, size_t at)
{
	r->error = what;
	r->error_at = r->base + at;
	return -1;
}

int prof_pb_read_varint(struct prof_pb_reader *r, uint64_t *v)
{
	size_t start = r->pos, i;
	uint64_t x = 0;

	for (i = 0; i < 10; i++) {
		unsigned char c;

		if (r->pos >= r->end)
			return fail(r, "truncated varint", start);
		c = r->data[r->pos++];
		x |= (uint64_t)(c & 0x7f) << (7 * i);
		if (!(c & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return fail(r, "varint too long (more than 10 bytes)", start);
}

/* Read n little-endian bytes (4 or 8) into *v. */
static int read_fixed(struct prof_pb_reader *r, size_t n, uint64_t *v)
{
	size_t i;

	if (r->end - r->pos < n)
		return fail(r, n == 8 ? "truncated 64-bit value" : "truncated 32-bit value", r->pos);
	*v = 0;
	for (i = 0; i < n; i++)
		*v |= (uint64_t)r->data[r->pos + i] << (8 * i);
	r->pos += n;
	return 0;
}

int prof_pb_next(struct prof_pb_reader *r, struct prof_pb_field *f)
{
	size_t start = r->pos;
	uint64_t tag, len;

	if (r->pos >= r->end)
		return 0;
	if (prof_pb_read_varint(r, &tag) < 0)
		return -1;
	if (tag >> 3 == 0 || tag >> 3 > UINT32_MAX)
		return fail(r, "bad field number", start);
	f->number = (uint32_t)(tag >> 3);
	f->wire = (enum prof_pb_wire)(tag & 7);
	f->bytes = NULL;
	f->len = 0;
	f->value = 0;
	f->offset = r->base + start;
	switch (tag & 7) {
	case PROF_PB_VARINT:
		return prof_pb_read_varint(r, &f->value) < 0 ? -1 : 1;
	case PROF_PB_I64:
		return read_fixed(r, 8, &f->value) < 0 ? -1 : 1;
	case PROF_PB_I32:
		return read_fixed(r, 4, &f->value) < 0 ? -1 : 1;
	case PROF_PB_LEN:
		if (prof_pb_read_varint(r, &len) < 0)
			return -1;
		if (len > r->end - r->pos)
			return fail(r, "truncated length-delimited field (length runs past the end)",
				    start);
		f->bytes = r->data + r->pos;
		f->len = (size_t)len;
		f->offset = r->base + r->pos;
		r->pos += (size_t)len;
		return 1;
	default:
		return fail(r, "unsupported wire type (group or unknown)", start);
	}
}

void prof_pb_reader_sub(const struct prof_pb_field *f, struct prof_pb_reader *sub)
{
	prof_pb_reader_init(sub, f->bytes, f->len);
	sub->base = f->offset;
}

int prof_pb_repeated(struct prof_pb_reader *r, const struct prof_pb_field *f,
		     void (*add)(void *ctx, uint64_t v), void *ctx)
{
	struct prof_pb_reader sub;
	uint64_t v;

	if (f->wire == PROF_PB_VARINT) {
		add(ctx, f->value);
		return 0;
	}
	if (f->wire != PROF_PB_LEN)
		return fail(r, "repeated integer field of a wrong wire type", f->offset - r->base);
	prof_pb_reader_sub(f, &sub);
	while (sub.pos < sub.end) {
		if (prof_pb_read_varint(&sub, &v) < 0) {
			r->error = sub.error;
			r->error_at = sub.error_at;
			return -1;
		}
		add(ctx, v);
	}
	return 0;
}
